//! Parameter sweeps: a model loaded, flattened and analysed once, then simulated many times with
//! different parameter values, the runs spread over threads.
//!
//! - [`compiled`]: [`CompiledModel`], the reusable result of loading (structure analysis done);
//!   a structural parameter (an array size, a `for` range, a condition) is changed by flattening
//!   again with a modifier, every other parameter by `--set` on the same analysis;
//! - [`grid`]: `NAME=START:STOP:COUNT` / `NAME=V1,V2,...` axes, their Cartesian grid, seeded
//!   random samples;
//! - [`run`]: the runs in parallel (one model per distinct set of structural values), final
//!   values and statistics per run, in the order of the runs;
//! - [`table`]: the results as one CSV or JSON file.

pub mod compiled;
pub mod grid;
pub mod run;
pub mod table;

pub use compiled::{CompiledModel, Failure, ParamInfo};
pub use grid::{Axis, parse_axis};
pub use run::{Stat, SweepSpec, SweepTable, on_big_stack, par_map, run_sweep};
