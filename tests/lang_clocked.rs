//! Synchronous language elements (MLS 16), the subset minimo supports: a when-equation whose
//! condition is a clock constructor, with `previous`, `sample(u)`, `interval()` in its body and
//! `hold` of its variables outside; what clock inference cannot decide refused by name
//! (clock variables and inference: `lang_clock_inference.rs`).
//! Every expected value is worked out by hand from the model's text.

mod flatten_common;

use flatten_common::{assert_err, at, close, sim_options, simulate_text};
use minimo::sim::SimResult;

fn ok(text: &str, stop: f64) -> SimResult {
    simulate_text(text, &sim_options(stop, 0.05, 1e-8)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_periodic_clock_ticks_at_the_start_and_every_interval() {
    // Ticks at 0, 0.1, 0.2, ...: after the ticks at 0, 0.1 and 0.2, n = 3 at t = 0.25 and
    // k (the rational clock 1/10 s) too; n = 10 at t = 0.95. `previous(n)` is n's start (0)
    // at the first tick. z = hold(n) is 2 n between ticks; dt = interval() = 0.1.
    let r = ok(
        "model M
  Integer n(start = 0);
  Integer k(start = 0);
  Real dt(start = 0);
  Real z;
equation
  when Clock(0.1) then
    n = previous(n) + 1;
    dt = interval();
  end when;
  when Clock(1, 10) then
    k = previous(k) + 1;
  end when;
  z = 2 * hold(n);
end M;",
        1.0,
    );
    close(at(&r, "n", 0.25), 3.0, 0.0, "n at 0.25");
    close(at(&r, "k", 0.25), 3.0, 0.0, "k at 0.25");
    close(at(&r, "n", 0.95), 10.0, 0.0, "n at 0.95");
    close(at(&r, "z", 0.25), 6.0, 0.0, "z at 0.25");
    close(at(&r, "dt", 0.25), 0.1, 1e-15, "dt");
}

#[test]
fn sample_takes_the_left_limit_at_a_tick() {
    // u steps from 0 to 10 at t = 0.2, a tick: sample(u) there is the left limit 0, so
    // y = 0 at t = 0.25 and 10 after the tick at 0.3. x = t: ys = 0.2 at 0.25.
    // s accumulates interval() * sample(time) = 0.1 * (0 + 0.1 + 0.2) = 0.03 by t = 0.25.
    let r = ok(
        "model M
  Real x(start = 0, fixed = true);
  Real u;
  Real y(start = -1);
  Real ys(start = -1);
  Real s(start = 0);
equation
  der(x) = 1;
  u = if time >= 0.2 then 10 else 0;
  when Clock(0.1) then
    y = sample(u);
    ys = sample(x);
    s = previous(s) + interval() * sample(time);
  end when;
end M;",
        0.4,
    );
    close(at(&r, "y", 0.25), 0.0, 0.0, "y at 0.25");
    close(at(&r, "y", 0.35), 10.0, 0.0, "y at 0.35");
    close(at(&r, "ys", 0.25), 0.2, 1e-9, "ys at 0.25");
    close(at(&r, "s", 0.25), 0.03, 1e-12, "s at 0.25");
}

/// A condition already true at initialization has become true then (from `false` before the
/// start): the event clock ticks at the start time, once, and again only after the condition
/// fell and rose (Dymola's reference of MSL Clocked LogicalSample; minimo did not tick at 0).
#[test]
fn an_event_clock_whose_condition_is_true_at_the_start_ticks_at_the_start() {
    let r = ok(
        "model M
  Real x(start = 0, fixed = true);
  Integer m(start = 0);
  Real tick(start = -1);
equation
  der(x) = 1;
  when Clock(x < 0.1 or x > 0.3) then
    m = previous(m) + 1;
    tick = sample(time);
  end when;
end M;",
        0.5,
    );
    close(at(&r, "m", 0.0), 1.0, 0.0, "m at the start");
    close(at(&r, "tick", 0.0), 0.0, 0.0, "tick at the start");
    close(at(&r, "m", 0.2), 1.0, 0.0, "m while true then false");
    close(at(&r, "m", 0.45), 2.0, 0.0, "m after the second rise");
    close(at(&r, "tick", 0.45), 0.3, 1e-6, "second tick time");
}

#[test]
fn an_event_clock_ticks_when_its_condition_becomes_true() {
    // x = t crosses 0.15 once: m = 1 from then on; x > 0.15 stays true, so no further tick.
    let r = ok(
        "model M
  Real x(start = 0, fixed = true);
  Integer m(start = 0);
  Real tick(start = -1);
equation
  der(x) = 1;
  when Clock(x > 0.15) then
    m = previous(m) + 1;
    tick = sample(time);
  end when;
end M;",
        0.5,
    );
    close(at(&r, "m", 0.1), 0.0, 0.0, "m before");
    close(at(&r, "m", 0.45), 1.0, 0.0, "m after");
    close(at(&r, "tick", 0.45), 0.15, 1e-6, "tick time");
}

#[test]
fn a_tick_stands_when_the_partition_makes_its_condition_false() {
    // The pattern of the MSL's rotational clock: the clock ticks when a = 10 t has moved 3
    // away from the offset the partition holds; the tick moves the offset to a, which makes
    // the condition false again at once. That does not undo the tick (MLS 16.3, 16.9): ticks
    // at t = 0.3, 0.6, 0.9. dir samples the left limit of a - h (3 > 0) at each tick.
    let r = ok(
        "model M
  Real a = 10 * time;
  Real h;
  Real off(start = 0);
  Integer n(start = 0);
  Integer dir(start = 0);
equation
  h = hold(off);
  when Clock(a - h > 3) then
    off = sample(a);
    n = previous(n) + 1;
    dir = if sample(a - h) > 0 then 1 else -1;
  end when;
end M;",
        1.0,
    );
    close(at(&r, "n", 0.25), 0.0, 0.0, "n before the first tick");
    close(at(&r, "n", 0.45), 1.0, 0.0, "n after the first tick");
    close(at(&r, "h", 0.45), 3.0, 1e-6, "offset after the first tick");
    close(at(&r, "dir", 0.45), 1.0, 0.0, "direction at the first tick");
    close(at(&r, "n", 0.95), 3.0, 0.0, "n after three ticks");
}

#[test]
fn an_event_clock_condition_true_only_midway_through_an_event_is_no_tick() {
    // At t = 0.3, time >= 0.3 turns true while d is still false, then d becomes true: the
    // settled condition is false before and after the instant, so the clock never ticks.
    let r = ok(
        "model M
  Boolean d(start = false);
  Integer n(start = 0);
equation
  when time >= 0.3 then
    d = true;
  end when;
  when Clock(time >= 0.3 and not d) then
    n = previous(n) + 1;
  end when;
end M;",
        0.5,
    );
    close(at(&r, "n", 0.45), 0.0, 0.0, "n");
}

#[test]
fn what_needs_clock_inference_is_refused_by_name() {
    assert_err(
        "model M
  Clock c = Clock();
  Real y;
equation
  y = sample(time, c);
end M;",
        None,
        &["inferred clock `Clock()` (MLS 16.3) is not supported"],
    );
    assert_err(
        "model M
  discrete Real y(start = 0);
equation
  y = previous(y) + 1;
end M;",
        None,
        &[
            "clock of the clocked partition of `y` is not determined",
            "MLS 16.7",
        ],
    );
    assert_err(
        "model M
  Real x = time;
  Real y;
equation
  y = hold(x);
end M;",
        None,
        &["`hold(x)`", "not assigned in a clocked when-equation"],
    );
    assert_err(
        "model M
  Real y(start = 0);
equation
  when Clock() then
    y = previous(y) + 1;
  end when;
end M;",
        None,
        &[
            "clock of the clocked partition of `y` is not determined",
            "MLS 16.7",
        ],
    );
    assert_err(
        "model M
  Real y(start = 0);
equation
  when Clock(0.1) then
    y = previous(y) + 1;
  elsewhen Clock(0.2) then
    y = 0;
  end when;
end M;",
        None,
        &["cannot have `elsewhen`"],
    );
}
