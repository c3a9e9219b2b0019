//! The state Jacobian built through the vehicle's large linear block (`Engine::state_jacobian`:
//! coloured passes with the block's unknowns held fixed, one solve per state with the block's
//! factorization) against two independent references at the start point: the Jacobian-vector
//! product of each unit vector (forward mode through the whole pass), and central finite
//! differences of the right-hand side.

use minimo::diag::SourceMap;
use minimo::flatten::{LoadOptions, load_and_flatten};
use minimo::sim::driver::prepare_engine;
use minimo::structure::{AnalyzeOptions, analyze};
use std::path::PathBuf;

#[test]
fn vehicle_state_jacobian_matches_jvp_and_finite_differences() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let load = LoadOptions {
        files: vec![root.join("examples/multibody/OmniVehicle.mo")],
        libs: Vec::new(),
        model: None,
    };
    let mut sources = SourceMap::new();
    let flat = load_and_flatten(&load, &mut sources).expect("vehicle loads");
    let analysis = analyze(flat, &AnalyzeOptions::default()).expect("vehicle analyses");
    let mut e = prepare_engine(&analysis.system, &[]).expect("vehicle compiles");
    assert!(e.has_state_jacobian(), "the vehicle has a sparse-LU block");
    let n = e.nstates();
    let x0 = e.states();
    e.eval_at(0.0, &x0).expect("start point evaluates");
    let mut jac = vec![f64::NAN; n * n];
    assert!(e.state_jacobian(&mut jac));
    assert!(jac.iter().all(|v| v.is_finite()));

    // Forward mode, column by column.
    let mut v = vec![0.0; n];
    let mut col = vec![0.0; n];
    let scale = jac.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let mut worst_jvp = 0.0f64;
    for j in 0..n {
        v[j] = 1.0;
        e.jvp(&v, &mut col);
        v[j] = 0.0;
        for i in 0..n {
            worst_jvp = worst_jvp.max((col[i] - jac[i * n + j]).abs() / scale);
        }
    }
    assert!(worst_jvp < 1e-9, "state Jacobian vs jvp: {worst_jvp:e}");

    // Central differences, relative to the largest entry of the row. The block solves of the
    // perturbed points are tightened to round-off: a refinement stopped at the default 1e-10
    // would put 1e-10 / h of noise into the differences. The truncation error is about 1e-5 of
    // the row's largest entry at h = 1e-6 and 1.2e-7 at h = 1e-7 (h^2: the differences converge
    // to this Jacobian).
    e.newton_tol = 1e-15;
    let mut fp = vec![0.0; n];
    let mut fm = vec![0.0; n];
    let mut fd = vec![0.0; n * n];
    for j in 0..n {
        let h = 1e-7 * (1.0 + x0[j].abs());
        let mut x = x0.clone();
        x[j] = x0[j] + h;
        e.eval_at(0.0, &x).expect("perturbed point evaluates");
        e.derivatives(&mut fp);
        x[j] = x0[j] - h;
        e.eval_at(0.0, &x).expect("perturbed point evaluates");
        e.derivatives(&mut fm);
        for i in 0..n {
            fd[i * n + j] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    let mut worst_fd = 0.0f64;
    for i in 0..n {
        let row = &jac[i * n..(i + 1) * n];
        let s = row.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for j in 0..n {
            worst_fd = worst_fd.max((fd[i * n + j] - row[j]).abs() / s);
        }
    }
    assert!(
        worst_fd < 1e-5,
        "state Jacobian vs finite differences: {worst_fd:e}"
    );
}
