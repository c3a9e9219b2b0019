//! Flattening errors: each model is wrong in one way and the message must say what, where
//! (file:line:col) and, where possible, how to fix it.

mod flatten_common;
use flatten_common::{assert_err, err};

#[test]
fn unknown_variable_with_suggestion_and_line() {
    assert_err(
        "model M\n  Real resistor;\nequation\n  rsistor = 1;\nend M;\n",
        None,
        &[
            "test.mo:4:3",
            "unknown name `rsistor`",
            "did you mean `resistor`?",
        ],
    );
}

#[test]
fn unknown_class_with_suggestion() {
    assert_err(
        "model Mass Real x = 1; end Mass;\nmodel M\n  Mas m;\nend M;\n",
        Some("M"),
        &["test.mo:3:3", "unknown class `Mas`", "did you mean `Mass`?"],
    );
}

#[test]
fn unknown_element_of_component() {
    assert_err(
        "model A Real xpos = 1; end A;\nmodel M\n  A a;\n  Real y = a.xps;\nend M;\n",
        Some("M"),
        &[
            "test.mo:4:14",
            "`a` has no element `xps`",
            "did you mean `xpos`?",
        ],
    );
}

#[test]
fn unknown_modifier_element() {
    assert_err(
        "model A parameter Real mass = 1; end A;\nmodel M\n  A a(mas = 2);\nend M;\n",
        Some("M"),
        &["`A` has no element `mas` to modify", "did you mean `mass`?"],
    );
}

#[test]
fn unknown_attribute() {
    assert_err(
        "model M\n  Real x(strat = 1) = 2;\nend M;\n",
        None,
        &[
            "`strat` is not an attribute of `x`",
            "did you mean `start`?",
        ],
    );
}

#[test]
fn partial_class_instantiated() {
    assert_err(
        "partial model Base Real x; end Base;\nmodel M\n  Base b;\nend M;\n",
        Some("M"),
        &[
            "test.mo:3:8",
            "cannot instantiate `Base`: it is declared `partial`",
        ],
    );
}

#[test]
fn partial_model_selected() {
    assert_err(
        "partial model Base Real x; end Base;\n",
        Some("Base"),
        &["cannot instantiate `Base`", "partial"],
    );
}

#[test]
fn modifying_final_element() {
    assert_err(
        "model A final parameter Real k = 1; end A;\nmodel M\n  A a(k = 2);\nend M;\n",
        Some("M"),
        &["test.mo:3:7", "cannot modify `k`: it is declared `final`"],
    );
}

#[test]
fn modifying_final_modifier() {
    assert_err(
        "model A parameter Real k = 1; end A;\nmodel B A a(final k = 3); end B;\nmodel M\n  B b(a(k = 2));\nend M;\n",
        Some("M"),
        &["cannot modify `a.k`", "final"],
    );
}

#[test]
fn incompatible_redeclare_is_reported() {
    assert_err(
        r#"
partial model Law input Real v; output Real f; end Law;
model Viscous extends Law; equation f = v; end Viscous;
model NotALaw Real q = 1; end NotALaw;
model Slider replaceable model L = Viscous constrainedby Law; L law(v = 1); end Slider;
model M Slider s(redeclare model L = NotALaw); end M;
"#,
        Some("M"),
        &[
            "redeclaration of `L` is not compatible",
            "has no component `v`",
            "the constraining class",
        ],
    );
}

#[test]
fn redeclare_of_non_replaceable() {
    assert_err(
        r#"
model A Real x = 1; end A;
model B Real x = 2; end B;
model H model C = A; C c; end H;
model M H h(redeclare model C = B); end M;
"#,
        Some("M"),
        &["cannot redeclare `C`: it is not declared `replaceable`"],
    );
}

#[test]
fn redeclare_of_unknown_class() {
    assert_err(
        r#"
model A Real x = 1; end A;
model H replaceable model Law = A; Law c; end H;
model M H h(redeclare model Lwa = A); end M;
"#,
        Some("M"),
        &[
            "there is no class `Lwa` to redeclare",
            "did you mean `Law`?",
        ],
    );
}

#[test]
fn conflicting_duplicate_elements() {
    assert_err(
        "model A Real x; end A;\nmodel B Real x(start = 2); end B;\nmodel M extends A; extends B; equation x = 1; end M;\n",
        Some("M"),
        &[
            "`x` is declared twice with different definitions",
            "the other declaration",
        ],
    );
}

/// MLS 7.3.3: an element inherited through two bases is one element when the two copies are
/// identical after modification: here the `extends A(x(start = 2))` modifier makes A's `x` what
/// B declares (the pattern of the Fluid fittings' `m_flow(stateSelect = ...)`).
#[test]
fn duplicate_elements_identical_after_modification() {
    let text = "model A Real x(min = 0); end A;\nmodel B Real x(min = 0, start = 2); end B;\n\
                model M extends A(x(start = 2)); extends B; equation x = 1; end M;\n";
    let f = flatten_common::flat(text, Some("M"));
    assert_eq!(f.matches("Real x").count(), 1, "{f}");
    assert!(f.contains("start = 2"), "{f}");
}

/// The same two declarations, but the modifier gives a different start value than B's: two
/// different elements of one name, an error.
#[test]
fn duplicate_elements_different_after_modification() {
    assert_err(
        "model A Real x(min = 0); end A;\nmodel B Real x(min = 0, start = 2); end B;\n\
         model M extends A(x(start = 3)); extends B; equation x = 1; end M;\n",
        Some("M"),
        &["`x` is declared twice with different definitions"],
    );
}

#[test]
fn unbalanced_missing_equation_names_variable() {
    let e = err(
        "model M\n  Real x;\n  Real y;\nequation\n  der(x) = -x;\nend M;\n",
        None,
    );
    assert!(
        e.contains("model `M` is not balanced: 1 equation(s) for 2 unknown(s)"),
        "{e}"
    );
    assert!(
        e.contains("variables without an equation at the top level: y"),
        "{e}"
    );
    assert!(e.contains("test.mo:3:8"), "{e}");
}

#[test]
fn unbalanced_component_named() {
    let e = err(
        "model Sub\n  Real a;\n  Real b;\nequation\n  a = 1;\nend Sub;\nmodel M\n  Sub s;\nend M;\n",
        Some("M"),
    );
    assert!(
        e.contains("variables without an equation in `s`: s.b"),
        "{e}"
    );
}

#[test]
fn unbalanced_excess_equation_shown() {
    let e = err(
        "model M\n  Real x;\nequation\n  x = 1;\n  x = 2;\nend M;\n",
        None,
    );
    assert!(
        e.contains("2 equation(s) for 1 unknown(s) (1 too many)"),
        "{e}"
    );
    assert!(e.contains("excess equation: x = 2"), "{e}");
}

#[test]
fn cyclic_parameter_bindings() {
    assert_err(
        "model M\n  parameter Real a = b;\n  parameter Real b = 2*a;\nend M;\n",
        None,
        &["cyclic parameter binding", "a -> b -> a"],
    );
}

#[test]
fn cyclic_structural_parameter() {
    assert_err(
        "model M\n  parameter Integer n = m;\n  parameter Integer m = n;\n  Real x[n];\nequation\n  x = zeros(n);\nend M;\n",
        None,
        &["cyclic parameter binding"],
    );
}

#[test]
fn incompatible_connectors_show_both_locations() {
    let e = err(
        r#"connector Pin
  Real v;
  flow Real i;
end Pin;
connector Flange
  Real s;
  flow Real f;
end Flange;
model A Pin p; equation p.v = 0; end A;
model B Flange f; equation f.s = 0; end B;
model M
  A a;
  B b;
equation
  connect(a.p, b.f);
end M;
"#,
        Some("M"),
    );
    assert!(e.contains("test.mo:15:3"), "{e}");
    assert!(
        e.contains("incompatible connectors: `a.p` (Pin) and `b.f` (Flange)"),
        "{e}"
    );
    assert!(e.contains("`a.p` is declared here"), "{e}");
    assert!(e.contains("`b.f` is declared here"), "{e}");
}

#[test]
fn connect_of_non_connector() {
    assert_err(
        "model M\n  Real x;\n  Real y;\nequation\n  connect(x, y);\nend M;\n",
        None,
        &["`x` is not a connector"],
    );
}

#[test]
fn if_equation_branches_with_different_counts() {
    assert_err(
        "model M\n  Real x;\n  Real y;\nequation\n  if time > 1 then\n    x = 1;\n    y = 2;\n  else\n    x = 2;\n  end if;\nend M;\n",
        None,
        &[
            "test.mo:5:3",
            "different numbers of equations (2 and 1)",
            "MLS 8.3.4",
        ],
    );
}

#[test]
fn array_size_must_be_parameter() {
    assert_err(
        "model M\n  Integer n = 3;\n  Real x[n];\nequation\n  x = zeros(3);\nend M;\n",
        None,
        &[
            "must be a parameter or constant expression",
            "depends on `n`",
        ],
    );
}

#[test]
fn for_range_must_be_parameter() {
    assert_err(
        "model M\n  Real x[3];\n  Real t = time;\nequation\n  for i in 1:t loop\n    x[i] = 1;\n  end for;\nend M;\n",
        None,
        &["must be a parameter or constant expression"],
    );
}

#[test]
fn index_out_of_bounds() {
    assert_err(
        "model M\n  Real x[3];\nequation\n  x[4] = 1;\n  x[1:2] = {1, 2};\nend M;\n",
        None,
        &["test.mo:4:5", "index 4 is out of bounds 1..3"],
    );
}

#[test]
fn equation_sides_with_different_sizes() {
    assert_err(
        "model M\n  Real x[3];\nequation\n  x = {1, 2};\nend M;\n",
        None,
        &["different sizes: [3] and [2]"],
    );
}

#[test]
fn reinit_outside_when() {
    assert_err(
        "model M\n  Real x;\nequation\n  der(x) = 1;\n  reinit(x, 0);\nend M;\n",
        None,
        &["`reinit` can only be used inside a when-equation"],
    );
}

#[test]
fn unknown_function_and_function_input() {
    assert_err(
        "model M\n  Real x = foo(1);\nend M;\n",
        None,
        &["unknown function `foo`"],
    );
    assert_err(
        "function f input Real a; output Real b; algorithm b := a; end f;\nmodel M\n  Real x = f(aa = time);\nend M;\n",
        Some("M"),
        &["`f` has no input named `aa`", "did you mean `a`?"],
    );
}

#[test]
fn function_assert_fails_at_flattening_when_constant() {
    assert_err(
        "function f input Real a; output Real b; algorithm assert(a > 0, \"a must be positive\"); b := a; end f;\nmodel M\n  parameter Integer n = integer(f(-1));\n  Real x[n];\nend M;\n",
        Some("M"),
        &["a must be positive"],
    );
}

#[test]
fn disabled_component_used_in_equation() {
    assert_err(
        "model A Real y = 1; end A;\nmodel M\n  parameter Boolean use = false;\n  A a if use;\n  Real z = a.y;\nend M;\n",
        Some("M"),
        &["`a` is a conditional component"],
    );
}

#[test]
fn several_models_need_a_choice() {
    assert_err(
        "model A Real x = 1; end A;\nmodel B Real y = 1; end B;\n",
        None,
        &[
            "several models found: choose one with -m/--model",
            "candidates: A, B",
        ],
    );
}

#[test]
fn selected_model_not_found() {
    assert_err(
        "model Alpha Real x = 1; end Alpha;\nmodel Beta Real y = 1; end Beta;\n",
        Some("Alpah"),
        &["model `Alpah` not found", "did you mean `Alpha`?"],
    );
}

#[test]
fn inheritance_cycle() {
    assert_err(
        "model A extends B; end A;\nmodel B extends A; end B;\n",
        Some("A"),
        &["inherits from itself"],
    );
}

#[test]
fn when_nested_is_rejected() {
    assert_err(
        "model M\n  discrete Real x;\nequation\n  when time > 1 then\n    when time > 2 then\n      x = 1;\n    end when;\n  end when;\nend M;\n",
        None,
        &["when-equations cannot be nested"],
    );
}

#[test]
fn parameter_without_value_used_structurally() {
    assert_err(
        "model M\n  parameter Integer n;\n  Real x[n];\nend M;\n",
        None,
        &["parameter `n` has no value"],
    );
}

#[test]
fn within_unknown_package_keeps_classes_at_top_level() {
    let m = flatten_common::flat_model("within Nowhere.Pkg;\nmodel M Real x = 1; end M;\n", None);
    assert_eq!(m.name, "M");
}

// ---- "did you mean" through nested packages ----

#[test]
fn unknown_class_suggests_full_name_in_nested_package() {
    // Written without its package: the library class of that name is suggested in full.
    assert_err(
        "model M\n  Resistor r(R = 1);\nend M;\n",
        None,
        &[
            "test.mo:2:3",
            "unknown class `Resistor`",
            "did you mean `Minimo.Electrical.Analog.Basic.Resistor`?",
        ],
    );
    // A misspelled name that is nowhere visible: the closest class of any package.
    assert_err(
        "model M\n  Resistr r(R = 1);\nend M;\n",
        None,
        &["did you mean `Minimo.Electrical.Analog.Basic.Resistor`?"],
    );
}

#[test]
fn unknown_class_with_a_package_level_left_out() {
    assert_err(
        "model M\n  Minimo.Electrical.Analog.Resistor r(R = 1);\nend M;\n",
        None,
        &[
            "test.mo:2:28",
            "`Minimo.Electrical.Analog` has no class `Resistor`",
            "did you mean `Minimo.Electrical.Analog.Basic.Resistor`?",
        ],
    );
    // A misspelled package on the way: the class is still found inside the known part.
    assert_err(
        "model M\n  Minimo.Electrical.Analog.Basik.Resistor r(R = 1);\nend M;\n",
        None,
        &["did you mean `Minimo.Electrical.Analog.Basic.Resistor`?"],
    );
    // A near-miss among the package's own classes is given with its full name.
    assert_err(
        "model M\n  Minimo.Electrical.Analog.Basik r;\nend M;\n",
        None,
        &["did you mean `Minimo.Electrical.Analog.Basic`?"],
    );
}

#[test]
fn unknown_class_found_in_several_packages_lists_them() {
    assert_err(
        "package P\n  package A model Lever Real x = 1; end Lever; end A;\n  package B model Lever Real x = 2; end Lever; end B;\nend P;\nmodel M\n  Lever s;\nend M;\n",
        Some("M"),
        &["did you mean one of `P.A.Lever`, `P.B.Lever`"],
    );
}

#[test]
fn unknown_name_suggests_nested_component() {
    assert_err(
        "model J Real phi = time; end J;\nmodel A J joint; end A;\nmodel M\n  A arm;\n  Real y = 2 * phi;\nend M;\n",
        Some("M"),
        &[
            "test.mo:5:16",
            "unknown name `phi`",
            "did you mean `arm.joint.phi`?",
        ],
    );
    assert_err(
        "model J Real phi = time; end J;\nmodel A J joint; end A;\nmodel M\n  A arm;\n  Real y = 2 * arm.phi;\nend M;\n",
        Some("M"),
        &[
            "`arm` has no element `phi`",
            "did you mean `arm.joint.phi`?",
        ],
    );
}

#[test]
fn a_for_range_over_a_scalar_is_refused_not_a_panic() {
    assert_err(
        "model R\n  Real x;\nequation\n  for i in 3 loop\n    x = i;\n  end for;\nend R;\n",
        None,
        &["test.mo:4:12", "must be a vector", "MLS 11.2.2.1"],
    );
}

#[test]
fn a_model_that_contains_itself_is_refused() {
    assert_err(
        "model M\n  Real x;\n  M m;\nend M;\n",
        None,
        &["test.mo:3:5", "`M` contains itself", "infinite"],
    );
}

#[test]
fn a_class_named_like_a_predefined_type_is_refused() {
    assert_err(
        "model M\n  class Real\n    Real x = 1.0;\n  end Real;\n  Real r;\nend M;\n",
        None,
        &[
            "test.mo:2:9",
            "`Real` is the name of a predefined type",
            "MLS 4.8",
        ],
    );
}

#[test]
fn a_for_range_over_a_scalar_in_an_algorithm_is_refused_not_a_panic() {
    assert_err(
        "model R\n  Real x;\nalgorithm\n  x := 0;\n  for i in 3 loop\n    x := x + i;\n  end for;\nend R;\n",
        None,
        &["test.mo:5:12", "must be a vector"],
    );
}

/// A partial function reached from library code (a medium's constant calling a function the
/// medium did not redeclare) is reported at its declaration and at the call that reached it.
#[test]
fn a_call_of_a_partial_function_names_the_call() {
    assert_err(
        "package P\n  partial function f\n    input Real x;\n    output Real y;\n  end f;\n  function g\n    input Real x;\n    output Real y;\n  algorithm\n    y := f(x);\n  end g;\n  model M\n    Real z = g(time);\n  end M;\nend P;\n",
        Some("P.M"),
        &[
            "cannot call `P.f`: it is declared `partial`",
            "called here",
            "y := f(x)",
        ],
    );
}
