//! Discrete variables at initialization (MLS 8.6), algorithm sections in models (MLS 11.1),
//! calls of functions for their effect, and time/state events of models without states.
//! Every value is checked against the one worked out by hand from the model's text.

mod flatten_common;

use flatten_common::{at, last, sim_options, simulate_text};
use minimo::sim::SimResult;

fn run(text: &str, stop: f64, interval: f64) -> Result<SimResult, String> {
    simulate_text(text, &sim_options(stop, interval, 1e-9))
}

fn ok(text: &str, stop: f64, interval: f64) -> SimResult {
    run(text, stop, interval).unwrap_or_else(|e| panic!("{e}"))
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-9, "{what}: {a} != {b}");
}

const PULSE: &str = "model Pulse
  parameter Real period = 1;
  parameter Real startTime = 0.25;
  discrete Real pulseStart;
  Boolean y;
  Real x(start = 0, fixed = true);
initial equation
  pulseStart = startTime;
equation
  when sample(startTime, period) then
    pulseStart = time;
  end when;
  y = time >= pulseStart and time < pulseStart + 0.5*period;
  der(x) = if y then 1 else 0;
end Pulse;";

#[test]
fn initial_equation_of_a_variable_assigned_in_when_gives_its_start() {
    // pulseStart = 0.25 from the initial equation (not its default start 0), then the samples
    // at 0.25, 1.25, 2.25 move it; y is true on [0.25, 0.75) + k; x integrates y.
    let r = ok(PULSE, 2.5, 0.05);
    close(at(&r, "pulseStart", 0.0), 0.25, "pulseStart(0)");
    close(at(&r, "y", 0.1), 0.0, "y(0.1)");
    close(at(&r, "y", 0.5), 1.0, "y(0.5)");
    close(at(&r, "pulseStart", 1.5), 1.25, "pulseStart(1.5)");
    close(at(&r, "y", 1.6), 1.0, "y(1.6)");
    close(at(&r, "y", 1.9), 0.0, "y(1.9)");
    assert!((at(&r, "x", 2.5) - 1.25).abs() < 1e-6, "x(2.5)");
}

/// The `Trapezoid` source's construction: an initial algorithm gives the period count and the
/// start of the current period, a when-equation advances them. No states: the event at
/// `time >= ...` is found without an integrator.
const COUNTER: &str = "model Counter
  parameter Real period = 1;
  parameter Real startTime = -0.35;
  Real T_start;
  Integer count;
  Real y;
initial algorithm
  count := integer((time - startTime)/period);
  T_start := startTime + count*period;
equation
  when time >= (pre(count) + 1)*period + startTime then
    count = pre(count) + 1;
    T_start = time;
  end when;
  y = time - T_start;
end Counter;";

#[test]
fn integer_counter_from_an_initial_algorithm() {
    let r = ok(COUNTER, 2.0, 0.01);
    close(at(&r, "count", 0.0), 0.0, "count(0)");
    close(at(&r, "T_start", 0.0), -0.35, "T_start(0)");
    close(at(&r, "y", 0.5), 0.85, "y(0.5)");
    close(at(&r, "count", 1.0), 1.0, "count(1)");
    assert!((at(&r, "T_start", 1.0) - 0.65).abs() < 1e-9);
    assert!((at(&r, "y", 1.0) - 0.35).abs() < 1e-9);
    close(at(&r, "count", 2.0), 2.0, "count(2)");
    // Starting one period later: count(0) = 1.
    let r = ok(&COUNTER.replace("-0.35", "-1.35"), 0.5, 0.01);
    close(at(&r, "count", 0.0), 1.0, "count(0) with startTime = -1.35");
    close(
        at(&r, "T_start", 0.0),
        -0.35,
        "T_start(0) with startTime = -1.35",
    );
}

#[test]
fn pre_values_are_unknowns_of_the_initial_system() {
    // pre(u) = true: y = pre(u) is true at the start; u = time > 0.5 is false until 0.5.
    let r = ok(
        "model M Boolean u; Boolean y; Real x(start = 0, fixed = true);
         initial equation pre(u) = true;
         equation u = time > 0.5; y = pre(u); der(x) = 1; end M;",
        1.0,
        0.05,
    );
    close(r.column("y").expect("y")[0], 1.0, "y at the start");
    close(at(&r, "y", 0.3), 0.0, "y(0.3)");
    close(at(&r, "y", 0.8), 1.0, "y(0.8)");
    // pre(n) = 5 for a when-assigned n: n = pre(n) = 5 until the first sample, then counts.
    let r = ok(
        "model M Integer n;
         initial equation pre(n) = 5;
         equation when sample(0.1, 0.2) then n = pre(n) + 1; end when; end M;",
        0.6,
        0.05,
    );
    close(at(&r, "n", 0.0), 5.0, "n(0)");
    close(at(&r, "n", 0.2), 6.0, "n(0.2)");
    close(at(&r, "n", 0.45), 7.0, "n(0.45)");
}

#[test]
fn a_time_event_at_the_stop_time_is_handled() {
    // Samples at 0.001 k up to and including the stop time 0.2 (k = 200): the last row has
    // n = 200 and T0 = 0.2, also when the sum of intervals rounds above the output grid.
    let r = ok(
        "model P Real T0(start = 0, fixed = true); Integer n(start = 0, fixed = true);
         equation when sample(0.001, 0.001) then T0 = time; n = pre(n) + 1; end when; end P;",
        0.2,
        0.0004,
    );
    close(last(&r, "n"), 200.0, "n at the end");
    assert!((last(&r, "T0") - 0.2).abs() < 1e-12);
    close(at(&r, "n", 0.0105), 10.0, "n(0.0105)");
}

#[test]
fn two_initial_equations_for_one_discrete_variable_are_rejected() {
    let e = run(
        "model M discrete Real d;
         initial equation d = 1; d = 2;
         equation when sample(0, 1) then d = time; end when; end M;",
        1.0,
        0.1,
    )
    .expect_err("over-specified");
    assert!(
        e.contains("`d` is determined by two initial equations"),
        "{e}"
    );
    // v = e and pre(v) = e determine the same unknown for a when-assigned v.
    let e = run(
        "model M discrete Real d;
         initial equation d = 1; pre(d) = 2;
         equation when sample(0, 1) then d = time; end when; end M;",
        1.0,
        0.1,
    )
    .expect_err("over-specified");
    assert!(e.contains("determined by two initial equations"), "{e}");
    // A `when initial()` branch already determines it.
    let e = run(
        "model M discrete Real d;
         initial equation d = 1;
         equation when initial() then d = 3; end when; end M;",
        1.0,
        0.1,
    )
    .expect_err("over-specified");
    assert!(e.contains("when initial()"), "{e}");
}

const CONVERTER: &str = "model Conv
  parameter Integer N = 3;
  Integer z(start = 0, fixed = true);
  Integer bits[N];
  Integer n(start = 0, fixed = true);
  Real u;
  Real w;
  Real x(start = 0, fixed = true);
initial algorithm
  for i in 1:N loop
    bits[i] := -1;
  end for;
algorithm
  u := 2*x;
  u := u + 1;
  if x > 0.5 then
    w := u;
  else
    w := -u;
  end if;
  when sample(0.1, 0.25) then
    n := pre(n) + 1;
    z := n + 4;
    for i in 1:N loop
      bits[i] := mod(z, 2);
      z := div(z, 2);
    end for;
  end when;
equation
  der(x) = 1;
end Conv;";

#[test]
fn algorithm_section_with_a_when_statement() {
    let r = ok(CONVERTER, 1.0, 0.05);
    // Continuous part: u = 2x + 1 (the second assignment reads the first), w by the `if`.
    close(at(&r, "u", 0.3), 1.6, "u(0.3)");
    close(at(&r, "w", 0.3), -1.6, "w(0.3)");
    close(at(&r, "w", 0.7), 2.4, "w(0.7)");
    // Initial algorithm: bits = -1 until the first sample.
    close(at(&r, "bits[2]", 0.05), -1.0, "bits[2](0.05)");
    // Sample k (k = 1..4 at 0.1, 0.35, 0.6, 0.85): z starts at k + 4, its 3 low bits, z >> 3.
    for (t, k) in [(0.2, 1), (0.5, 2), (0.7, 3), (0.95, 4)] {
        let v = k + 4;
        close(at(&r, "n", t), f64::from(k), "n");
        for i in 0..3 {
            close(
                at(&r, &format!("bits[{}]", i + 1), t),
                f64::from((v >> i) & 1),
                &format!("bits[{}] at {t}", i + 1),
            );
        }
        close(at(&r, "z", t), f64::from(v >> 3), "z");
    }
}

#[test]
fn reading_an_assigned_variable_before_the_algorithm_assigns_it_reads_its_start_value() {
    // MLS 11.1.2: a continuous variable the section assigns starts from its start value.
    let r = run(
        "model M Real y(start = 2); Real x(start = 0, fixed = true);
         algorithm y := y + x;
         equation der(x) = 1; end M;",
        1.0,
        0.1,
    )
    .expect("y := y + x reads y's start value");
    close(at(&r, "y", 0.5), 2.5, "y(0.5)");
}

const CHECKED: &str = "function check
  input Real t[:];
algorithm
  for i in 2:size(t, 1) loop
    assert(t[i] > t[i-1], \"time values not increasing\");
  end for;
end check;
model M
  parameter Real table[3] = {0, 1, 2};
  Real x(start = 1, fixed = true);
initial algorithm
  check(table);
equation
  der(x) = -x;
end M;";

#[test]
fn function_called_for_its_effect_in_an_initial_algorithm() {
    let r = ok(CHECKED, 1.0, 0.1);
    assert!((at(&r, "x", 1.0) - (-1.0f64).exp()).abs() < 1e-6);
    let e = run(&CHECKED.replace("{0, 1, 2}", "{0, 2, 1}"), 1.0, 0.1).expect_err("assert");
    assert!(e.contains("time values not increasing"), "{e}");
}
