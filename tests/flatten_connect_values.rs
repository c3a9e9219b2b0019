//! What connected parameters, constants and primitive types must satisfy (MLS 9.3), and the
//! `flow`/`stream` prefix rules (MLS 4.4.2.2) that the connection sets rely on.

mod flatten_common;
use flatten_common::{assert_err, flat};

const PORT: &str = "connector Port\n  parameter Real k = 1;\n  Real e;\n  flow Real f;\nend Port;\n\
model Two\n  Port a;\n  Port b;\nend Two;\n";

#[test]
fn connected_parameters_give_an_assertion_not_an_equation() {
    let text = format!(
        "{PORT}model M\n  Two t(a(k = 2), b(k = 2));\nequation\n  connect(t.a, t.b);\n  t.a.e = 1;\n  t.a.f = 3;\nend M;\n"
    );
    let f = flat(&text, Some("M"));
    assert!(!f.contains("t.a.k = t.b.k;"), "{f}");
    assert!(f.contains("assert(t.a.k == t.b.k"), "{f}");
}

#[test]
fn connected_constants_must_have_the_same_value() {
    assert_err(
        "connector Port\n  constant Integer n;\n  Real e;\n  flow Real f;\nend Port;\n\
model M\n  Port a(n = 1);\n  Port b(n = 2);\nequation\n  connect(a, b);\n  a.e = 1;\nend M;\n",
        Some("M"),
        &[
            "connected constants `a.n` and `b.n` have different values: 1 and 2",
            "MLS 9.3",
        ],
    );
}

#[test]
fn a_parameter_cannot_be_connected_to_a_constant_or_a_variable() {
    assert_err(
        "connector P1\n  parameter Real k = 1;\n  Real e;\n  flow Real f;\nend P1;\n\
connector P2\n  constant Real k = 1;\n  Real e;\n  flow Real f;\nend P2;\n\
model M\n  P1 a;\n  P2 b;\nequation\n  connect(a, b);\n  a.e = 1;\nend M;\n",
        Some("M"),
        &["`a.k` is a parameter but `b.k` is a constant", "MLS 9.3"],
    );
}

#[test]
fn connected_primitives_must_have_the_same_type() {
    assert_err(
        "connector IntOut = output Integer;\nconnector RealIn = input Real;\n\
model M\n  IntOut i = 1;\n  RealIn r;\nequation\n  connect(i, r);\nend M;\n",
        Some("M"),
        &[
            "`i` (Integer) and `r` (Real) have different types",
            "MLS 9.3",
        ],
    );
}

#[test]
fn flow_applies_to_types_records_and_connectors_once() {
    // `flow` on a record applies to its fields (the flows of a complex current).
    let f = flat(
        "record Cx\n  Real re;\n  Real im;\nend Cx;\nconnector CPin\n  Cx v;\n  flow Cx i;\nend CPin;\n\
model M\n  CPin p;\nequation\n  p.v.re = 1;\n  p.v.im = 2;\nend M;\n",
        Some("M"),
    );
    assert!(f.contains("p.i.re = 0"), "{f}");
    assert_err(
        "model Part\n  Real x;\nend Part;\nconnector C\n  Real e;\n  flow Part p;\nend C;\nmodel M\n  C c(e = 1);\nend M;\n",
        Some("M"),
        &[
            "`p` cannot be declared `flow`: its type `Part` is a model",
            "MLS 4.4.2.2",
        ],
    );
    assert_err(
        "connector Pin\n  Real v;\n  flow Real i;\nend Pin;\nmodel M\n  flow Pin p;\nend M;\n",
        Some("M"),
        &["is already `flow`", "MLS 4.4.2.2"],
    );
}
