//! The sorted index-1 system handed from structural analysis to simulation.

use crate::dae::{Equation, Expr, FlatModel, VarId};
use crate::diag::Span;
use serde::{Deserialize, Serialize};

/// The output of structural analysis.
///
/// `model` is the flat model after alias elimination and index reduction: it holds the original
/// variables, plus one variable per derivative (`Variable::derivative_of` set) for every `der(x)`.
/// In `equations` and `blocks` no `Expr::Der` remains: `der(x)` is `Var(derivative of x)`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SortedSystem {
    pub model: FlatModel,
    /// The states the integrator sees, with the variable that holds each state's derivative.
    pub states: Vec<State>,
    /// Scalar residual equations `0 = residual` of the continuous system (differentiated
    /// equations included). If-equations become if-expressions of residuals, branch by branch.
    pub equations: Vec<SortedEquation>,
    /// Evaluation order: given time, parameters and states, the blocks compute every state
    /// derivative and every algebraic variable.
    pub blocks: Vec<Block>,
    /// Variables removed by alias and trivial-equation elimination, with the expression (in the
    /// remaining variables) that gives their value; evaluated after the blocks for the results.
    pub eliminated: Vec<(VarId, Expr)>,
    /// Derivatives that were made algebraic by dummy-derivative selection.
    pub dummy_derivatives: Vec<VarId>,
    /// `when` equations, `assert`s and other event-driven equations, untouched.
    pub discrete_equations: Vec<Equation>,
    /// Variables assigned in `when` equations (held between events, known in the blocks).
    pub discrete_vars: Vec<VarId>,
    /// Choices of dummy derivatives that depend on the state (e.g. the Cartesian pendulum: `x`
    /// cannot be a state at the horizontal, `y` not at the bottom). Lowest derivative level
    /// first. The simulator evaluates `jacobian`, and when the columns of `dummies` become
    /// ill-conditioned compared with another choice it calls `structure::reselect` preferring
    /// the `candidate_states` it wants to keep, and restarts from the current point.
    #[serde(default)]
    pub state_sets: Vec<StateSet>,
}

/// A dynamic state-selection set: `equations.len()` of the `candidates` must be dummy
/// derivatives, and the choice is regular where the Jacobian of `equations` with respect to
/// the chosen candidates is nonsingular.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateSet {
    /// The constraint equations (indices into [`SortedSystem::equations`]) whose Jacobian decides.
    pub equations: Vec<usize>,
    /// Candidate derivative variables (the Jacobian's columns).
    pub candidates: Vec<VarId>,
    /// For each candidate, the variable it is the derivative of: the one that stops being a state
    /// when the candidate is a dummy derivative.
    pub candidate_states: Vec<VarId>,
    /// The candidates chosen as dummy derivatives in this system.
    pub dummies: Vec<VarId>,
    /// Nonzero entries `(row, column, d equations[row] / d candidates[column])`, in the
    /// variables of [`SortedSystem::model`].
    pub jacobian: Vec<(usize, usize, Expr)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub var: VarId,
    pub derivative: VarId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SortedEquation {
    /// `0 = residual`.
    pub residual: Expr,
    /// Index of the flat equation it comes from, and how many times it was differentiated.
    pub origin: usize,
    pub differentiated: u32,
    pub span: Span,
    pub component: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BlockKind {
    /// One equation solved symbolically for its one variable: `var := expr`.
    Explicit { expr: Expr },
    /// A system linear in its unknowns (coefficients may depend on known values).
    Linear,
    /// A nonlinear system, solved by Newton.
    Nonlinear,
}

/// A strongly connected component of the BLT form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub kind: BlockKind,
    /// The unknowns the block computes.
    pub vars: Vec<VarId>,
    /// Indices into [`SortedSystem::equations`].
    pub equations: Vec<usize>,
}
