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
