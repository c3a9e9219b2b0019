//! minimo: an acausal modeling language interpreter (a mini-Modelica).
//!
//! Pipeline: [`syntax`] (text -> syntax tree) -> [`flatten`] (tree -> [`dae::FlatModel`]) ->
//! [`structure`] (flat DAE -> [`structure::SortedSystem`]) -> [`sim`] (integration, results).
//! [`diag`] holds spans and diagnostics shared by every stage. [`sweep`] loads a model once and
//! simulates it many times with different parameters (the CLI `sweep`, the Python package).

pub mod analysis;
pub mod cli;
pub mod dae;
pub mod diag;
pub mod flatten;
pub mod plot;
pub mod regress;
pub mod sim;
pub mod structure;
pub mod sweep;
pub mod syntax;
