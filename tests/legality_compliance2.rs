//! Rules found missing by the ModelicaCompliance suite, each with a model of our own: class
//! extends without `redeclare` (MLS 7.3.1), identical classes inherited and declared again
//! (MLS 7.3.3), what a redeclaration keeps from the declaration it replaces (MLS 7.3.2).

mod flatten_common;
use flatten_common::{assert_err, flat};

// --- MLS 7.3.1: `model extends B` without `redeclare` ----------------------------------------

#[test]
fn class_extends_without_redeclare_extends_only_local_uses() {
    // The deprecated form: the derived class's own `Part` has the new element, the component
    // inherited from `Holder` keeps the original `Part`.
    let f = flat(
        "model Top\n  model Holder\n    replaceable model Part\n      Real a = 1;\n    end Part;\n    Part inherited;\n  end Holder;\n  extends Holder;\n  model extends Part\n    Real b = 2;\n  end Part;\n  Part own;\nend Top;\n",
        Some("Top"),
    );
    assert!(
        f.contains("Real own.a;") && f.contains("Real own.b;"),
        "{f}"
    );
    assert!(f.contains("Real inherited.a;"), "{f}");
    assert!(!f.contains("inherited.b"), "{f}");
}

#[test]
fn class_extends_without_redeclare_is_invisible_to_inherited_components() {
    assert_err(
        "model Top\n  model Holder\n    replaceable model Part\n      Real a = 1;\n    end Part;\n    Part inherited;\n  end Holder;\n  extends Holder;\n  model extends Part\n    Real b = 2;\n  end Part;\n  Real y = inherited.b;\nend Top;\n",
        Some("Top"),
        &["inherited.b"],
    );
}

// --- MLS 7.3.3: identical classes ------------------------------------------------------------

#[test]
fn identical_class_declared_again_is_one_class() {
    let f = flat(
        "model Top\n  model Base\n    model Cell\n      parameter Real k = 3;\n    end Cell;\n  end Base;\n  extends Base;\n  model Cell \"same again\"\n    parameter Real k = 3;\n  end Cell;\n  Cell c;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("parameter Real c.k = 3.0;"), "{f}");
}

#[test]
fn different_class_declared_again_is_refused() {
    assert_err(
        "model Top\n  model Base\n    model Cell\n      parameter Real k = 3;\n    end Cell;\n  end Base;\n  extends Base;\n  model Cell\n    parameter Real k = 4;\n  end Cell;\n  Cell c;\nend Top;\n",
        Some("Top"),
        &["test.mo:8:9", "class `Cell` is declared twice"],
    );
}

// --- MLS 7.3.2: a redeclaration keeps the original prefixes and dimensions -------------------

#[test]
fn redeclaration_keeps_prefixes_and_dimensions() {
    let f = flat(
        "model Top\n  connector Port\n    Real v;\n    replaceable flow Real i;\n  end Port;\n  model Holder\n    replaceable parameter Real gain = 2;\n    replaceable parameter Integer n[2];\n    Port p(redeclare Real i);\n  end Holder;\n  Holder h(redeclare Real gain, redeclare Integer n = {4, 5});\nequation\n  h.p.v = 1;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("parameter Real h.gain = 2.0;"), "{f}");
    assert!(f.contains("parameter Integer h.n[2] = 5;"), "{f}");
    assert!(f.contains("flow Real h.p.i;"), "{f}");
}

#[test]
fn redeclaration_in_extends_keeps_dimensions() {
    let f = flat(
        "model Top\n  model Base\n    replaceable parameter Real w[3];\n  end Base;\n  extends Base(redeclare parameter Real w = {1, 2, 3});\n  Real s = w[3];\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("parameter Real w[3] = 3.0;"), "{f}");
}

#[test]
fn redeclared_parameter_still_a_parameter_for_bindings() {
    // `y` is a parameter bound to the redeclared `x`: legal only because `x` stays a parameter.
    let f = flat(
        "model Top\n  model Inner\n    replaceable parameter Real x = 5;\n    parameter Real y = x;\n  end Inner;\n  Inner m(redeclare Real x);\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("parameter Real m.x = 5.0;"), "{f}");
}

// --- MLS 6.7, 10.6: static types of bindings, operands and equations --------------------------

#[test]
fn integer_bound_to_a_real_quotient_is_refused() {
    assert_err(
        "model Top\n  parameter Integer half = 9 / 3;\nend Top;\n",
        Some("Top"),
        &[
            "test.mo:2:28",
            "is of type Integer but its binding is of type Real",
            "MLS 6.7",
        ],
    );
    assert_err(
        "model Top\n  constant Integer cube = 2 ^ 3;\nend Top;\n",
        Some("Top"),
        &["binding is of type Real"],
    );
}

#[test]
fn integer_operations_stay_integer() {
    let f = flat(
        "model Top\n  parameter Integer a = 7;\n  parameter Integer q = div(a, 2) + a * 3 - 1;\n  parameter Real r = a / 2;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("parameter Integer q"), "{f}");
}

#[test]
fn enumeration_compared_with_a_number_is_refused() {
    assert_err(
        "model Top\n  type Level = enumeration(low, high);\n  parameter Real g = if Level.high > 1 then 2 else 3;\nend Top;\n",
        Some("Top"),
        &[
            "test.mo:3:25",
            "cannot compare a value of type enumeration(low, high) with one of type Integer",
        ],
    );
}

#[test]
fn enumeration_compared_with_its_own_literals_is_fine() {
    flat(
        "model Top\n  type Level = enumeration(low, high);\n  parameter Level l = Level.high;\n  parameter Real g = if l > Level.low then 2 else 3;\n  parameter Integer n = if Integer(l) == 2 then 1 else 0;\nend Top;\n",
        Some("Top"),
    );
}

#[test]
fn value_of_another_enumeration_is_refused() {
    assert_err(
        "model Top\n  type Colour = enumeration(red, green);\n  type Light = enumeration(red, green, amber);\n  parameter Light l = Colour.green;\nend Top;\n",
        Some("Top"),
        &[
            "`l` is of type enumeration(red, green, amber) but its binding is of type enumeration(red, green)",
        ],
    );
    assert_err(
        "model Top\n  type Colour = enumeration(red, green);\n  parameter Colour c = 2;\nend Top;\n",
        Some("Top"),
        &[
            "binding is of type Integer",
            "Integer values do not convert",
        ],
    );
}

#[test]
fn boolean_in_arithmetic_is_refused() {
    assert_err(
        "model Top\n  Real y;\nequation\n  y = 3 * initial();\nend Top;\n",
        Some("Top"),
        &[
            "test.mo:4:7",
            "an operand of type Boolean is not allowed in arithmetic",
        ],
    );
}

#[test]
fn equation_between_boolean_and_real_is_refused() {
    assert_err(
        "model Top\n  Real y;\nequation\n  y = time > 1;\nend Top;\n",
        Some("Top"),
        &["the two sides of this equation have different types: Real and Boolean"],
    );
}

// --- MLS 11.2.2.1, 10.6.1: for ranges and exponents ------------------------------------------

#[test]
fn for_range_over_a_matrix_is_refused() {
    assert_err(
        "model Top\n  Real x[2];\nequation\n  for row in {{1, 2}, {3, 4}} loop\n    x[row[1]] = row[2];\n  end for;\nend Top;\n",
        Some("Top"),
        &["must be a vector", "[2, 2]"],
    );
}

#[test]
fn array_exponent_of_power_is_refused() {
    assert_err(
        "model Top\n  constant Real p[2] = 2 ^ {1, 2};\nend Top;\n",
        Some("Top"),
        &["`^` needs a scalar exponent", ".^"],
    );
    let f = flat(
        "model Top\n  constant Real p[2] = 2 .^ {1, 2};\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("p[2] = 4.0"), "{f}");
}

// --- MLS 4.5, 3.8.1: variability ---------------------------------------------------------------

#[test]
fn discrete_real_with_binding_equation_is_refused() {
    assert_err(
        "model Top\n  discrete Real held = 2;\nend Top;\n",
        Some("Top"),
        &["`held` is a `discrete` Real", "MLS 4.5"],
    );
    flat(
        "model Top\n  discrete Real held(start = 0, fixed = true);\nequation\n  when time > 0.5 then\n    held = time;\n  end when;\nend Top;\n",
        Some("Top"),
    );
}

#[test]
fn constant_bound_to_a_parameter_is_refused() {
    assert_err(
        "model Top\n  parameter Real k = 2;\n  constant Real c = 2 * k;\nend Top;\n",
        Some("Top"),
        &[
            "the binding of constant `c` uses `k`, which is not a constant",
            "MLS 3.8.1",
        ],
    );
    let f = flat(
        "model Top\n  constant Real k = 2;\n  constant Real c = 2 * k;\n  parameter Real p = c;\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("c = 4.0"), "{f}");
}

// --- MLS 9.1, 9.3.1, 3.7.2: connections --------------------------------------------------------

const PIN: &str = "  connector Pin\n    Real v;\n    flow Real i;\n  end Pin;\n";

#[test]
fn connect_two_levels_down_is_refused() {
    let src = format!(
        "model Top\n{PIN}  model Inner\n    Pin p;\n    Pin n;\n  equation\n    p.i + n.i = 0;\n    p.v = n.v;\n  end Inner;\n  model Outer\n    Inner in1;\n  end Outer;\n  Outer o;\n  Pin q;\nequation\n  connect(o.in1.p, q);\n  q.v = 1;\nend Top;\n"
    );
    assert_err(&src, Some("Top"), &["`in1` is not a connector", "MLS 9.1"]);
}

#[test]
fn cardinality_of_a_variable_is_refused() {
    assert_err(
        "model Top\n  Real x = 1;\n  Integer n = cardinality(x);\nend Top;\n",
        Some("Top"),
        &["`cardinality` takes a connector", "`x` is not one"],
    );
}

#[test]
fn overdetermined_type_counts_its_residues() {
    // `Turn` has 4 scalars but one residue: with two flows the connector is unbalanced.
    let src = "model Top\n  type Pair = Real[2, 2];\n  type Turn\n    extends Pair;\n    function equalityConstraint\n      input Turn a;\n      input Turn b;\n      output Real residue[1];\n    algorithm\n      residue := {a[1, 1] - b[1, 1]};\n    end equalityConstraint;\n  end Turn;\n  connector Frame\n    Turn R;\n    flow Real f;\n    flow Real g;\n  end Frame;\n  Frame fr(R = {{1, 0}, {0, 1}});\nequation\n  Connections.root(fr.R);\nend Top;\n";
    assert_err(
        src,
        Some("Top"),
        &["connector `Top.Frame` is not balanced: 2 flow variable(s) but 1 potential variable(s)"],
    );
}

// --- MLS 5.4, 7.1.2, 5.3.2: lookup ---------------------------------------------------------------

#[test]
fn outer_gives_access_only_to_its_declared_type() {
    assert_err(
        "model Top\n  partial record Base\n    Real a;\n  end Base;\n  record Full\n    extends Base;\n    Real b;\n  end Full;\n  model User\n    outer Base env;\n    Real y = env.b;\n  end User;\n  inner Full env(a = 1, b = 2);\n  User u;\nend Top;\n",
        Some("Top"),
        &[
            "test.mo:11:18",
            "`env` is declared `outer Top.Base`, which has no element `b`",
        ],
    );
}

#[test]
fn protected_extends_hides_inherited_elements() {
    assert_err(
        "model Top\n  model Base\n    Real x = 2;\n  end Base;\n  model Wrap\n  protected\n    extends Base;\n  end Wrap;\n  Wrap w;\n  Real y = w.x;\nend Top;\n",
        Some("Top"),
        &["protected"],
    );
}

#[test]
fn function_through_array_element_is_refused() {
    assert_err(
        "model Top\n  model Holder\n    function twice\n      input Real u;\n      output Real y = 2 * u;\n    algorithm\n    end twice;\n  end Holder;\n  Holder h[2];\n  Real z = h[1].twice(1.0);\nend Top;\n",
        Some("Top"),
        &["test.mo:10:12", "array element", "MLS 5.3.2"],
    );
}

// --- MLS 4.5.2, 12.2: prefixes given by short types -------------------------------------------

#[test]
fn function_arguments_declared_by_prefixed_types() {
    let f = flat(
        "model Top\n  type In = input Real;\n  type Out = output Real;\n  function scale\n    In u;\n    Out y;\n  algorithm\n    y := 3 * u;\n  end scale;\n  Real z = scale(2);\nend Top;\n",
        Some("Top"),
    );
    assert!(f.contains("scale"), "{f}");
}

// --- MLS 4.5: when-equations assign variables of their own class ------------------------------

#[test]
fn when_assigning_a_variable_of_a_model_component_is_refused() {
    assert_err(
        "model Top\n  model Holder\n    discrete Real v(start = 0, fixed = true);\n  end Holder;\n  Holder h;\nequation\n  when time > 0.5 then\n    h.v = 1;\n  end when;\nend Top;\n",
        Some("Top"),
        &[
            "test.mo:8:5",
            "`h.v` is assigned in a when-equation but declared inside `h`",
            "MLS 4.5",
        ],
    );
}

#[test]
fn when_assigning_a_record_field_is_fine() {
    flat(
        "model Top\n  record Sample\n    Real v;\n  end Sample;\n  discrete Sample s(v(start = 0, fixed = true));\nequation\n  when time > 0.5 then\n    s.v = 1;\n  end when;\nend Top;\n",
        Some("Top"),
    );
}

// --- MLS 5.3.1: code of a base class sees the base's elements only ----------------------------

#[test]
fn base_class_cannot_name_an_element_of_a_derived_class() {
    assert_err(
        "model Top\n  model Base\n    Real x = extra;\n  end Base;\n  model Derived\n    Real extra = 2;\n    extends Base;\n  end Derived;\n  Derived d;\nend Top;\n",
        Some("Top"),
        &["extra"],
    );
}
