//! Structural analysis grows near-linearly with the model size.

#[path = "structure/chain.rs"]
mod chain;

use minimo::structure::{AnalyzeOptions, analyze};
use std::time::Instant;

fn time_structure(n: usize) -> f64 {
    let model = chain::flat_chain(n);
    let t = Instant::now();
    let a = analyze(model, &AnalyzeOptions::default()).expect("chain analyses");
    let s = t.elapsed().as_secs_f64();
    for p in &a.report.timings {
        eprintln!("  n={n} {:<20} {:.4}", p.phase, p.seconds);
    }
    assert_eq!(a.system.states.len(), 2 * n);
    // Every spring's connector variables are aliases of the masses' positions.
    assert_eq!(a.system.eliminated.len(), 2 * n);
    s
}

#[test]
fn chain_scales_near_linearly() {
    // 8k and 80k equations (5 per element).
    let small = time_structure(1_600);
    let large = time_structure(16_000);
    let ratio = large / small.max(1e-6);
    eprintln!("structure: 8k equations {small:.4} s, 80k equations {large:.4} s, ratio {ratio:.1}");
    // Generous bounds for a loaded CI machine; the benchmark reports the real figures.
    assert!(large < 10.0, "80k equations took {large} s");
    assert!(ratio < 30.0, "10x the size took {ratio}x the time");
}

#[test]
fn mo_chain_through_flattening() {
    let text = chain::mo_chain(200);
    let flat = minimo::flatten::flatten_source("Chain.mo", &text, Some("Chain")).expect("flattens");
    let a = analyze(flat, &AnalyzeOptions::default()).expect("analyses");
    assert_eq!(a.system.states.len(), 400);
}
