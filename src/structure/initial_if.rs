//! If-equations in `initial equation` sections whose conditions are not parameters (MLS 8.3.4,
//! 8.6): each equation position becomes one plain equation whose sides are if-expressions over
//! the branches, so initialization (`sim/initial_code.rs`) sees only `a = b` and `assert`.
//!
//! When every branch writes the same left side at a position (`mode = Mode.Up` / `mode =
//! Mode.On`), the position becomes `mode = if c then Mode.Up else Mode.On`: the equation keeps
//! saying which variable it determines, which initialization needs for discrete unknowns.
//! Otherwise it becomes the residual `0 = if c then l1 - r1 else l2 - r2`.

use crate::dae::{BinOp, Equation, EquationKind, Expr, FlatModel, UnOp};
use crate::diag::{self, Diagnostic};

/// Rewrites the model's initial if-equations into plain equations and guarded asserts.
pub fn lower(model: &mut FlatModel) -> diag::Result<()> {
    if !model
        .initial_equations
        .iter()
        .any(|e| matches!(e.kind, EquationKind::If { .. }))
    {
        return Ok(());
    }
    let eqs = std::mem::take(&mut model.initial_equations);
    model.initial_equations = lower_list(eqs).map_err(|d| vec![d])?;
    Ok(())
}

#[allow(clippy::result_large_err)] // one diagnostic, built once per bad equation
fn lower_list(eqs: Vec<Equation>) -> Result<Vec<Equation>, Diagnostic> {
    let mut out = Vec::with_capacity(eqs.len());
    for eq in eqs {
        if matches!(eq.kind, EquationKind::If { .. }) {
            lower_if(eq, &mut out)?;
        } else {
            out.push(eq);
        }
    }
    Ok(out)
}

/// One if-equation: its branches' plain equations paired by position, its asserts guarded by
/// the condition under which their branch is the active one.
#[allow(clippy::result_large_err)] // one diagnostic, built once per bad equation
fn lower_if(eq: Equation, out: &mut Vec<Equation>) -> Result<(), Diagnostic> {
    let EquationKind::If { branches, else_ } = eq.kind else {
        unreachable!("lower_if is called on if-equations only");
    };
    let conds: Vec<Expr> = branches.iter().map(|(c, _)| c.clone()).collect();
    let bodies = branches
        .into_iter()
        .map(|(_, b)| b)
        .chain(std::iter::once(else_));
    let mut per_branch: Vec<Vec<Equation>> = Vec::new();
    for (k, body) in bodies.enumerate() {
        let mut plain = Vec::new();
        for e in lower_list(body)? {
            match e.kind {
                EquationKind::Simple { .. } => plain.push(e),
                EquationKind::Assert { .. } => out.push(guarded_assert(&e, &conds, k)),
                _ => {
                    return Err(Diagnostic::error(
                        e.span,
                        "only equations `a = b` and `assert` are allowed in an initial if-equation whose condition is not a parameter",
                    ));
                }
            }
        }
        per_branch.push(plain);
    }
    let n = per_branch[0].len();
    if per_branch.iter().any(|b| b.len() != n) {
        let counts: Vec<String> = per_branch.iter().map(|b| b.len().to_string()).collect();
        return Err(Diagnostic::error(
            eq.span,
            "the branches of this initial if-equation have different numbers of equations",
        )
        .with_label(format!("branches have {} equations", counts.join(", ")))
        .with_help("when the condition is not a parameter, every branch must have the same number of equations (MLS 8.3.4)"));
    }
    let mut columns: Vec<std::vec::IntoIter<Equation>> =
        per_branch.into_iter().map(|b| b.into_iter()).collect();
    for _ in 0..n {
        let row: Vec<Equation> = columns.iter_mut().filter_map(|c| c.next()).collect();
        out.push(position(&conds, row, eq.component.clone()));
    }
    Ok(())
}

/// The plain equation of one position: `row` holds that position's equation of every branch,
/// the else-branch's last.
fn position(conds: &[Expr], row: Vec<Equation>, component: String) -> Equation {
    let span = row[0].span;
    let sides: Vec<(Expr, Expr)> = row
        .into_iter()
        .map(|e| match e.kind {
            EquationKind::Simple { lhs, rhs } => (lhs, rhs),
            _ => unreachable!("positions hold plain equations only"),
        })
        .collect();
    let select = |values: Vec<Expr>| {
        let mut values = values;
        let else_ = values.pop().expect("an if-equation has an else-branch");
        Expr::If {
            branches: conds.iter().cloned().zip(values).collect(),
            else_: Box::new(else_),
        }
    };
    let same_lhs = sides.iter().all(|(l, _)| *l == sides[0].0);
    let kind = if same_lhs {
        let lhs = sides[0].0.clone();
        EquationKind::Simple {
            lhs,
            rhs: select(sides.into_iter().map(|(_, r)| r).collect()),
        }
    } else {
        EquationKind::Simple {
            lhs: Expr::Real(0.0),
            rhs: select(
                sides
                    .into_iter()
                    .map(|(l, r)| Expr::binary(BinOp::Sub, l, r))
                    .collect(),
            ),
        }
    };
    Equation {
        kind,
        component,
        span,
    }
}

/// Assert `e` of branch `k` of an if-equation with conditions `conds`, moved out of it: it
/// holds only while that branch is the active one.
pub(super) fn guarded_assert(e: &Equation, conds: &[Expr], k: usize) -> Equation {
    let EquationKind::Assert {
        condition,
        message,
        warning,
    } = &e.kind
    else {
        unreachable!("guarded_assert is called on asserts only");
    };
    let active = branch_guard(conds, k);
    // A call for its effect must not run in a branch not taken.
    let condition = crate::flatten::effect_guarded(condition, &active).unwrap_or_else(|| {
        Expr::binary(
            BinOp::Or,
            Expr::Unary(UnOp::Not, Box::new(active)),
            condition.clone(),
        )
    });
    Equation {
        kind: EquationKind::Assert {
            condition,
            message: message.clone(),
            warning: *warning,
        },
        ..e.clone()
    }
}

/// The condition under which branch `k` is the active one (`k == conds.len()`: the else-branch).
fn branch_guard(conds: &[Expr], k: usize) -> Expr {
    let mut guard = conds.get(k).cloned().unwrap_or(Expr::Boolean(true));
    for p in &conds[..k.min(conds.len())] {
        guard = Expr::binary(
            BinOp::And,
            Expr::Unary(UnOp::Not, Box::new(p.clone())),
            guard,
        );
    }
    guard
}
