//! Options shared by the commands that integrate (`simulate`, `sweep`): the time span,
//! tolerance and solver flags, and the solver name and `--vars` pattern parsed once with the
//! same messages.

use crate::diag::closest_name;
use crate::sim::{Method, SimOptions};
use clap::Args;

/// The integration flags of `simulate` and `sweep`.
#[derive(Args, Debug)]
pub struct RunArgs {
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
}

impl RunArgs {
    /// The simulation options of these flags with the parameter overrides `set` and the
    /// `--vars` pattern, or a usage message.
    pub fn sim_options(
        &self,
        set: &[String],
        vars: Option<&str>,
        progress: bool,
    ) -> Result<SimOptions, String> {
        Ok(SimOptions {
            start_time: self.start_time,
            stop_time: self.stop_time,
            interval: self.interval,
            tolerance: self.tolerance,
            method: solver(&self.solver)?,
            set: set.to_vec(),
            vars: self::vars(vars)?,
            progress,
            max_steps: None,
        })
    }
}

/// The integrator named `name`, or a usage message with the closest solver name.
pub fn solver(name: &str) -> Result<Method, String> {
    if let Some(m) = Method::parse(name) {
        return Ok(m);
    }
    let names = ["bdf", "esdirk34", "tr-bdf2", "tsit45"];
    // Close names, or the same letters in another order (`bfd`).
    let sorted = |s: &str| {
        let mut c: Vec<char> = s.chars().collect();
        c.sort_unstable();
        c
    };
    let hint = closest_name(name, names)
        .or_else(|| names.into_iter().find(|n| sorted(n) == sorted(name)))
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default();
    Err(format!(
        "unknown solver `{name}`{hint}; use one of bdf, esdirk34, tr-bdf2, tsit45"
    ))
}

/// The `--vars` regular expression, or a usage message.
pub fn vars(pattern: Option<&str>) -> Result<Option<regex::Regex>, String> {
    pattern
        .map(regex::Regex::new)
        .transpose()
        .map_err(|e| format!("--vars is not a valid regular expression: {e}"))
}
