//! The compliant rolling-disc contact against Exudyn's ObjectConnectorRollingDiscPenalty
//! (reference data: tests/multibody/exudyn_rolling_disc.csv, made by exudyn_rolling_disc.py).
//! The same library model simulated by rumoca 0.10.2 stays within 2e-5 m and 6e-5 m/s of that
//! reference (Exudyn step 2e-5 s); the tolerances below leave room for the integrator.

#[path = "multibody/harness.rs"]
mod harness;

use harness::{Sim, example, interp, reference};

#[test]
fn rolling_disc_matches_exudyn() {
    let exu = reference("exudyn_rolling_disc.csv");
    // With the default BDF (it once stopped near t = 1.15 s: diffsol's Newton-failure
    // budget counted over the whole run).
    let r = Sim::new(example("RollingDisc.mo"), "RollingDisc", 2.0, 0.01)
        .tolerance(1e-8)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.all_finite());
    let t = r.time();
    let pairs = [
        ("disc.r[1]", "r1", 2e-4),
        ("disc.r[2]", "r2", 2e-4),
        ("disc.r[3]", "r3", 2e-4),
        ("disc.v[1]", "v1", 1e-3),
        ("disc.v[2]", "v2", 1e-3),
        ("disc.v[3]", "v3", 1e-3),
        ("disc.frame.w[1]", "w1", 3e-3),
        ("disc.frame.w[2]", "w2", 3e-3),
        ("disc.frame.w[3]", "w3", 3e-3),
    ];
    for (mine, theirs, tol) in pairs {
        let m = r.col(mine);
        let te = exu.time();
        let e = exu.col(theirs);
        let worst = te
            .iter()
            .zip(&e)
            .map(|(&tk, &ek)| (interp(&t, &m, tk) - ek).abs())
            .fold(0.0, f64::max);
        assert!(
            worst < tol,
            "{mine} differs from Exudyn by {worst} (tolerance {tol})"
        );
    }
    // The disc really rolls, leans and turns: not a trivial run.
    assert!(r.spread("disc.r[1]") > 0.5 && r.spread("disc.r[2]") > 0.1);
}
