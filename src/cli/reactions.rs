//! `minimo reactions`: which constraint reactions are uniquely determined.

use super::ModelArgs;
use crate::analysis::reactions::{ReactionOptions, analyze, json, text};
use crate::diag::{self, SourceMap};
use crate::flatten::{LoadOptions, load_and_flatten};
use clap::Args;

#[derive(Args, Debug)]
pub struct ReactionsArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Analyse at this time of a simulation (repeatable); without it, at the start values.
    #[arg(long = "at")]
    pub at: Vec<f64>,
    /// Emit the analysis as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Exit code 0 on success, 1 when the model cannot be analysed.
pub fn run(args: ReactionsArgs) -> i32 {
    let mut sources = SourceMap::new();
    let opts = LoadOptions {
        files: args.model.files.clone(),
        libs: args.model.libs.clone(),
        model: args.model.model.clone(),
    };
    let flat = match load_and_flatten(&opts, &mut sources) {
        Ok(f) => f,
        Err(ds) => {
            eprint!("{}", diag::render_all(&sources, &ds));
            return 1;
        }
    };
    let ropts = ReactionOptions {
        times: args.at.clone(),
        ..Default::default()
    };
    match analyze(flat, &ropts) {
        Ok(r) => {
            if args.json {
                println!("{}", json(&r));
            } else {
                print!("{}", text(&r));
            }
            0
        }
        Err(ds) => {
            eprint!("{}", diag::render_all(&sources, &ds));
            1
        }
    }
}
