//! Loops that switch or have no unique solution: a singular but consistent linear loop is an
//! error that says the solution is not unique, an inconsistent one an error that it is singular;
//! a limited op-amp in positive feedback (MSL `OpAmps.SignalGenerator`) switches to the other
//! saturation at the instant its relation cycles (the mixed-loop search at events).
//! Expected values are worked out by hand from the models' text.

mod flatten_common;

use flatten_common::{close, msl_library, sim_options, simulate_text, simulate_with_library};

/// `a + b = t` twice (with `p = 1`): any split solves it. Even where the motion does not
/// depend on the split (`der(s) = a + b`), minimo cannot yet tell that it never will, so it
/// stops with an error that says the loop is consistent but not unique, and names it.
#[test]
fn singular_consistent_linear_loop_is_an_error_saying_not_unique() {
    let text = "model Split
  parameter Real p = 1;
  Real a;
  Real b;
  Real s(start = 0, fixed = true);
equation
  a + b = time;
  p*a + b = time;
  der(s) = a + b;
end Split;";
    let e = simulate_text(text, &sim_options(2.0, 0.5, 1e-8)).expect_err("not unique");
    assert!(
        e.contains("not unique") && e.contains("consistent"),
        "the error says why: {e}"
    );
}

/// The same loop with a right-hand side that contradicts: no solution, a located error.
#[test]
fn singular_inconsistent_linear_loop_is_an_error() {
    let text = "model NoSplit
  parameter Real p = 1;
  Real a;
  Real b;
equation
  a + b = time;
  p*a + b = time + 1;
end NoSplit;";
    let e = simulate_text(text, &sim_options(1.0, 0.5, 1e-8)).expect_err("no solution");
    assert!(e.contains("singular") && !e.contains("not unique"), "{e}");
}

/// The Schmitt trigger of the MSL signal generator leaves -15 V at t = 0.024998 (the integrator
/// output reaches 10 V); it must go to +15 V (the only consistent mode), not stay in the
/// linear mode below -15 V. Triangle: 10 V at the switch, falling at 400 V/s afterwards.
#[test]
fn schmitt_trigger_switches_to_the_other_saturation() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Analog.Examples.OpAmps.SignalGenerator",
            "--stop-time",
            "0.03",
        ],
    );
    let (ov, cv) = (t.col("opAmp1.out.v"), t.col("opAmp2.out.v"));
    let row = t
        .rows
        .iter()
        .find(|r| (r[0] - 0.026).abs() < 1e-9)
        .expect("row at t = 0.026");
    close(row[ov], 15.0, 1e-6, "opAmp1.out.v at t = 0.026");
    // 9.99833 V at the switch (t = 0.024998), then -400 V/s for 1.002 ms.
    close(
        row[cv],
        9.99833 - 400.0 * 0.0010019,
        2e-3,
        "triangle at t = 0.026",
    );
}
