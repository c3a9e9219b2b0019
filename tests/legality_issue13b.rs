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
        "model M\n  Real w(stateSelect = StateSelect.always) = 2 * time;\nend M;\n",
        &["StateSelect.always", "not differentiated", "MLS 4.8.7.1"],
    );
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
