//! `minimo sweep`: grids and samples, one results file, the same bytes for any number of
//! threads, structural parameters flattened per value, usage errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn minimo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("minimo runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minimo-cli-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Rows of a CSV without quoted fields: header, then values.
fn csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let head = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (head, rows)
}

fn col(head: &[String], name: &str) -> usize {
    head.iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {head:?}"))
}

#[test]
fn pendulum_grid_matches_single_runs_and_threads_do_not_change_the_bytes() {
    let one = tmp("grid1.csv");
    let two = tmp("grid2.csv");
    let base = [
        "sweep",
        "examples/pendulum.mo",
        "--set-grid",
        "L=0.5:2:3",
        "--set-grid",
        "phi0=0.1,0.4",
        "--stop-time",
        "1",
        "--stats",
        "final,max",
    ];
    for (out, jobs) in [(&one, "1"), (&two, "2")] {
        let mut args = base.to_vec();
        args.extend(["-j", jobs, "-o", out.to_str().unwrap()]);
        let o = minimo(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let a = std::fs::read_to_string(&one).unwrap();
    assert_eq!(a, std::fs::read_to_string(&two).unwrap());
    let (head, rows) = csv(&a);
    assert_eq!(&head[..3], ["run", "L", "phi0"]);
    assert_eq!(head.last().unwrap(), "error");
    assert_eq!(rows.len(), 6);
    // The first axis varies slowest.
    let l: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(l, ["0.5", "0.5", "1.25", "1.25", "2", "2"]);
    // Run 3 (L = 1.25, phi0 = 0.4) is the same as `simulate --set`.
    let single = tmp("single.csv");
    let o = minimo(&[
        "simulate",
        "examples/pendulum.mo",
        "--set",
        "L=1.25",
        "--set",
        "phi0=0.4",
        "--stop-time",
        "1",
        "-o",
        single.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (sh, srows) = csv(&std::fs::read_to_string(&single).unwrap());
    let last = srows.last().unwrap();
    let x_end: f64 = last[col(&sh, "x")].parse().unwrap();
    let x_max = srows
        .iter()
        .map(|r| r[col(&sh, "x")].parse::<f64>().unwrap())
        .fold(f64::NEG_INFINITY, f64::max);
    let r3 = &rows[3];
    assert_eq!(r3[col(&head, "x")].parse::<f64>().unwrap(), x_end);
    assert_eq!(r3[col(&head, "max(x)")].parse::<f64>().unwrap(), x_max);
    // x starts at L sin(phi0) at rest: its maximum is that.
    assert!((x_max - 1.25 * 0.4f64.sin()).abs() < 1e-6, "{x_max}");
    assert!(r3.last().unwrap().is_empty());
}

#[test]
fn structural_values_flatten_again_and_failed_runs_keep_their_row() {
    let out = tmp("decay.csv");
    let o = minimo(&[
        "sweep",
        "tests/sweep/decay.mo",
        "--set-grid",
        "n=1,3",
        "--set-grid",
        "k=0.5,7",
        "-o",
        out.to_str().unwrap(),
    ]);
    // k = 7 violates the model's assert: those runs fail, the others are written.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 of 4 runs failed"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let (head, rows) = csv(&text);
    assert_eq!(
        head,
        ["run", "n", "k", "x[1]", "x[2]", "x[3]", "error"].map(String::from)
    );
    let x = |r: &Vec<String>, c: &str| r[col(&head, c)].parse::<f64>().unwrap();
    // n = 1: one decay; x[2] and x[3] do not exist.
    assert!((x(&rows[0], "x[1]") - (-0.5f64).exp()).abs() < 1e-6);
    assert!(rows[0][col(&head, "x[2]")].is_empty());
    // n = 3, k = 0.5: x[i](1) = exp(-0.5 i).
    for i in 1..=3 {
        let want = (-0.5 * i as f64).exp();
        assert!((x(&rows[2], &format!("x[{i}]")) - want).abs() < 1e-6);
    }
    for r in [&rows[1], &rows[3]] {
        assert!(r.last().unwrap().contains("k must stay below 5"), "{r:?}");
        assert!(r[col(&head, "x[1]")].is_empty());
    }
}

#[test]
fn samples_repeat_with_the_seed_and_json_holds_the_table() {
    let a = tmp("mc_a.json");
    let b = tmp("mc_b.json");
    for out in [&a, &b] {
        let o = minimo(&[
            "sweep",
            "examples/pendulum.mo",
            "--set-grid",
            "L=0.5:2",
            "--set-grid",
            "m=1,2",
            "--samples",
            "5",
            "--seed",
            "42",
            "--stop-time",
            "0.2",
            "--vars",
            "^y$",
            "--stats",
            "min,final",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(text, std::fs::read_to_string(&b).unwrap());
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["model"], "Pendulum");
    assert_eq!(doc["parameters"], serde_json::json!(["L", "m"]));
    assert_eq!(doc["columns"], serde_json::json!(["min(y)", "y"]));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5);
    for r in runs {
        let l = r["parameters"][0].as_f64().unwrap();
        assert!((0.5..=2.0).contains(&l));
        // The mass starts at y = -L cos(0.6) and swings down towards y = -L.
        let ymin = r["values"][0].as_f64().unwrap();
        assert!(
            ymin >= -l - 1e-9 && ymin <= -l * 0.6f64.cos() + 1e-9,
            "{ymin} {l}"
        );
        assert!(r["error"].is_null());
    }
}

#[test]
fn bad_axes_and_unknown_parameters_are_usage_errors() {
    for (args, want) in [
        (vec!["--set-grid", "L=1:2:0"], "the count must be between"),
        (
            vec!["--set-grid", "L"],
            "is not of the form NAME=START:STOP:COUNT",
        ),
        (vec!["--set-grid", "L=a,b"], "`a` is not a number"),
        (vec!["--set-grid", "L=1:2"], "is a range without a count"),
        (vec!["--set-grid", "Lx=1,2"], "did you mean `L`"),
        (
            vec!["--set-grid", "L=1,2", "--stats", "median"],
            "unknown statistic",
        ),
        (
            vec!["--set-grid", "L=1,2", "-o", "out.txt"],
            "use a .csv or .json",
        ),
    ] {
        let mut a = vec!["sweep", "examples/pendulum.mo"];
        a.extend(args.iter().copied());
        let o = minimo(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{a:?}: {}", stderr(&o));
    }
    // A model error is exit 1, located.
    let bad = tmp("bad.mo");
    std::fs::write(&bad, "model Bad\n  Real x\nend Bad;\n").unwrap();
    let o = minimo(&["sweep", bad.to_str().unwrap(), "--set-grid", "k=1,2"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.mo:"), "{}", stderr(&o));
}
