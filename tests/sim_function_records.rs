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
