//! `minimo simulate`.

use super::ModelArgs;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[arg(long)]
    pub start_time: Option<f64>,
    #[arg(long)]
    pub stop_time: Option<f64>,
    /// Output interval.
    #[arg(long)]
    pub interval: Option<f64>,
    /// Relative tolerance.
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Integrator: bdf, esdirk34, tr-bdf2 or tsit45.
    #[arg(long, default_value = "bdf")]
    pub solver: String,
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

pub fn run(_args: SimulateArgs) -> i32 {
    eprintln!("error: `simulate` is not implemented yet");
    1
}
