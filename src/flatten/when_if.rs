//! If-equations inside a when-equation (MLS 8.3.5): allowed when their branches are equations
//! the when-equation itself allows. Where every branch assigns the same variables
//! (`v = expr;`), the if-equation becomes one assignment per variable whose value chooses by
//! the conditions, evaluated when the `when` fires: `if c then v = a; else v = b; end if;` ->
//! `v = if c then a else b;`. Anything else is left as written, for the simulator to refuse
//! with its location.

use crate::dae::{Equation, EquationKind, Expr, VarId};

/// The body of a when-branch with its if-equations rewritten where possible.
pub(super) fn assignments(body: Vec<Equation>) -> Vec<Equation> {
    let mut out = Vec::with_capacity(body.len());
    for eq in body {
        match as_assignments(&eq) {
            Some(eqs) => out.extend(eqs),
            None => out.push(eq),
        }
    }
    out
}

/// The variable an equation assigns and its value, for `v = expr`.
fn assigned(eq: &Equation) -> Option<(VarId, &Expr)> {
    match &eq.kind {
        EquationKind::Simple {
            lhs: Expr::Var(v),
            rhs,
        } => Some((*v, rhs)),
        _ => None,
    }
}

/// `eq`, an if-equation whose branches (after their own if-equations are rewritten) assign the
/// same set of variables once each, as one assignment per variable; `None` otherwise.
fn as_assignments(eq: &Equation) -> Option<Vec<Equation>> {
    let EquationKind::If { branches, else_ } = &eq.kind else {
        return None;
    };
    let else_ = assignments(else_.clone());
    let otherwise: Vec<(VarId, Expr)> = else_
        .iter()
        .map(|e| assigned(e).map(|(v, x)| (v, x.clone())))
        .collect::<Option<_>>()?;
    let order: Vec<VarId> = otherwise.iter().map(|(v, _)| *v).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    // For each branch, the value it gives each variable, in the `else` branch's order.
    let mut values: Vec<(Expr, Vec<Expr>)> = Vec::with_capacity(branches.len());
    for (cond, body) in branches {
        let body = assignments(body.clone());
        if body.len() != order.len() {
            return None;
        }
        let mut vals = Vec::with_capacity(order.len());
        for v in &order {
            let mut hits = body.iter().filter_map(assigned).filter(|(w, _)| w == v);
            let (_, value) = hits.next()?;
            if hits.next().is_some() {
                return None;
            }
            vals.push(value.clone());
        }
        values.push((cond.clone(), vals));
    }
    let out = otherwise
        .into_iter()
        .enumerate()
        .map(|(k, (v, last))| Equation {
            kind: EquationKind::Simple {
                lhs: Expr::Var(v),
                rhs: Expr::If {
                    branches: values
                        .iter()
                        .map(|(c, vs)| (c.clone(), vs[k].clone()))
                        .collect(),
                    else_: Box::new(last),
                },
            },
            component: eq.component.clone(),
            span: eq.span,
        })
        .collect();
    Some(out)
}
