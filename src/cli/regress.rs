//! `minimo regress`: simulates a library's example models that have reference results and
//! compares them inside the tube (see `crate::regress`).

use crate::regress::runner::{self, Config};
use crate::regress::tube::Tolerance;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct RegressArgs {
    /// The folder holding the library (`Modelica/`, `ModelicaServices/`), e.g. an MSL 4.1.0 copy.
    #[arg(long)]
    pub library: PathBuf,
    /// The folder of reference results (`<dir>/Modelica/A/B/Name/Name.csv`).
    #[arg(long)]
    pub reference: PathBuf,
    /// Only models of this package (repeatable), e.g. `Modelica.Blocks`; one table row each.
    #[arg(long = "package")]
    pub packages: Vec<String>,
    /// Only models whose name contains this text (repeatable).
    #[arg(long)]
    pub only: Vec<String>,
    /// The list of known failures (`model  reason` per line): the run fails on a model that
    /// does not match and is not listed, and on a listed model that matches.
    #[arg(long)]
    pub known: Option<PathBuf>,
    /// Write the models that do not match, with their reasons, to this file (the format of
    /// `--known`), to start or refresh the list of known failures.
    #[arg(long)]
    pub write_known: Option<PathBuf>,
    /// Where the result files go (default: a folder in the system's temporary directory).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Models simulated at once.
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Seconds a model may take before it is stopped and counted as a timeout.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
}

pub fn run(args: RegressArgs) -> i32 {
    let minimo = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot find the minimo executable: {e}");
            return 1;
        }
    };
    let work_dir = args
        .work_dir
        .unwrap_or_else(|| std::env::temp_dir().join("minimo-regress"));
    if let Err(e) = std::fs::create_dir_all(&work_dir) {
        eprintln!("error: cannot create `{}`: {e}", work_dir.display());
        return 2;
    }
    if !args.timeout.is_finite() || args.timeout <= 0.0 {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    let config = Config {
        minimo,
        library: args.library,
        reference: args.reference,
        packages: args.packages,
        only: args.only,
        work_dir,
        jobs: args.jobs,
        timeout: Duration::from_secs_f64(args.timeout),
        tolerance: Tolerance::default(),
    };
    let known = match args.known.as_deref().map(runner::read_known_failures) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let cases = match runner::discover(&config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if cases.is_empty() {
        eprintln!("error: no reference results found for the given packages");
        return 2;
    }
    let results = runner::run_all(&config, &cases, true);
    print!("{}", runner::report(&results, &config.packages));
    if let Some(path) = &args.write_known {
        let text = runner::known_failures_text(&results, &config.library);
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return 1;
        }
    }
    let Some(known) = known else {
        return i32::from(
            results
                .iter()
                .any(|r| r.outcome != runner::Outcome::Matched),
        );
    };
    let v = runner::verdict(&results, &known);
    for r in &v.regressions {
        println!(
            "REGRESSION: {} ({}) is not in the list of known failures: {}",
            r.model,
            r.outcome.label(),
            r.outcome.detail()
        );
    }
    for m in &v.unexpected_passes {
        println!("NOW PASSES: {m} matches its reference: remove it from the known failures");
    }
    i32::from(!v.ok())
}

#[derive(Args, Debug)]
pub struct ComplianceArgs {
    /// The folder holding `ModelicaCompliance/` (a checkout of modelica/Modelica-Compliance).
    pub suite: PathBuf,
    /// Only models whose name contains this text (repeatable).
    #[arg(long)]
    pub only: Vec<String>,
    /// Models simulated at once.
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Seconds a model may take before it is stopped and counted as a timeout.
    #[arg(long, default_value_t = 20.0)]
    pub timeout: f64,
}

/// `minimo compliance`: prints the summary and every case not decided right; exit 0 when all
/// are, 1 otherwise.
pub fn run_compliance(args: ComplianceArgs) -> i32 {
    use crate::regress::compliance;
    let minimo = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot find the minimo executable: {e}");
            return 1;
        }
    };
    if !args.timeout.is_finite() || args.timeout <= 0.0 {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    let mut cases = match compliance::discover(&args.suite) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if !args.only.is_empty() {
        cases.retain(|c| args.only.iter().any(|o| c.model.contains(o.as_str())));
    }
    let work_dir = std::env::temp_dir().join(format!("minimo-compliance-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&work_dir) {
        eprintln!("error: cannot create `{}`: {e}", work_dir.display());
        return 2;
    }
    let results = compliance::run_all(
        &minimo,
        &args.suite,
        &cases,
        &work_dir,
        args.jobs,
        Duration::from_secs_f64(args.timeout),
    );
    let _ = std::fs::remove_dir_all(&work_dir);
    print!("{}", compliance::report(&results));
    i32::from(
        results
            .iter()
            .any(|r| r.verdict != compliance::Verdict::Right),
    )
}
