//! The cost of events: a `when` body is computed only at the event where its branch fires, so a
//! large body (a sampled buffer of thousands of elements, a function of the whole buffer with
//! several outputs under `when terminal()`) costs nothing between events, and relations inside
//! a body compare the values of the event instant without zero-crossing functions of their own.
//! Expected values are worked out by hand from the models' text.

mod flatten_common;

use flatten_common::{at, close, last, sim_options, simulate_text};
use std::time::{Duration, Instant};

/// A buffer of `n` samples of a sine at 5 Hz, taken every millisecond from t = 0, and three
/// moments of the whole buffer computed once at the end by one function call.
const RECORDER: &str = "model SampledRecorder
  function moments
    input Real x[:];
    output Real m[3];
  algorithm
    m := zeros(3);
    for i in 1:size(x, 1) loop
      m[1] := m[1] + x[i];
      m[2] := m[2] + x[i]^2;
      m[3] := max(m[3], x[i]);
    end for;
  end moments;
  parameter Integer n = 3000;
  parameter Real period = 1e-3;
  Real u = sin(2*3.141592653589793*5*time);
  Real x(start = 0, fixed = true);
  Real buf[n](each start = 0, each fixed = true);
  Integer k(start = 0, fixed = true);
  Real mom[3](each start = 0, each fixed = true);
equation
  der(x) = u;
algorithm
  when sample(0, period) then
    k := pre(k) + 1;
    if k <= n then
      buf[k] := u;
    end if;
  end when;
  when terminal() then
    mom := moments(buf);
  end when;
end SampledRecorder;";

#[test]
fn a_large_sampled_buffer_costs_little_per_event() {
    let mut opts = sim_options(3.05, 0.05, 1e-6);
    opts.vars = Some(regex::Regex::new(r"^(k|x|mom\[\d\]|buf\[(1|2|3000)\])$").unwrap());
    let started = Instant::now();
    let r = simulate_text(RECORDER, &opts).unwrap_or_else(|e| panic!("{e}"));
    let took = started.elapsed();
    // Sample k (1-based) is taken at (k - 1) ms: 3051 instants up to 3.05 s.
    close(last(&r, "k"), 3051.0, 0.0, "k");
    close(
        last(&r, "buf[2]"),
        (2.0 * std::f64::consts::PI * 5.0 * 1e-3).sin(),
        1e-12,
        "buf[2]",
    );
    let u = |k: usize| (2.0 * std::f64::consts::PI * 5.0 * (k - 1) as f64 * 1e-3).sin();
    close(last(&r, "buf[3000]"), u(3000), 1e-9, "buf[3000]");
    let (mut s1, mut s2, mut mx) = (0.0, 0.0, 0.0f64);
    for k in 1..=3000 {
        s1 += u(k);
        s2 += u(k) * u(k);
        mx = mx.max(u(k));
    }
    close(last(&r, "mom[1]"), s1, 1e-9, "mom[1]");
    close(last(&r, "mom[2]"), s2, 1e-9, "mom[2]");
    close(last(&r, "mom[3]"), mx, 1e-12, "mom[3]");
    // The moments are computed at the end only: before, they stay at their start values.
    close(at(&r, "mom[2]", 3.0), 0.0, 0.0, "mom[2] before the end");
    // x = (1 - cos(10 pi t)) / (10 pi): zero at whole multiples of 0.2 s.
    close(at(&r, "x", 3.0), 0.0, 1e-5, "x(3)");
    // With the buffer's 3000 assignments and the call's 9000 argument copies computed at every
    // step, the run took minutes; now about a second (the bound leaves room for a loaded machine).
    assert!(
        took < Duration::from_secs(20),
        "3051 sample events on a 3000-element buffer took {took:?}"
    );
}

#[test]
fn relations_inside_a_when_body_make_no_events() {
    // `x > 0.01` is only read at the sample instants: its sign changes in between (x =
    // sin(20 t) / 20 changes sign six times in 1 s) are no events.
    let r = simulate_text(
        "model SampledSign
  discrete Real y(start = 0, fixed = true);
  Real x(start = 0, fixed = true);
equation
  der(x) = cos(20*time);
  when sample(0, 0.25) then
    y = if x > 0.01 then 1 else -1;
  end when;
end SampledSign;",
        &sim_options(1.0, 0.05, 1e-8),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // x at the samples: 0, sin(5)/20 = -0.048, sin(10)/20 = -0.027, sin(15)/20 = 0.033.
    close(at(&r, "y", 0.2), -1.0, 0.0, "y after the samples at 0");
    close(
        at(&r, "y", 0.7),
        -1.0,
        0.0,
        "y after the samples at 0.25 and 0.5",
    );
    close(at(&r, "y", 0.9), 1.0, 0.0, "y after the sample at 0.75");
    // At most the five sample instants (0, 0.25, 0.5, 0.75, 1); crossings of `x > 0.01` used to
    // add six more.
    assert!(
        r.stats.events <= 5,
        "{} events, expected the sample instants only",
        r.stats.events
    );
}

#[test]
fn a_when_body_sees_the_values_of_its_event() {
    // The body's relation compares at the event instant: `time > 0.3` is false at the sample
    // at 0.25 and true at 0.5 (a relation on time inside the body, no event of its own).
    let r = simulate_text(
        "model BodyRelation
  discrete Integer late(start = 0, fixed = true);
  discrete Integer count(start = 0, fixed = true);
equation
  when sample(0.25, 0.25) then
    late = if time > 0.3 then pre(late) + 1 else pre(late);
    count = pre(count) + 1;
  end when;
end BodyRelation;",
        &sim_options(1.1, 0.1, 1e-6),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    close(last(&r, "count"), 4.0, 0.0, "count");
    close(last(&r, "late"), 3.0, 0.0, "late");
    close(
        at(&r, "late", 0.4),
        0.0,
        0.0,
        "late after the sample at 0.25",
    );
}
