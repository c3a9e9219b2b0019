//! The Modelica Association's compliance suite (`modelica/Modelica-Compliance`): each test model
//! declares `__ModelicaAssociation(TestCase(shouldPass = ...))`. A model that should pass must
//! simulate (exit 0); one that should not must be refused with a reported error (exit 1). A
//! crash or a timeout is wrong either way. The suite is fetched by whoever runs this; it is
//! never copied into the repository.

use super::runner::{Child, parallel_map, spawn_minimo};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Case {
    pub model: String,
    pub should_pass: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Right,
    /// Accepted, but the model is illegal.
    WronglyAccepted,
    /// Refused, but the model is legal.
    WronglyRefused,
    Crash,
    Timeout,
}

#[derive(Clone, Debug)]
pub struct CaseResult {
    pub case: Case,
    pub verdict: Verdict,
    /// The first error line, if any.
    pub message: String,
}

/// The test models under `suite` (the folder holding `ModelicaCompliance/`), sorted.
pub fn discover(suite: &Path) -> Result<Vec<Case>, String> {
    let root = suite.join("ModelicaCompliance");
    if !root.join("package.mo").is_file() {
        return Err(format!(
            "`{}` does not hold ModelicaCompliance/package.mo",
            suite.display()
        ));
    }
    let mut out = Vec::new();
    walk(suite, &root, &mut out)?;
    out.sort_by(|a, b| a.model.cmp(&b.model));
    Ok(out)
}

fn walk(suite: &Path, dir: &Path, out: &mut Vec<Case>) -> Result<(), String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(suite, &p, out)?;
            continue;
        }
        if p.extension().is_none_or(|e| e != "mo")
            || p.file_name().is_some_and(|n| n == "package.mo")
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let Some(should_pass) = should_pass(&text) else {
            continue;
        };
        let Ok(rel) = p
            .with_extension("")
            .strip_prefix(suite)
            .map(Path::to_path_buf)
        else {
            continue;
        };
        let mut model: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        // A test written as a package holding the test model of the same name
        // (`package P ... model P ... end P; end P;`) tests that model.
        if let Some(name) = model.last().cloned()
            && declares(&text, "package", &name)
            && declares(&text, "model", &name)
        {
            model.push(name);
        }
        out.push(Case {
            model: model.join("."),
            should_pass,
        });
    }
    Ok(())
}

/// Whether `text` has a line declaring `<keyword> <name>` (prefixes such as `encapsulated`
/// before it allowed).
fn declares(text: &str, keyword: &str, name: &str) -> bool {
    text.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words
            .windows(2)
            .any(|w| w[0] == keyword && w[1].trim_end_matches(['"', ';']) == name)
    })
}

/// The value of `shouldPass = true|false` in a test's annotation.
fn should_pass(text: &str) -> Option<bool> {
    let at = text.find("shouldPass")?;
    let rest = text[at + "shouldPass".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start();
    if rest.starts_with("true") {
        Some(true)
    } else if rest.starts_with("false") {
        Some(false)
    } else {
        None
    }
}

/// Simulates every case (`jobs` at once) and judges it.
pub fn run_all(
    minimo: &Path,
    suite: &Path,
    cases: &[Case],
    work_dir: &Path,
    jobs: usize,
    timeout: Duration,
) -> Vec<CaseResult> {
    parallel_map(cases, jobs, |case| {
        let out = work_dir.join(format!("{}.csv", case.model));
        let child = spawn_minimo(
            minimo,
            suite,
            &["simulate", "-m", &case.model, "-o", &out.to_string_lossy()],
            timeout,
        );
        let _ = std::fs::remove_file(&out);
        let (verdict, message) = match child {
            Child::Ok if case.should_pass => (Verdict::Right, String::new()),
            Child::Ok => (Verdict::WronglyAccepted, String::new()),
            Child::Failed(m) if !case.should_pass => (Verdict::Right, m),
            Child::Failed(m) => (Verdict::WronglyRefused, m),
            Child::Crashed(m) => (Verdict::Crash, m),
            Child::Timeout => (Verdict::Timeout, String::new()),
        };
        CaseResult {
            case: case.clone(),
            verdict,
            message,
        }
    })
}

/// The summary line, then one line per case that was not decided right.
pub fn report(results: &[CaseResult]) -> String {
    use std::fmt::Write;
    let count = |v: Verdict| results.iter().filter(|r| r.verdict == v).count();
    let right = count(Verdict::Right);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{right} of {} decided right ({:.1} %); wrongly accepted {}, wrongly refused {}, crashes {}, timeouts {}",
        results.len(),
        100.0 * right as f64 / results.len().max(1) as f64,
        count(Verdict::WronglyAccepted),
        count(Verdict::WronglyRefused),
        count(Verdict::Crash),
        count(Verdict::Timeout)
    );
    for r in results.iter().filter(|r| r.verdict != Verdict::Right) {
        let label = match r.verdict {
            Verdict::WronglyAccepted => "accepted",
            Verdict::WronglyRefused => "refused",
            Verdict::Crash => "CRASH",
            Verdict::Timeout => "TIMEOUT",
            Verdict::Right => "right",
        };
        let _ = writeln!(s, "{label:9} {}  {}", r.case.model, r.message);
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn should_pass_is_read_from_the_annotation() {
        let t =
            "annotation(__ModelicaAssociation(TestCase(shouldPass = false, section = {\"4.8\"})));";
        assert_eq!(super::should_pass(t), Some(false));
        assert_eq!(super::should_pass("TestCase(shouldPass=true)"), Some(true));
        assert_eq!(super::should_pass("model M end M;"), None);
    }
}
