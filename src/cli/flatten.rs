//! `minimo flatten`: the flat model as flat Modelica text, or as JSON with `--json`.

use super::ModelArgs;
use crate::diag::{self, SourceMap};
use crate::flatten::{LoadOptions, load_and_flatten};
use clap::Args;

#[derive(Args, Debug)]
pub struct FlattenArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Emit the flat system as JSON instead of flat Modelica text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: FlattenArgs) -> i32 {
    let opts = LoadOptions {
        files: args.model.files.clone(),
        libs: args.model.libs.clone(),
        model: args.model.model.clone(),
    };
    let mut sources = SourceMap::new();
    match load_and_flatten(&opts, &mut sources) {
        Ok(model) => {
            if !model.warnings.is_empty() {
                eprint!("{}", diag::render_all(&sources, &model.warnings));
            }
            if args.json {
                match serde_json::to_string_pretty(&model) {
                    Ok(s) => println!("{s}"),
                    Err(e) => {
                        eprintln!("error: cannot write JSON: {e}");
                        return 1;
                    }
                }
            } else {
                print!("{}", crate::dae::print_flat(&model));
            }
            0
        }
        Err(ds) => {
            eprintln!("{}", diag::render_all(&sources, &ds));
            1
        }
    }
}
