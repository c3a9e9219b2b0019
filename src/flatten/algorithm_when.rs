//! Several `when` statements of one algorithm section that assign the same variable (MLS 11.1,
//! 11.2.7): the section is one block that determines each assigned variable once, and its
//! statements run in order, so when two of them fire at the same event the later assignment
//! is the value. Each such variable gets one when-equation whose branches are the branches of
//! the statements that assign it, the later statements first: the first branch whose
//! condition becomes true is the one taken, which is the last statement that fired.

use crate::dae::{Equation, EquationKind, Expr, VarId};
use std::collections::HashMap;

/// One branch of a when-equation: its condition and its equations.
type WhenBranch = (Expr, Vec<Equation>);

/// Rewrites `eqs` (the equations of one algorithm section, in statement order) so that every
/// variable assigned by more than one `when` statement is assigned by a single when-equation.
pub(super) fn merge_shared_when_assignments(eqs: &mut Vec<Equation>) {
    // How many when-equations assign each variable.
    let mut count: HashMap<VarId, usize> = HashMap::new();
    for e in eqs.iter() {
        if let EquationKind::When { branches } = &e.kind {
            let mut vars: Vec<VarId> = branches
                .iter()
                .flat_map(|(_, body)| body.iter().filter_map(assigned))
                .collect();
            vars.sort_unstable();
            vars.dedup();
            for v in vars {
                *count.entry(v).or_default() += 1;
            }
        }
    }
    let mut shared: Vec<VarId> = count
        .into_iter()
        .filter_map(|(v, n)| (n > 1).then_some(v))
        .collect();
    if shared.is_empty() {
        return;
    }
    shared.sort_unstable();
    // Per shared variable: its branches, later statements first, and the first span.
    let mut merged: HashMap<VarId, (Vec<WhenBranch>, Equation)> = HashMap::new();
    for e in eqs.iter_mut().rev() {
        let EquationKind::When { branches } = &mut e.kind else {
            continue;
        };
        for (cond, body) in branches.iter_mut() {
            let mut kept = Vec::with_capacity(body.len());
            for b in body.drain(..) {
                match assigned(&b) {
                    Some(v) if shared.binary_search(&v).is_ok() => {
                        let entry = merged.entry(v).or_insert_with(|| {
                            let head = Equation {
                                kind: EquationKind::When {
                                    branches: Vec::new(),
                                },
                                component: e.component.clone(),
                                span: e.span,
                            };
                            (Vec::new(), head)
                        });
                        entry.0.push((cond.clone(), vec![b]));
                    }
                    _ => kept.push(b),
                }
            }
            *body = kept;
        }
    }
    // A when-equation left without any equation in its branches has nothing to do.
    eqs.retain(|e| match &e.kind {
        EquationKind::When { branches } => branches.iter().any(|(_, body)| !body.is_empty()),
        _ => true,
    });
    for v in shared {
        if let Some((branches, mut head)) = merged.remove(&v) {
            head.kind = EquationKind::When { branches };
            eqs.push(head);
        }
    }
}

/// The variable `v` of an assignment `v = e` inside a when-branch.
fn assigned(e: &Equation) -> Option<VarId> {
    match &e.kind {
        EquationKind::Simple {
            lhs: Expr::Var(v), ..
        } => Some(*v),
        _ => None,
    }
}
