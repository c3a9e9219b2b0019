//! Modelica.Fluid tank examples: the vessels' `level` and `medium.T` carry `stateSelect =
//! prefer` and the start values, while their balances differentiate `m` and `U`. They must be
//! the states (MLS 4.9.4), so a free initialization starts from `level_start` (before, the
//! tanks started empty, with a NaN temperature, and the first pipe loop stopped the run).
//! Checked against what the models must conserve and where they must end. Needs the MSL beside
//! the checkout (skipped with a message otherwise).

mod flatten_common;
use flatten_common::{Table, msl_library, simulate_with_library};

fn run(model: &str) -> Table {
    let lib = msl_library().expect("checked by the caller");
    simulate_with_library(&lib, &["-m", model])
}

fn last(t: &Table, name: &str) -> f64 {
    t.rows.last().expect("rows")[t.col(name)]
}

fn first(t: &Table, name: &str) -> f64 {
    t.rows[0][t.col(name)]
}

/// The water in both tanks is the same at the first and the last row.
fn assert_mass_conserved(t: &Table) {
    let mass = |row: &Vec<f64>| row[t.col("tank1.m")] + row[t.col("tank2.m")];
    let (m0, m1) = (mass(&t.rows[0]), mass(t.rows.last().expect("rows")));
    assert!((m1 - m0).abs() < 1e-6 * m0, "mass {m0} -> {m1}");
}

#[test]
fn two_tanks_start_at_their_levels_and_equalise() {
    if msl_library().is_none() {
        return;
    }
    let t = run("Modelica.Fluid.Examples.AST_BatchPlant.Test.TwoTanks");
    // level_start 3 and 1, equal cross areas: both end at 2, mass conserved.
    assert!((first(&t, "tank1.level") - 3.0).abs() < 1e-9);
    assert!((first(&t, "tank2.level") - 1.0).abs() < 1e-9);
    for tank in ["tank1", "tank2"] {
        let l = last(&t, &format!("{tank}.level"));
        assert!((l - 2.0).abs() < 1e-4, "{tank}.level ends at {l}");
    }
    assert_mass_conserved(&t);
}

#[test]
fn empty_tanks_drains_the_upper_tank_into_the_lower_one() {
    if msl_library().is_none() {
        return;
    }
    let t = run("Modelica.Fluid.Examples.Tanks.EmptyTanks");
    assert!((first(&t, "tank1.level") - 1.0).abs() < 1e-9);
    // The upper tank empties down to the pipe's hysteresis band, the lower one takes it all.
    assert!(last(&t, "tank1.level") < 0.002, "tank1 keeps water");
    assert!((last(&t, "tank2.level") - 1.0).abs() < 2e-3);
    assert_mass_conserved(&t);
}

#[test]
fn one_tank_drains_through_its_pipe_from_level_start() {
    if msl_library().is_none() {
        return;
    }
    let t = run("Modelica.Fluid.Examples.AST_BatchPlant.Test.OneTank");
    assert!((first(&t, "tank.level") - 0.8).abs() < 1e-9);
    assert!((first(&t, "tank.medium.T") - 293.15).abs() < 1e-9);
    // Water of constant properties at the ambient temperature stays there.
    for row in &t.rows {
        let temp = row[t.col("tank.medium.T")];
        assert!((temp - 293.15).abs() < 1e-6, "T = {temp}");
    }
}

/// A room of moist air ventilated with air of less CO2 (Modelica.Fluid.Examples.TraceSubstances).
/// The volume's `medium.p`, `medium.T` and `medium.Xi` carry `stateSelect = prefer`; making them
/// the states differentiates the MoistAir enthalpy `specificEnthalpy_pTX(p, T, {Xi[1]})`, a call
/// with a vector argument. Before, the states stayed `m`, `U`, `mXi` (no start: 0) and the medium
/// loop got `Xi = 0/0` at t = 0. The well-mixed room's CO2 decays to the inflow's with the time
/// constant m/m_flow: C(t) = C_in + (C_0 - C_in) exp(-m_flow t/m).
#[test]
fn room_co2_is_ventilated_towards_the_inflow_concentration() {
    if msl_library().is_none() {
        return;
    }
    let t = run("Modelica.Fluid.Examples.TraceSubstances.RoomCO2");
    assert!((first(&t, "volume.medium.p") - 101325.0).abs() < 1e-6);
    assert!((first(&t, "volume.medium.T") - 293.15).abs() < 1e-9);
    let (c0, c_in) = (1.519e-3, 0.3 * 1.519e-3);
    assert!((first(&t, "volume.C[1]") - c0).abs() < 1e-12);
    let (m0, m1) = (first(&t, "volume.m"), last(&t, "volume.m"));
    assert!((m1 - m0).abs() < 0.01 * m0, "air mass {m0} -> {m1}");
    let m_flow = 100.0 / 1.2 / 3600.0 * 5.0;
    let tau = m1 / m_flow;
    for time in [900.0, 1800.0, 3600.0] {
        let expected = c_in + (c0 - c_in) * (-time / tau).exp();
        let c = t.at("volume.C[1]", time);
        assert!(
            (c - expected).abs() < 0.01 * expected,
            "C({time}) = {c}, well mixed {expected}"
        );
    }
}
