//! The `minimo` command line. Each subcommand lives in its own module; this file only declares
//! the arguments and dispatches.
//!
//! Exit codes: 0 success, 1 model or simulation error, 2 usage error.

mod check;
mod flatten;
mod plot;
mod reactions;
mod regress;
mod run_options;
mod simulate;
mod structure;
mod sweep;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  minimo check examples/rlc.mo
  minimo flatten examples/rlc.mo -m RLC
  minimo structure examples/pendulum.mo --dot pendulum.dot
  minimo reactions examples/multibody/RobotTrolley.mo -m RobotTrolley
  minimo simulate examples/pendulum.mo --stop-time 10 -o pendulum.csv
  minimo sweep examples/pendulum.mo --set-grid L=0.5:2:4 --set-grid phi0=0.1,0.3 -o sweep.csv
  minimo plot pendulum.csv --vars x,y -o pendulum.svg";

#[derive(Parser, Debug)]
#[command(
    name = "minimo",
    version,
    about = "An acausal modeling language interpreter (a mini-Modelica)",
    after_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Options shared by every command that loads and flattens a model.
#[derive(Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// The model file(s) to load; may be left out when `-m` names a class of a library
    /// (`-m Modelica.Mechanics.Rotational.Examples.First` with the MSL on MODELICAPATH).
    #[arg(required_unless_present = "model")]
    pub files: Vec<PathBuf>,
    /// The model to use, e.g. `A.B.C` (needed when the files hold several models).
    #[arg(short = 'm', long = "model")]
    pub model: Option<String>,
    /// Extra library folder or file (repeatable); MODELICAPATH is searched too.
    #[arg(long = "lib")]
    pub libs: Vec<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse and flatten model files and report every problem found.
    Check(check::CheckArgs),
    /// Print the flat model (all variables and equations) as flat Modelica or JSON.
    Flatten(flatten::FlattenArgs),
    /// Show the structural analysis: matching, index reduction, states, BLT blocks.
    Structure(structure::StructureArgs),
    /// Which constraint reactions are uniquely determined (redundant constraints).
    Reactions(reactions::ReactionsArgs),
    /// Simulate a model and write the results.
    Simulate(simulate::SimulateArgs),
    /// Simulate a model over a grid or random samples of parameters, in parallel; write one
    /// table (one row per run).
    #[command(after_help = sweep::AFTER_HELP)]
    Sweep(sweep::SweepArgs),
    /// Plot variables of a result file.
    Plot(plot::PlotArgs),
    /// Simulate a library's examples and compare them with reference results.
    Regress(regress::RegressArgs),
    /// Run the Modelica compliance suite: legal models must simulate, illegal ones be refused.
    Compliance(regress::ComplianceArgs),
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
        Command::Check(a) => check::run(a),
        Command::Flatten(a) => flatten::run(a),
        Command::Structure(a) => structure::run(a),
        Command::Reactions(a) => reactions::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Regress(a) => regress::run(a),
        Command::Compliance(a) => regress::run_compliance(a),
    }
}
