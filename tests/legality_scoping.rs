//! Legality rules of scoping, component prefixes and connections (MLS 4.1, 4.4, 5.3, 5.4,
//! 9.3, 13.2): each illegal model is refused with a located message naming the rule; each
//! legal neighbour still flattens.

mod flatten_common;
use flatten_common::{assert_err, flat};

// --- Visibility (MLS 4.1) ---

#[test]
fn protected_component_of_a_component_is_not_accessible() {
    assert_err(
        "model Tank\n  Real level = 1;\nprotected\n  Real hidden = 2;\nend Tank;\n\
         model Plant\n  Tank t;\n  Real y = t.hidden;\nend Plant;\n",
        Some("Plant"),
        &["test.mo:8:14", "`hidden` is a protected element", "MLS 4.1"],
    );
}

#[test]
fn protected_class_is_not_accessible_by_dot_notation() {
    assert_err(
        "model Box\nprotected\n  model Inner\n    Real v = 1;\n  end Inner;\nend Box;\n\
         model Top\n  Box.Inner i;\nend Top;\n",
        Some("Top"),
        &["`Inner` is a protected element of `Box`", "MLS 4.1"],
    );
}

#[test]
fn protected_constant_is_not_accessible_even_when_inherited() {
    assert_err(
        "model Base\nprotected\n  constant Real k = 3;\nend Base;\n\
         model Top\n  extends Base;\n  Real y = Base.k;\nend Top;\n",
        Some("Top"),
        &["`k` is a protected element of `Base`"],
    );
}

#[test]
fn protected_elements_are_visible_inside_and_when_inherited() {
    let f = flat(
        "model Base\nprotected\n  Real hidden = 2;\nend Base;\n\
         model Top\n  extends Base(hidden = 5);\n  Real y = hidden;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("hidden = 5"), "{f}");
}

#[test]
fn modifying_a_protected_component_is_refused() {
    assert_err(
        "model Pump\nprotected\n  Real speed = 2;\nend Pump;\n\
         model Plant\n  Pump p(speed = 3);\nend Plant;\n",
        Some("Plant"),
        &["`speed` is a protected element of `Pump`: it cannot be modified"],
    );
}

#[test]
fn modification_of_an_inherited_protected_class_applies() {
    let f = flat(
        "model Base\nprotected\n  model Part\n    Real w = 1;\n  end Part;\n  Part part;\nend Base;\n\
         model Top\n  extends Base(Part(w = 7));\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("part.w = 7"), "{f}");
}

// --- Composite name lookup (MLS 5.3.2) ---

#[test]
fn non_encapsulated_class_of_a_model_is_not_found_by_composite_name() {
    assert_err(
        "model Holder\n  Real x = 1;\n  model Part\n    Real y = 2;\n  end Part;\nend Holder;\n\
         model Top\n  Holder.Part p;\nend Top;\n",
        Some("Top"),
        &["`Part` cannot be looked up inside `Holder`", "MLS 5.3.2"],
    );
}

#[test]
fn encapsulated_class_of_a_model_is_found_by_composite_name() {
    flat(
        "model Holder\n  Real x = 1;\n  encapsulated model Part\n    Real y = 2;\n  end Part;\nend Holder;\n\
         model Top\n  Holder.Part p;\nend Top;\n",
        Some("Top"),
    );
}

#[test]
fn constant_of_a_partial_package_is_refused() {
    assert_err(
        "partial package Consts\n  constant Real g = 9.81;\nend Consts;\n\
         model Top\n  Real y = Consts.g;\nend Top;\n",
        Some("Top"),
        &["it is declared `partial`", "MLS 5.3.2"],
    );
}

#[test]
fn function_through_a_component_and_nested_classes() {
    let f = flat(
        "model Calc\n  class Ops\n    function twice\n      input Real u;\n      output Real v;\n    \
         algorithm\n      v := 2 * u;\n    end twice;\n  end Ops;\nend Calc;\n\
         model Top\n  Calc c;\n  Real y = c.Ops.twice(3.0);\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("y = 6"), "{f}");
}

// --- Imports (MLS 13.2.1) ---

#[test]
fn qualified_import_has_priority_over_unqualified() {
    let f = flat(
        "package A\n  constant Real c = 1;\nend A;\npackage B\n  constant Real c = 2;\nend B;\n\
         model Top\n  import A.*;\n  import B.c;\n  Real y = c;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("y = 2"), "{f}");
}

#[test]
fn two_unqualified_imports_of_one_name_conflict() {
    assert_err(
        "package A\n  constant Real c = 1;\nend A;\npackage B\n  constant Real c = 2;\nend B;\n\
         model Top\n  import A.*;\n  import B.*;\n  Real y = c;\nend Top;\n",
        Some("Top"),
        &["`c` is found through two unqualified imports", "MLS 13.2.1"],
    );
}

#[test]
fn two_qualified_imports_of_one_name_conflict() {
    assert_err(
        "package A\n  constant Real c = 1;\nend A;\npackage B\n  constant Real c = 2;\nend B;\n\
         model Top\n  import A.c;\n  import c = B.c;\n  Real y = c;\nend Top;\n",
        Some("Top"),
        &["two imports introduce the name `c`"],
    );
}

#[test]
fn import_from_a_model_is_refused() {
    assert_err(
        "model Lib\n  Real x = 1;\n  encapsulated model Part\n    Real y = 2;\n  end Part;\nend Lib;\n\
         model Top\n  import Lib.*;\n  Part p;\nend Top;\n",
        Some("Top"),
        &["`Lib` is not a package", "MLS 13.2.1"],
    );
}

#[test]
fn protected_constant_cannot_be_imported() {
    assert_err(
        "package P\n  constant Real a = 1;\nprotected\n  constant Real b = 2;\nend P;\n\
         model Top\n  import P.b;\n  Real y = b;\nend Top;\n",
        Some("Top"),
        &["cannot import `b`: it is a protected element of `P`"],
    );
}

// --- Type prefixes (MLS 4.4.2.2) ---

#[test]
fn parameter_prefix_on_a_model_component_is_refused() {
    assert_err(
        "model Motor\n  Real w = 1;\nend Motor;\nmodel Top\n  parameter Motor m;\nend Top;\n",
        Some("Top"),
        &[
            "`m` cannot be declared `parameter`",
            "is a model",
            "MLS 4.4.2.2",
        ],
    );
}

#[test]
fn flow_integer_is_refused() {
    assert_err(
        "connector Port\n  Real e;\n  flow Integer n;\nend Port;\nmodel Top\n  Port p;\nend Top;\n",
        Some("Top"),
        &["`n` cannot be declared `flow`", "not a subtype of Real"],
    );
}

#[test]
fn output_on_a_connector_with_an_input_is_refused() {
    assert_err(
        "connector Sig\n  input Real u;\n  Real e;\n  flow Real f;\nend Sig;\n\
         model Top\n  output Sig s(u = 1, e = 2);\nend Top;\n",
        Some("Top"),
        &["`s` cannot be declared `output`: its element `u` is already `input`"],
    );
}

#[test]
fn flow_record_makes_its_fields_flows() {
    let f = flat(
        "record Pair\n  Real a;\n  Real b;\nend Pair;\n\
         connector Port\n  flow Pair p;\n  Real x = 1;\n  Real y = 2;\nend Port;\n\
         model Top\n  Port c;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("flow Real c.p.a"), "{f}");
}

#[test]
fn parameter_connector_is_refused() {
    assert_err(
        "connector Sig\n  input Real u = 1;\nend Sig;\nmodel Top\n  parameter Sig s;\nend Top;\n",
        Some("Top"),
        &[
            "the connector component `s` cannot be declared `parameter`",
            "MLS 9.3",
        ],
    );
}

// --- Connections (MLS 9.3) ---

const PIN: &str = "connector Pin\n  Real v;\n  flow Real i;\nend Pin;\n";

#[test]
fn connecting_real_to_integer_is_refused() {
    let text = format!(
        "{PIN}connector IPin\n  Integer v;\n  flow Real i;\nend IPin;\n\
         model Two\n  Pin a;\n  IPin b;\nend Two;\n\
         model Top\n  Two t;\nequation\n  connect(t.a, t.b);\n  t.a.v = 1;\n  t.a.i = 1;\nend Top;\n"
    );
    assert_err(&text, Some("Top"), &["have different types", "MLS 9.3"]);
}

#[test]
fn two_outputs_in_one_connection_set_are_refused() {
    assert_err(
        "connector Out = output Real;\nblock Src\n  Out y = 1;\nend Src;\n\
         model Top\n  Src s1;\n  Src s2;\nequation\n  connect(s1.y, s2.y);\nend Top;\n",
        Some("Top"),
        &["joins two sources of the same signal", "MLS 9.3"],
    );
}

#[test]
fn connector_parameters_get_no_equation_but_must_agree() {
    let legal = format!(
        "connector P2\n  Real v;\n  flow Real i;\n  parameter Real r = 2;\nend P2;\n\
         model Two\n  P2 a;\n  P2 b;\nequation\n  a.v = 1;\n  a.i = 3;\nend Two;\n\
         model Top\n  Two t;\nequation\n  connect(t.a, t.b);\nend Top;\n{PIN}"
    );
    flat(&legal, Some("Top"));
    let illegal = legal.replace("P2 b;", "P2 b(r = 4);");
    assert_err(&illegal, Some("Top"), &["have different values: 2 and 4"]);
}

#[test]
fn unbalanced_connector_is_refused() {
    assert_err(
        "connector Bad\n  Real v;\n  Real w;\n  flow Real i;\nend Bad;\nmodel Top\n  Bad b;\nend Top;\n",
        Some("Top"),
        &[
            "connector `Bad` is not balanced: 1 flow variable(s) but 2 potential",
            "MLS 9.3.1",
        ],
    );
}

// --- Conditional components (MLS 4.4.5) ---

#[test]
fn conditional_component_only_in_connect() {
    assert_err(
        "model Top\n  parameter Boolean use = true;\n  Real x = 1 if use;\n  Real y = x;\nend Top;\n",
        Some("Top"),
        &["`x` is a conditional component", "MLS 4.4.5"],
    );
}

// --- Declarations and time ---

#[test]
fn component_hiding_its_type_name_is_refused() {
    assert_err(
        "package Lib\n  type speed = Real;\n  model Top\n    speed speed = 1;\n  end Top;\nend Lib;\n",
        Some("Lib.Top"),
        &["the type name `speed` is hidden by the component `speed`"],
    );
}

#[test]
fn time_in_a_record_is_refused() {
    assert_err(
        "record Stamp\n  Real t = time;\nend Stamp;\nmodel Top\n  Stamp s;\nend Top;\n",
        Some("Top"),
        &["`time` cannot be used in the record `Stamp`", "MLS 3.6.7"],
    );
}

// --- inner/outer (MLS 5.4, 5.5) ---

#[test]
fn outer_with_a_modification_is_refused() {
    assert_err(
        "model Part\n  outer Real g = 2;\nend Part;\nmodel Top\n  inner Real g = 1;\n  Part p;\nend Top;\n",
        Some("Top"),
        &["the outer element `g` cannot be modified", "MLS 5.5"],
    );
}

#[test]
fn inner_with_other_dimensions_is_refused() {
    assert_err(
        "model Part\n  outer Real g[2];\nend Part;\nmodel Top\n  inner Real g[3] = {1, 2, 3};\n  Part p;\nend Top;\n",
        Some("Top"),
        &["it has dimensions [3] where the outer declaration has [2]"],
    );
}

#[test]
fn inner_of_another_type_is_refused() {
    assert_err(
        "model Part\n  outer Integer g;\nend Part;\nmodel Top\n  inner Real g = 1;\n  Part p;\nend Top;\n",
        Some("Top"),
        &["is not a subtype of `Integer`"],
    );
}
