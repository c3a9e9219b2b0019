//! Clock variables and clock inference (MLS 16.3, 16.7): clocked partitions found across
//! equations, their clocks from `sample(u, c)`, clock variables and connections of clock
//! connectors, sub-clocks (`subSample`, `superSample`, `shiftSample`, `backSample`) ticking at exact
//! multiples of their base interval. Expected values are worked out by hand from each model;
//! the MSL examples (when the MSL is present) are checked against their documented behaviour.

mod flatten_common;

use flatten_common::{
    assert_err, at, close, msl_library, sim_options, simulate_text, simulate_with_library,
};
use minimo::sim::SimResult;

fn ok(text: &str, stop: f64) -> SimResult {
    simulate_text(text, &sim_options(stop, 0.05, 1e-8)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sample_with_a_clock_variable_and_hold() {
    // Ticks at 0, 0.1, 0.2, ...; y is the left limit of u = time at the last tick, z = 2 y
    // between ticks (hold), w is clocked by inference from y (same partition).
    let r = ok(
        "model M
  Clock c = Clock(0.1);
  Real u = time;
  Real y(start = -1);
  Real w;
  Real z;
equation
  y = sample(u, c);
  w = y + 1;
  z = hold(w) * 2;
end M;",
        0.4,
    );
    close(at(&r, "y", 0.05), 0.0, 1e-12, "y at 0.05");
    close(at(&r, "y", 0.25), 0.2, 1e-9, "y at 0.25");
    close(at(&r, "w", 0.25), 1.2, 1e-9, "w at 0.25");
    close(at(&r, "z", 0.35), 2.6, 1e-9, "z at 0.35");
    assert!(r.column("c").is_none(), "a clock is no result variable");
}

#[test]
fn sub_super_and_shifted_clocks_tick_on_exact_multiples() {
    // n counts the ticks of the 0.1 s clock (1 at t = 0, 3 after the tick at 0.2).
    // m = subSample(n, 3) ticks at 0, 0.3, 0.6: 1 until 0.3, then 4, then 7.
    // k = superSample(n, 2) ticks every 0.05 s with n's latest value.
    // s = shiftSample(n, 1, 2) ticks at 0.05, 0.15, ...: n of the tick 0.05 s before.
    // dt = interval(m) = 0.3.
    let r = ok(
        "model M
  Clock c = Clock(1, 10);
  Integer n(start = 0);
  Integer m(start = 0);
  Integer k(start = 0);
  Integer s(start = 0);
  Real dt;
equation
  when c then
    n = previous(n) + 1;
  end when;
  m = subSample(n, 3);
  dt = interval(m);
  k = superSample(n, 2);
  s = shiftSample(n, 1, 2);
end M;",
        0.7,
    );
    close(at(&r, "n", 0.25), 3.0, 0.0, "n at 0.25");
    close(at(&r, "m", 0.25), 1.0, 0.0, "m at 0.25");
    close(at(&r, "m", 0.35), 4.0, 0.0, "m at 0.35");
    close(at(&r, "m", 0.65), 7.0, 0.0, "m at 0.65");
    close(at(&r, "dt", 0.35), 0.3, 1e-15, "dt");
    close(at(&r, "k", 0.27), 3.0, 0.0, "k at 0.27");
    close(at(&r, "k", 0.32), 4.0, 0.0, "k at 0.32");
    close(at(&r, "s", 0.02), 0.0, 0.0, "s before its first tick");
    close(at(&r, "s", 0.07), 1.0, 0.0, "s at 0.07");
    close(at(&r, "s", 0.27), 3.0, 0.0, "s at 0.27");
}

#[test]
fn shift_sample_by_whole_intervals_gives_the_last_value() {
    // n counts the ticks of the 0.1 s clock (1 at t = 0, 2 at 0.1, 3 at 0.2, ...).
    // s = shiftSample(n, 4, 3) ticks at 0.1333, 0.2333, ...; at each tick it is n from n's
    // last tick (MLS 16.5.2): 2 at 0.1333, 3 at 0.2333; its start -1 before.
    // w = shiftSample(n, 2) ticks at 0.2, 0.3, ... together with n, whose tick there is the
    // last one: 3 at 0.2, 4 at 0.3; -1 before 0.2.
    let r = ok(
        "model M
  Clock c = Clock(1, 10);
  Integer n(start = 0);
  Integer s(start = -1);
  Integer w(start = -1);
equation
  when c then
    n = previous(n) + 1;
  end when;
  s = shiftSample(n, 4, 3);
  w = shiftSample(n, 2);
end M;",
        0.5,
    );
    close(at(&r, "s", 0.12), -1.0, 0.0, "s before its first tick");
    close(at(&r, "s", 0.15), 2.0, 0.0, "s at 0.15");
    close(at(&r, "s", 0.25), 3.0, 0.0, "s at 0.25");
    close(at(&r, "w", 0.15), -1.0, 0.0, "w before its first tick");
    close(at(&r, "w", 0.25), 3.0, 0.0, "w at 0.25");
    close(at(&r, "w", 0.35), 4.0, 0.0, "w at 0.35");
}

#[test]
fn back_sample_shifts_the_clock_back_and_starts_with_the_start_value() {
    // n as above; s = shiftSample(n, 3, 2) ticks at 0.15, 0.25, ... with n's last value
    // (2, 3, ...). b = backSample(s, 1, 2) ticks half an interval earlier: 0.1, 0.2, ...;
    // at 0.1, before s's first tick, it is s's start value 5 (MLS 16.5.2), then s's last
    // value: 2 at 0.2, 3 at 0.3. Before b's first tick, b's own start 7.
    let r = ok(
        "model M
  Clock c = Clock(1, 10);
  Integer n(start = 0);
  Integer s(start = 5);
  Integer b(start = 7);
equation
  when c then
    n = previous(n) + 1;
  end when;
  s = shiftSample(n, 3, 2);
  b = backSample(s, 1, 2);
end M;",
        0.5,
    );
    close(at(&r, "b", 0.05), 7.0, 0.0, "b before its first tick");
    close(at(&r, "b", 0.12), 5.0, 0.0, "b before s's first tick");
    close(at(&r, "b", 0.22), 2.0, 0.0, "b at 0.22");
    close(at(&r, "b", 0.32), 3.0, 0.0, "b at 0.32");
}

#[test]
fn an_inferred_super_sample_factor_fits_the_other_clocks() {
    // n ticks every 0.1 s. j = superSample(n, 2) puts the partition of `sum` on 0.05 s;
    // k = superSample(n) is in that partition, so its factor is 2 (MLS 16.7). sum = k + j =
    // 2 n: 6 at 0.27, 8 at 0.32; cnt counts the 0.05 s ticks: 0, 0.05, ..., 0.25 -> 6.
    let r = ok(
        "model M
  Clock c = Clock(1, 10);
  Integer n(start = 0);
  Integer k(start = 0);
  Integer j(start = 0);
  Integer sum(start = 0);
  Integer cnt(start = 0);
equation
  when c then
    n = previous(n) + 1;
  end when;
  k = superSample(n);
  j = superSample(n, 2);
  when Clock() then
    sum = k + j;
    cnt = previous(cnt) + 1;
  end when;
end M;",
        0.5,
    );
    close(at(&r, "sum", 0.27), 6.0, 0.0, "sum at 0.27");
    close(at(&r, "sum", 0.32), 8.0, 0.0, "sum at 0.32");
    close(at(&r, "cnt", 0.27), 6.0, 0.0, "cnt at 0.27");
}

#[test]
fn first_tick_of_an_event_clock() {
    // The event clock ticks at 0.1, 0.3, 0.5, ...: firstTick() is true at 0.1 only.
    let r = ok(
        "model M
  Clock c = Clock(sample(0.1, 0.2));
  Integer n(start = 0);
  Boolean f(start = false);
  Integer firsts(start = 0);
equation
  when c then
    n = previous(n) + 1;
    f = firstTick();
    firsts = previous(firsts) + (if firstTick() then 1 else 0);
  end when;
end M;",
        1.0,
    );
    close(at(&r, "f", 0.05), 0.0, 0.0, "f before the first tick");
    close(at(&r, "f", 0.15), 1.0, 0.0, "f at 0.15");
    close(at(&r, "f", 0.35), 0.0, 0.0, "f at 0.35");
    close(at(&r, "n", 0.35), 2.0, 0.0, "n at 0.35");
    close(at(&r, "firsts", 0.95), 1.0, 0.0, "firsts at 0.95");
}

#[test]
fn clock_connectors_carry_a_clock_through_connections() {
    // Gen's clock is 20/1000 s: ticks at 0, 0.02, 0.04 before t = 0.05 (n = 3), and 50 ticks
    // up to 0.98 (n = 50 at 0.99). Gen2's clock, subSample(Clock(1, 4), 2), ticks every
    // 0.5 s (at 0 and 0.5): cnt2.n = 2 at 0.75.
    let r = ok(
        "model M
  connector ClockInput = input Clock;
  connector ClockOutput = output Clock;
  block Gen
    parameter Integer factor = 20;
    ClockOutput y;
  equation
    y = Clock(factor, 1000);
  end Gen;
  block Gen2
    ClockOutput y;
  protected
    Clock c;
  equation
    c = Clock(1, 4);
    y = subSample(c, 2);
  end Gen2;
  block Count
    ClockInput clock;
    Integer n(start = 0);
  equation
    when clock then
      n = previous(n) + 1;
    end when;
  end Count;
  Gen g;
  Gen2 g2;
  Count cnt;
  Count cnt2;
equation
  connect(g.y, cnt.clock);
  connect(g2.y, cnt2.clock);
end M;",
        1.0,
    );
    close(at(&r, "cnt.n", 0.05), 3.0, 0.0, "n at 0.05");
    close(at(&r, "cnt.n", 0.99), 50.0, 0.0, "n at 0.99");
    close(at(&r, "cnt2.n", 0.75), 2.0, 0.0, "cnt2.n at 0.75");
}

#[test]
fn an_inferred_clock_and_first_tick() {
    // `when Clock()` takes the clock of its partition: y's equation reads n, and y is sampled
    // on Clock(0.1). n counts ticks (3 after 0.2), firstTick() is true only at t = 0.
    let r = ok(
        "model M
  Real y;
  Integer n(start = 0);
  Boolean f(start = false);
  Integer firsts(start = 0);
equation
  when Clock() then
    n = previous(n) + 1;
    f = firstTick();
    firsts = previous(firsts) + (if firstTick() then 1 else 0);
  end when;
  y = sample(time, Clock(0.1)) + n;
end M;",
        1.0,
    );
    close(at(&r, "n", 0.25), 3.0, 0.0, "n at 0.25");
    close(at(&r, "y", 0.25), 3.2, 1e-9, "y at 0.25");
    close(at(&r, "f", 0.05), 1.0, 0.0, "f at 0.05");
    close(at(&r, "f", 0.25), 0.0, 0.0, "f at 0.25");
    close(at(&r, "firsts", 0.95), 1.0, 0.0, "firsts at 0.95");
}

#[test]
fn what_clock_inference_cannot_decide_is_refused() {
    assert_err(
        "model M
  Real y;
equation
  y = sample(time);
end M;",
        None,
        &["is not determined", "MLS 16.7"],
    );
    assert_err(
        "model M
  Real y;
equation
  y = sample(time, Clock(0.1)) + sample(time, Clock(0.2));
end M;",
        None,
        &["two different clocks", "MLS 16.7"],
    );
    assert_err(
        "model M
  Clock c = Clock(Clock(0.1), solverMethod = \"ExplicitEuler\");
  Real y;
equation
  y = sample(time, c);
end M;",
        None,
        &["solverMethod", "MLS 16.8"],
    );
    assert_err(
        "model M
  Real y;
  Real z;
equation
  y = sample(time, Clock(0.1));
  z = subSample(y);
end M;",
        None,
        &["is not determined", "MLS 16.7"],
    );
    // An inferred factor must be a whole number: 0.1 s is no multiple of 0.03 s.
    assert_err(
        "model M
  Real y;
  Real z;
equation
  y = sample(time, Clock(0.1));
  z = superSample(y) + sample(time, Clock(3, 100));
end M;",
        None,
        &["no Integer factor", "MLS 16.7"],
    );
}

/// The MSL's Clocked library: a sine (f = 2 Hz, offset 0.1, amplitude 1) sampled every 20 ms
/// (`PeriodicExactClock(factor = 20, resolution = ms)`).
fn sine(t: f64) -> f64 {
    0.1 + (2.0 * std::f64::consts::PI * 2.0 * t).sin()
}

fn msl_value(model: &str, var: &str, t: f64) -> Option<f64> {
    let lib = msl_library()?;
    let m = format!("Modelica.Clocked.Examples.Elementary.RealSignals.{model}");
    let table = simulate_with_library(
        &lib,
        &["-m", &m, "--stop-time", "0.2", "--interval", "0.01"],
    );
    let (tc, vc) = (table.col("time"), table.col(var));
    // The last row at or before t (a row at an event time holds the value after the event).
    let row = table.rows.iter().rev().find(|r| r[tc] <= t + 1e-12)?;
    Some(row[vc])
}

#[test]
fn msl_clocked_sample_and_sub_sample() {
    // Sample1: the sampled sine, clock assigned downstream; at 0.05 the tick at 0.04 holds.
    let Some(y) = msl_value("Sample1", "assignClock.y", 0.05) else {
        return;
    };
    close(y, sine(0.04), 1e-6, "Sample1 assignClock.y at 0.05");
    // SubSample: factor 3 of the 20 ms clock ticks at 0, 0.06, 0.12.
    let y = msl_value("SubSample", "subSample1.y", 0.11).unwrap_or(f64::NAN);
    close(y, sine(0.06), 1e-6, "SubSample subSample1.y at 0.11");
    let y = msl_value("SubSample", "subSample1.y", 0.13).unwrap_or(f64::NAN);
    close(y, sine(0.12), 1e-6, "SubSample subSample1.y at 0.13");
}
