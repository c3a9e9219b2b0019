//! `minimo plot`.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A result file written by `minimo simulate` (.csv).
    pub result: PathBuf,
    /// Comma-separated variables to plot.
    #[arg(long, value_delimiter = ',')]
    pub vars: Vec<String>,
    /// Output image (.svg or .png).
    #[arg(short = 'o', long = "output", default_value = "plot.svg")]
    pub output: PathBuf,
}

pub fn run(args: PlotArgs) -> i32 {
    let text = match std::fs::read_to_string(&args.result) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.result.display());
            return 1;
        }
    };
    let vars: Vec<String> = args
        .vars
        .iter()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    let title = args
        .result
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let result = crate::plot::series_from_csv(&text, &vars)
        .and_then(|s| crate::plot::plot(&s, &title, &args.output));
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {}", e.message);
            if let Some(h) = e.help {
                eprintln!("  help: {h}");
            }
            1
        }
    }
}
