//! `minimo structure`: the structural analysis as a teaching view (text, JSON, HTML, Graphviz).

use super::ModelArgs;
use crate::diag::{self, SourceMap};
use crate::flatten::{LoadOptions, load_and_flatten};
use crate::structure::{AnalyzeOptions, analyze, html, view};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct StructureArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Emit the analysis as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the bipartite graph (matching and blocks marked) as Graphviz to this file.
    #[arg(long)]
    pub dot: Option<PathBuf>,
    /// Write the analysis as a self-contained HTML page (matrices, steps, graph) to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Print the time of each phase.
    #[arg(long)]
    pub timings: bool,
}

/// Exit code 0 on success, 1 when the model has errors (structurally singular included).
pub fn run(args: StructureArgs) -> i32 {
    let mut sources = SourceMap::new();
    let opts = LoadOptions {
        files: args.model.files.clone(),
        libs: args.model.libs.clone(),
        model: args.model.model.clone(),
    };
    let t0 = Instant::now();
    let flat = match load_and_flatten(&opts, &mut sources) {
        Ok(f) => {
            if !f.warnings.is_empty() {
                eprint!("{}", diag::render_all(&sources, &f.warnings));
            }
            f
        }
        Err(ds) => {
            eprint!("{}", diag::render_all(&sources, &ds));
            return 1;
        }
    };
    let flatten_time = t0.elapsed().as_secs_f64();
    let analysis = match analyze(flat, &AnalyzeOptions::default()) {
        Ok(a) => a,
        Err(ds) => {
            eprint!("{}", diag::render_all(&sources, &ds));
            return 1;
        }
    };
    if !analysis.report.warnings.is_empty() {
        eprint!("{}", diag::render_all(&sources, &analysis.report.warnings));
    }
    if let Some(path) = &args.dot
        && let Err(e) = std::fs::write(path, view::dot(&analysis))
    {
        eprintln!("error: cannot write `{}`: {e}", path.display());
        return 1;
    }
    if let Some(path) = &args.html
        && let Err(e) = std::fs::write(path, html::html(&analysis.report))
    {
        eprintln!("error: cannot write `{}`: {e}", path.display());
        return 1;
    }
    if args.json {
        println!("{}", view::json(&analysis));
    } else {
        print!("{}", view::text(&analysis, &sources, args.timings));
        if args.timings {
            println!("  {:<20} {:>10.3} ms", "(flattening)", flatten_time * 1e3);
        }
    }
    0
}
