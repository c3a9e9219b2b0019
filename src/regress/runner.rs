//! Simulates the example models that have reference results and compares each with its
//! reference. Every model runs in its own `minimo simulate` process, so that a crash, a stack
//! overflow or a model that never ends (killed at the time limit) costs one entry of the table,
//! not the run.

use super::table::Table;
use super::tube::{self, Tolerance};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The `minimo` executable.
    pub minimo: PathBuf,
    /// The folder holding the library (`Modelica/`, `ModelicaServices/`): the child processes'
    /// MODELICAPATH.
    pub library: PathBuf,
    /// The folder of reference results: `<ref>/Modelica/A/B/Name/Name.csv` for `Modelica.A.B.Name`.
    pub reference: PathBuf,
    /// Only models whose name starts with one of these packages (all when empty).
    pub packages: Vec<String>,
    /// Only models whose name contains one of these strings (all when empty).
    pub only: Vec<String>,
    /// Where result files go.
    pub work_dir: PathBuf,
    pub jobs: usize,
    pub timeout: Duration,
    pub tolerance: Tolerance,
}

/// One example with its reference file.
#[derive(Clone, Debug)]
pub struct Case {
    pub model: String,
    pub reference: PathBuf,
}

/// How one example ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Matched,
    /// Simulated, but a signal left the tube (the first failure).
    Mismatch(String),
    /// Loaded and flattened, but the simulation failed (the first line of the error).
    SimFailed(String),
    /// Parsing or flattening failed.
    LoadFailed(String),
    Timeout,
}

impl Outcome {
    pub fn loaded(&self) -> bool {
        !matches!(self, Outcome::LoadFailed(_))
    }
    pub fn simulated(&self) -> bool {
        matches!(self, Outcome::Matched | Outcome::Mismatch(_))
    }
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Matched => "matched",
            Outcome::Mismatch(_) => "mismatch",
            Outcome::SimFailed(_) => "sim-failed",
            Outcome::LoadFailed(_) => "load-failed",
            Outcome::Timeout => "timeout",
        }
    }
    pub fn detail(&self) -> &str {
        match self {
            Outcome::Mismatch(s) | Outcome::SimFailed(s) | Outcome::LoadFailed(s) => s,
            _ => "",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CaseResult {
    pub model: String,
    pub outcome: Outcome,
    pub seconds: f64,
}

/// The reference models under `reference`, sorted by name, filtered by `config`.
pub fn discover(config: &Config) -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    walk(&config.reference, &config.reference, &mut out)?;
    out.retain(|c| {
        (config.packages.is_empty()
            || config
                .packages
                .iter()
                .any(|p| c.model.starts_with(&format!("{p}."))))
            && (config.only.is_empty() || config.only.iter().any(|o| c.model.contains(o.as_str())))
    });
    out.sort_by(|a, b| a.model.cmp(&b.model));
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<Case>) -> Result<(), String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(root, &p, out)?;
        } else if p.extension().is_some_and(|e| e == "csv")
            && let (Some(stem), Some(parent)) = (p.file_stem(), p.parent())
            && parent.file_name() == Some(stem)
            && let Ok(rel) = parent.strip_prefix(root)
        {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect();
            out.push(Case {
                model: parts.join("."),
                reference: p.clone(),
            });
        }
    }
    Ok(())
}

/// Runs every case on `config.jobs` threads; results in the order of `cases`.
pub fn run_all(config: &Config, cases: &[Case], progress: bool) -> Vec<CaseResult> {
    parallel_map(cases, config.jobs, |case| {
        let r = run_case(config, case);
        if progress {
            eprintln!("{:11} {:6.2} s  {}", r.outcome.label(), r.seconds, r.model);
        }
        r
    })
}

/// `f` of every item on `jobs` threads (each takes the next item when it is free, so one slow
/// model does not hold up a fixed share); the results in the order of `items`.
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        *n += 1;
                        *n - 1
                    };
                    let Some(item) = items.get(k) else { break };
                    let r = f(item);
                    results.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(r);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// Simulates one example with its `experiment` settings and compares it with its reference.
pub fn run_case(config: &Config, case: &Case) -> CaseResult {
    let t = Instant::now();
    // JSON, not CSV: it also holds the parameters, which reference files list among their
    // signals.
    let out = config.work_dir.join(format!("{}.json", case.model));
    let _ = std::fs::remove_file(&out);
    // The run covers the reference's span: the reference tools may have run past the
    // annotation's StopTime (DifferenceAmplifier: annotation 1e-8 s, reference 1 s), and a
    // comparison only means something where both curves exist. Interval and Tolerance stay
    // those of the `experiment` annotation.
    let stop = reference_end(&case.reference).map(|t| format!("{t:e}"));
    let mut args = vec!["simulate", "-m", &case.model];
    if let Some(stop) = &stop {
        args.extend(["--stop-time", stop.as_str()]);
    }
    let out_path = out.to_string_lossy();
    args.extend(["-o", &out_path]);
    let sim = run_minimo(config, &args);
    let outcome = match sim {
        Child::Timeout => Outcome::Timeout,
        Child::Crashed(msg) => Outcome::SimFailed(format!("crash: {msg}")),
        Child::Failed(msg) => {
            // Tell a model that does not load from one that does not simulate.
            match run_minimo(config, &["flatten", "-m", &case.model]) {
                Child::Ok => Outcome::SimFailed(msg),
                _ => Outcome::LoadFailed(msg),
            }
        }
        Child::Ok => compare_files(&case.reference, &out, config.tolerance),
    };
    CaseResult {
        model: case.model.clone(),
        outcome,
        seconds: t.elapsed().as_secs_f64(),
    }
}

/// The last time of a reference file (`None` when it cannot be read: the comparison reports it).
fn reference_end(reference: &Path) -> Option<f64> {
    Table::read_csv(reference).ok()?.time.last().copied()
}

fn compare_files(reference: &Path, result: &Path, tol: Tolerance) -> Outcome {
    let r = match Table::read_csv(reference) {
        Ok(r) => r,
        Err(e) => return Outcome::SimFailed(format!("reference: {e}")),
    };
    let g = match Table::read_json(result) {
        Ok(g) => g,
        Err(e) => return Outcome::SimFailed(format!("result: {e}")),
    };
    match tube::compare(&r, &g, tol).first() {
        None => Outcome::Matched,
        Some(f) => Outcome::Mismatch(f.to_string()),
    }
}

/// How a child `minimo` process ended.
pub(crate) enum Child {
    Ok,
    /// Exit status 1 or 2 (a reported error), with the first error line.
    Failed(String),
    /// Killed by a signal or exited with another status (a panic gives 101): a crash.
    Crashed(String),
    Timeout,
}

fn run_minimo(config: &Config, args: &[&str]) -> Child {
    match spawn_minimo(&config.minimo, &config.library, args, config.timeout) {
        Child::Crashed(m) => Child::Failed(format!("crash: {m}")),
        c => c,
    }
}

/// Runs `minimo ARGS` with MODELICAPATH set to `library`, stopping it after `timeout`.
pub(crate) fn spawn_minimo(
    minimo: &Path,
    library: &Path,
    args: &[&str],
    timeout: Duration,
) -> Child {
    let config = (minimo, library, timeout);
    let spawned = Command::new(config.0)
        .args(args)
        .env("MODELICAPATH", config.1)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return Child::Failed(format!("cannot start `{}`: {e}", config.0.display())),
    };
    // Read stderr on a thread so a chatty child cannot block on a full pipe.
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(e, &mut s);
        }
        s
    });
    let deadline = Instant::now() + config.2;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => break None,
        }
    };
    let err = reader.join().unwrap_or_default();
    match status {
        None => Child::Timeout,
        Some(st) if st.success() => Child::Ok,
        Some(st) if matches!(st.code(), Some(1) | Some(2)) => {
            Child::Failed(first_error(&err).unwrap_or_else(|| format!("exit status {st}")))
        }
        Some(st) => Child::Crashed(
            err.lines()
                .find(|l| l.contains("panicked") || l.contains("overflow"))
                .map(|l| l.trim().to_string())
                .unwrap_or_else(|| format!("exit status {st}")),
        ),
    }
}

/// The first `error:` line of a diagnostic output, with the library folder shortened.
fn first_error(stderr: &str) -> Option<String> {
    let line = stderr
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))?;
    Some(line.trim().to_string())
}

/// The known failures: `model  reason` per line, `#` comments.
pub fn read_known_failures(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (model, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        out.insert(model.to_string(), reason.trim().to_string());
    }
    Ok(out)
}

/// The list of known failures of a run: a header, then `model  outcome: reason` per model
/// that did not match (library paths shortened to be relative to `library`).
pub fn known_failures_text(results: &[CaseResult], library: &Path) -> String {
    let mut s = String::from(
        "# Models that do not match their reference yet, with the first reason seen.\n\
         # Format: model, then the reason. The regression test fails on a model that does not\n\
         # match and is not listed here, and on a listed model that now matches.\n",
    );
    let prefix = format!("{}/", library.display());
    for r in results.iter().filter(|r| r.outcome != Outcome::Matched) {
        let detail = r.outcome.detail().replace(&prefix, "");
        s.push_str(&format!("{}  {}: {}\n", r.model, r.outcome.label(), detail));
    }
    s
}

/// What the run says about the list of known failures.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Models that did not match and are not listed.
    pub regressions: Vec<CaseResult>,
    /// Listed models that now match (the list must be brought up to date).
    pub unexpected_passes: Vec<String>,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.regressions.is_empty() && self.unexpected_passes.is_empty()
    }
}

pub fn verdict(results: &[CaseResult], known: &BTreeMap<String, String>) -> Verdict {
    let mut v = Verdict::default();
    for r in results {
        match (r.outcome == Outcome::Matched, known.contains_key(&r.model)) {
            (false, false) => v.regressions.push(r.clone()),
            (true, true) => v.unexpected_passes.push(r.model.clone()),
            _ => {}
        }
    }
    v
}

/// The table per package (loaded / simulated / matched of the models run), then one line per
/// model that did not match.
pub fn report(results: &[CaseResult], packages: &[String]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:40} {:>6} {:>7} {:>10} {:>8}",
        "package", "models", "loaded", "simulated", "matched"
    );
    let mut groups: Vec<String> = packages.to_vec();
    if groups.is_empty() {
        groups.push(String::new());
    }
    let mut total = [0usize; 4];
    for p in &groups {
        let rs: Vec<&CaseResult> = results
            .iter()
            .filter(|r| p.is_empty() || r.model.starts_with(&format!("{p}.")))
            .collect();
        let counts = [
            rs.len(),
            rs.iter().filter(|r| r.outcome.loaded()).count(),
            rs.iter().filter(|r| r.outcome.simulated()).count(),
            rs.iter().filter(|r| r.outcome == Outcome::Matched).count(),
        ];
        for (t, c) in total.iter_mut().zip(counts) {
            *t += c;
        }
        let name = if p.is_empty() { "(all)" } else { p.as_str() };
        let _ = writeln!(
            s,
            "{:40} {:>6} {:>7} {:>10} {:>8}",
            name, counts[0], counts[1], counts[2], counts[3]
        );
    }
    if groups.len() > 1 {
        let _ = writeln!(
            s,
            "{:40} {:>6} {:>7} {:>10} {:>8}",
            "total", total[0], total[1], total[2], total[3]
        );
    }
    for r in results.iter().filter(|r| r.outcome != Outcome::Matched) {
        let _ = writeln!(
            s,
            "{:11} {:6.2} s  {}  {}",
            r.outcome.label(),
            r.seconds,
            r.model,
            r.outcome.detail()
        );
    }
    s
}
