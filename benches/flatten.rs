//! Benchmark: flattening generated mass-spring chains of 1k, 10k and 100k component instances
//! connected through connectors (half masses, half springs, plus a wall).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::time::Duration;

#[path = "../tests/flatten/chain.rs"]
mod chain;
use chain::mass_spring_chain;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("flatten_mass_spring_chain");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    for n in [1_000usize, 10_000, 100_000] {
        let text = mass_spring_chain(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| {
                let m = minimo::flatten::flatten_source("chain.mo", t, Some("Chain"))
                    .expect("the chain flattens");
                assert_eq!(m.variables.len(), n / 2 * 11 + 2, "variable count");
                m
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
