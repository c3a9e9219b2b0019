//! From flat equations to scalar residuals `0 = lhs - rhs`.
//!
//! If-equations with non-parameter conditions become one residual per equation position, each an
//! if-expression over the branches, so the incidence of the residual is the union of the
//! branches' incidences and the sorted system is valid whichever branch is active. `when`
//! equations go to the discrete part; the variables they assign are known to the continuous
//! system. Asserts are kept for the simulator but play no structural role.

use super::work::{Role, WorkingSystem};
use crate::dae::{Equation, EquationKind, Expr};
use crate::diag::Diagnostic;
use crate::structure::SortedEquation;

pub struct Discrete {
    pub equations: Vec<Equation>,
    pub vars: Vec<usize>,
}

/// Fills `work.eqs` with the residuals of the continuous equations.
pub fn prepare(work: &mut WorkingSystem) -> Result<Discrete, Vec<Diagnostic>> {
    let equations = std::mem::take(&mut work.model.equations);
    let mut discrete = Discrete {
        equations: Vec::new(),
        vars: Vec::new(),
    };
    // Variables assigned in `when` equations are known to the continuous part.
    for eq in &equations {
        if let EquationKind::When { branches } = &eq.kind {
            for (_, body) in branches {
                mark_assigned(body, work, &mut discrete.vars);
            }
        }
    }
    discrete.vars.sort_unstable();
    discrete.vars.dedup();
    let mut errors = Vec::new();
    for (origin, eq) in equations.iter().enumerate() {
        match &eq.kind {
            EquationKind::Simple { .. } | EquationKind::If { .. } => {
                let mut asserts = Vec::new();
                match residuals(eq, &mut asserts) {
                    Ok(rs) => {
                        for r in rs {
                            work.push_eq(SortedEquation {
                                residual: r,
                                origin,
                                differentiated: 0,
                                span: eq.span,
                                component: eq.component.clone(),
                            });
                        }
                    }
                    Err(d) => errors.push(d),
                }
                discrete.equations.extend(asserts);
            }
            _ => discrete.equations.push(eq.clone()),
        }
    }
    // Mark `der()` occurrences (state candidates as written by the modeler).
    for eq in &work.eqs {
        eq.residual.visit(&mut |x| {
            if let Expr::Der(a) = x
                && let Expr::Var(v) = **a
            {
                work.in_der[v] = true;
            }
        });
    }
    work.model.equations = equations;
    if errors.is_empty() {
        Ok(discrete)
    } else {
        Err(errors)
    }
}

fn mark_assigned(body: &[Equation], work: &mut WorkingSystem, out: &mut Vec<usize>) {
    for eq in body {
        match &eq.kind {
            EquationKind::Simple {
                lhs: Expr::Var(v), ..
            } => {
                if work.role[*v] == Role::Unknown {
                    work.role[*v] = Role::Discrete;
                }
                out.push(*v);
            }
            EquationKind::If { branches, else_ } => {
                for (_, b) in branches {
                    mark_assigned(b, work, out);
                }
                mark_assigned(else_, work, out);
            }
            _ => {}
        }
    }
}

/// The residuals of a simple or if-equation, in order. Asserts inside if-branches are moved
/// out, guarded by their branch condition.
#[allow(clippy::result_large_err)] // one diagnostic, built once per bad equation
fn residuals(eq: &Equation, asserts: &mut Vec<Equation>) -> Result<Vec<Expr>, Diagnostic> {
    match &eq.kind {
        // Kept as written (no simplification) so the views print `lhs = rhs`.
        EquationKind::Simple { lhs, rhs } => Ok(vec![Expr::binary(
            crate::dae::BinOp::Sub,
            lhs.clone(),
            rhs.clone(),
        )]),
        EquationKind::If { branches, else_ } => {
            let conds: Vec<Expr> = branches.iter().map(|(c, _)| c.clone()).collect();
            let mut per_branch = Vec::new();
            let mut counts = Vec::new();
            let bodies = branches
                .iter()
                .map(|(_, b)| b)
                .chain(std::iter::once(else_));
            let mut else_rs = Vec::new();
            for (k, body) in bodies.enumerate() {
                let mut rs = Vec::new();
                for e in body {
                    if matches!(e.kind, EquationKind::Assert { .. }) {
                        asserts.push(super::initial_if::guarded_assert(e, &conds, k));
                        continue;
                    }
                    rs.extend(residuals(e, asserts)?);
                }
                if k == conds.len() {
                    else_rs = rs;
                } else {
                    counts.push(rs.len());
                    per_branch.push(rs);
                }
            }
            let n = else_rs.len();
            if counts.iter().any(|&c| c != n) {
                return Err(Diagnostic::error(
                    eq.span,
                    "the branches of this if-equation have different numbers of equations",
                )
                .with_label(format!(
                    "branches have {} equations",
                    counts.iter().chain(std::iter::once(&n)).map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
                ))
                .with_help("when the condition is not a parameter, every branch must have the same number of equations (MLS 8.3.4)"));
            }
            let mut out = Vec::with_capacity(n);
            let mut iters: Vec<_> = per_branch.into_iter().map(|b| b.into_iter()).collect();
            for r_else in else_rs {
                let bs = branches
                    .iter()
                    .zip(iters.iter_mut())
                    .map(|((c, _), it)| (c.clone(), it.next().unwrap_or(Expr::Integer(0))))
                    .collect();
                out.push(Expr::If {
                    branches: bs,
                    else_: Box::new(r_else),
                });
            }
            Ok(out)
        }
        _ => Ok(Vec::new()),
    }
}
