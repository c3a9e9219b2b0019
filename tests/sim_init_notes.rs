//! States that no initial equation and no `fixed = true` determine start at their `start`
//! values (MLS 8.6); the run says which ones, so the choice is never silent.

use std::process::Command;

#[test]
fn states_left_to_their_start_values_are_named_in_a_note() {
    let dir = std::env::temp_dir().join(format!("minimo-init-notes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("free.mo");
    let model = "model Free\n  Real x(start = 1);\n  Real y(start = 2, fixed = true);\n  Real z;\nequation\n  der(x) = -x;\n  der(y) = -y;\n  der(z) = 1;\nend Free;\n";
    std::fs::write(&file, model).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .arg(&file)
        .args(["--stop-time", "1", "-o"])
        .arg(dir.join("out.csv"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("initial values taken from start values"),
        "{err}"
    );
    assert!(err.contains("x, z (no start: 0)"), "{err}");
    assert!(!err.contains(" y"), "y is fixed: {err}");
}
