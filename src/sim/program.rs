//! The compiled program the engine runs: register code in steps (one per BLT block), relations
//! with their zero-crossings, samples, `when` clauses and their actions, messages.

use super::tape::{Instr, Op, Reg};
use crate::dae::{StringFormat, ValueKind, VarId};
use crate::diag::Span;
use std::ops::Range;

/// One step of the main pass.
#[derive(Clone, Debug)]
pub enum Step {
    /// `code` computes the block's one variable.
    Explicit {
        code: Range<usize>,
        var: VarId,
        block: usize,
    },
    /// `code` computes the residuals (registers `residuals`) from the unknowns `vars`; solved
    /// by one LU (linear) or damped Newton (nonlinear). `inputs` are the registers the code reads
    /// that it does not compute (their tangents are zeroed for the block's own Jacobian).
    Implicit {
        code: Range<usize>,
        vars: Vec<VarId>,
        residuals: Vec<Reg>,
        inputs: Vec<Reg>,
        linear: bool,
        /// Torn (`structure::tearing`): the unknowns are the tearing variables, the code also
        /// assigns the block's other unknowns.
        torn: bool,
        block: usize,
    },
}

/// A relation that generates events: `a op b`, locked in register `reg` between events.
#[derive(Clone, Debug)]
pub struct Relation {
    pub op: Op,
    pub a: Reg,
    pub b: Reg,
    pub reg: Reg,
    /// The relation as written (flat names), for messages.
    pub text: String,
}

/// `sample(start, interval)`: `reg` is true only at the event at each sample instant.
#[derive(Clone, Debug)]
pub struct Sample {
    pub start: f64,
    pub interval: f64,
    pub reg: Reg,
    /// The equation holding the call, for messages (`sample_check.rs`).
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Action {
    /// `var := value` when the branch fires.
    Assign {
        var: VarId,
        value: Reg,
    },
    Reinit {
        var: VarId,
        value: Reg,
    },
    Assert {
        condition: Reg,
        message: Vec<MsgPart>,
        warning: bool,
        span: Span,
    },
    Terminate {
        message: Vec<MsgPart>,
    },
}

/// A piece of an `assert`/`terminate` message; the values it shows are computed in registers
/// with the rest of the event code, so any expression can be shown.
#[derive(Clone, Debug)]
pub enum MsgPart {
    Text(String),
    Value {
        reg: Reg,
        kind: ValueKind,
        format: StringFormat,
    },
    /// `if c then "a" else "b"` inside a message.
    Choice {
        branches: Vec<(Reg, Vec<MsgPart>)>,
        else_: Vec<MsgPart>,
    },
}

impl MsgPart {
    pub(super) fn regs(&self, out: &mut impl FnMut(Reg)) {
        match self {
            MsgPart::Text(_) => {}
            MsgPart::Value { reg, .. } => out(*reg),
            MsgPart::Choice { branches, else_ } => {
                for (c, parts) in branches {
                    out(*c);
                    parts.iter().for_each(|p| p.regs(out));
                }
                else_.iter().for_each(|p| p.regs(out));
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct WhenClause {
    /// One condition register per branch (`when` / `elsewhen`), with the actions of that branch.
    pub branches: Vec<(Reg, Vec<Action>)>,
    /// The elements of each branch's condition: one register, or one per element of a vector
    /// condition `{c1, c2}` (the branch is activated by the rising edge of any element, MLS
    /// 8.3.5; `branches[b].0` is then their `or`, true while any is).
    pub elements: Vec<Vec<Reg>>,
    /// Whether a branch condition mentions `initial()` (then it may fire at initialization).
    pub initial: Vec<bool>,
    /// The code computing each branch's action values, run only when the branch fires
    /// (`sim/when_bodies.rs`).
    pub bodies: Vec<Range<usize>>,
    /// Whether the clause runs a clocked partition on an event clock (its one condition is
    /// `Clock(c)`, MLS 16.3): a tick stands for its event instant once taken, and is taken at
    /// most once there (`sim/events.rs`).
    pub clocked: bool,
    pub span: Span,
}

/// An initial equation that determines a discrete unknown of the initial system (MLS 8.6):
/// `v = expr` for a variable assigned in a `when` that is not active at initialization (there
/// `v = pre(v)`, so both get the value), or `pre(v) = expr`. Solved by assignment, in a
/// fixed-point loop with the rest of the initial system, because Newton cannot move an Integer
/// or Boolean.
#[derive(Clone, Debug)]
pub struct InitAssign {
    pub var: VarId,
    /// Whether the variable itself takes the value (not only its `pre`).
    pub set_var: bool,
    /// The `pre(v)` register, when `pre(v)` is used anywhere.
    pub pre: Option<Reg>,
    pub value: Reg,
    /// Index into `FlatModel::initial_equations`.
    pub eq: usize,
}

/// A dynamic state set in registers: the constraint Jacobian with respect to the candidates.
#[derive(Clone, Debug)]
pub struct SetMonitor {
    pub rows: usize,
    pub cols: usize,
    pub entries: Vec<(usize, usize, Reg)>,
    /// Columns currently chosen as dummy derivatives.
    pub dummy_cols: Vec<usize>,
    /// The variable each candidate is the derivative of.
    pub candidate_states: Vec<VarId>,
}

/// Everything the evaluator needs, in registers.
#[derive(Clone, Debug)]
pub struct Program {
    pub code: Vec<Instr>,
    /// Register file contents before the first evaluation (constants, parameters, start values).
    pub init_regs: Vec<f64>,
    pub steps: Vec<Step>,
    /// Alias and eliminated variables, computed after the main pass.
    pub eliminated: Range<usize>,
    /// When conditions, assignments, reinit values, asserts, discrete equations.
    pub event_code: Range<usize>,
    /// Residuals of the initial equations (computed after the event code).
    pub initial_code: Range<usize>,
    pub initial_residuals: Vec<(Reg, usize)>,
    /// Per initial residual, `(v, e)` when its equation is `v = e` with `e` not reading `v`
    /// (the initial values can then start from `v := e`, in the equations' order of need).
    pub initial_explicit: Vec<Option<(VarId, Reg)>>,
    /// Initial equations that give a discrete unknown its value (computed by the initial code).
    pub initial_assigns: Vec<InitAssign>,
    /// Asserts of the initial system (`initial_asserts.rs`), computed by the initial code.
    pub initial_asserts: Vec<Action>,
    pub relations: Vec<Relation>,
    pub samples: Vec<Sample>,
    pub whens: Vec<WhenClause>,
    /// Assignments of discrete variables outside `when` (evaluated at events), and asserts.
    pub always: Vec<Action>,
    /// `(variable register, pre register)`.
    pub pre: Vec<(Reg, Reg)>,
    /// `pre` registers of discrete variables with `fixed = true`: at initialization
    /// `pre(v) = v.start` (MLS 8.6), whatever the initial event iteration gives `v`.
    pub pre_fixed: Vec<Reg>,
    /// Jacobians of the dynamic state sets (computed after the event code).
    pub state_set_code: Range<usize>,
    pub state_sets: Vec<SetMonitor>,
    /// `(state, derivative)` variables.
    pub states: Vec<(VarId, VarId)>,
    pub time: Reg,
    pub initial: Reg,
    pub terminal: Reg,
    /// The continuation parameter λ of `homotopy(actual, simplified)` (1 outside the
    /// homotopy phase of initialization), when the model calls it.
    pub homotopy: Option<Reg>,
    /// The `delay` lines, fed at each accepted point (`delay.rs`).
    pub delays: Vec<std::sync::Arc<super::delay::DelayLine>>,
    /// Which step computes each variable (for error messages).
    pub computed_by: Vec<Option<usize>>,
    /// Explicit steps of discrete variables that read a relation whose operands later steps
    /// compute: the iteration variables of a mixed continuous/discrete loop (a friction
    /// element's `startForward` reads `sa > f0_max`, and `sa` comes from the loop that
    /// `startForward` switches). The event iteration holds them at their `pre` values for the
    /// first pass of each round, as Dymola's and OpenModelica's mixed-system solvers start
    /// from the `pre` values of the discrete iteration variables.
    pub iteration_steps: Vec<usize>,
    /// Linear blocks compiled torn: (unknowns of the block, unknowns of the torn system).
    pub torn: Vec<(usize, usize)>,
}

impl Program {
    pub fn nregs(&self) -> usize {
        self.init_regs.len()
    }
}

/// Renders a compiled message with the current register values.
/// An assert that failed: its message, level and place.
pub struct FailedAssert {
    pub text: String,
    pub warning: bool,
    pub span: Span,
}

impl Action {
    /// `Some` when this is an assert whose condition fails on `regs`: false, or NaN (a
    /// condition that is a failed function call, whose own message is the reason). The assert
    /// of a call for its effect (`flatten/effect_call.rs`) gives the call's message.
    pub fn failed_assert(&self, regs: &[f64]) -> Option<FailedAssert> {
        let Action::Assert {
            condition,
            message,
            warning,
            span,
        } = self
        else {
            return None;
        };
        let c = regs[*condition as usize];
        let text = if c.is_nan() {
            super::funcall::take_failure().unwrap_or_else(|| message_text(message, regs))
        } else if c != 0.0 {
            return None;
        } else {
            let text = message_text(message, regs);
            match super::funcall::take_effect_failure() {
                Some(m) if text.ends_with(crate::flatten::EFFECT_CALL_FAILED) => m,
                _ => text,
            }
        };
        Some(FailedAssert {
            text,
            warning: *warning,
            span: *span,
        })
    }
}

pub fn message_text(parts: &[MsgPart], regs: &[f64]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            MsgPart::Text(s) => out.push_str(s),
            MsgPart::Value { reg, kind, format } => {
                let x = regs.get(*reg as usize).copied().unwrap_or(f64::NAN);
                out.push_str(&format.apply(x, *kind).unwrap_or_else(|e| e));
            }
            MsgPart::Choice { branches, else_ } => {
                let chosen = branches
                    .iter()
                    .find(|(c, _)| regs.get(*c as usize).is_some_and(|v| *v != 0.0))
                    .map_or(else_, |(_, p)| p);
                out.push_str(&message_text(chosen, regs));
            }
        }
    }
    out
}
