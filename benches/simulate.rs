//! Simulation benchmarks (criterion).
//!
//! (a) the right-hand side of a 100-mass chain and of the Cartesian pendulum, minimo's compiled
//!     tape against a hand-written Rust function (`rhs/*` groups: compare the two lines);
//! (b) every example end to end from text (flatten, structure, simulate);
//! (c) chains of 1k, 10k and 100k states over 1 s of model time, end to end: flatten, structure,
//!     compile, integrate, and CSV formatting of all variables (into `io::sink`, no disk).
//!
//! The `rhs/*` groups also print an interleaved min-of-N ratio (`ratio ...` lines): on a shared
//! machine the two criterion lines are measured seconds apart under different load, while the
//! interleaved rounds see the same load, so their ratio is the figure to report.
//!
//! Sample sizes and times are kept small so that the whole run takes a few minutes:
//! `cargo bench --bench simulate`.

#[path = "../tests/sim/chain_rhs.rs"]
mod chain_rhs;

use chain_rhs::chain_rhs;
use criterion::{Criterion, criterion_group, criterion_main};
use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, SortedSystem, analyze};
use std::hint::black_box;
use std::time::Duration;

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn system(text: &str) -> SortedSystem {
    let flat = minimo::flatten::flatten_source("bench.mo", text, None).unwrap();
    analyze(flat, &AnalyzeOptions::default()).unwrap().system
}

fn chain_text(masses: usize) -> String {
    let text = example("chain.mo");
    let size = "parameter Integer n = 10";
    // Fail loudly rather than benchmark 10 masses if the example changes.
    assert!(
        text.contains(size),
        "examples/chain.mo no longer declares `{size}`"
    );
    text.replace(size, &format!("parameter Integer n = {masses}"))
}

/// The Cartesian pendulum in the states x, vx (y below the pivot), by hand.
fn pendulum_rhs(y: &[f64], out: &mut [f64]) {
    let (m, l, g) = (1.0, 1.0, 9.81);
    let (x, vx) = (y[0], y[1]);
    let yy = -(l * l - x * x).sqrt();
    let vy = -x * vx / yy;
    let f = m * (vx * vx + vy * vy - g * yy) / l;
    out[0] = vx;
    out[1] = -f * x / (m * l);
}

/// Times `minimo` and `hand` alternately, 300 rounds of 200 calls each, and prints the best
/// round of each and their ratio. `minimo` is first warmed up past the switch to native code.
fn interleaved_ratio(name: &str, mut minimo: impl FnMut(), mut hand: impl FnMut()) {
    use std::time::Instant;
    for _ in 0..6000 {
        minimo();
    }
    let mut best = [f64::INFINITY; 2];
    for _ in 0..300 {
        for (k, f) in [&mut minimo as &mut dyn FnMut(), &mut hand]
            .into_iter()
            .enumerate()
        {
            let start = Instant::now();
            for _ in 0..200 {
                f();
            }
            best[k] = best[k].min(start.elapsed().as_secs_f64() * 1e9 / 200.0);
        }
    }
    println!(
        "ratio {name}: minimo {:.0} ns, hand-written {:.0} ns, ratio {:.2} (interleaved min of 300 rounds of 200)",
        best[0],
        best[1],
        best[0] / best[1]
    );
}

fn rhs_benches(c: &mut Criterion) {
    // Chain: 100 masses = 200 states.
    let sys = system(&chain_text(100));
    let mut engine = minimo::sim::driver::prepare_engine(&sys, &[]).unwrap();
    let n = engine.nstates();
    let x0: Vec<f64> = (0..n).map(|i| 1e-3 * i as f64).collect();
    let mut out = vec![0.0; n];
    let mut out_hand = vec![0.0; n];
    let mut t = 0.0;
    interleaved_ratio(
        "rhs/chain100",
        || {
            t += 1e-9;
            engine.eval_at(t, black_box(&x0)).unwrap();
            engine.derivatives(&mut out);
            black_box(&out);
        },
        || {
            chain_rhs(100, black_box(&x0), &mut out_hand);
            black_box(&out_hand);
        },
    );
    let mut g = c.benchmark_group("rhs/chain100");
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    let mut t = 0.0;
    g.bench_function("minimo", |b| {
        b.iter(|| {
            t += 1e-9; // a new point each time: no cached evaluation
            engine.eval_at(t, black_box(&x0)).unwrap();
            engine.derivatives(&mut out);
            black_box(&out);
        })
    });
    // The hand-written function sees the states in its own order; the work is the same.
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            chain_rhs(100, black_box(&x0), &mut out);
            black_box(&out);
        })
    });
    g.finish();

    let sys = system(&example("pendulum.mo"));
    let mut engine = minimo::sim::driver::prepare_engine(&sys, &[]).unwrap();
    let names: Vec<&str> = sys
        .states
        .iter()
        .map(|s| sys.model.variables[s.var].name.as_str())
        .collect();
    assert_eq!(
        names,
        ["x", "vx"],
        "the benchmark's hand-written pendulum assumes states x, vx"
    );
    let x0 = [0.5, 0.3];
    let mut out = [0.0; 2];
    let mut g = c.benchmark_group("rhs/pendulum");
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    let mut t = 0.0;
    g.bench_function("minimo", |b| {
        b.iter(|| {
            t += 1e-9;
            engine.eval_at(t, black_box(&x0)).unwrap();
            engine.derivatives(&mut out);
            black_box(&out);
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| {
            pendulum_rhs(black_box(&x0), &mut out);
            black_box(&out);
        })
    });
    g.finish();
}

fn example_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("examples");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    for file in [
        "rlc.mo",
        "gear.mo",
        "pendulum.mo",
        "pendulum_horizontal.mo",
        "chain.mo",
        "bouncing_ball.mo",
        "friction_slider.mo",
    ] {
        let text = example(file);
        g.bench_function(file, |b| {
            b.iter(|| {
                let flat = minimo::flatten::flatten_source(file, &text, None).unwrap();
                let a = analyze(flat, &AnalyzeOptions::default()).unwrap();
                black_box(simulate_analysis(&a, &SimOptions::default()).unwrap());
            })
        });
    }
    g.finish();
}

/// The omni vehicle (16 bodies, rigid roller contacts), 0.25 s of model time, end to end: the
/// joint-coordinate default against the papers' constraint joints (one redeclare apart), so the
/// ratio of the two formulations comes from one run.
fn vehicle_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("omni_vehicle_0.25s");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(100));
    g.measurement_time(Duration::from_secs(5));
    let text = format!(
        "{}\n{}",
        example("multibody/OmniVehicle.mo"),
        example("multibody/OmniVehiclePaperJoints.mo")
    );
    let opts = SimOptions {
        stop_time: Some(0.25),
        ..Default::default()
    };
    for (label, model) in [
        ("joint_coordinates", "OmniVehicle"),
        ("paper_joints", "OmniVehiclePaperJoints"),
    ] {
        g.bench_function(label, |b| {
            b.iter(|| {
                let flat =
                    minimo::flatten::flatten_source("vehicle.mo", &text, Some(model)).unwrap();
                let a = analyze(flat, &AnalyzeOptions::default()).unwrap();
                black_box(simulate_analysis(&a, &opts).unwrap().time.len())
            })
        });
    }
    g.finish();
}

fn large_chain_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("chain_1s_end_to_end");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(100));
    g.measurement_time(Duration::from_secs(5));
    for masses in [500, 5000, 50000] {
        let text = chain_text(masses);
        let opts = SimOptions {
            stop_time: Some(1.0),
            interval: Some(0.01),
            tolerance: Some(1e-6),
            ..Default::default()
        };
        g.bench_function(format!("{}_states", 2 * masses), |b| {
            b.iter(|| {
                let flat = minimo::flatten::flatten_source("chain.mo", &text, None).unwrap();
                let a = analyze(flat, &AnalyzeOptions::default()).unwrap();
                let r = simulate_analysis(&a, &opts).unwrap();
                let mut out = std::io::BufWriter::new(std::io::sink());
                minimo::sim::results::write_csv(&r, &mut out).unwrap();
                black_box(r.time.len())
            })
        });
    }
    g.finish();
}

// Plots off: with plotters' `ab_glyph` feature (used by `minimo plot` for PNG text) criterion's
// plotters charts would need a registered font.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = rhs_benches, example_benches, vehicle_benches, large_chain_benches
}
criterion_main!(benches);
