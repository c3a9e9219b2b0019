//! Analyses of a model beyond simulation: the solvability of constraint reactions
//! ([`reactions`]).

pub mod reactions;
mod reactions_spatial;
