//! Fixes found on the last failing examples of the four MSL packages (issue 12), each on a
//! small model of its own: asserts in `when initial()` read the solved initial values, an
//! event iteration does not stop before the iteration variables of a mixed loop were
//! computed, assignments to an element chosen at run time, `homotopy` initialization, and
//! String parameters compared in numeric bindings. Expected values are worked out by hand.

mod flatten_common;

use flatten_common::{at, close, last, sim_options, simulate_text};
use minimo::sim::SimResult;

fn run(text: &str, stop: f64, interval: f64) -> Result<SimResult, String> {
    simulate_text(text, &sim_options(stop, interval, 1e-8))
}

fn ok(text: &str, stop: f64, interval: f64) -> SimResult {
    run(text, stop, interval).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_assert_in_when_initial_reads_the_solved_initial_values() {
    // `x` starts at 0 but the initial equation makes it 1: the assert must see `x > 0.5`
    // true (its relation evaluated on the solution, not on the start value).
    let r = ok(
        "model M
  Real x(start = 0);
initial equation
  x = 1;
equation
  der(x) = 0;
  when initial() then
    assert(x > 0.5, \"x is \" + String(x));
  end when;
end M;",
        1.0,
        0.5,
    );
    close(last(&r, "x"), 1.0, 1e-12, "x");
}

#[test]
fn an_assert_in_when_initial_that_fails_still_stops_the_run() {
    let e = run(
        "model M
  Real x(start = 0);
initial equation
  x = 0.2;
equation
  der(x) = 0;
  when initial() then
    assert(x > 0.5, \"x too small\");
  end when;
end M;",
        1.0,
        0.5,
    )
    .expect_err("the assert must fail");
    assert!(e.contains("x too small"), "{e}");
}

/// A friction element in the style of the MSL's: forward sliding until `v` reaches 0 at
/// t = 0.25 under a force that exceeds the breakaway force, so one event goes Forward ->
/// Stuck -> Backward, and `startBwd` (true only in the middle round) is false after it.
const SLIDER: &str = "model Slider
  parameter Real f0 = 1;
  parameter Real fmax = 1.2;
  parameter Real vs = 1e-3;
  parameter Real F = -3;
  Real v(start = 1, fixed = true);
  Real a;
  Real sa;
  Real f;
  Boolean startFwd, startBwd, locked;
  Integer mode(start = 1, fixed = true);
equation
  der(v) = a;
  a = F - f;
  startFwd = pre(mode) == 0 and (sa > fmax or pre(startFwd) and sa > f0) or pre(mode) == -1 and v > vs or initial() and v > 0;
  startBwd = pre(mode) == 0 and (sa < -fmax or pre(startBwd) and sa < -f0) or pre(mode) == 1 and v < -vs or initial() and v < 0;
  locked = not (pre(mode) == 1 or startFwd or pre(mode) == -1 or startBwd);
  f = if locked then sa else if startFwd then f0 else if startBwd then -f0 else if pre(mode) == 1 then f0 else -f0;
  a = if locked then 0 else if startFwd then sa - fmax else if startBwd then sa + fmax else if pre(mode) == 1 then sa - fmax else sa + fmax;
  mode = if (pre(mode) == 1 or startFwd) and v > 0 then 1 else if (pre(mode) == -1 or startBwd) and v < 0 then -1 else 0;
end Slider;";

#[test]
fn an_event_through_stuck_to_backward_settles_every_round() {
    let r = ok(SLIDER, 0.3, 0.0001);
    // Just after the reversal (v = -2e-4 > -vs): sliding backward, the start flag cleared
    // by the last round (pre(mode) is then -1).
    let t = 0.2501;
    close(at(&r, "mode", t), -1.0, 0.0, "mode");
    close(at(&r, "startBwd", t), 0.0, 0.0, "startBwd");
    close(at(&r, "v", t), -2e-4, 1e-9, "v");
}

#[test]
fn an_element_chosen_at_run_time_is_assigned() {
    // Samples at 0.1, 0.35, 0.6, 0.85: k = 1..4; only k <= 3 writes buf[k] = 10 k.
    let text = "model Buf
  discrete Real buf[3](each start = 0, each fixed = true);
  Integer k(start = 0, fixed = true);
algorithm
  when sample(0.1, 0.25) then
    k := pre(k) + 1;
    if k <= 3 then
      buf[k] := 10*k;
    end if;
  end when;
end Buf;";
    let r = ok(text, 1.0, 0.05);
    close(at(&r, "buf[1]", 0.5), 10.0, 0.0, "buf[1] at 0.5");
    close(at(&r, "buf[2]", 0.5), 20.0, 0.0, "buf[2] at 0.5");
    close(at(&r, "buf[3]", 0.5), 0.0, 0.0, "buf[3] at 0.5");
    close(last(&r, "buf[3]"), 30.0, 0.0, "buf[3]");
    close(last(&r, "k"), 4.0, 0.0, "k");
}

#[test]
fn an_element_chosen_out_of_range_stops_the_run() {
    let text = "model Buf
  discrete Real buf[3](each start = 0, each fixed = true);
  Integer k(start = 0, fixed = true);
algorithm
  when sample(0.1, 0.25) then
    k := pre(k) + 1;
    buf[k] := 10*k;
  end when;
end Buf;";
    let e = run(text, 1.0, 0.05).expect_err("k = 4 is outside 1..3");
    assert!(e.contains("out of bounds"), "{e}");
    assert!(e.contains("0.85"), "{e}");
}

#[test]
fn homotopy_initialization_starts_from_the_simplified_solution() {
    // Positive feedback with three solutions (y = -1, 0, 1); the start values sit on the
    // unstable one. From `simplified` (y = -1) the path stays at y = -1 (MLS 3.7.4.1).
    let r = ok(
        "model Hom
  Real x(start = 0);
  Real y;
equation
  y = homotopy(actual = smooth(0, noEvent(if 10*x > 1 then 1 else if 10*x < -1 then -1 else 10*x)), simplified = -1);
  x = 0.5*y;
end Hom;",
        1.0,
        0.5,
    );
    close(at(&r, "y", 0.0), -1.0, 1e-9, "y(0)");
    close(last(&r, "x"), -0.5, 1e-9, "x");
}

#[test]
fn homotopy_is_the_actual_expression_during_the_run() {
    // Unique solution: `simplified` only guides initialization; afterwards y = actual.
    let r = ok(
        "model Hom2
  Real y;
equation
  y = homotopy(actual = 2*time + 1, simplified = 0);
end Hom2;",
        1.0,
        0.5,
    );
    close(at(&r, "y", 0.0), 1.0, 1e-12, "y(0)");
    close(at(&r, "y", 0.5), 2.0, 1e-12, "y(0.5)");
}

#[test]
fn string_parameters_compare_in_numeric_bindings() {
    let r = ok(
        "model Str
  parameter String c = \"D\";
  parameter String d = c + \"y\";
  parameter Real k = if c == \"D\" then 2 else 3;
  parameter Real j = if c <> \"D\" then 5 else 7;
  parameter Real n = if d == \"Dy\" and c < \"E\" then 1 else 0;
  Real y = (k + j + n)*time;
end Str;",
        1.0,
        0.5,
    );
    close(last(&r, "y"), 10.0, 1e-12, "y");
}

#[test]
fn homotopy_with_a_singular_simplified_problem_solves_the_actual_one() {
    // At λ = 0 the equation is `0 = 0` (no information on x): the path cannot start, so the
    // actual problem is solved from the start value, x^3 + x = 2 -> x = 1.
    let r = ok(
        "model Hom3
  Real x(start = 0.5);
equation
  homotopy(actual = x^3 + x - 2, simplified = 0) = 0;
end Hom3;",
        1.0,
        0.5,
    );
    close(at(&r, "x", 0.0), 1.0, 1e-8, "x(0)");
}
