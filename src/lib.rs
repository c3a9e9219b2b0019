//! minimo: an acausal modeling language interpreter (a mini-Modelica).
//!
//! Pipeline: [`syntax`] (text -> syntax tree) -> [`flatten`] (tree -> [`dae::FlatModel`]) ->
//! [`structure`] (flat DAE -> [`structure::SortedSystem`]) -> [`sim`] (integration, results).
//! [`diag`] holds spans and diagnostics shared by every stage.

pub mod analysis;
pub mod cli;
pub mod dae;
pub mod diag;
pub mod flatten;
pub mod plot;
pub mod regress;
pub mod sim;
pub mod structure;
pub mod syntax;
