//! The `minimo flatten` and `minimo check` commands: libraries from `--lib` and `MODELICAPATH`,
//! model selection, JSON output and exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn minimo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_minimo"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("MODELICAPATH");
    c
}

fn run(c: &mut Command) -> (i32, String, String) {
    let o = c.output().expect("runs minimo");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// A fresh folder for one test, named after it: tests of a file run in parallel.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minimo_{test}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes `text` to the file `name` of `dir`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).expect("write");
    file
}

#[test]
fn flatten_with_package_folder_and_single_file_libraries() {
    let (code, out, err) = run(minimo().args([
        "flatten",
        "tests/flatten/uses_lib.mo",
        "--lib",
        "tests/flatten/libs/TinyLib",
        "--lib",
        "tests/flatten/libs/Single.mo",
    ]));
    assert_eq!(code, 0, "{err}");
    // The package constant g (TinyLib/package.mo), a class from a file of the folder, one from
    // a sub-package folder, and a function from a single-file library.
    assert!(
        out.contains("mass.m * der(mass.v) = mass.flange.f - mass.m * 9.81;"),
        "{out}"
    );
    assert!(out.contains("fixed.flange.s = fixed.s0;"), "{out}");
    assert!(out.contains("y2 = Single.twice(mass.v);"), "{out}");
    assert!(out.contains("function Single.twice"), "{out}");
}

#[test]
fn flatten_finds_libraries_on_modelicapath() {
    let (code, out, err) = run(minimo()
        .env("MODELICAPATH", "tests/flatten/path")
        .args(["flatten", "tests/flatten/uses_path.mo"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("c.y = 5;") && out.contains("z = c.y + 1;"),
        "{out}"
    );
    let (code, _, err) = run(minimo().args(["flatten", "tests/flatten/uses_path.mo"]));
    assert_eq!(code, 1);
    assert!(err.contains("unknown class `PathLib`"), "{err}");
}

#[test]
fn builtin_library_works_from_any_folder() {
    let dir = temp_dir("builtin_library_works_from_any_folder");
    write(
        &dir,
        "rc.mo",
        "model RC\n  Minimo.Electrical.Analog.Basic.Resistor r;\n  Minimo.Electrical.Analog.Basic.Ground g;\nequation\n  connect(r.n, g.p);\nend RC;\n",
    );
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_minimo"))
        .current_dir(&dir)
        .args(["flatten", "rc.mo"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("r.v = r.R * r.i;"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_output_is_the_flat_model() {
    let (code, out, err) = run(minimo().args([
        "flatten",
        "tests/flatten/uses_lib.mo",
        "--lib",
        "tests/flatten/libs/TinyLib",
        "--lib",
        "tests/flatten/libs/Single.mo",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    let m: minimo::dae::FlatModel = serde_json::from_str(&out).expect("valid FlatModel JSON");
    assert_eq!(m.name, "UsesLib");
    assert_eq!(m.variables.len(), 8);
    assert!(m.functions.contains_key("Single.twice"));
}

#[test]
fn model_selection() {
    let dir = temp_dir("model_selection");
    let file = write(
        &dir,
        "two.mo",
        "package P\n  model A Real x = 1; end A;\n  model B Real y = 2; end B;\nend P;\n",
    );
    let (code, _, err) = run(minimo().arg("flatten").arg(&file));
    assert_eq!(code, 1);
    assert!(
        err.contains("several models found") && err.contains("P.A, P.B"),
        "{err}"
    );
    let (code, out, err) = run(minimo().arg("flatten").arg(&file).args(["-m", "P.B"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("class P.B"), "{out}");
    let (code, _, _) = run(minimo().arg("flatten").arg(dir.join("missing.mo")));
    assert_eq!(code, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_flattens_every_model() {
    let dir = temp_dir("check_flattens_every_model");
    let good = write(
        &dir,
        "good.mo",
        "model Good Real x(start = 1); equation der(x) = -x; end Good;\n",
    );
    let (code, out, err) = run(minimo().arg("check").arg(&good));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"), "{out}");
    let bad = write(
        &dir,
        "bad.mo",
        "model Bad\n  Real x;\n  Real y;\nequation\n  der(x) = -x;\nend Bad;\n",
    );
    let (code, _, err) = run(minimo().arg("check").arg(&bad));
    assert_eq!(code, 1);
    assert!(
        err.contains("in model `Bad`") && err.contains("not balanced"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The file given on the command line is the `package.mo` of a sub-package folder of a library
/// on MODELICAPATH (how the MSL examples are run): the folder's other files still belong to that
/// package.
#[test]
fn package_mo_of_a_library_folder_keeps_its_sibling_files() {
    let dir = temp_dir("package_mo_of_a_library_folder_keeps_its_sibling_files");
    std::fs::create_dir_all(dir.join("Lib/Sub")).expect("dirs");
    write(&dir, "Lib/package.mo", "within;\npackage Lib\nend Lib;\n");
    write(
        &dir,
        "Lib/Sub/package.mo",
        "within Lib;\npackage Sub\n  model Ex\n    Lib.Sub.Part p;\n    Part q;\n  end Ex;\nend Sub;\n",
    );
    write(
        &dir,
        "Lib/Sub/Part.mo",
        "within Lib.Sub;\nmodel Part\n  Real x = 2;\nend Part;\n",
    );
    let (code, out, err) = run(minimo().env("MODELICAPATH", &dir).args([
        "flatten",
        dir.join("Lib/Sub/package.mo").to_str().expect("path"),
        "-m",
        "Lib.Sub.Ex",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("p.x = 2") && out.contains("q.x = 2"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A library package file holding many classes: the ones a model does not use are never
/// parsed (a syntax error in one of them does not matter), the ones it uses keep their place
/// in the file for diagnostics, and a class of a `protected` section stays protected.
#[test]
fn classes_inside_a_library_file_are_parsed_on_first_use() {
    let dir = temp_dir("classes_inside_a_library_file_are_parsed_on_first_use");
    std::fs::create_dir_all(dir.join("Lib")).expect("dirs");
    write(
        &dir,
        "Lib/package.mo",
        "package Lib \"a library\"\n  constant Real g = 9.81;\n  model Used\n    Real x(start = 1);\n  equation\n    der(x) = -g * x;\n  end Used;\n  model Broken\n    Real y\n  equation\n    y = ;\n  end Broken;\n  model BadName\n    Real z = unknownName;\n  end BadName;\nprotected\n  model Hidden\n    Real h = 1;\n  end Hidden;\nend Lib;\n",
    );
    let model = write(&dir, "m.mo", "model M\n  Lib.Used u;\nend M;\n");
    let (code, out, err) = run(minimo()
        .env("MODELICAPATH", &dir)
        .args(["flatten", model.to_str().expect("path")]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("der(u.x) = -9.81 * u.x;"), "{out}");
    // A deferred class parsed later reports its errors at its place in the file.
    let bad = write(&dir, "bad.mo", "model B\n  Lib.BadName b;\nend B;\n");
    let (code, _, err) = run(minimo()
        .env("MODELICAPATH", &dir)
        .args(["flatten", bad.to_str().expect("path")]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("unknownName"), "{err}");
    assert!(err.contains("package.mo:14:"), "{err}");
    let broken = write(&dir, "broken.mo", "model B\n  Lib.Broken b;\nend B;\n");
    let (code, _, err) = run(minimo()
        .env("MODELICAPATH", &dir)
        .args(["flatten", broken.to_str().expect("path")]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("package.mo:9:"), "{err}");
    let hidden = write(&dir, "hidden.mo", "model H\n  Lib.Hidden h;\nend H;\n");
    let (code, _, err) = run(minimo()
        .env("MODELICAPATH", &dir)
        .args(["flatten", hidden.to_str().expect("path")]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("protected"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A package folder given on the command line with a model to run is loaded like a library:
/// a broken file the model does not use does not stop it; `check` still reads every file.
#[test]
fn package_folder_argument_with_a_model_loads_lazily() {
    let dir = temp_dir("package_folder_argument_with_a_model_loads_lazily");
    std::fs::create_dir_all(dir.join("P")).expect("dirs");
    write(&dir, "P/package.mo", "package P\nend P;\n");
    write(
        &dir,
        "P/Good.mo",
        "within P;\nmodel Good\n  Real x = 1;\nend Good;\n",
    );
    write(
        &dir,
        "P/Bad.mo",
        "within P;\nmodel Bad\n  Real x = ;\nend Bad;\n",
    );
    let pkg = dir.join("P");
    let pkg = pkg.to_str().expect("path");
    let (code, out, err) = run(minimo().args(["flatten", pkg, "-m", "P.Good"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("x = 1"), "{out}");
    let (code, _, err) = run(minimo().args(["check", pkg]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Bad.mo:3:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
