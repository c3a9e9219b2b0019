//! The choice of states of a dynamic state set is checked at the start values, before the
//! initial equations are solved in it (ActuatorWithNoise: the structural choice kept a
//! zero-sequence current that the constraints fix, and initialization failed).

mod flatten_common;

use flatten_common::{close, sim_options, simulate_text};

/// A Cartesian pendulum started 0.8° below the horizontal: the structural choice (`x`, `vx`
/// states, `y` from the constraint) has the pivot 2|y| = 0.028 against 2|x| = 2.
const NEAR_HORIZONTAL: &str = "
model NearHorizontal
  parameter Real L = 1;
  parameter Real g = 9.81;
  Real x(start = 0.9999, fixed = true);
  Real y(start = -0.0141418);
  Real vx(start = 0, fixed = true);
  Real vy;
  Real F;
equation
  der(x) = vx;
  der(y) = vy;
  der(vx) = -F*x;
  der(vy) = -F*y - g;
  x^2 + y^2 = L^2;
end NearHorizontal;
";

#[test]
fn a_state_set_singular_at_the_start_values_is_rechosen_before_initialization() {
    let r = simulate_text(NEAR_HORIZONTAL, &sim_options(0.2, 0.05, 1e-8))
        .unwrap_or_else(|e| panic!("{e}"));
    let first = r
        .messages
        .iter()
        .find(|m| m.contains("states"))
        .expect("the states note");
    assert_eq!(first, "t = 0: states y, der(y)", "{:?}", r.messages);
    // The initial values still satisfy the fixed starts and the constraint.
    let x = r.column("x").expect("x");
    let y = r.column("y").expect("y");
    close(x[0], 0.9999, 1e-9, "x(0)");
    close(x[0] * x[0] + y[0] * y[0], 1.0, 1e-9, "constraint at t = 0");
}
