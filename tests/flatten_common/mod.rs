//! Helpers shared by the flattening tests.
#![allow(dead_code)]

use minimo::dae::{FlatModel, print_flat};
use minimo::flatten::flatten_source;

/// The flat text of `text` (panics with the rendered diagnostics on failure).
pub fn flat(text: &str, model: Option<&str>) -> String {
    match flatten_source("test.mo", text, model) {
        Ok(m) => print_flat(&m),
        Err(e) => panic!("flattening failed:\n{e}"),
    }
}

pub fn flat_model(text: &str, model: Option<&str>) -> FlatModel {
    match flatten_source("test.mo", text, model) {
        Ok(m) => m,
        Err(e) => panic!("flattening failed:\n{e}"),
    }
}

/// The rendered diagnostics of a model that must fail.
pub fn err(text: &str, model: Option<&str>) -> String {
    match flatten_source("test.mo", text, model) {
        Ok(m) => panic!("expected an error, got:\n{}", print_flat(&m)),
        Err(e) => e,
    }
}

/// Asserts that the error message contains every fragment.
pub fn assert_err(text: &str, model: Option<&str>, fragments: &[&str]) {
    let e = err(text, model);
    for f in fragments {
        assert!(e.contains(f), "error message lacks {f:?}:\n{e}");
    }
}

/// Flattens model `model` of `text` (file `file`), analyses it and simulates 1 s with output
/// every 0.25 s; panics with the diagnostics on any failure.
pub fn simulate_source(file: &str, text: &str, model: &str) -> minimo::sim::SimResult {
    let flat = flatten_source(file, text, Some(model)).unwrap_or_else(|e| panic!("{e}"));
    let analysis = minimo::structure::analyze(flat, &minimo::structure::AnalyzeOptions::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let opts = minimo::sim::SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.25),
        ..Default::default()
    };
    minimo::sim::simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Flattens the one model of `text`, analyses it and simulates it with `opts`; the rendered
/// diagnostics on failure (for tests that check a failure).
pub fn simulate_text(
    text: &str,
    opts: &minimo::sim::SimOptions,
) -> Result<minimo::sim::SimResult, String> {
    let flat = flatten_source("m.mo", text, None)?;
    let analysis = minimo::structure::analyze(flat, &minimo::structure::AnalyzeOptions::default())
        .map_err(|e| format!("{e:?}"))?;
    minimo::sim::simulate_analysis(&analysis, opts).map_err(|e| format!("{e:?}"))
}

/// Options for a run to `stop` with output every `interval` at tolerance `tol`.
pub fn sim_options(stop: f64, interval: f64, tol: f64) -> minimo::sim::SimOptions {
    minimo::sim::SimOptions {
        stop_time: Some(stop),
        interval: Some(interval),
        tolerance: Some(tol),
        ..Default::default()
    }
}

/// The value of `name` at time `t` (panics when there is no such variable).
pub fn at(r: &minimo::sim::SimResult, name: &str, t: f64) -> f64 {
    r.value_at(name, t)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

/// The value of `name` in the last row (after any event at the stop time).
pub fn last(r: &minimo::sim::SimResult, name: &str) -> f64 {
    *r.column(name)
        .unwrap_or_else(|| panic!("no variable {name}"))
        .last()
        .expect("rows")
}

/// Asserts `|a - b| <= tol`, naming `what`.
pub fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} != {b}");
}

/// Writes `text` to `<tmp>/minimo_<tag>_<pid>/<name>` and returns the file's path.
pub fn write_model(tag: &str, name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("minimo_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("model file written");
    path
}

/// Runs `minimo ARGS PATH EXTRA...`, as a user would from a shell.
pub fn run_on(path: &std::path::Path, args: &[&str], extra: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .arg(path)
        .args(extra)
        .output()
        .expect("minimo runs")
}

/// Writes `text` as in [`write_model`] and runs `minimo ARGS FILE EXTRA...` on it.
pub fn run_on_file(
    tag: &str,
    name: &str,
    text: &str,
    args: &[&str],
    extra: &[&str],
) -> std::process::Output {
    run_on(&write_model(tag, name, text), args, extra)
}

/// `minimo simulate FILE --stop-time STOP -o FILE.csv EXTRA...` on `text` written as in
/// [`write_model`].
pub fn simulate_file(
    tag: &str,
    name: &str,
    text: &str,
    stop: &str,
    extra: &[&str],
) -> std::process::Output {
    let path = write_model(tag, name, text);
    let csv = path.with_file_name(format!("{name}.csv"));
    let csv = csv.display().to_string();
    let mut args = vec!["--stop-time", stop, "-o", csv.as_str()];
    args.extend_from_slice(extra);
    run_on(&path, &["simulate"], &args)
}

/// The MSL 4.1.0 folder (`../shared/msl/v4.1.0` beside the checkout, or `$MINIMO_MSL/v4.1.0`),
/// or `None` with a SKIPPED message when the test data is not there.
pub fn msl_library() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("MINIMO_MSL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/msl")
        })
        .join("v4.1.0");
    if dir.join("Modelica/package.mo").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "\nSKIPPED: the MSL test data is missing: `{}` has no Modelica/package.mo \
             (put ../shared/msl beside the checkout or set MINIMO_MSL)\n",
            dir.display()
        );
        None
    }
}

/// A result table as minimo writes it (CSV): the column names and the rows of numbers.
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

impl Table {
    /// Parses CSV text; a cell that is not a number becomes NaN (and fails any comparison).
    pub fn parse(text: &str) -> Table {
        let mut lines = text.lines();
        // Names of array elements are quoted and hold commas: `"x[1,2]"`.
        let head = minimo::sim::results::split_csv(lines.next().expect("a header line"));
        let rows = lines
            .map(|l| {
                l.split(',')
                    .map(|v| v.parse().unwrap_or(f64::NAN))
                    .collect()
            })
            .collect();
        Table { head, rows }
    }

    /// The index of column `name` (panics naming it when absent).
    /// The value of column `name` at the last row with time <= `time`.
    pub fn at(&self, name: &str, time: f64) -> f64 {
        let c = self.col(name);
        self.rows
            .iter()
            .rev()
            .find(|r| r[0] <= time + 1e-12)
            .map(|r| r[c])
            .unwrap_or_else(|| panic!("no row at or before t = {time}"))
    }

    pub fn col(&self, name: &str) -> usize {
        self.head
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column `{name}` in {:?}", self.head))
    }
}

/// `minimo simulate ARGS... --lib LIB` writing CSV to stdout; asserts exit 0 (showing stderr
/// otherwise) and returns the table.
pub fn simulate_with_library(lib: &std::path::Path, args: &[&str]) -> Table {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .args(args)
        .arg("--lib")
        .arg(lib)
        .output()
        .expect("minimo runs");
    assert!(
        run.status.success(),
        "minimo simulate {args:?} failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    Table::parse(&String::from_utf8_lossy(&run.stdout))
}
