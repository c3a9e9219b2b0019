//! Benchmark: flattening generated mass-spring chains of 1k, 10k and 100k component instances
//! connected through connectors (half masses, half springs, plus a wall).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::time::Duration;

/// A chain of `n` component instances: n/2 springs and n/2 masses connected in a `for` loop.
fn chain(n: usize) -> String {
    format!(
        "connector Flange Real s; flow Real f; end Flange;
model Mass parameter Real m = 1; Flange a; Flange b; Real v;
equation a.s = b.s; v = der(a.s); m*der(v) = a.f + b.f; end Mass;
model Spring parameter Real c = 10; Flange a; Flange b;
equation b.f = c*(b.s - a.s); a.f + b.f = 0; end Spring;
model Fixed Flange a; equation a.s = 0; end Fixed;
model Chain
  parameter Integer n = {};
  Fixed wall;
  Spring s[n];
  Mass m[n];
equation
  connect(wall.a, s[1].a);
  for i in 1:n loop
    connect(s[i].b, m[i].a);
  end for;
  for i in 1:n - 1 loop
    connect(m[i].b, s[i + 1].a);
  end for;
end Chain;
",
        n / 2
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("flatten_mass_spring_chain");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    for n in [1_000usize, 10_000, 100_000] {
        let text = chain(n);
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
