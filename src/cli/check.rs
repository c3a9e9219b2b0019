//! `minimo check`.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Model files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

pub fn run(args: CheckArgs) -> i32 {
    eprintln!(
        "error: `check` is not implemented yet ({} files)",
        args.files.len()
    );
    1
}
