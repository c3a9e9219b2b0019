//! Parameters evaluated at translation (`annotation(Evaluate = true)`, MLS 18.3; flagged by
//! flattening, see `flatten/evaluate.rs`): their values replace them in the equations, and the
//! equations that read them are simplified ([`super::expr::fold`]) before anything else, so
//! that matching and index reduction see the structure these values give (a capacitor with
//! `C = 0` is an open branch: `i = 0*der(v)` becomes `i = 0`, and `v` is no state).

use super::alias::subst_equation;
use super::expr::{any_var, fold};
use crate::dae::{Equation, EquationKind, Expr, FlatModel};

/// Substitutes the evaluated parameters in the equations and initial equations.
pub fn substitute(model: &mut FlatModel) {
    let values: Vec<Option<Expr>> = model
        .variables
        .iter()
        .map(|v| v.evaluated.then(|| v.binding.clone()).flatten())
        .collect();
    if values.iter().all(Option::is_none) {
        return;
    }
    let lookup = |v: usize| values.get(v).cloned().flatten();
    for list in [&mut model.equations, &mut model.initial_equations] {
        let old = std::mem::take(list);
        for mut eq in old {
            if !reads(&eq.kind, &lookup) {
                list.push(eq);
                continue;
            }
            subst_equation(&mut eq.kind, &lookup);
            fold_equation(eq, list);
        }
    }
}

/// Whether the equation reads a variable `f` replaces.
fn reads(kind: &EquationKind, f: &impl Fn(usize) -> Option<Expr>) -> bool {
    let hit = |e: &Expr| any_var(e, &|v| f(v).is_some());
    let any = |b: &[Equation]| b.iter().any(|e| reads(&e.kind, f));
    match kind {
        EquationKind::Simple { lhs, rhs } => hit(lhs) || hit(rhs),
        EquationKind::If { branches, else_ } => {
            branches.iter().any(|(c, b)| hit(c) || any(b)) || any(else_)
        }
        EquationKind::When { branches } => branches.iter().any(|(c, b)| hit(c) || any(b)),
        EquationKind::Reinit { value, .. } => hit(value),
        EquationKind::Assert {
            condition, message, ..
        } => hit(condition) || hit(message),
        EquationKind::Terminate { message } => hit(message),
    }
}

/// Simplifies the equation; an if-equation whose condition became a literal is replaced by
/// the equations of the branch it selects.
fn fold_equation(mut eq: Equation, out: &mut Vec<Equation>) {
    match &mut eq.kind {
        EquationKind::Simple { lhs, rhs } => {
            *lhs = fold(lhs);
            *rhs = fold(rhs);
        }
        EquationKind::If { branches, else_ } => {
            let mut kept = Vec::new();
            let mut chosen = None;
            for (c, body) in std::mem::take(branches) {
                match fold(&c) {
                    Expr::Boolean(false) => {}
                    Expr::Boolean(true) if kept.is_empty() => {
                        chosen = Some(body);
                        break;
                    }
                    Expr::Boolean(true) => {
                        *else_ = body;
                        break;
                    }
                    c => kept.push((c, fold_all(body))),
                }
            }
            if let Some(body) = chosen.or_else(|| kept.is_empty().then(|| std::mem::take(else_))) {
                for e in body {
                    fold_equation(e, out);
                }
                return;
            }
            *branches = kept;
            *else_ = fold_all(std::mem::take(else_));
        }
        EquationKind::When { branches } => {
            for (c, body) in branches.iter_mut() {
                *c = fold(c);
                *body = fold_all(std::mem::take(body));
            }
        }
        EquationKind::Reinit { value, .. } => *value = fold(value),
        EquationKind::Assert { condition, .. } => *condition = fold(condition),
        EquationKind::Terminate { .. } => {}
    }
    out.push(eq);
}

fn fold_all(body: Vec<Equation>) -> Vec<Equation> {
    let mut out = Vec::with_capacity(body.len());
    for e in body {
        fold_equation(e, &mut out);
    }
    out
}
