//! MSL `Modelica.Blocks.Examples.Noise.ActuatorWithNoise`: a permanent-magnet machine whose
//! state set's dummy states (stator-frame currents) join BDF's error test as algebraic
//! components. An accepted step used to leave them off the value the main pass gives from the
//! states, and every later step failed the error test on that offset: the run stopped at
//! t = 1.542. `sim/stepping.rs::settle_algebraic` writes them back.
//!
//! The reference is sampled every 5 ms, each sample an event (two rows), while
//! `controller.busdelay.y` (a 1 ms lag of a noisy controller output) moves between samples.
//! The regression runner's tube used to check minimo's event rows between the samples against
//! the reference's chord and failed there; it no longer judges a curve inside the other's first
//! segment after an event (regress/tube.rs `after_event_unresolved`). This test checks what the
//! reference can decide: every reference signal at every reference time, within 2e-3 of the
//! signal's range.

mod flatten_common;
use flatten_common::{Table, msl_library, simulate_with_library};

/// `col` of `t` linearly interpolated at time `at` (the value after an event at `at`).
fn value_at(t: &[f64], col: &[f64], at: f64) -> f64 {
    let k = t.partition_point(|&x| x <= at).clamp(1, t.len() - 1);
    let (t0, t1) = (t[k - 1], t[k]);
    if t1 == t0 {
        return col[k];
    }
    col[k - 1] + (col[k] - col[k - 1]) * (at - t0) / (t1 - t0)
}

#[test]
fn actuator_with_noise_runs_to_its_stop_time_and_matches_at_the_reference_times() {
    let Some(lib) = msl_library() else { return };
    let reference = lib.parent().expect("msl folder").join(
        "reference/v4.1.0/Modelica/Blocks/Examples/Noise/ActuatorWithNoise/ActuatorWithNoise.csv",
    );
    let reference = Table::parse(&std::fs::read_to_string(&reference).expect("reference"));
    let ours = simulate_with_library(
        &lib,
        &[
            lib.join("Modelica").to_str().expect("path"),
            "-m",
            "Modelica.Blocks.Examples.Noise.ActuatorWithNoise",
        ],
    );
    let our_t: Vec<f64> = ours.rows.iter().map(|r| r[0]).collect();
    assert!(
        (our_t.last().copied().unwrap_or(0.0) - 8.0).abs() < 1e-9,
        "the run stops before 8 s"
    );
    for (c, name) in reference.head.iter().enumerate().skip(1) {
        let oc = ours.col(name);
        let col: Vec<f64> = ours.rows.iter().map(|r| r[oc]).collect();
        let refs: Vec<(f64, f64)> = reference.rows.iter().map(|r| (r[0], r[c])).collect();
        let (lo, hi) = refs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &(_, v)| {
                (a.min(v), b.max(v))
            });
        let range = (hi - lo).max(1e-12);
        for &(t, v) in &refs {
            let got = value_at(&our_t, &col, t);
            assert!(
                (got - v).abs() <= 2e-3 * range,
                "{name} at t = {t}: {got} against the reference {v} (range {range})"
            );
        }
    }
}
