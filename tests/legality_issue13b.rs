//! Rules of issue 13 that minimo used to let through: `stateSelect` attributes that cannot be
//! honoured (MLS 4.8.7.1) and a non-Real variable defined by a function of continuous-time
//! arguments (MLS 3.8.3). Each illegal model is refused with a message naming the rule; the
//! legal variants next to them still run.

mod flatten_common;
use flatten_common::{assert_err, at, close, sim_options, simulate_text};

fn refused(text: &str, fragments: &[&str]) {
    let e = match simulate_text(text, &sim_options(1.0, 0.5, 1e-6)) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    };
    for f in fragments {
        assert!(e.contains(f), "error message lacks {f:?}:\n{e}");
    }
}

#[test]
fn state_select_always_on_a_variable_never_differentiated_is_refused() {
    refused(
        "model M\n  Real w(stateSelect = StateSelect.always) = if time < 0.5 then 1 else 2;\nend M;\n",
        &["StateSelect.always", "not differentiated", "MLS 4.8.7.1"],
    );
}

/// A smooth definition could be differentiated to make `w` a state (the compliance suite's
/// AttributeStateSelectInvalidAlways says so; the MSL's `Joints.Spherical(enforceStates =
/// true)` relies on it): minimo keeps `w` algebraic with a warning, and the values are right.
#[test]
fn state_select_always_on_a_smoothly_defined_variable_runs() {
    let r = simulate_text(
        "model M\n  Real w(stateSelect = StateSelect.always) = 2 * time;\nend M;\n",
        &sim_options(1.0, 0.5, 1e-8),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    close(at(&r, "w", 1.0), 2.0, 1e-12, "w");
}

#[test]
fn state_select_never_on_a_forced_state_is_refused() {
    refused(
        "model M\n  Real z(stateSelect = StateSelect.never);\nequation\n  der(z) = 1;\nend M;\n",
        &["StateSelect.never", "MLS 4.8.7.1"],
    );
}

#[test]
fn state_select_that_can_be_honoured_still_runs() {
    let r = simulate_text(
        "model M\n  Real a(stateSelect = StateSelect.always, start = 1, fixed = true);\n  Real b(stateSelect = StateSelect.never);\nequation\n  der(a) = -a;\n  b = 2 * a;\nend M;\n",
        &sim_options(1.0, 0.5, 1e-8),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    close(at(&r, "b", 1.0), 2.0 * (-1.0f64).exp(), 1e-5, "b");
}

const HALF: &str = "  function half\n    input Real u;\n    output Integer k;\n  algorithm\n    k := integer(u / 2);\n  end half;\n";

#[test]
fn an_integer_defined_by_a_function_of_a_continuous_argument_is_refused() {
    assert_err(
        &format!("model M\n{HALF}  Real x = 10 * time;\n  Integer n = half(x);\nend M;\n"),
        Some("M"),
        &["`n` is an Integer", "`M.half`", "MLS 3.8.3"],
    );
}

#[test]
fn discrete_time_uses_of_functions_still_run() {
    // A relation on the call, and a call of discrete arguments, are discrete-time.
    let r = simulate_text(
        &format!(
            "model M\n{HALF}  Real x = 10 * time;\n  Boolean big = half(x) > 2;\n  Integer m = half(2 * integer(x));\nend M;\n"
        ),
        &sim_options(1.0, 0.5, 1e-6),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    close(at(&r, "big", 1.0), 1.0, 0.0, "big");
    close(at(&r, "m", 1.0), 10.0, 0.0, "m");
}

use flatten_common::flat;

const ARRAY_TYPES: &str = "  type V2 = Real[2];\n  type M22 = Real[2, 2];\n";

#[test]
fn a_constraining_type_with_other_dimensions_is_refused() {
    // `V2 v[2]` is a 2 x 2 array, but its type V2 has one dimension and M22 two.
    assert_err(
        &format!(
            "model M\n{ARRAY_TYPES}  replaceable V2 v[2] = {{{{1, 2}}, {{3, 4}}}} constrainedby M22;\nend M;\n"
        ),
        Some("M"),
        &["array dimension", "`M.M22`", "MLS 7.3.2"],
    );
    assert_err(
        &format!(
            "model M\n{ARRAY_TYPES}  replaceable type T = V2[2] constrainedby M22;\n  T t = {{{{1, 2}}, {{3, 4}}}};\nend M;\n"
        ),
        Some("M"),
        &["array dimension", "MLS 7.3.2"],
    );
    // The same dimensions are fine.
    flat(
        &format!(
            "model M\n{ARRAY_TYPES}  replaceable V2 v[2] = {{{{1, 2}}, {{3, 4}}}} constrainedby V2;\nend M;\n"
        ),
        Some("M"),
    );
}

const NARROWED: &str = "  model P\n    Real a = 1;\n  end P;\n  model Q\n    Real a = 2;\n    Real b = 3;\n  end Q;\n  model Holder\n    replaceable model K = P;\n    K k;\n  end Holder;\n  model Narrow\n    extends Holder;\n    redeclare replaceable model K = Q constrainedby Q;\n  end Narrow;\n";

#[test]
fn a_redeclaration_with_constrainedby_narrows_later_redeclarations() {
    // Narrow's K is constrained by Q, so P (without `b`) no longer fits.
    assert_err(
        &format!(
            "model M\n{NARROWED}  model Outer\n    extends Narrow(redeclare model K = P);\n  end Outer;\n  Outer o;\nend M;\n"
        ),
        Some("M"),
        &["redeclaration of `K` is not compatible", "`M.Q`"],
    );
    let text = flat(
        &format!(
            "model M\n{NARROWED}  model Outer\n    extends Narrow(redeclare model K = Q);\n  end Outer;\n  Outer o;\nend M;\n"
        ),
        Some("M"),
    );
    assert!(text.contains("o.k.b"), "{text}");
}
