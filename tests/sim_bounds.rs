//! `min` and `max` attributes are checked on the results: leaving the declared range stops the
//! run with an error naming the variable, the value, the bound and the time.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Tests run in parallel: every call gets its own files.
static CALLS: AtomicUsize = AtomicUsize::new(0);

fn minimo(model: &str, args: &[&str]) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("minimo-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let k = CALLS.fetch_add(1, Ordering::SeqCst);
    let file = dir.join(format!("m{k}.mo"));
    std::fs::write(&file, model).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .arg(&file)
        .args(args)
        .arg("-o")
        .arg(dir.join(format!("out{k}.csv")))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn leaving_max_is_an_error_with_variable_value_and_time() {
    let m = "model Grow\n  Real x(start = 1, fixed = true, max = 1.5);\nequation\n  der(x) = 1;\nend Grow;\n";
    let (code, err) = minimo(m, &["--stop-time", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`x` ="), "{err}");
    assert!(err.contains("max = 1.5"), "{err}");
    assert!(err.contains(":2:"), "the declaration's line: {err}");
}

#[test]
fn a_parameter_bound_and_a_run_inside_the_range_pass() {
    let m = "model Inside\n  parameter Real lim = 3;\n  Real x(start = 1, fixed = true, min = 0, max = lim);\nequation\n  der(x) = 1;\nend Inside;\n";
    let (code, err) = minimo(m, &["--stop-time", "1"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = minimo(m, &["--stop-time", "1", "--set", "lim=1.2"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("max = 1.2"), "{err}");
}
