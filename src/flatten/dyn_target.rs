//! Assignments to an element chosen at run time in a model's algorithm: `buf[k] := u` with
//! `k` a discrete Integer (MLS 10.5, 11.2.1).
//!
//! The flat model is scalar, so a reference with variable subscripts evaluates to the choice
//! `if noEvent(k == 1) then buf[1] elseif ... else <bounds check>` (see `dyn_index`). As the
//! target of an assignment that choice is read the other way round: every element it can
//! select gets `buf[i] := if noEvent(k == i) then u else <buf[i] before the statement>`, and
//! the bounds check becomes an assert, so an index outside the dimension stops the run
//! instead of silently assigning nothing.

use crate::dae::{BinOp, Equation, EquationKind, Expr, StringFormat, VarId};
use crate::diag::Span;

/// The elements a target with variable subscripts can name, each with the condition under
/// which it is the one; `checks` are the out-of-range branches (each evaluates to 0 inside
/// the bounds and fails outside them).
pub struct DynTarget {
    pub options: Vec<(Expr, VarId)>,
    pub checks: Vec<Expr>,
}

/// Reads an evaluated target as a choice among variables; `None` when it is anything else
/// (a constant, an expression), which is not a target.
pub fn split(e: &Expr) -> Option<DynTarget> {
    let mut t = DynTarget {
        options: Vec::new(),
        checks: Vec::new(),
    };
    collect(e, None, &mut t).then_some(t)
}

fn collect(e: &Expr, guard: Option<&Expr>, t: &mut DynTarget) -> bool {
    match e {
        Expr::Var(v) => {
            t.options
                .push((guard.cloned().unwrap_or(Expr::Boolean(true)), *v));
            true
        }
        // Several variable subscripts nest one choice in another; the conditions combine.
        Expr::If { branches, else_ } => {
            for (c, x) in branches {
                let c = match guard {
                    Some(g) => Expr::binary(BinOp::And, g.clone(), c.clone()),
                    None => c.clone(),
                };
                if !collect(x, Some(&c), t) {
                    return false;
                }
            }
            if !t.checks.contains(else_) {
                t.checks.push((**else_).clone());
            }
            !branches.is_empty()
        }
        _ => false,
    }
}

/// The new value of element `var` (whose value before the statement is `before`) when it is
/// selected under `cond` and assigned `value`.
pub fn element_value(cond: &Expr, value: Expr, before: Expr) -> Expr {
    Expr::If {
        branches: vec![(cond.clone(), value)],
        else_: Box::new(before),
    }
}

/// The assert that stops the run when the index is out of range (each check is 0 inside the
/// bounds and fails outside them); the message names the index when there is one.
pub fn bounds_assert(t: &DynTarget, component: &str, span: Span) -> Option<Equation> {
    let what = "a subscript of the target of this assignment is out of bounds";
    let message = match t.options.first() {
        Some((Expr::NoEvent(c), _)) => match &**c {
            Expr::Binary(BinOp::Eq, index, _) => Expr::binary(
                BinOp::Add,
                Expr::binary(
                    BinOp::Add,
                    Expr::String(format!("{what}: the index is ")),
                    Expr::ToString(index.clone(), StringFormat::default()),
                ),
                Expr::String(format!(", the dimension 1..{}", t.options.len())),
            ),
            _ => Expr::String(what.into()),
        },
        _ => Expr::String(what.into()),
    };
    let condition = t
        .checks
        .iter()
        .map(|c| {
            Expr::NoEvent(Box::new(Expr::binary(
                BinOp::Eq,
                c.clone(),
                Expr::Real(0.0),
            )))
        })
        .reduce(|a, b| Expr::binary(BinOp::And, a, b))?;
    Some(Equation {
        kind: EquationKind::Assert {
            condition,
            message,
            warning: false,
        },
        component: component.to_string(),
        span,
    })
}
