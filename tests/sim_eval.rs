//! The fast main pass (batched instructions, derivative copies moved out of it) against the plain
//! instruction-by-instruction tape, and the outputs it leaves for the results.

use minimo::sim::driver::prepare_engine;
use minimo::sim::program::Step;
use minimo::sim::tape::run;
use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, SortedSystem, analyze};

const CHAIN: &str = r#"
model Chain
  constant Integer n = 6;
  parameter Real m = 1.5;
  parameter Real k = 80;
  parameter Real d = 0.7;
  Real x[n](each start = 0, each fixed = true);
  Real v[n](each start = 0, each fixed = true);
  Real f[n];
equation
  f[1] = k * x[1] + d * v[1];
  for i in 2:n loop
    f[i] = k * (x[i] - x[i - 1]) + d * (v[i] - v[i - 1]);
  end for;
  for i in 1:n - 1 loop
    der(x[i]) = v[i];
    m * der(v[i]) = f[i + 1] - f[i];
  end for;
  der(x[n]) = v[n];
  m * der(v[n]) = 2 * sin(3 * time) - f[n];
end Chain;
"#;

fn analysis(text: &str) -> minimo::structure::Analysis {
    let flat = minimo::flatten::flatten_source("chain_eval.mo", text, None)
        .unwrap_or_else(|e| panic!("{e:?}"));
    analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"))
}

fn system(text: &str) -> SortedSystem {
    analysis(text).system
}

#[test]
fn main_pass_matches_the_plain_tape_bitwise() {
    let sys = system(CHAIN);
    let mut engine = prepare_engine(&sys, &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let n = engine.nstates();
    let x: Vec<f64> = (0..n).map(|i| 0.01 * (i as f64) - 0.02).collect();
    let t = 0.37;
    engine.eval_at(t, &x).unwrap_or_else(|e| panic!("{e:?}"));
    let mut fast = vec![0.0; n];
    engine.derivatives(&mut fast);

    // Reference: every step's code, one instruction at a time, on a fresh register file.
    let prog = &engine.prog;
    let mut regs = prog.init_regs.clone();
    regs[prog.time as usize] = t;
    for (i, &(s, _)) in prog.states.iter().enumerate() {
        regs[s] = x[i];
    }
    for step in &prog.steps {
        match step {
            Step::Explicit { code, .. } => run(&prog.code[code.clone()], &mut regs),
            Step::Implicit { .. } => panic!("the chain has no algebraic loop"),
        }
    }
    let plain: Vec<f64> = prog.states.iter().map(|&(_, d)| regs[d]).collect();
    assert_eq!(fast, plain);

    // After the outputs, every variable register agrees too (derivative copies included).
    engine.run_outputs();
    let nvars = sys.model.variables.len();
    assert_eq!(engine.regs[..nvars], regs[..nvars]);
}

#[test]
fn derivative_outputs_are_written_when_taken_out_of_the_main_pass() {
    let a = analysis(CHAIN);
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.05),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    let r = simulate_analysis(&a, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    let col = |name: &str| {
        r.variables
            .iter()
            .position(|v| v.name == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    for i in 1..=6 {
        let (dx, v) = (col(&format!("der(x[{i}])")), col(&format!("v[{i}]")));
        let (dv, f) = (col(&format!("der(v[{i}])")), col(&format!("f[{i}]")));
        for (row, t) in r.rows.iter().zip(&r.time) {
            assert_eq!(row[dx], row[v], "der(x[{i}]) = v[{i}] at t = {t}");
            let right = if i < 6 {
                row[col(&format!("f[{}]", i + 1))]
            } else {
                2.0 * (3.0 * t).sin()
            };
            let expect = (right - row[f]) / 1.5;
            assert!(
                (row[dv] - expect).abs() <= 1e-12 * (1.0 + expect.abs()),
                "m der(v[{i}]) = f[{}] - f[{i}] at t = {t}: {} vs {expect}",
                i + 1,
                row[dv]
            );
        }
    }
    // The motion itself: x[n] moved under the sinusoidal force.
    assert!(
        r.rows
            .last()
            .is_some_and(|row| row[col("x[6]")].abs() > 1e-4)
    );
}
