//! If-equations whose conditions are not parameters (MLS 8.3.4): in `initial equation`
//! sections (a discrete mode chosen from an input, a state's start chosen by a condition, a
//! residual when the branches write different left sides), and asserts inside an if-equation's
//! else-branch, which hold only while no branch condition is true. Values worked out by hand.

mod flatten_common;

use flatten_common::{at, sim_options, simulate_text};

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-6, "{what}: {a} != {b}");
}

/// The shape of the MSL's soft-starter control: the initial mode depends on the reference.
fn soft_start(v0: f64) -> String {
    format!(
        "model SoftStart
  type Mode = enumeration(Off, Up, On, Down);
  parameter Boolean start = true;
  Real vRef = {v0} + time;
  Mode mode;
  Real x;
initial equation
  if start and vRef > 0 then
    if vRef < 1 then
      mode = Mode.Up;
    else
      mode = Mode.On;
    end if;
  else
    mode = Mode.Off;
  end if;
  if vRef < 1 then
    x = 2;
  else
    x = 3;
  end if;
equation
  when vRef > 1.5 then
    mode = Mode.Down;
  end when;
  der(x) = -x;
end SoftStart;"
    )
}

#[test]
fn initial_if_chooses_the_discrete_mode_and_the_start() {
    // vRef(0) = 0.5: Up (2nd literal, 2), x(0) = 2.
    let r = simulate_text(&soft_start(0.5), &sim_options(0.5, 0.25, 1e-9)).unwrap();
    close(at(&r, "mode", 0.0), 2.0, "mode at 0 (Up)");
    close(at(&r, "x", 0.0), 2.0, "x(0)");
    close(at(&r, "x", 0.5), 2.0 * (-0.5f64).exp(), "x(0.5)");
    // vRef(0) = 1.2: On, x(0) = 3; at t = 0.3 the when-equation sets Down.
    let r = simulate_text(&soft_start(1.2), &sim_options(0.5, 0.25, 1e-9)).unwrap();
    close(at(&r, "mode", 0.0), 3.0, "mode at 0 (On)");
    close(at(&r, "x", 0.0), 3.0, "x(0)");
    close(at(&r, "mode", 0.5), 4.0, "mode at 0.5 (Down)");
    // vRef(0) = -1: Off.
    let r = simulate_text(&soft_start(-1.0), &sim_options(0.25, 0.25, 1e-9)).unwrap();
    close(at(&r, "mode", 0.0), 1.0, "mode at 0 (Off)");
}

#[test]
fn initial_if_with_different_left_sides_is_a_residual() {
    let model = |u: f64| {
        format!(
            "model Res
  Real u = {u};
  Real x;
initial equation
  if u < 0.5 then
    x = 4 * u * u + 1.75;
  else
    2 * x = u;
  end if;
equation
  der(x) = 0;
end Res;"
        )
    };
    // u = 0.25: x = 0.25 + 1.75 = 2; u = 3: 2x = 3, x = 1.5.
    let r = simulate_text(&model(0.25), &sim_options(0.25, 0.25, 1e-9)).unwrap();
    close(at(&r, "x", 0.25), 2.0, "x with the first branch");
    let r = simulate_text(&model(3.0), &sim_options(0.25, 0.25, 1e-9)).unwrap();
    close(at(&r, "x", 0.25), 1.5, "x with the else-branch");
}

#[test]
fn initial_if_branches_must_have_equal_counts() {
    let text = "model Bad
  Real u = time;
  Real x;
  Real y;
initial equation
  if u < 0.5 then
    x = 1;
    y = 2;
  else
    x = 2;
  end if;
equation
  der(x) = 0;
  der(y) = 0;
end Bad;";
    let e = simulate_text(text, &sim_options(0.25, 0.25, 1e-9)).unwrap_err();
    assert!(e.contains("different numbers of equations"), "{e}");
}

/// An assert in the else-branch holds only while no branch condition is true.
const ELSE_ASSERT: &str = "model ElseAssert
  Real x = time;
  Real y;
equation
  if x < 0.5 then
    y = x;
  else
    y = 2 * x;
    assert(x > 0.7, \"else-branch active below 0.7\");
  end if;
end ElseAssert;";

#[test]
fn else_branch_assert_is_guarded_by_the_branch() {
    // Before 0.5 the else-branch is not active: its assert must not fire.
    let r = simulate_text(ELSE_ASSERT, &sim_options(0.45, 0.05, 1e-9)).unwrap();
    close(at(&r, "y", 0.45), 0.45, "y in the first branch");
    // From 0.5 it is, and x = 0.5 violates it.
    let e = simulate_text(ELSE_ASSERT, &sim_options(1.0, 0.05, 1e-9)).unwrap_err();
    assert!(e.contains("else-branch active below 0.7"), "{e}");
}
