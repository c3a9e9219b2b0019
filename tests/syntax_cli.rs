//! `minimo check`: exit codes and output.

use std::path::PathBuf;
use std::process::{Command, Output};

fn minimo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .output()
        .expect("run minimo")
}

/// The path of `name` in the folder `folder` of the repository.
fn repo_file(folder: &str, name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(name)
        .display()
        .to_string()
}

fn corpus(name: &str) -> String {
    repo_file("tests/syntax/corpus", name)
}

fn example(name: &str) -> String {
    repo_file("examples", name)
}

/// Asserts that `minimo` with `args` succeeds, reporting three files checked.
fn assert_three_checked(args: &[&str]) {
    let out = minimo(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok: 3 file(s) checked\n"
    );
}

/// `check` parses and, since flattening landed, flattens: the examples are complete models.
#[test]
fn check_accepts_valid_files() {
    assert_three_checked(&[
        "check",
        &example("rlc.mo"),
        &example("gear.mo"),
        &example("pendulum.mo"),
    ]);
}

#[test]
fn check_syntax_only_accepts_corpus_files() {
    // The corpus uses the Modelica Standard Library, which is not loaded: parse only.
    assert_three_checked(&[
        "check",
        "--syntax-only",
        &corpus("rlc.mo"),
        &corpus("msl_mechanics.mo"),
        &corpus("msl_electrical.mo"),
    ]);
}

#[test]
fn check_reports_syntax_errors_with_location_and_snippet() {
    let dir = std::env::temp_dir().join(format!("minimo_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.mo");
    std::fs::write(&bad, "model A\n  Real x\n  Real y;\nend A;\n").expect("write");
    let bad2 = dir.join("bad2.mo");
    std::fs::write(&bad2, "model B\nequation\n  x = 1\nend B;\n").expect("write");
    let out = minimo(&[
        "check",
        &bad.display().to_string(),
        &corpus("rlc.mo"),
        &bad2.display().to_string(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    // Both broken files are reported, each at its own position.
    assert!(
        stderr.contains("bad.mo:2:9: error: expected `;` after the component declaration"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad2.mo:3:8: error: expected `;` after the equation"),
        "{stderr}"
    );
    assert!(stderr.contains("2 │   Real x"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_missing_file_is_exit_1_with_a_clear_message() {
    let out = minimo(&["check", "/nonexistent/model.mo"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: cannot read `/nonexistent/model.mo`: no such file"),
        "{stderr}"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(minimo(&["check"]).status.code(), Some(2));
    assert_eq!(minimo(&["frobnicate"]).status.code(), Some(2));
    let help = minimo(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("minimo check"));
    let version = minimo(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("minimo "));
}
