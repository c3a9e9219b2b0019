//! `minimo flatten`.

use super::ModelArgs;
use clap::Args;

#[derive(Args, Debug)]
pub struct FlattenArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Emit the flat system as JSON instead of flat Modelica text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: FlattenArgs) -> i32 {
    eprintln!("error: `flatten` is not implemented yet");
    1
}
