//! Initial equations on discrete variables that ordinary equations tie to a `pre` (MLS 8.6):
//! with `localActive = pre(newActive)` and `active = localActive` in the model, the initial
//! equation `active = true` determines the unknown `pre(newActive)`. Such an equation is
//! rewritten onto the `pre` (or the `when`-assigned variable) at the end of the chain of
//! equations, and an alias `pre(a) = pre(b)` whose `pre(a)` another initial equation already
//! gives determines `pre(b)` instead. Everything else is left as it is.

use crate::dae::{EquationKind, Expr, ScalarType, VarId};
use crate::structure::SortedSystem;
use std::collections::{HashMap, HashSet};

/// Non-Real variable -> the expressions equal to it by an equation of the model that holds at
/// initialization too (`v = w`, `v = pre(w)`, both directions for `v = w`).
pub type Defs = HashMap<VarId, Vec<Expr>>;

fn link(e: &Expr) -> bool {
    match e {
        Expr::Var(_) => true,
        Expr::Pre(a) => matches!(**a, Expr::Var(_)),
        _ => false,
    }
}

/// The alias and `pre` equations among non-Real variables of `sys` (equations and eliminated
/// aliases).
pub fn discrete_defs(sys: &SortedSystem) -> Defs {
    let model = &sys.model;
    let non_real = |v: VarId| model.variables[v].ty != ScalarType::Real;
    let mut defs: Defs = HashMap::new();
    let mut add = |v: VarId, e: &Expr| {
        if non_real(v) && link(e) && !matches!(e, Expr::Var(w) if *w == v) {
            defs.entry(v).or_default().push(e.clone());
        }
    };
    for (v, e) in &sys.eliminated {
        add(*v, e);
        if let Expr::Var(w) = e {
            add(*w, &Expr::Var(*v));
        }
    }
    for eq in &model.equations {
        if let EquationKind::Simple { lhs, rhs } = &eq.kind {
            if let Expr::Var(v) = lhs {
                add(*v, rhs);
            }
            if let Expr::Var(v) = rhs {
                add(*v, lhs);
            }
        }
    }
    defs
}

/// What an initial equation side can determine: `pre(v)` (`(v, true)` unless `v` is assigned
/// in `when`, where `v` and `pre(v)` are the same unknown) or a `when`-assigned `v`.
fn key(e: &Expr, discrete: &HashSet<VarId>) -> Option<(VarId, bool)> {
    match e {
        Expr::Var(v) if discrete.contains(v) => Some((*v, false)),
        Expr::Pre(a) => match **a {
            Expr::Var(v) => Some((v, !discrete.contains(&v))),
            _ => None,
        },
        _ => None,
    }
}

/// `e`, or when `e` is a variable not assigned in `when`, the first `pre(w)` or `when`-assigned
/// variable its chain of equations reaches.
fn resolve(e: &Expr, defs: &Defs, discrete: &HashSet<VarId>) -> Expr {
    let Expr::Var(start) = e else {
        return e.clone();
    };
    if discrete.contains(start) {
        return e.clone();
    }
    let mut seen = HashSet::from([*start]);
    let mut stack = vec![*start];
    while let Some(v) = stack.pop() {
        for d in defs.get(&v).into_iter().flatten() {
            if key(d, discrete).is_some() {
                return d.clone();
            }
            if let Expr::Var(w) = d
                && seen.insert(*w)
            {
                stack.push(*w);
            }
        }
    }
    e.clone()
}

/// The two sides of an initial equation, each resolved; swapped when the left one is already
/// `determined` and the right one is a free unknown (so `pre(a) = pre(b)` gives `pre(b)`).
pub fn resolve_sides(
    lhs: &Expr,
    rhs: &Expr,
    defs: &Defs,
    discrete: &HashSet<VarId>,
    determined: impl Fn((VarId, bool)) -> bool,
) -> (Expr, Expr) {
    let (l, r) = (resolve(lhs, defs, discrete), resolve(rhs, defs, discrete));
    match (key(&l, discrete), key(&r, discrete)) {
        (Some(a), Some(b)) if determined(a) && !determined(b) => (r, l),
        _ => (l, r),
    }
}

/// The order to process the initial equations in: aliases between two unknowns (`pre(a) =
/// pre(b)`) last, so they fill in what the others leave open.
pub fn order(eqs: &[crate::dae::Equation], defs: &Defs, discrete: &HashSet<VarId>) -> Vec<usize> {
    let alias = |i: &usize| match &eqs[*i].kind {
        EquationKind::Simple { lhs, rhs } => {
            key(&resolve(lhs, defs, discrete), discrete).is_some()
                && key(&resolve(rhs, defs, discrete), discrete).is_some()
        }
        _ => false,
    };
    let (mut last, first): (Vec<usize>, Vec<usize>) = (0..eqs.len()).partition(alias);
    let mut out = first;
    out.append(&mut last);
    out
}
