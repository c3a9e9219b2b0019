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

pub fn run(_args: PlotArgs) -> i32 {
    eprintln!("error: `plot` is not implemented yet");
    1
}
