//! `minimo sweep`: one model simulated over a grid or random samples of parameters, in parallel,
//! with one results table written (see [`crate::sweep`]).

use super::ModelArgs;
use crate::flatten::LoadOptions;
use crate::sweep::grid::{grid, samples};
use crate::sweep::table::{write_csv, write_json};
use crate::sweep::{CompiledModel, Stat, SweepSpec, parse_axis, run_sweep};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Shown after `minimo sweep --help`.
pub const AFTER_HELP: &str = "\
What it writes: one row per run, in the order of the grid (the first --set-grid varying
slowest) or of the samples: `run`, the swept parameters, then for each reported variable its
final value (column `x`) and the statistics asked with --stats (`min(x)`, `max(x)`, `mean(x)`,
over the output points), then `error` (the first line of the diagnostic of a failed run, else
empty). Without --vars the reported variables are the states. JSON (-o FILE.json) holds the same
table with the full diagnostics. The output is the same for any number of threads.

The model is flattened and analysed once; each run only compiles its parameter values and
integrates. A structural parameter (an array size, a `for` range, a condition: e.g. a roller
count) cannot be changed without flattening again, so the runs are grouped by their structural
values and each group flattens once.

Exit codes: 0 every run succeeded, 1 the model failed to load or some run failed (the table is
still written), 2 a usage error (bad --set-grid, unknown parameter, bad option).

Examples:
  minimo sweep examples/pendulum.mo --set-grid L=0.5:2:4 --set-grid phi0=0.1,0.3 -o sweep.csv
  minimo sweep examples/pendulum.mo --set-grid L=0.5:2 --samples 100 --seed 1 --vars x --stats final,max -o mc.json";

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// A swept parameter (repeatable): NAME=START:STOP:COUNT (COUNT evenly spaced values, both
    /// ends included), NAME=V1,V2,..., or with --samples NAME=LO:HI (uniform in [LO, HI]).
    #[arg(long = "set-grid", required = true, value_name = "NAME=SPEC")]
    pub grid: Vec<String>,
    /// Draw N random runs from the --set-grid axes instead of running their whole grid.
    #[arg(long)]
    pub samples: Option<usize>,
    /// Seed of --samples (the same seed gives the same runs).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Override a parameter in every run: NAME=VALUE (repeatable).
    #[arg(long = "set")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub run: super::run_options::RunArgs,
    /// Report the variables whose flat name matches this regular expression (default: the states).
    #[arg(long)]
    pub vars: Option<String>,
    /// Statistics per reported variable, comma-separated: final, min, max, mean.
    #[arg(long, default_value = "final")]
    pub stats: String,
    /// Threads (default: one per core).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
    /// Results file (.csv or .json); CSV on stdout when absent.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

fn usage(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {msg}");
    2
}

pub fn run(args: SweepArgs) -> i32 {
    let sim = match args.run.sim_options(&args.set, args.vars.as_deref(), false) {
        Ok(o) => o,
        Err(m) => return usage(m),
    };
    let mut stats = Vec::new();
    for s in args.stats.split(',') {
        match Stat::parse(s) {
            Some(x) if !stats.contains(&x) => stats.push(x),
            Some(_) => {}
            None => {
                return usage(format!(
                    "--stats: unknown statistic `{}`; use final, min, max or mean",
                    s.trim()
                ));
            }
        }
    }
    let json = match &args.output {
        None => false,
        Some(p) => match p
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref()
        {
            Some("csv") => false,
            Some("json") => true,
            _ => {
                return usage(format!(
                    "cannot tell the format of `{}`: use a .csv or .json file",
                    p.display()
                ));
            }
        },
    };
    let mut axes = Vec::new();
    for g in &args.grid {
        match parse_axis(g) {
            Ok(a) => axes.push(a),
            Err(m) => return usage(format!("--set-grid {m}")),
        }
    }
    let runs = match args.samples {
        Some(n) => samples(&axes, n, args.seed),
        None => grid(&axes),
    };
    let runs = match runs {
        Ok(r) => r,
        Err(m) => return usage(m),
    };
    let load = LoadOptions {
        files: args.model.files.clone(),
        libs: args.model.libs.clone(),
        model: args.model.model.clone(),
    };
    let model = match CompiledModel::load(&load, &[]) {
        Ok(m) => m,
        Err(f) => {
            eprintln!("{}", f.rendered);
            return 1;
        }
    };
    if !model.warnings.is_empty() {
        eprint!("{}", model.render(&model.warnings));
    }
    let spec = SweepSpec {
        names: axes.iter().map(|a| a.name.clone()).collect(),
        runs,
        sim,
        stats,
        jobs: args.jobs,
    };
    let table = match run_sweep(&model, &spec) {
        Ok(t) => t,
        Err(f) => {
            eprintln!("{}", f.rendered);
            return 2;
        }
    };
    let written = match &args.output {
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            write_csv(&table, &mut w).and_then(|_| w.flush())
        }
        Some(p) => std::fs::File::create(p).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            if json {
                write_json(&table, &mut w)
            } else {
                write_csv(&table, &mut w)
            }
            .and_then(|_| w.flush())
        }),
    };
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return 0;
        }
        let target = args
            .output
            .as_ref()
            .map_or("standard output".to_string(), |p| p.display().to_string());
        eprintln!("error: cannot write the results to {target}: {e}");
        return 1;
    }
    let failed = table.failures();
    if failed > 0 {
        if let Some((i, e)) = table
            .errors
            .iter()
            .enumerate()
            .find_map(|(i, e)| e.as_ref().map(|e| (i, e)))
        {
            eprintln!("run {i} failed:\n{e}");
        }
        eprintln!(
            "error: {failed} of {} runs failed (their rows have an `error`)",
            table.runs.len()
        );
        return 1;
    }
    0
}
