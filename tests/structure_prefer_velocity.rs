//! A relative velocity with `stateSelect = prefer` that the model defines as `v_rel = der(s_rel)`
//! but never writes under `der()` (MSL Translational's `PartialCompliantWithRelativeStates`) is
//! a state candidate, and wins over the body velocities of `default` hint: when a `reinit` sets
//! the velocity of one body, `v_rel` stays continuous and the other body takes the jump (MSL
//! Translational.Examples.HeatLosses, where the reference keeps `springDamper1.v_rel`).

mod flatten_common;

use flatten_common::{close, sim_options, simulate_text};

/// Body 1 (`always` states, as MSL MassWithStopAndFriction) is stopped at t = 0.3 by a reinit;
/// body 2 hangs on a spring-damper with relative states.
const TWO_MASSES: &str = "
model TwoMasses
  parameter Real m1 = 1;
  parameter Real m2 = 1;
  parameter Real c = 100;
  parameter Real d = 2;
  Real s1(start = 0, fixed = true, stateSelect = StateSelect.always);
  Real v1(start = 1, fixed = true, stateSelect = StateSelect.always);
  Real s2;
  Real v2(start = 0, fixed = true);
  Real a2;
  Real s_rel(start = 0.5, fixed = true, stateSelect = StateSelect.prefer);
  Real v_rel(stateSelect = StateSelect.prefer);
  Real f;
equation
  v1 = der(s1);
  m1*der(v1) = f;
  v2 = der(s2);
  a2 = der(v2);
  m2*a2 = -f;
  s_rel = s2 - s1;
  v_rel = der(s_rel);
  f = c*(s_rel - 0.5) + d*v_rel;
  when time >= 0.3 then
    reinit(v1, 0);
  end when;
end TwoMasses;
";

/// The rows just before and just after the event at `t`.
fn around(time: &[f64], t: f64) -> (usize, usize) {
    let after = time
        .iter()
        .rposition(|&x| (x - t).abs() < 1e-9)
        .expect("a row at the event");
    let before = time
        .iter()
        .position(|&x| (x - t).abs() < 1e-9)
        .expect("a row at the event");
    assert!(before < after, "two rows at the event: {time:?}");
    (before, after)
}

#[test]
fn a_preferred_relative_velocity_stays_continuous_across_a_reinit() {
    let r =
        simulate_text(TWO_MASSES, &sim_options(0.6, 0.05, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    let (b, a) = around(&r.time, 0.3);
    let col = |n: &str| r.column(n).unwrap_or_else(|| panic!("no {n}"));
    let (v1, v2, v_rel) = (col("v1"), col("v2"), col("v_rel"));
    // Before the event body 1 moves: the reinit is a real jump.
    assert!(v1[b].abs() > 0.1, "v1 before the event: {}", v1[b]);
    close(v1[a], 0.0, 1e-12, "v1 after the reinit");
    // v_rel is a state: continuous; body 2 takes the jump of body 1.
    close(v_rel[a], v_rel[b], 1e-9, "v_rel across the reinit");
    close(v2[a] - v2[b], v1[a] - v1[b], 1e-9, "jump of v2");
    // The constraint holds on both sides.
    for k in [b, a] {
        close(v_rel[k], v2[k] - v1[k], 1e-9, "v_rel = v2 - v1");
    }
}

/// A tank written as the MSL Fluid vessels are: the balances differentiate the mass `m` and the
/// internal energy `U`, and the level and temperature (no `der()` anywhere) carry
/// `stateSelect = prefer` and the start values. With `m` and `U` the states (no start: 0) the
/// free initialization starts the tank empty and the temperature is `0/0`; with `level` and `T`
/// preferred (MLS 4.9.4) their start values are the initial values. The choice also needs a
/// regularity test that is not fooled by the units: `c*T - 1.14e6` (about 1e6 J/kg) sits next to the
/// density 1000 and the 1 of the other differentiated equations.
const TANK: &str = "
model Tank
  parameter Real A = 0.001 \"cross area\";
  parameter Real d = 1000 \"density\";
  parameter Real c = 4184 \"heat capacity\";
  parameter Real k = 0.5 \"outflow per level\";
  Real m \"mass\";
  Real V \"volume\";
  Real U \"internal energy\";
  Real level(stateSelect = StateSelect.prefer, start = 0.8);
  Real T(stateSelect = StateSelect.prefer, start = 350);
equation
  der(m) = -k*level;
  der(U) = -k*level*(c*T - 1.1428596e6);
  V = A*level;
  m = d*V;
  U = m*(c*T - 1.1428596e6);
end Tank;
";

#[test]
fn preferred_level_and_temperature_are_the_states_and_take_their_start_values() {
    let r = simulate_text(TANK, &sim_options(2.0, 0.5, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    let col = |n: &str| r.column(n).unwrap_or_else(|| panic!("no {n}"));
    let (level, t, m) = (col("level"), col("T"), col("m"));
    // d*A = 1 kg per m of level: level(t) = 0.8 exp(-k t), the outflow carries its own
    // energy, so T stays at its start value.
    for (i, &time) in r.time.iter().enumerate() {
        close(level[i], 0.8 * (-0.5 * time).exp(), 1e-6, "level");
        close(t[i], 350.0, 1e-6, "T");
        close(m[i], level[i], 1e-9, "m = d*A*level");
    }
}

/// A preferred variable defined by a discontinuous expression is not made a state whose
/// derivative misses the jump: index reduction differentiates its definition, and the
/// definition, which holds at every instant, keeps it algebraic. w jumps from 1 to 2 at
/// t = 0.5, so x = integral of w reaches 0.5 + 1 = 1.5 at t = 1.
const JUMP: &str = "
model Jump
  Real w(stateSelect = StateSelect.prefer) = if time < 0.5 then 1 else 2;
  Real x(start = 0, fixed = true);
equation
  der(x) = w;
end Jump;
";

#[test]
fn a_preferred_variable_with_a_jump_keeps_its_jump() {
    let r = simulate_text(JUMP, &sim_options(1.0, 0.25, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    let col = |n: &str| r.column(n).unwrap_or_else(|| panic!("no {n}"));
    let (w, x) = (col("w"), col("x"));
    let last = r.time.len() - 1;
    close(w[last], 2.0, 1e-12, "w after the jump");
    close(x[last], 1.5, 1e-6, "x(1)");
}

/// The tank with a mixture, as the MSL MoistAir volumes: the enthalpy function takes the mass
/// fractions as a vector `{x, 1 - x}` that changes with time. Making `level`, `T` and `x` the
/// states differentiates `U = m*h(T, {x, 1 - x})`, so the derivative of a call with a vector
/// argument is needed (element by element); without it the states stay `m`, `mX`, `U` (no
/// start: 0) and `x = mX/m` is `0/0` at the start.
const MIX_TANK: &str = "
model MixTank
  function h \"specific enthalpy of the mixture (two statements: not inlined)\"
    input Real T;
    input Real X[:];
    output Real h;
  protected
    Real c;
  algorithm
    c := 4184*X[1] + 1000*X[2];
    h := c*(T - 273.15);
  end h;
  parameter Real k = 0.5 \"outflow per level\";
  Real m \"mass\";
  Real mX \"mass of the first substance\";
  Real U \"internal energy\";
  Real level(stateSelect = StateSelect.prefer, start = 0.8);
  Real T(stateSelect = StateSelect.prefer, start = 350);
  Real x(stateSelect = StateSelect.prefer, start = 0.3);
equation
  der(m) = -k*level;
  der(mX) = -k*level*x;
  der(U) = -k*level*h(T, {x, 1 - x});
  m = level;
  mX = m*x;
  U = m*h(T, {x, 1 - x});
end MixTank;
";

#[test]
fn preferred_mass_fraction_in_a_vector_argument_is_a_state() {
    let r = simulate_text(MIX_TANK, &sim_options(2.0, 0.5, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    let col = |n: &str| r.column(n).unwrap_or_else(|| panic!("no {n}"));
    let (level, t, x) = (col("level"), col("T"), col("x"));
    // The outflow carries its own composition and energy: x and T keep their start values.
    for (i, &time) in r.time.iter().enumerate() {
        close(level[i], 0.8 * (-0.5 * time).exp(), 1e-6, "level");
        close(t[i], 350.0, 1e-6, "T");
        close(x[i], 0.3, 1e-6, "x");
    }
}
