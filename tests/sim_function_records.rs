//! Time derivatives of calls of functions with record inputs and outputs (MLS 12.6, 12.7):
//! a record is passed to a function field by field, so the generated partial derivatives of
//! such a function (central differences, `structure::userfn`) read and shift record fields.
//! The MSL media's `setSmoothState(x, state_a, state_b, x_small)` is this pattern
//! (`Modelica.Media.Examples.SimpleLiquidWater`, `der(state.p)`).

mod flatten_common;

use flatten_common::{at, sim_options, simulate_text};

const BLEND: &str = r#"
record State
  Real p;
  Real T;
end State;
function blend "Not inlined: its derivative is the generated partials"
  input Real x;
  input State a;
  input State b;
  output State s;
algorithm
  s := State(p = x*a.p + (1 - x)*b.p, T = x*a.T + (1 - x)*b.T*b.T);
end blend;
model RecordPartials
  State a(p = 1, T = 2);
  State b;
  State s;
  Real dT;
  Real dp;
equation
  b.p = 3;
  b.T = 1 + time;
  s = blend(sin(time), a, b);
  dT = der(s.T);
  dp = der(s.p);
end RecordPartials;
"#;

/// `der` of both fields of a record output, through the partials with respect to a scalar
/// input (`x`) and a field of a record input (`b.T`), against the analytic derivatives:
/// `s.T = 2 x + (1 - x)(1 + t)^2`, `s.p = x + 3 (1 - x)`, `x = sin t`. Before, the generated
/// partial read `b.T` as a path (record `b`, field `T`) and the run stopped at the first step:
/// "unknown name `b.T` in function".
#[test]
fn der_of_a_call_with_record_input_and_output_uses_field_partials() {
    let r = simulate_text(BLEND, &sim_options(2.0, 0.01, 1e-8)).unwrap();
    for &t in &[0.0, 0.5, 1.0, 1.7, 2.0] {
        let (x, dx) = (f64::sin(t), f64::cos(t));
        let u = 1.0 + t;
        let dt = 2.0 * dx - dx * u * u + (1.0 - x) * 2.0 * u;
        let dp = -2.0 * dx;
        let got_t = at(&r, "dT", t);
        let got_p = at(&r, "dp", t);
        assert!(
            (got_t - dt).abs() < 1e-6 * (1.0 + dt.abs()),
            "dT({t}) = {got_t}, not {dt}"
        );
        assert!(
            (got_p - dp).abs() < 1e-6 * (1.0 + dp.abs()),
            "dp({t}) = {got_p}, not {dp}"
        );
    }
}

/// A function's local records start with the values their record class gives its fields,
/// the class's `extends` modifiers included, also for a field sized by another field
/// (`a[nc]`, as the R134a medium's coefficient records); a record constructor in a function
/// takes those values for the fields it leaves out. Before, `id.k` and `id.a` read 0 and the
/// run exited 0.
const FIELD_DEFAULTS: &str = r#"
package RF
  record Base
    parameter Integer nc = 2;
    parameter Real a[nc];
    parameter Real k = 3;
  end Base;
  record Ideal
    extends Base(nc = 3, a = {1, 2, 3}, k = 5);
  end Ideal;
  function f
    input Real x;
    output Real y;
  protected
    Ideal id;
    Base b(k = 7);
    Ideal c = Ideal(k = 2);
  algorithm
    y := x * id.k + sum(id.a) + id.nc + b.k + c.k + sum(c.a);
  end f;
  model M
    Real y = f(time);
  end M;
end RF;
"#;

#[test]
fn function_local_records_start_with_their_field_values() {
    let r = flatten_common::simulate_source("rf.mo", FIELD_DEFAULTS, "RF.M");
    // t = 1: 5 + 6 + 3 + 7 + 2 + 6 = 29.
    flatten_common::close(flatten_common::last(&r, "y"), 29.0, 1e-12, "y");
}

/// `state = setState(p)` with an Integer field beside the Real ones (the MSL media's `phase`):
/// the field is evaluated with the call, during the run, like the Real fields; a plain
/// `Integer i = f(x)` with `x` continuous stays refused (MLS 3.8.3, `flatten/discrete_time.rs`).
const PHASE: &str = r#"
record State
  Real p;
  Integer phase;
end State;
function setState
  input Real p;
  output State s;
algorithm
  s := State(p = p, phase = if p > 1 then 2 else 1);
end setState;
model RecordPhase
  State st;
  Real x(start = 0, fixed = true);
equation
  der(x) = 1;
  st = setState(x);
end RecordPhase;
"#;

#[test]
fn an_integer_field_of_a_record_equation_follows_its_call() {
    let r = simulate_text(PHASE, &sim_options(2.0, 0.25, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    for (t, phase) in [(0.5, 1.0), (0.75, 1.0), (1.5, 2.0), (2.0, 2.0)] {
        assert_eq!(at(&r, "st.phase", t), phase, "st.phase at t = {t}");
        assert!((at(&r, "st.p", t) - t).abs() < 1e-9);
    }
    let plain = PHASE
        .replace(
            "model RecordPhase",
            "function ph\n  input Real p;\n  output Integer k;\nalgorithm\n  k := if p > 1 then 2 else 1;\nend ph;\nmodel RecordPhase",
        )
        .replace("  State st;\n", "  State st;\n  Integer i = ph(x);\n");
    let e = simulate_text(&plain, &sim_options(2.0, 0.25, 1e-8)).unwrap_err();
    assert!(e.contains("discrete-time"), "{e}");
}
