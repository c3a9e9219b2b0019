//! Benchmark: flatten + structure of generated chains of 8k and 80k equations (5 equations per
//! element: two connector aliases, a spring law, position and velocity), and structure alone.

#[path = "../tests/structure/chain.rs"]
mod chain;

use criterion::{Criterion, criterion_group, criterion_main};
use minimo::structure::{AnalyzeOptions, analyze};
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("structure");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for &elements in &[1_600usize, 16_000] {
        let equations = 5 * elements;
        let flat = chain::flat_chain(elements);
        g.bench_function(format!("structure/{equations}"), |b| {
            b.iter(|| {
                analyze(black_box(flat.clone()), &AnalyzeOptions::default())
                    .map(|a| a.system.blocks.len())
            })
        });
        let text = chain::mo_chain(elements);
        g.bench_function(format!("flatten+structure/{equations}"), |b| {
            b.iter(|| {
                let flat =
                    minimo::flatten::flatten_source("Chain.mo", black_box(&text), Some("Chain"))
                        .ok()?;
                analyze(flat, &AnalyzeOptions::default())
                    .ok()
                    .map(|a| a.system.blocks.len())
            })
        });
    }
    g.finish();
}

// Plots need fonts the CI machine may not have; the numbers are what matter.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = bench
}
criterion_main!(benches);
