//! Simulation: from a [`SortedSystem`] to trajectories.
//!
//! - [`compile`]: expressions -> register tape (constant folding, CSE, fused multiply-add);
//! - [`tape`]: the instruction set, value and tangent evaluation;
//! - [`batched`]: the tape regrouped into batches of one operation for fast evaluation;
//! - [`eval`]: the main pass (BLT blocks in order, loops by LU / damped Newton), Jacobian-vector
//!   products by forward differentiation, root functions;
//! - [`newton`]: dense LU for algebraic blocks;
//! - [`scalar_root`], [`torn_root`]: a bracketed root of a small loop torn to one unknown, where
//!   Newton fails on a piecewise-linear residual;
//! - [`jacobian`]: the sparsity pattern of the state Jacobian from the program structure;
//! - [`params`]: `--set` overrides and parameter bindings;
//! - [`init`]: consistent initialization (MLS 8.6);
//! - [`events`]: event iteration, `when`, `reinit`, `pre`, time events;
//! - [`integrate`]: diffsol problem and the stepping loop with output and events;
//! - [`results`]: CSV, JSON and MAT v4 writers.

pub mod alg_rates;
pub mod batched;
pub mod block_code;
pub mod bounds;
pub mod compile;
pub mod eval;
pub mod events;
pub mod funcall;
pub mod homotopy;
pub mod init;
pub mod integrate;
pub mod jacobian;
pub mod newton;
pub mod params;
pub mod results;
pub mod scalar_root;
pub mod sparse_lu;
pub mod state_lanes;
pub mod statesel;
pub mod tape;
pub mod torn_root;

use crate::dae::VarId;
use crate::structure::SortedSystem;
use serde::Serialize;
use std::time::Duration;

/// The integration method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Method {
    #[default]
    Bdf,
    Esdirk34,
    TrBdf2,
    Tsit45,
}

impl Method {
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "bdf" => Method::Bdf,
            "esdirk34" => Method::Esdirk34,
            "tr-bdf2" | "trbdf2" => Method::TrBdf2,
            "tsit45" => Method::Tsit45,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Method::Bdf => "bdf",
            Method::Esdirk34 => "esdirk34",
            Method::TrBdf2 => "tr-bdf2",
            Method::Tsit45 => "tsit45",
        }
    }
}

/// Options of one simulation. `None` falls back to the model's `experiment` annotation, then
/// to the defaults (0 to 1 s, 500 intervals, tolerance 1e-6).
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    pub start_time: Option<f64>,
    pub stop_time: Option<f64>,
    pub interval: Option<f64>,
    pub tolerance: Option<f64>,
    pub method: Method,
    /// `NAME=VALUE` parameter overrides.
    pub set: Vec<String>,
    /// Only record variables whose name matches this regular expression.
    pub vars: Option<regex::Regex>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Stop with an error after this many integrator steps (the fuzz targets bound each run).
    pub max_steps: Option<usize>,
}

/// Kind of a result column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VarKind {
    State,
    Derivative,
    Algebraic,
    Discrete,
    Parameter,
}

#[derive(Clone, Debug, Serialize)]
pub struct ResultVar {
    pub name: String,
    pub kind: VarKind,
    pub unit: Option<String>,
    pub description: Option<String>,
    #[serde(skip)]
    pub id: VarId,
}

/// Counters and timings.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SimStats {
    pub steps: usize,
    pub rejected_steps: usize,
    pub rhs_evaluations: usize,
    pub jacobian_evaluations: usize,
    pub jacobian_vector_products: usize,
    /// The integrator's Newton iterations.
    pub newton_iterations: usize,
    /// Steps rejected by the error test, and by a failed Newton iteration.
    pub error_test_failures: usize,
    pub newton_failures: usize,
    /// Iterations inside algebraic blocks of the right-hand side, and block factorizations.
    pub block_iterations: usize,
    pub block_factorizations: usize,
    /// Linear blocks solved torn: (unknowns of the block, unknowns of the torn system).
    pub torn_blocks: Vec<(usize, usize)>,
    pub events: usize,
    pub states: usize,
    pub sparse_jacobian: bool,
    pub method: String,
    #[serde(serialize_with = "ser_secs")]
    pub compile_time: Duration,
    #[serde(serialize_with = "ser_secs")]
    pub init_time: Duration,
    #[serde(serialize_with = "ser_secs")]
    pub integrate_time: Duration,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Trajectories of the recorded variables.
#[derive(Clone, Debug, Serialize)]
pub struct SimResult {
    pub model: String,
    pub variables: Vec<ResultVar>,
    pub parameters: Vec<(ResultVar, f64)>,
    pub time: Vec<f64>,
    /// One row per output time, one value per entry of `variables`.
    pub rows: Vec<Vec<f64>>,
    pub stats: SimStats,
    /// Notes for the user (state selection, fixed start values...).
    pub messages: Vec<String>,
    pub start_time: f64,
    pub stop_time: f64,
}

impl SimResult {
    /// The trajectory of one variable by flat name.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.variables.iter().position(|v| v.name == name)?;
        Some(self.rows.iter().map(|r| r[i]).collect())
    }
    /// Linear interpolation of a variable at time `t` (for tests and comparisons).
    pub fn value_at(&self, name: &str, t: f64) -> Option<f64> {
        let i = self.variables.iter().position(|v| v.name == name)?;
        let k = self.time.partition_point(|&x| x < t);
        if k == 0 {
            return self.rows.first().map(|r| r[i]);
        }
        if k >= self.time.len() {
            return self.rows.last().map(|r| r[i]);
        }
        let (t0, t1) = (self.time[k - 1], self.time[k]);
        let (a, b) = (self.rows[k - 1][i], self.rows[k][i]);
        if t1 == t0 {
            return Some(b);
        }
        Some(a + (b - a) * (t - t0) / (t1 - t0))
    }
}

/// Simulates a sorted system.
pub fn simulate(system: &SortedSystem, opts: &SimOptions) -> crate::diag::Result<SimResult> {
    integrate::simulate(system, opts)
}

/// Simulates the result of structural analysis; when the system has dynamic state sets, the
/// choice of states is re-made during the run (see [`integrate`]).
pub fn simulate_analysis(
    analysis: &crate::structure::Analysis,
    opts: &SimOptions,
) -> crate::diag::Result<SimResult> {
    integrate::simulate_with(&analysis.system, opts, Some(analysis))
}
