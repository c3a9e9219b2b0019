//! `minimo simulate`.

use super::ModelArgs;
use crate::diag::{Diagnostic, SourceMap, Span, render_all};
use crate::flatten::{LoadOptions, load_and_flatten};
use crate::sim::SimResult;
use crate::sim::results::{write_csv, write_json, write_mat};
use crate::structure::{AnalyzeOptions, analyze};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub run: super::run_options::RunArgs,
    /// Override a parameter: NAME=VALUE (repeatable).
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Result file (.csv, .json or .mat); CSV on stdout when absent.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Only variables whose flat name matches this regular expression.
    #[arg(long)]
    pub vars: Option<String>,
    /// Print solver statistics and phase timings.
    #[arg(long)]
    pub stats: bool,
}

enum Format {
    Csv,
    Json,
    Mat,
}

fn usage(msg: String) -> i32 {
    eprintln!("error: {msg}");
    2
}

pub fn run(args: SimulateArgs) -> i32 {
    let progress = std::io::stderr().is_terminal();
    let opts = match args
        .run
        .sim_options(&args.set, args.vars.as_deref(), progress)
    {
        Ok(o) => o,
        Err(m) => return usage(m),
    };
    let format = match &args.output {
        None => Format::Csv,
        Some(p) => match p
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref()
        {
            Some("csv") => Format::Csv,
            Some("json") => Format::Json,
            Some("mat") => Format::Mat,
            // A device or a named pipe (`-o /dev/null`, `-o /dev/stdout`) has no extension to
            // tell: it gets CSV, as standard output does.
            _ if std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir()) => Format::Csv,
            _ => {
                return usage(format!(
                    "cannot tell the result format of `{}`: use a .csv, .json or .mat file",
                    p.display()
                ));
            }
        },
    };
    let mut sources = SourceMap::new();
    let t_start = Instant::now();
    let load = LoadOptions {
        files: args.model.files.clone(),
        libs: args.model.libs.clone(),
        model: args.model.model.clone(),
    };
    let flat = match load_and_flatten(&load, &mut sources) {
        Ok(f) => {
            if !f.warnings.is_empty() {
                eprint!("{}", render_all(&sources, &f.warnings));
            }
            f
        }
        Err(d) => return report(&sources, &d),
    };
    let t_flat = t_start.elapsed();
    let t1 = Instant::now();
    let analysis = match analyze(flat, &AnalyzeOptions::default()) {
        Ok(a) => a,
        Err(d) => return report(&sources, &d),
    };
    // Structural warnings (a stateSelect that could not be honoured...) as `structure` shows them.
    if !analysis.report.warnings.is_empty() {
        eprint!("{}", render_all(&sources, &analysis.report.warnings));
    }
    let t_struct = t1.elapsed();
    let result = match crate::sim::simulate_analysis(&analysis, &opts) {
        Ok(r) => r,
        Err(d) => return report(&sources, &d),
    };
    for m in &result.messages {
        eprintln!("note: {m}");
    }
    let t_write = Instant::now();
    let written = match &args.output {
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            write_csv(&result, &mut w).and_then(|_| w.flush())
        }
        Some(p) => std::fs::File::create(p).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            match format {
                Format::Csv => write_csv(&result, &mut w),
                Format::Json => write_json(&result, &mut w),
                Format::Mat => write_mat(&result, &mut w),
            }
            .and_then(|_| w.flush())
        }),
    };
    if let Err(e) = written {
        let target = args
            .output
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "standard output".into());
        // A closed pipe (e.g. `| head`) is not an error of the simulation.
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return 0;
        }
        eprintln!("error: cannot write the results to {target}: {e}");
        return 1;
    }
    if args.stats {
        print_stats(&result, t_flat, t_struct, t_write.elapsed());
    }
    0
}

/// Prints the diagnostics of a failed stage and returns the exit code. A stage only returns
/// `Err` when it failed, so an empty or blank list still exits 1, with a fallback message:
/// the user must never see a bare exit status without a word of explanation.
fn report(sources: &SourceMap, d: &[Diagnostic]) -> i32 {
    let text = render_all(sources, d);
    if text.trim().is_empty() || d.iter().all(|d| d.message.trim().is_empty()) {
        eprintln!(
            "error: the simulation failed but the failing stage gave no explanation \
             (an internal error of minimo; please report it with the model)"
        );
        if !text.trim().is_empty() {
            eprintln!("{text}");
        }
        return 1;
    }
    eprintln!("{text}");
    if d.iter().any(|d| d.severity == crate::diag::Severity::Error) {
        1
    } else {
        0
    }
}

fn print_stats(
    r: &SimResult,
    flat: std::time::Duration,
    structure: std::time::Duration,
    write: std::time::Duration,
) {
    let s = &r.stats;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "statistics ({} method, {} states, {} Jacobian):",
        s.method,
        s.states,
        if s.sparse_jacobian { "sparse" } else { "dense" }
    );
    eprintln!("  steps                      {}", s.steps);
    eprintln!(
        "  rejected steps / failures  {} ({} error test, {} Newton)",
        s.rejected_steps, s.error_test_failures, s.newton_failures
    );
    eprintln!("  right-hand side evals      {}", s.rhs_evaluations);
    eprintln!("  Jacobian evaluations       {}", s.jacobian_evaluations);
    eprintln!(
        "  Jacobian-vector products   {}",
        s.jacobian_vector_products
    );
    eprintln!("  Newton iterations          {}", s.newton_iterations);
    eprintln!(
        "  algebraic block iterations {} ({} factorizations)",
        s.block_iterations, s.block_factorizations
    );
    for (k, t) in &s.torn_blocks {
        eprintln!("  linear block torn          {k} -> {t} unknowns");
    }
    let (compiled, interpreted) = crate::sim::funcall::compiled_and_interpreted();
    if !compiled.is_empty() || !interpreted.is_empty() {
        let mut line = format!(
            "  functions                  {} compiled, {} interpreted",
            compiled.len(),
            interpreted.len()
        );
        if !interpreted.is_empty() {
            let names: Vec<&str> = interpreted.iter().take(3).map(String::as_str).collect();
            let more = if interpreted.len() > 3 { ", ..." } else { "" };
            line += &format!(" ({}{more})", names.join(", "));
        }
        eprintln!("{line}");
    }
    eprintln!("  events                     {}", s.events);
    eprintln!("  output points              {}", r.time.len());
    eprintln!("phase timings:");
    eprintln!("  load + flatten             {:10.3} ms", ms(flat));
    eprintln!("  structural analysis        {:10.3} ms", ms(structure));
    eprintln!(
        "  compile                    {:10.3} ms",
        ms(s.compile_time)
    );
    eprintln!("  initialization             {:10.3} ms", ms(s.init_time));
    eprintln!(
        "  integration                {:10.3} ms",
        ms(s.integrate_time)
    );
    eprintln!("  writing results            {:10.3} ms", ms(write));
    let _ = Span::DUMMY;
}
