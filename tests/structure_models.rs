//! Structural analysis of `.mo` models, through flattening and through the command line.

#[path = "structure/inspect.rs"]
mod inspect;

use inspect::*;
use minimo::diag::{SourceMap, render_all};
use minimo::flatten::{LoadOptions, load_and_flatten};
use minimo::structure::{Analysis, AnalyzeOptions, analyze};
use std::path::PathBuf;
use std::process::Command;

fn path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/structure")
        .join(file)
}

fn run(file: &str) -> Result<Analysis, String> {
    let mut sources = SourceMap::new();
    let opts = LoadOptions {
        files: vec![path(file)],
        libs: Vec::new(),
        model: None,
    };
    let flat = load_and_flatten(&opts, &mut sources).map_err(|d| render_all(&sources, &d))?;
    analyze(flat, &AnalyzeOptions::default()).map_err(|d| render_all(&sources, &d))
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .output()
        .expect("run minimo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pendulum_constraint_differentiated_twice() {
    let a = run("Pendulum.mo").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        times(&a, "x^2 + y^2 = L^2"),
        Some(2),
        "{:?}",
        a.report.differentiations
    );
    assert_eq!(a.report.differentiations.len(), 3);
    assert_eq!(states(&a), vec!["x", "vx"]);
    assert_eq!(a.report.sizes.largest_block, 5);
    // Two levels of choice (accelerations, velocities), both decided by x or y.
    assert_eq!(a.system.state_sets.len(), 2);
}

#[test]
fn gear_constraint_differentiated_twice() {
    let a = run("Gear.mo").unwrap_or_else(|e| panic!("{e}"));
    let d = diffs(&a);
    assert!(
        d.iter()
            .any(|(e, t)| e.starts_with("J1.phi = gear.ratio*") && *t == 2),
        "{d:?}"
    );
    assert_eq!(a.system.states.len(), 2, "{:?}", states(&a));
    assert!(
        states(&a).contains(&"J1.phi".to_string()),
        "{:?}",
        states(&a)
    );
}

#[test]
fn rlc_is_index_one() {
    let a = run("RLC.mo").unwrap_or_else(|e| panic!("{e}"));
    assert!(a.report.differentiations.is_empty());
    let mut s = states(&a);
    s.sort();
    assert_eq!(s, vec!["C.v", "L.i"]);
    assert!(a.system.dummy_derivatives.is_empty());
}

#[test]
fn dc_motor_with_gearbox() {
    let a = run("DCMotorGearbox.mo").unwrap_or_else(|e| panic!("{e}"));
    let d = diffs(&a);
    assert!(
        d.iter()
            .any(|(e, t)| e.contains("gearbox.ratio*") && *t == 2),
        "{d:?}"
    );
    assert_eq!(a.system.states.len(), 3, "{:?}", states(&a));
    assert!(
        states(&a).contains(&"motor.i".to_string()),
        "{:?}",
        states(&a)
    );
}

#[test]
fn slider_crank_loop() {
    let a = run("SliderCrank.mo").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        times(&a, "r*sin(phi) + l*sin(psi) = 0"),
        Some(2),
        "{:?}",
        a.report.differentiations
    );
    assert_eq!(times(&a, "r*cos(phi) + l*cos(psi) = s"), Some(2));
    assert_eq!(states(&a), vec!["phi", "w"]);
    let kinds = block_kinds(&a);
    assert!(kinds.contains(&("linear".to_string(), 7)), "{kinds:?}");
}

#[test]
fn cli_structure_view_and_exit_codes() {
    let (code, out, err) = cli(&[
        "structure",
        path("Pendulum.mo").to_str().unwrap_or_default(),
        "--timings",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("differentiated 2 times: x^2 + y^2 = L^2"),
        "{out}"
    );
    assert!(out.contains("States (2): x, vx"), "{out}");
    assert!(out.contains("structural index 3"), "{out}");
    assert!(out.contains("linear system of 5 equations"), "{out}");
    assert!(out.contains("index reduction"), "{out}");

    let (code, _, err) = cli(&[
        "structure",
        path("Singular.mo").to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("no equation determines `y`"), "{err}");
    assert!(
        err.contains("Singular.mo:3:"),
        "the declaration is located: {err}"
    );
    assert!(err.contains("over-determined"), "{err}");

    let (code, _, err) = cli(&[
        "structure",
        path("NoGround.mo").to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("no ground"), "{err}");

    let (code, _, err) = cli(&[
        "structure",
        path("DuplicatedJoint.mo").to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("redundant constraints: 1 constraint equation(s) depend on the others"),
        "{err}"
    );
    assert!(
        err.contains("DuplicatedJoint.mo:12:"),
        "the duplicate is located: {err}"
    );
}

#[test]
fn cli_json_and_dot() {
    let dir = std::env::temp_dir().join(format!("minimo-structure-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let dot = dir.join("rlc.dot");
    let (code, out, err) = cli(&[
        "structure",
        path("RLC.mo").to_str().unwrap_or_default(),
        "--json",
        "--dot",
        dot.to_str().unwrap_or_default(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["sizes"]["states"], 2);
    assert!(v["blocks"].as_array().is_some_and(|b| !b.is_empty()));
    let g = std::fs::read_to_string(&dot).expect("dot file written");
    assert!(g.starts_with("graph structure {"));
    assert!(g.contains("penwidth=3"), "matched edges are marked");
    assert!(g.contains("cluster_0"));
    let _ = std::fs::remove_dir_all(&dir);
}
