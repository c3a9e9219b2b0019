//! Every `minimo simulate` failure (exit code 1) explains itself on standard error.

use std::process::Command;

/// `case` names the test's own directory: the tests run in parallel threads of one process.
fn simulate(case: &str, model: &str, extra: &[&str]) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("minimo-sim-errors-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("Failing.mo");
    std::fs::write(&file, model).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .arg(&file)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn a_state_that_blows_up_in_finite_time_is_reported_with_a_message() {
    // x' = x^2, x(0) = 1 has the solution 1/(1 - t): it is infinite at t = 1.
    let model = "model Failing\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = x * x;\nend Failing;\n";
    let (code, err) = simulate("blowup", model, &["--stop-time", "2"]);
    assert_eq!(code, 1, "the blow-up must fail the run: {err}");
    assert!(err.contains("error:"), "no diagnostic on exit 1: {err:?}");
    assert!(err.trim().len() > 20, "diagnostic too short: {err:?}");
}

#[test]
fn a_sqrt_of_a_negative_number_is_reported_with_a_message() {
    let model = "model Failing\n  Real x(start = 1, fixed = true);\n  Real y;\nequation\n  der(x) = -1;\n  y = sqrt(x);\nend Failing;\n";
    let (code, err) = simulate("sqrt", model, &["--stop-time", "3"]);
    if code != 0 {
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("error:"), "no diagnostic on exit 1: {err:?}");
    }
}

#[test]
fn a_division_by_zero_in_a_watched_variable_stops_the_run() {
    // `y` feeds no state, so the integrator never sees it: before, `inf` was written with exit 0.
    let model = "model Failing\n  parameter Real a = 0;\n  Real x(start = 1, fixed = true);\n  Real y;\nequation\n  der(x) = -x;\n  y = x / a;\nend Failing;\n";
    let (code, err) = simulate("divzero", model, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`y` became infinite at time 0"), "{err}");
    assert!(
        err.contains("Failing.mo:7:3"),
        "the equation is not located: {err}"
    );
}

#[test]
fn the_square_root_of_a_negative_number_names_the_variable_and_the_time() {
    let model = "model Failing\n  Real x(start = 1, fixed = true);\n  Real y;\nequation\n  der(x) = -x;\n  y = sqrt(0.5 - time);\nend Failing;\n";
    let (code, err) = simulate("sqrtneg", model, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`y` became NaN at time 0.50"), "{err}");
}

#[test]
fn an_output_interval_too_small_to_store_is_refused_at_once() {
    let model = "model Failing\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\n  annotation(experiment(StopTime = 1, Interval = 1e-320));\nend Failing;\n";
    let (code, err) = simulate("tinyinterval", model, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("output points"), "{err}");
}

#[test]
fn an_empty_array_filled_by_fill_simulates() {
    let model = "model Failing\n  Real f[0] = fill(1., 0);\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend Failing;\n";
    let (code, err) = simulate("emptyfill", model, &[]);
    assert_eq!(code, 0, "{err}");
}
