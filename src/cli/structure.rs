//! `minimo structure`.

use super::ModelArgs;
use clap::Args;
use std::path::PathBuf;

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
    /// Print the time of each phase.
    #[arg(long)]
    pub timings: bool,
}

pub fn run(_args: StructureArgs) -> i32 {
    eprintln!("error: `structure` is not implemented yet");
    1
}
