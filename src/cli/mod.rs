//! The `minimo` command line. Each subcommand lives in its own module.
//!
//! Exit codes: 0 success, 1 model or simulation error, 2 usage error.

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "minimo", version, about = "An acausal modeling language interpreter (a mini-Modelica)")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse (and flatten) model files and report problems.
    Check {
        files: Vec<std::path::PathBuf>,
    },
}

/// Runs the command line; returns the process exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Check { files } => {
            eprintln!("check: not implemented yet ({} files)", files.len());
            1
        }
    }
}
