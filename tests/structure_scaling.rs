//! Structural analysis of large generated chains: states and aliases come out right at 80k
//! equations. How the time grows with the size is measured by `cargo bench --bench structure`,
//! not here (timings in tests fail on loaded machines).

#[path = "structure/chain.rs"]
mod chain;

use minimo::structure::{AnalyzeOptions, analyze};

fn check_chain(n: usize) {
    let model = chain::flat_chain(n);
    let a = analyze(model, &AnalyzeOptions::default()).expect("chain analyses");
    assert_eq!(a.system.states.len(), 2 * n);
    // Every spring's connector variables are aliases of the masses' positions.
    assert_eq!(a.system.eliminated.len(), 2 * n);
}

#[test]
fn large_chains_keep_every_mass_as_a_state() {
    // 8k and 80k equations (5 per element).
    check_chain(1_600);
    check_chain(16_000);
}

#[test]
fn mo_chain_through_flattening() {
    let text = chain::mo_chain(200);
    let flat = minimo::flatten::flatten_source("Chain.mo", &text, Some("Chain")).expect("flattens");
    let a = analyze(flat, &AnalyzeOptions::default()).expect("analyses");
    assert_eq!(a.system.states.len(), 400);
}
