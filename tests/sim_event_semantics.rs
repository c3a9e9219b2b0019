//! Event semantics (MLS 8.5, 8.6, 3.7.5): zero crossings that start on the boundary, chattering,
//! `sample` at its start and every period whatever the output grid, `change`, vector `when`
//! conditions, `terminal()`, events at the stop time, and mixed continuous/discrete loops
//! (a friction element's Booleans decided by the force of the loop they switch).
//! Every expected value is worked out by hand from the model's text.

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
fn a_crossing_that_starts_on_the_boundary_fires() {
    // x(0) = 0 and rising: `x > 0` is false at t = 0 and true right after, so the `when`
    // fires once, just after the start; `x < 0` never becomes true.
    let r = ok(
        "model M
  Real x(start = 0, fixed = true);
  Integer n(start = 0, fixed = true);
  Integer m(start = 0, fixed = true);
  discrete Real tFire(start = -1, fixed = true);
  Boolean up;
equation
  der(x) = 1;
  up = x > 0;
  when x > 0 then
    n = pre(n) + 1;
    tFire = time;
  end when;
  when x < 0 then
    m = pre(m) + 1;
  end when;
end M;",
        1.0,
        0.1,
    );
    close(last(&r, "n"), 1.0, 0.0, "n");
    close(last(&r, "m"), 0.0, 0.0, "m");
    close(last(&r, "tFire"), 0.0, 1e-9, "tFire");
    close(at(&r, "up", 0.5), 1.0, 0.0, "up at 0.5");
}

#[test]
fn a_falling_crossing_from_the_boundary_is_tracked_from_the_right_side() {
    // x(0) = 0 and falling: `x >= 0` holds at t = 0 (on the boundary) and stops holding at
    // once; the Boolean follows, and `when not (x >= 0)` fires once.
    let r = ok(
        "model M
  Real x(start = 0, fixed = true);
  Boolean nonNeg;
  Integer n(start = 0, fixed = true);
equation
  der(x) = -2;
  nonNeg = x >= 0;
  when not nonNeg then
    n = pre(n) + 1;
  end when;
end M;",
        1.0,
        0.1,
    );
    close(at(&r, "nonNeg", 0.0), 1.0, 0.0, "nonNeg at 0");
    close(at(&r, "nonNeg", 0.5), 0.0, 0.0, "nonNeg at 0.5");
    close(last(&r, "n"), 1.0, 0.0, "n");
}

#[test]
fn a_relation_resting_on_its_boundary_causes_no_events() {
    // f stays exactly 0: `f <= 0` sits on its boundary the whole run. That is no crossing, and
    // must not cost an event per step.
    let r = ok(
        "model M
  Real v(start = 1, fixed = true);
  Real f;
  Boolean free;
equation
  f = 0*v;
  free = f <= 0;
  der(v) = if free then -v else -2*v;
end M;",
        2.0,
        0.01,
    );
    assert_eq!(r.stats.events, 0, "events: {}", r.stats.events);
    close(last(&r, "v"), (-2.0f64).exp(), 1e-5, "v(2)");
}

#[test]
fn chattering_is_an_error_naming_the_relation_and_the_time() {
    // The thermostat without hysteresis: at T = Tbar heating stops, T falls below Tbar at once
    // and heating starts again. No solution leaves T = Tbar = 20.5 (reached at t = 0.5) by
    // events; the run stops there with the relation named.
    let e = run(
        "model Thermostat
  parameter Real Tbar = 20.5;
  Real T(start = 20, fixed = true);
  Boolean heat;
equation
  heat = T < Tbar;
  der(T) = if heat then 1 else -1;
end Thermostat;",
        2.0,
        0.1,
    )
    .expect_err("chattering must stop the run");
    assert!(e.contains("T < Tbar"), "{e}");
    assert!(e.contains("time 0.5"), "{e}");
}

const SAMPLES: &str = "model S
  Integer n(start = 0, fixed = true);
  discrete Real tLast(start = -1, fixed = true);
  Real x(start = 0, fixed = true);
equation
  der(x) = 1;
  when sample(0, 0.1) then
    n = pre(n) + 1;
    tLast = time;
  end when;
end S;";

#[test]
fn sample_fires_at_its_start_and_every_period_whatever_the_output_interval() {
    // Instants 0, 0.1, ..., 0.9 before 0.95; the output grid (0.3) has nothing to do with it.
    for interval in [0.3, 0.07, 0.5] {
        let r = ok(SAMPLES, 0.95, interval);
        close(
            last(&r, "n"),
            10.0,
            0.0,
            &format!("n with interval {interval}"),
        );
        close(last(&r, "tLast"), 0.9, 1e-9, "tLast");
    }
}

#[test]
fn sample_fires_at_its_start_in_a_model_without_states() {
    let r = ok(
        "model S
  Integer n(start = 0, fixed = true);
equation
  when sample(0, 0.25) then
    n = pre(n) + 1;
  end when;
end S;",
        0.9,
        0.4,
    );
    // 0, 0.25, 0.5, 0.75.
    close(last(&r, "n"), 4.0, 0.0, "n");
    // Two rows at t = 0: the initial values, then after the sample's event.
    let k = r.time.iter().rposition(|&t| t == 0.0).expect("a row at 0");
    close(
        r.column("n").expect("n")[k],
        1.0,
        0.0,
        "n at 0 (after the event)",
    );
}

/// A step-down chopper's PWM in miniature (MSL `SignalPWM`): a ramp starting at 0.025 is
/// sampled every 0.001 s and compared with zero. MLS 3.7.5: the k-th instant of
/// `sample(start, interval)` is `start + k * interval`, so the 25th is `25 * 0.001`, the same
/// double as the literal 0.025: the ramp there is exactly 0 and the comparison false. Adding
/// the interval 25 times gives 0.025000000000000015 instead, where the ramp is already 1.5e-17
/// and `fire` switched on for a whole period (the chopper put out its full voltage).
#[test]
fn the_kth_sample_instant_is_start_plus_k_intervals_not_a_sum() {
    let r = ok(
        "model S
  Real ramp = if time < 0.025 then 0 else time - 0.025;
  discrete Real held(start = 0, fixed = true);
  discrete Real tLast(start = -1, fixed = true);
  Integer onCount(start = 0, fixed = true);
  Boolean fire = held > 0;
equation
  when sample(0, 0.001) then
    held = ramp;
    tLast = time;
  end when;
  when fire then
    onCount = pre(onCount) + 1;
  end when;
end S;",
        0.0255,
        0.0005,
    );
    close(
        last(&r, "tLast"),
        0.025,
        0.0,
        "time of the 25th sample instant",
    );
    close(last(&r, "held"), 0.0, 0.0, "ramp sampled at its start");
    close(last(&r, "onCount"), 0.0, 0.0, "times `fire` came on");
}

#[test]
fn change_fires_when_the_variable_changes() {
    let r = ok(
        "model C
  Integer k(start = 0, fixed = true);
  Integer c(start = 0, fixed = true);
  Real x(start = 0, fixed = true);
equation
  der(x) = 1;
  when x > 0.25 then
    k = pre(k) + 2;
  elsewhen x > 0.75 then
    k = pre(k) + 2;
  end when;
  when change(k) then
    c = pre(c) + 1;
  end when;
end C;",
        1.0,
        0.1,
    );
    close(last(&r, "k"), 4.0, 0.0, "k");
    close(last(&r, "c"), 2.0, 0.0, "c");
    close(at(&r, "c", 0.5), 1.0, 0.0, "c at 0.5");
}

#[test]
fn a_vector_condition_fires_on_each_rising_element() {
    // {x > 0.3, x > 0.6}: each element rises once, at 0.3 and 0.6: two activations.
    let r = ok(
        "model V
  Real x(start = 0, fixed = true);
  Integer m(start = 0, fixed = true);
  discrete Real tLast(start = -1, fixed = true);
equation
  der(x) = 1;
  when {x > 0.3, x > 0.6} then
    m = pre(m) + 1;
    tLast = time;
  end when;
end V;",
        1.0,
        0.1,
    );
    close(last(&r, "m"), 2.0, 0.0, "m");
    close(last(&r, "tLast"), 0.6, 1e-7, "tLast");
    close(at(&r, "m", 0.45), 1.0, 0.0, "m at 0.45");
}

#[test]
fn terminal_fires_at_the_end() {
    let r = ok(
        "model T
  Real x(start = 0, fixed = true);
  discrete Real xEnd(start = -1, fixed = true);
  Boolean done(start = false, fixed = true);
equation
  der(x) = 2;
  when terminal() then
    xEnd = x;
    done = true;
  end when;
end T;",
        1.5,
        0.5,
    );
    close(last(&r, "done"), 1.0, 0.0, "done");
    close(last(&r, "xEnd"), 3.0, 1e-6, "xEnd");
    close(at(&r, "done", 1.0), 0.0, 0.0, "done before the end");
}

#[test]
fn an_event_at_the_stop_time_does_not_fail_the_run() {
    // A time event (sample) and a state event (x reaches 1) exactly at the stop time 1.
    let r = ok(
        "model E
  Real x(start = 0, fixed = true);
  Integer n(start = 0, fixed = true);
  Integer m(start = 0, fixed = true);
equation
  der(x) = 1;
  when sample(0.5, 0.5) then
    n = pre(n) + 1;
  end when;
  when x >= 1 then
    m = pre(m) + 1;
  end when;
end E;",
        1.0,
        0.1,
    );
    close(last(&r, "x"), 1.0, 1e-9, "x");
    assert!(last(&r, "n") >= 1.0, "n = {}", last(&r, "n"));
    let r = ok(
        "model E
  Integer n(start = 0, fixed = true);
equation
  when time >= 1 then
    n = pre(n) + 1;
  end when;
end E;",
        1.0,
        0.25,
    );
    assert!(last(&r, "n") <= 1.0);
}

/// A block pushed along a floor with Coulomb friction, written as the MSL writes its friction
/// elements: the Booleans `startForward`/`locked` and the Integer `mode` are decided by the
/// friction force `sa` of the very loop they switch (a mixed continuous/discrete system).
const BLOCK: &str = "model FrictionBlock
  parameter Real m = 1;
  parameter Real F0 = 2 \"sticking and sliding friction force\";
  parameter Real vSmall = 1e-3;
  Real s(start = 0, fixed = true);
  Real v(start = 0, fixed = true);
  Real a;
  Real f \"friction force\";
  Real sa;
  Real push;
  Boolean startForward(start = false, fixed = true);
  Boolean startBackward(start = false, fixed = true);
  Boolean locked(start = false);
  Integer mode(start = 3, fixed = true);
equation
  push = if time < 1 then 1 else 5;
  der(s) = v;
  der(v) = a;
  m*a = push - f;
  startForward = pre(mode) == 0 and sa > F0 or pre(mode) == -1 and v > vSmall
    or initial() and v > 0;
  startBackward = pre(mode) == 0 and sa < -F0 or pre(mode) == 1 and v < -vSmall
    or initial() and v < 0;
  locked = not (pre(mode) == 1 or startForward or pre(mode) == -1 or startBackward);
  a = if locked then 0 else if startForward then sa - F0 else if startBackward then sa + F0
    else if pre(mode) == 1 then sa - F0 else if pre(mode) == -1 then sa + F0
    else sa - sign(v)*F0;
  f = if locked then sa else if startForward or pre(mode) == 1 then F0 else -F0;
  mode = if (pre(mode) == 1 or startForward) and v > 0 then 1
    else if (pre(mode) == -1 or startBackward) and v < 0 then -1 else 0;
end FrictionBlock;";

#[test]
fn a_mixed_friction_loop_sticks_then_slides() {
    // push 1 < F0: stuck (f = 1, v = 0, mode 0, every Boolean a whole number). At t = 1 the
    // push jumps to 5 > F0: sliding forward with a = (5 - 2)/m = 3, so v(2) = 3.
    let r = ok(BLOCK, 2.0, 0.1);
    close(at(&r, "v", 0.5), 0.0, 1e-12, "v while stuck");
    close(at(&r, "f", 0.5), 1.0, 1e-9, "f while stuck");
    close(at(&r, "mode", 0.5), 0.0, 0.0, "mode while stuck");
    close(at(&r, "locked", 0.5), 1.0, 0.0, "locked while stuck");
    close(last(&r, "v"), 3.0, 1e-6, "v(2)");
    close(last(&r, "mode"), 1.0, 0.0, "mode at the end");
    for name in ["startForward", "startBackward", "locked", "mode"] {
        for x in r.column(name).expect("column") {
            assert_eq!(x.fract(), 0.0, "{name} = {x} is not a whole number");
        }
    }
}

#[test]
fn a_sliding_block_comes_to_rest_and_stays_stuck() {
    // v(0) = 2 with a push of 1 < F0 against sliding friction 2: a = (1 - 2)/m = -1 until v
    // reaches 0 at t = 2; then it sticks (the push cannot break it loose) and stays at rest.
    let text = BLOCK
        .replace(
            "Real v(start = 0, fixed = true);",
            "Real v(start = 2, fixed = true);",
        )
        .replace("push = if time < 1 then 1 else 5;", "push = 1;");
    let r = ok(&text, 3.0, 0.1);
    close(at(&r, "v", 1.0), 1.0, 1e-6, "v(1)");
    close(last(&r, "v"), 0.0, 1e-9, "v(3)");
    close(last(&r, "mode"), 0.0, 0.0, "mode at the end");
    close(last(&r, "f"), 1.0, 1e-6, "holding force at the end");
    close(last(&r, "s"), 2.0, 1e-5, "s(3)");
}

#[test]
fn result_tables_with_quoted_array_names_keep_their_columns() {
    // The regression runner reads minimo's own CSV: array elements are quoted and hold commas.
    let t = minimo::regress::table::Table::parse_csv(
        "time,\"a[1,1]\",\"a[1,2]\",b\n0,1,2,3\n1,4,5,6\n",
    )
    .expect("parses");
    assert_eq!(t.names, ["time", "a[1,1]", "a[1,2]", "b"]);
    assert_eq!(t.column("a[1,2]"), Some(&[2.0, 5.0][..]));
    assert_eq!(t.column("b"), Some(&[3.0, 6.0][..]));
}

/// MLS 8.6: a `when` is active at initialization only as `when initial()` or
/// `when {..., initial(), ...}`; `initial()` passed through a function (`same(initial())`)
/// does not enable it, so `x` keeps its start value and the initial equation `p = x` gives 1,
/// while the vector form sets `y` to 3 at initialization.
#[test]
fn only_the_two_forms_of_initial_enable_a_when_at_initialization() {
    let r = ok(
        "model M
  function same
    input Boolean b;
    output Boolean c;
  algorithm
    c := b;
    annotation(Inline = false);
  end same;
  discrete Real x(start = 1, fixed = true);
  discrete Real y(start = 1, fixed = true);
  parameter Real p(fixed = false);
  parameter Real q(fixed = false);
  Real pp = p;
  Real qq = q;
equation
  when same(initial()) then
    x = 2;
  end when;
  when {initial(), time > 10} then
    y = 3;
  end when;
initial equation
  p = x;
  q = y;
end M;",
        0.2,
        0.1,
    );
    close(at(&r, "x", 0.0), 1.0, 0.0, "x at 0");
    close(last(&r, "x"), 1.0, 0.0, "x at the end");
    close(at(&r, "y", 0.0), 3.0, 0.0, "y at 0");
    close(last(&r, "pp"), 1.0, 0.0, "p");
    close(last(&r, "qq"), 3.0, 0.0, "q");
}

/// A run of 1e-11 s (the Spice3 inverter's pulses): its events are 1e-13 s to 2e-12 s apart.
/// Times within a tolerance are one instant; that tolerance follows the run's time scale, so
/// a sample every 2e-12 s fires at each of its six instants up to 1.1e-11 s and a relation crossing at
/// 5.5e-12 s is located there (an absolute 1e-12 s merged them, and the interval was refused).
#[test]
fn events_of_a_picosecond_run_are_resolved() {
    let text = r#"
model Picoseconds
  Integer n(start = 0, fixed = true);
  discrete Real tLate(start = -1, fixed = true);
  Real x(start = 0, fixed = true);
equation
  der(x) = 1;
  when sample(0, 2e-12) then
    n = pre(n) + 1;
  end when;
  when x > 5.5e-12 then
    tLate = time;
  end when;
end Picoseconds;
"#;
    let r = ok(text, 1.1e-11, 1e-13);
    assert_eq!(last(&r, "n"), 6.0, "instants 0, 2, 4, 6, 8, 10 ps");
    close(at(&r, "n", 5e-12), 3.0, 0.0, "n at 5 ps");
    close(last(&r, "tLate"), 5.5e-12, 1e-17, "crossing time");
}

/// `delay` in a picosecond run: its instants use the run's time unit like the event code's,
/// so a jump at 2 ps delayed by 3 ps comes out at 5 ps, not a picosecond early (an absolute
/// tolerance of 1e-12 s read the value after the jump from 4 ps on).
#[test]
fn a_delayed_jump_of_a_picosecond_run_comes_out_on_time() {
    let text = r#"
model PicoDelay
  Real u;
  Real y;
equation
  u = if time >= 2e-12 then 1 else 0;
  y = delay(u, 3e-12);
end PicoDelay;
"#;
    let r = ok(text, 1e-11, 1e-13);
    close(at(&r, "u", 1.5e-12), 0.0, 0.0, "u before its jump");
    close(at(&r, "u", 2.5e-12), 1.0, 0.0, "u after its jump");
    for t in [1e-12, 4.2e-12, 4.9e-12] {
        close(
            at(&r, "y", t),
            0.0,
            0.0,
            &format!("y at {t} s, before the delayed jump"),
        );
    }
    for t in [5.1e-12, 8e-12] {
        close(
            at(&r, "y", t),
            1.0,
            0.0,
            &format!("y at {t} s, after the delayed jump"),
        );
    }
}

/// A stop time equal to the start time is an initialization only (MSL
/// `Media.Examples.SolveOneNonlinearEquation.Inverse_sine` has `StopTime = 0`): one row at the
/// start, with or without states, and `terminal()` still fires; a stop time before the start is
/// refused.
#[test]
fn a_run_that_stops_at_its_start_time_is_its_initialization() {
    let algebraic = r#"
model Inverse
  Real x;
equation
  sin(x) = 0.5;
end Inverse;
"#;
    let r = ok(algebraic, 0.0, 0.1);
    assert_eq!(r.time, vec![0.0]);
    close(
        last(&r, "x"),
        std::f64::consts::FRAC_PI_6,
        1e-9,
        "asin(0.5)",
    );
    let with_state = r#"
model Decay
  Real x(start = 2, fixed = true);
  Integer ended(start = 0, fixed = true);
equation
  der(x) = -x;
  when terminal() then
    ended = 1;
  end when;
end Decay;
"#;
    let r = ok(with_state, 0.0, 0.1);
    assert_eq!(r.time.first(), Some(&0.0));
    assert!(r.time.iter().all(|&t| t == 0.0), "{:?}", r.time);
    close(last(&r, "x"), 2.0, 0.0, "x at the start");
    close(last(&r, "ended"), 1.0, 0.0, "terminal() fired");
    let err = run(with_state, -1.0, 0.1).unwrap_err();
    assert!(err.contains("must not be before the start time"), "{err}");
}
