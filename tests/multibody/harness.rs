//! Shared helpers of the multibody tests: run a model through minimo and read its trajectories.
//!
//! The model goes through the same path a user takes: `minimo simulate FILES -m MODEL ... -o x.csv`
//! (load + flatten with the built-in Minimo library, structural analysis, integration), then the
//! CSV is read back by column name.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn example(name: &str) -> PathBuf {
    root().join("examples").join("multibody").join(name)
}

pub fn data(name: &str) -> PathBuf {
    root().join("tests").join("multibody").join(name)
}

/// Writes a test-only model next to the other temporary files and returns its path.
pub fn temp_model(file: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("multibody");
    std::fs::create_dir_all(&dir).expect("create the temporary model directory");
    let path = dir.join(file);
    std::fs::write(&path, text).expect("write the temporary model");
    path
}

/// What to simulate.
pub struct Sim<'a> {
    pub files: Vec<PathBuf>,
    pub model: &'a str,
    pub stop_time: f64,
    pub interval: f64,
    pub tolerance: Option<f64>,
    /// Integrator (`--solver`); minimo's default when `None`.
    pub solver: Option<&'a str>,
    pub sets: Vec<(String, f64)>,
    /// Regular expression of the variables to keep (all when `None`).
    pub vars: Option<&'a str>,
}

impl<'a> Sim<'a> {
    pub fn new(file: impl AsRef<Path>, model: &'a str, stop_time: f64, interval: f64) -> Sim<'a> {
        Sim {
            files: vec![file.as_ref().to_path_buf()],
            model,
            stop_time,
            interval,
            tolerance: None,
            solver: None,
            sets: Vec::new(),
            vars: None,
        }
    }
    pub fn file(mut self, file: impl AsRef<Path>) -> Self {
        self.files.push(file.as_ref().to_path_buf());
        self
    }
    pub fn tolerance(mut self, tol: f64) -> Self {
        self.tolerance = Some(tol);
        self
    }
    pub fn solver(mut self, solver: &'a str) -> Self {
        self.solver = Some(solver);
        self
    }
    pub fn set(mut self, name: &str, value: f64) -> Self {
        self.sets.push((name.to_string(), value));
        self
    }
    pub fn vars(mut self, regex: &'a str) -> Self {
        self.vars = Some(regex);
        self
    }

    /// Runs the simulation; `Err` holds minimo's diagnostics.
    pub fn run(&self) -> Result<Trajectories, String> {
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("multibody")
            .join(format!("{}-{}.csv", self.model.replace('.', "_"), unique()));
        std::fs::create_dir_all(out.parent().expect("the output has a folder"))
            .map_err(|e| e.to_string())?;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_minimo"));
        cmd.arg("simulate");
        cmd.args(&self.files);
        cmd.args(["-m", self.model]);
        cmd.args(["--stop-time", &self.stop_time.to_string()]);
        cmd.args(["--interval", &self.interval.to_string()]);
        if let Some(t) = self.tolerance {
            cmd.args(["--tolerance", &t.to_string()]);
        }
        if let Some(s) = self.solver {
            cmd.args(["--solver", s]);
        }
        for (k, v) in &self.sets {
            cmd.args(["--set", &format!("{k}={v}")]);
        }
        if let Some(v) = self.vars {
            cmd.args(["--vars", v]);
        }
        cmd.arg("--stats");
        cmd.arg("-o").arg(&out);
        let start = Instant::now();
        let output = cmd
            .output()
            .map_err(|e| format!("cannot run minimo: {e}"))?;
        let wall = start.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if !output.status.success() {
            return Err(format!(
                "minimo simulate failed ({}):\n{stderr}",
                output.status
            ));
        }
        let text = std::fs::read_to_string(&out).map_err(|e| format!("no result file: {e}"))?;
        let mut t = Trajectories::parse(&text)?;
        t.wall = wall;
        t.stats = stderr;
        Ok(t)
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    std::process::id() as u64 * 1000 + N.fetch_add(1, Ordering::Relaxed)
}

/// Result columns by name.
pub struct Trajectories {
    pub names: Vec<String>,
    pub rows: Vec<Vec<f64>>,
    pub wall: Duration,
    /// What `--stats` printed (steps, evaluations, timings).
    pub stats: String,
}

impl Trajectories {
    pub fn parse(csv: &str) -> Result<Trajectories, String> {
        let mut lines = csv.lines().filter(|l| !l.trim().is_empty());
        let header = lines.next().ok_or("empty result file")?;
        let names = split_header(header);
        let mut rows = Vec::new();
        for (i, line) in lines.enumerate() {
            let row: Result<Vec<f64>, _> =
                line.split(',').map(|s| s.trim().parse::<f64>()).collect();
            let row = row.map_err(|e| format!("row {}: {e}", i + 2))?;
            if row.len() != names.len() {
                return Err(format!(
                    "row {} has {} values for {} columns",
                    i + 2,
                    row.len(),
                    names.len()
                ));
            }
            rows.push(row);
        }
        Ok(Trajectories {
            names,
            rows,
            wall: Duration::ZERO,
            stats: String::new(),
        })
    }

    pub fn col(&self, name: &str) -> Vec<f64> {
        let i = self
            .names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| {
                let similar: Vec<&String> = self
                    .names
                    .iter()
                    .filter(|n| n.contains(name.split('.').next_back().unwrap_or(name)))
                    .take(10)
                    .collect();
                panic!("no column `{name}` in the result; similar: {similar:?}")
            });
        self.rows.iter().map(|r| r[i]).collect()
    }

    pub fn time(&self) -> Vec<f64> {
        self.col("time")
    }

    pub fn last(&self, name: &str) -> f64 {
        *self.col(name).last().expect("the result has rows")
    }

    /// Largest absolute value of the column's change over the run.
    pub fn spread(&self, name: &str) -> f64 {
        let c = self.col(name);
        let (lo, hi) = c
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        hi - lo
    }

    pub fn max_abs(&self, name: &str) -> f64 {
        self.col(name).iter().fold(0.0, |m, x| m.max(x.abs()))
    }

    /// Every value of every column is finite.
    pub fn all_finite(&self) -> bool {
        self.rows.iter().all(|r| r.iter().all(|x| x.is_finite()))
    }
}

/// Splits a CSV header; names holding commas (`T[1,2]`) come quoted.
fn split_header(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => names.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    names.push(cur.trim().to_string());
    names
}

/// Linear interpolation of (xs, ys) at x (xs increasing).
pub fn interp(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    match xs.iter().position(|&t| t >= x) {
        Some(0) => ys[0],
        Some(i) => {
            let w = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
            ys[i - 1] * (1.0 - w) + ys[i] * w
        }
        None => *ys.last().expect("non-empty"),
    }
}

/// A CSV reference file (header line, then numbers) as columns.
pub fn reference(name: &str) -> Trajectories {
    let text = std::fs::read_to_string(data(name)).expect("reference data file");
    Trajectories::parse(&text).expect("well-formed reference data")
}
