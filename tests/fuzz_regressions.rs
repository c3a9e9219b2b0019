//! Inputs the fuzz targets (`fuzz/`) found to panic, hang or exhaust memory, shrunk with
//! `cargo fuzz tmin`, kept inline. Each goes through the same pipeline as the targets
//! (`fuzz/src/lib.rs`): parse -> flatten -> structure -> a short bounded simulation, with
//! every diagnostic rendered; each must end with a value or located diagnostics.

use minimo::diag::{SourceMap, render_all};
use minimo::flatten::flatten_source_with;
use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

/// The pipeline of the fuzz targets; returns the rendered diagnostics of the stage that
/// stopped, or `None` when the simulation ran.
fn pipeline(text: &str) -> Option<String> {
    let mut sources = SourceMap::new();
    let flat = match flatten_source_with(&mut sources, "fuzz.mo", text, None, &[]) {
        Ok(f) => f,
        Err(d) => return Some(render_all(&sources, &d)),
    };
    let analysis = match analyze(flat, &AnalyzeOptions::default()) {
        Ok(a) => a,
        Err(d) => return Some(render_all(&sources, &d)),
    };
    let opts = SimOptions {
        start_time: Some(0.0),
        stop_time: Some(0.1),
        interval: Some(0.01),
        max_steps: Some(5000),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts)
        .err()
        .map(|d| render_all(&sources, &d))
}

#[test]
fn the_step_limit_stops_a_run_with_a_message() {
    // The bound the fuzz targets rely on: a stiff run that needs more steps than allowed.
    let text = "model S\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -1e6 * (x - sin(1e4 * time));\nend S;\n";
    let err = pipeline(text).expect("the run must stop");
    assert!(
        err.contains("the step limit (5000 steps) was reached"),
        "{err}"
    );
}

/// Sizes that aborted the process on a failed allocation (or ran out of time) before the
/// flattener checked them (`src/flatten/size_limit.rs`); found by hand while writing the
/// fuzz targets.
#[test]
fn huge_arrays_and_ranges_are_refused_before_allocation() {
    let cases = [
        (
            "model A\n  Real x[1000000000](each start = 1, each fixed = true);\nequation\n  der(x) = -x;\nend A;\n",
            "an array of size [1000000000] is larger than the 10000000 elements supported",
        ),
        (
            "model A\n  Real y[:] = fill(1.0, 2000000000);\nend A;\n",
            "is larger than the 10000000 elements supported",
        ),
        (
            "model A\n  Real y = sum(zeros(100000, 100000));\nend A;\n",
            "an array of size [100000, 100000] is larger",
        ),
        (
            "model A\n  Real y;\nalgorithm\n  y := 0;\n  for i in 1:2000000000 loop\n    y := y + i;\n  end for;\nend A;\n",
            "this range has 2.000e9 values",
        ),
        (
            "model A\n  Real y;\nalgorithm\n  y := 0;\n  for v in 0:1e-300:1 loop\n    y := y + v;\n  end for;\nend A;\n",
            "at most 10000000 are supported",
        ),
    ];
    for (text, expected) in cases {
        let err = pipeline(text).unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(err.contains(expected), "{text}\n{err}");
    }
}

/// Flattens and analyses `text` (no simulation); panics with the rendered diagnostics.
fn analyze_only(text: &str) -> minimo::structure::Analysis {
    let mut sources = SourceMap::new();
    let flat = flatten_source_with(&mut sources, "fuzz.mo", text, None, &[])
        .unwrap_or_else(|d| panic!("{}", render_all(&sources, &d)));
    analyze(flat, &AnalyzeOptions::default())
        .unwrap_or_else(|d| panic!("{}", render_all(&sources, &d)))
}

/// The fuzzer's out-of-memory input was a vehicle with 79 omni wheels (150k variables): the
/// check of the dummy-derivative choice at a generic point (`structure/dummy.rs`
/// `generic_choice`) built dense matrices of rows x candidate columns and rows x rows and
/// factorized them densely (2.6 GB, and cubic time). Here one level has 6000 rows and 12000
/// candidates (`der(x[k]) = (1 + 0.3*y[k]^2)*der(y[k])`): dense, that took 1.3 GB and over a
/// minute; sparse, with the square choice factorized per diagonal block, well under a second.
#[test]
fn a_large_dummy_derivative_level_is_checked_sparsely() {
    let text = "model Caps\n  parameter Integer n = 6000;\n  Real x[n](each start = 1, each fixed = true);\n  Real y[n];\n  Real i1[n];\n  Real i2[n];\nequation\n  for k in 1:n loop\n    der(x[k]) = i1[k];\n    der(y[k]) = i2[k];\n    x[k] = y[k] + 0.1*y[k]^3;\n    i1[k] + i2[k] = -x[k];\n  end for;\nend Caps;\n";
    let t0 = std::time::Instant::now();
    let a = analyze_only(text);
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(a.system.states.len(), 6000);
    assert!(secs < 20.0, "analysis took {secs:.1} s");
}

/// The fuzzer's time-outs were vehicles with 24 and 48 omni wheels: one linear block of
/// thousands of unknowns whose tearing (`structure/tearing.rs`) repeats a greedy pass once per
/// tearing variable to improve it, time quadratic in the block. Here a ring of 5000 cells
/// of two unknowns each (`sin(time)` couples the cells, so no chain of assignments crosses
/// them: 5000 tearing variables, none improvable): 40 s of tearing before the sweep had a
/// budget, about 4 s after.
#[test]
fn the_tearing_sweep_of_a_large_block_is_bounded() {
    let text = "model Ring\n  parameter Integer m = 5000;\n  Real a[m];\n  Real b[m];\nequation\n  2.5*a[1] + 3*b[1] = sin(time)*a[m];\n  for k in 2:m loop\n    2.5*a[k] + 3*b[k] = sin(time)*a[k - 1];\n  end for;\n  for k in 1:m loop\n    0.5*a[k] - 2*b[k] = 1;\n  end for;\nend Ring;\n";
    let t0 = std::time::Instant::now();
    let a = analyze_only(text);
    let secs = t0.elapsed().as_secs_f64();
    let torn = a.report.blocks.iter().filter_map(|b| b.torn.as_ref());
    assert_eq!(torn.map(Vec::len).collect::<Vec<_>>(), vec![5000]);
    assert!(secs < 15.0, "analysis took {secs:.1} s");
}
