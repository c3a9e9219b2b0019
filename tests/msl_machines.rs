//! `Modelica.Electrical.Machines` examples. No reference results exist for them here; the
//! checks are the machines' physics (steady speed and load torque, symmetry of the cycle).

mod flatten_common;

use flatten_common::{msl_library, simulate_with_library};

/// The conveyor's load is `SignForce` with the logistic regularization
/// `2/(1 + exp(-v/(0.01*v0))) - 1`: once the belt runs backwards faster than 0.56 m/s the
/// `exp` overflows to infinity and the force is exactly `f_nominal`. The tangent of the
/// quotient was `0 * inf` there (NaN): every Newton iteration failed and the run stopped at
/// t = 10.19 s with "step size too small". The drive cycle is symmetric: forward at full
/// speed on [1.5, 4] s, backwards on [11.5, 14] s, at rest in between.
#[test]
fn conveyor_runs_the_whole_cycle_in_both_directions() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Machines.Examples.InductionMachines.IMC_Conveyor",
            "--interval",
            "0.05",
            "--vars",
            r"^(aimc\.wMechanical|aimc\.tauElectrical)$",
        ],
    );
    assert!(
        t.rows.last().expect("rows")[0] >= 20.0 - 1e-9,
        "ran to 20 s"
    );
    // At steady speed the machine's torque equals the load torque, TLoad = 161.4 N·m, and
    // the speed is the synchronous 157.08 rad/s less the slip.
    for (time, sign) in [(3.0, 1.0), (13.0, -1.0)] {
        let w = t.at("aimc.wMechanical", time);
        let tau = t.at("aimc.tauElectrical", time);
        assert!((tau - sign * 161.4).abs() < 0.05, "torque {tau} at {time}");
        assert!((w - sign * 150.844).abs() < 0.01, "speed {w} at {time}");
    }
    for time in [8.0, 18.0] {
        assert!(
            t.at("aimc.wMechanical", time).abs() < 1e-6,
            "at rest at {time}"
        );
    }
}
