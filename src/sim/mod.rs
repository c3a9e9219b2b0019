//! Simulation: from a [`SortedSystem`] to trajectories.
//!
//! - [`program`]: the compiled program the engine runs; [`compile`]: the sorted system ->
//!   program; [`compiler`]: expressions -> register tape (constant folding, CSE, fused
//!   multiply-add); [`initial_code`]: the initial equations; [`dead_code`]: unread instructions
//!   removed;
//! - [`tape`]: the instruction set, value and tangent evaluation;
//! - [`batched`]: the tape regrouped into batches of one operation for fast evaluation;
//! - [`engine`]: the main pass (BLT blocks in order), Jacobian-vector products by forward
//!   differentiation, root functions;
//! - [`block_jac`], [`block_solve`]: a block's Jacobian and factorization; its solve (LU
//!   refinement, damped Newton);
//! - [`state_jacobian`]: the dense state Jacobian through the largest sparse block;
//! - [`dense_lu`]: dense LU for algebraic blocks; `newton`: the one damped Newton loop, whose
//!   policies are a nonlinear block ([`block_solve`]) and the initial system ([`init`]);
//! - [`scalar_root`], [`torn_root`]: a bracketed root of a small loop torn to one unknown, where
//!   Newton fails on a piecewise-linear residual;
//! - [`jacobian`]: the sparsity pattern of the state Jacobian from the program structure;
//! - [`params`]: `--set` overrides and parameter bindings;
//! - [`init`]: consistent initialization (MLS 8.6), first block by block ([`init_blocks`]);
//! - [`events`]: event iteration, `when`, `reinit`, `pre`, time events;
//! - [`driver`]: a simulation from options to result; [`integrate`]: one integration phase
//!   with a diffsol method; [`stepping`]: output points and events within a phase;
//!   [`diffsol_adapter`]: the program as diffsol's `OdeEquations`; [`root_baseline`]: each
//!   segment's crossing functions start agreeing with their relations; [`errors`]: failures in
//!   the modeler's words;
//! - [`options`]: the options of a run; [`results`]: the result of a run, its CSV, JSON and MAT v4
//!   writers.

pub mod alg_rates;
pub mod batched;
pub mod block_code;
pub mod block_jac;
pub mod block_solve;
pub mod bounds;
pub mod compile;
pub mod compiler;
pub mod dead_code;
pub mod delay;
pub mod dense_lu;
pub mod diffsol_adapter;
pub mod driver;
pub mod engine;
pub mod errors;
pub mod events;
pub mod fncode;
pub mod funcall;
pub mod homotopy;
pub mod init;
mod init_blocks;
pub mod initial_alias;
pub mod initial_asserts;
pub mod initial_code;
pub mod int_range;
pub mod integrate;
pub mod jacobian;
pub mod loop_anchor;
pub mod mixed_search;
#[cfg(not(target_arch = "wasm32"))]
mod native;
mod newton;
pub mod options;
pub mod params;
pub mod program;
pub mod relation_hysteresis;
pub mod results;
pub mod root_baseline;
pub mod sample_check;
pub mod scalar_root;
pub mod singular_linear;
pub mod sparse_lu;
pub mod state_jacobian;
pub mod state_lanes;
pub mod statesel;
pub mod stepping;
pub mod tape;
mod tiered;
mod time_scale;
pub mod torn_root;
pub mod when_bodies;

pub use driver::{simulate, simulate_analysis};
pub use options::{Method, SimOptions};
pub use results::{ResultVar, SimResult, SimStats, VarKind};
