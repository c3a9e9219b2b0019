//! Language features the Thermal examples of the MSL need, on small models of our own:
//! `assert` in `initial algorithm` and `initial equation` sections (MLS 8.6), checked once on
//! the solution of the initial system.

#[path = "flatten_common/mod.rs"]
mod common;
use common::{close, last, sim_options, simulate_text};

/// An initial algorithm with an assert and the assignment of a parameter with
/// `fixed = false` (the pattern of the MSL's friction and valve models): the run uses the
/// computed parameter, `x(1) = exp(-k)` with `k = 4 (b - a) = 4`.
#[test]
fn initial_algorithm_assert_and_computed_parameter() {
    let text = "model IA
  parameter Real a = 2;
  parameter Real b = 3;
  parameter Real k(fixed = false);
  Real x(start = 1, fixed = true);
initial algorithm
  assert(b > a, \"b must exceed a\");
  k := (b - a)*4;
equation
  der(x) = -k*x;
end IA;";
    let r = simulate_text(text, &sim_options(1.0, 0.1, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    close(last(&r, "x"), (-4.0f64).exp(), 1e-5, "x(1)");
}

/// A failed initial assert stops the run with its message, the values it shows and its place.
#[test]
fn failed_initial_assert_is_a_located_error() {
    let text = "model IB
  parameter Real a = 5;
  Real x(start = 1, fixed = true);
initial equation
  assert(x > a, \"x starts at \" + String(x) + \", below a\");
equation
  der(x) = 1;
end IB;";
    let e = simulate_text(text, &sim_options(1.0, 0.1, 1e-6)).expect_err("the assert fails");
    assert!(
        e.contains("assertion failed at initialization") && e.contains("x starts at 1, below a"),
        "{e}"
    );
}

/// An initial assert is not checked during the run: here its condition becomes true later
/// (x passes 1 at t = 1) and false at the start, where only a warning level is asked for.
#[test]
fn initial_assert_is_checked_only_at_the_start() {
    let text = "model IC
  Real x(start = 0, fixed = true);
initial equation
  assert(x > 1, \"only at the start\", AssertionLevel.warning);
  assert(x < 0.5, \"x is small at the start\");
equation
  der(x) = 1;
end IC;";
    let r = simulate_text(text, &sim_options(2.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    close(last(&r, "x"), 2.0, 1e-9, "x(2)");
    assert!(
        r.messages.iter().any(|m| m.contains("only at the start")),
        "{:?}",
        r.messages
    );
}

/// The constructor of a derived record binds every field: the ones the call leaves out take
/// the derived record's defaults (MLS 12.6.1), here `rho = 1000` and `cp = 4000` of `Heavy`,
/// not the `1` its base declares. (The MSL's `medium = Media.Water()` lost them: a pump
/// against a 25 m head started delivering at once.)
#[test]
fn derived_record_constructor_gives_its_own_defaults() {
    let text = "package R
  record Base
    parameter Real rho = 1;
    parameter Real cp = 1;
  end Base;
  record Heavy
    extends Base(rho = 1000, cp = 4000);
  end Heavy;
  model Comp
    parameter Base medium = Base();
    Real x(start = 0, fixed = true);
  equation
    der(x) = medium.rho + medium.cp;
  end Comp;
  model Top
    Comp c(medium = Heavy());
    Comp d;
    Comp e(medium = Heavy(rho = 7));
  end Top;
end R;";
    let m = common::flat_model(text, Some("R.Top"));
    let flat = minimo::dae::print_flat(&m);
    for (name, value) in [
        ("c.medium.rho", "1000.0"),
        ("c.medium.cp", "4000.0"),
        ("d.medium.rho", "1.0"),
        ("e.medium.rho", "7.0"),
        ("e.medium.cp", "4000.0"),
    ] {
        assert!(
            flat.contains(&format!("{name} = {value};")),
            "{name} should be {value}:\n{flat}"
        );
    }
}

/// A derived record's default computed from other names is refused, not evaluated in the
/// wrong scope.
#[test]
fn derived_record_constructor_with_computed_default_is_refused() {
    let text = "package R
  record Base
    parameter Real a = 1;
    parameter Real b = 2;
  end Base;
  record Derived
    extends Base(b = 2*a);
  end Derived;
  model Top
    parameter Base p = Derived(a = 3);
  end Top;
end R;";
    common::assert_err(
        text,
        Some("R.Top"),
        &["field `b`", "give `b` in the constructor call"],
    );
}
