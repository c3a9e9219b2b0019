//! A relation that starts an integration segment disagreeing with its operands (they are equal
//! but for a tiny offset the event left) must still get its event when the operands move on to
//! the disagreeing side (MLS 8.5: the crossing is tracked from the value the relation keeps;
//! `src/sim/root_baseline.rs`). Expected values are worked out by hand from the model's text.

mod flatten_common;

use flatten_common::{at, close, sim_options, simulate_text};

/// A particle rises at 1 m/s from x = -0.5 and bounces off a ceiling at x = 0. The bounce
/// leaves it 1e-12 below the ceiling, within rounding of the point where `x > 0` crossed, so
/// the relation keeps the value the crossing gave it (true) while its operands say false; the
/// particle then falls, and `x > 0` must become false with it: `above` is 0 and the height is
/// `-(t - 0.5)` after the bounce, for every output interval.
const CEILING: &str = "model Ceiling
  Real x(start = -0.5, fixed = true);
  Real v(start = 1, fixed = true);
  Real above;
equation
  der(x) = v;
  der(v) = 0;
  when x > 0 then
    reinit(x, -1e-12);
    reinit(v, -pre(v));
  end when;
  above = if x > 0 then 1 else 0;
end Ceiling;";

#[test]
fn a_relation_left_disagreeing_by_an_event_follows_its_operands_afterwards() {
    for interval in [0.01, 0.1, 0.25] {
        let r = simulate_text(CEILING, &sim_options(1.5, interval, 1e-8))
            .unwrap_or_else(|e| panic!("{e}"));
        for t in [0.75, 1.0, 1.5] {
            close(
                at(&r, "above", t),
                0.0,
                0.0,
                &format!("above at {t} (output every {interval})"),
            );
            close(
                at(&r, "x", t),
                -(t - 0.5),
                1e-6,
                &format!("x at {t} (output every {interval})"),
            );
        }
    }
}
