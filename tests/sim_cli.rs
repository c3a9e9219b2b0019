//! `minimo simulate` and `minimo plot` as a user runs them: files, formats, exit codes, messages.

use std::process::Command;

fn minimo(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("minimo-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().to_string()
}

#[test]
fn csv_on_stdout_with_time_first_and_experiment_defaults() {
    let (code, out, err) = minimo(&["simulate", &example("rlc.mo"), "--vars", "^c\\.v$"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("time,c.v"));
    // experiment(StopTime = 5, Interval = 0.01): 501 grid points plus two rows at the step event.
    assert_eq!(out.lines().count(), 1 + 501 + 2);
    assert!(out.lines().last().unwrap().starts_with("5,"));
}

#[test]
fn the_checked_command_line_writes_a_csv_file() {
    let file = tmp("pendulum.csv");
    let (code, _, err) = minimo(&[
        "simulate",
        &example("pendulum.mo"),
        "-m",
        "Pendulum",
        "--stop-time",
        "1",
        "--interval",
        "0.001",
        "--tolerance",
        "1e-8",
        "-o",
        &file,
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("time,"));
    for v in ["x", "y", "vx", "vy", "F"] {
        assert!(header.split(',').any(|h| h == v), "{header}");
    }
    assert_eq!(text.lines().count(), 1 + 1001);
}

#[test]
fn json_and_mat_outputs() {
    let json = tmp("ball.json");
    let (code, _, err) = minimo(&[
        "simulate",
        &example("bouncing_ball.mo"),
        "-o",
        &json,
        "--stats",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("right-hand side evals") && err.contains("integration"),
        "{err}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["model"], "BouncingBall");
    let vars = v["variables"].as_array().unwrap();
    let h = vars.iter().find(|x| x["name"] == "h").unwrap();
    assert_eq!(h["unit"], "m");
    assert_eq!(h["description"], "height");
    assert!(v["statistics"]["events"].as_u64().unwrap() >= 3);
    let mat = tmp("ball.mat");
    let (code, _, err) = minimo(&["simulate", &example("bouncing_ball.mo"), "-o", &mat]);
    assert_eq!(code, 0, "{err}");
    let ms = minimo::sim::results::read_mat(&std::fs::read(&mat).unwrap()).unwrap();
    assert_eq!(ms.len(), 6);
    assert_eq!(ms[5].name, "data_2");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = minimo(&["simulate", &example("rlc.mo"), "--solver", "bfd"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown solver `bfd`") && err.contains("did you mean `bdf`?"),
        "{err}"
    );
    let (code, _, err) = minimo(&["simulate", &example("rlc.mo"), "-o", "out.xlsx"]);
    assert_eq!(code, 2);
    assert!(err.contains(".csv, .json or .mat"), "{err}");
    let (code, _, err) = minimo(&["simulate", &example("rlc.mo"), "--vars", "("]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn unknown_parameter_in_set_names_the_closest() {
    let (code, _, err) = minimo(&["simulate", &example("rlc.mo"), "--set", "r.RR=2"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no parameter `r.RR`") && err.contains("did you mean `r.R`?"),
        "{err}"
    );
}

#[test]
fn failed_assert_is_reported_with_the_model_message() {
    let file = tmp("assert.mo");
    std::fs::write(
        &file,
        "model A\n  Real x(start = 0, fixed = true);\nequation\n  der(x) = 1;\n  assert(x < 0.5, \"x went past 0.5\");\nend A;\n",
    )
    .unwrap();
    let (code, _, err) = minimo(&["simulate", &file, "--stop-time", "1"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("assertion failed at time") && err.contains("x went past 0.5"),
        "{err}"
    );
}

#[test]
fn plot_writes_svg_and_png_and_names_missing_variables() {
    let csv = tmp("chain.csv");
    let (code, _, err) = minimo(&[
        "simulate",
        &example("chain.mo"),
        "--stop-time",
        "1",
        "-o",
        &csv,
    ]);
    assert_eq!(code, 0, "{err}");
    for ext in ["svg", "png"] {
        let img = tmp(&format!("chain.{ext}"));
        let (code, _, err) = minimo(&["plot", &csv, "--vars", "x[1],x[10]", "-o", &img]);
        assert_eq!(code, 0, "{err}");
        let bytes = std::fs::read(&img).unwrap();
        if ext == "svg" {
            assert!(String::from_utf8_lossy(&bytes).contains("<svg"));
        } else {
            assert_eq!(&bytes[1..4], b"PNG");
        }
    }
    let (code, _, err) = minimo(&["plot", &csv, "--vars", "x[11]", "-o", &tmp("bad.svg")]);
    assert_eq!(code, 1);
    assert!(err.contains("no variable `x[11]`"), "{err}");
}
