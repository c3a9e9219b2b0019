//! The `stateSelect` attributes that cannot be honoured (MLS 4.8.7.1): `always` on a variable
//! that never appears differentiated and that no equation defines smoothly (it cannot be a
//! state), and `never` on a variable that must be a state (written under der() with no index
//! reduction offering another choice). The model is refused rather than simulated against the
//! modeler's stated intent.
//!
//! `always` on a variable that is not differentiated but that smooth equations define (the
//! MSL's `Joints.Spherical(enforceStates = true)` puts it on `w_rel`, defined by the
//! quaternions' derivative) could be honoured by differentiating those equations, which
//! minimo's state selection does not do: such a variable stays algebraic with a warning. The
//! trajectory is the same either way; only the choice of integrated variables differs.

use super::work::WorkingSystem;
use crate::dae::{ScalarType, StateSelect};
use crate::diag::Diagnostic;

/// `states` are the selected states; `forced`: no index reduction took place, so every
/// state is written under der() with no alternative.
pub(super) fn check(
    work: &WorkingSystem,
    states: &[usize],
    forced: bool,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Vec<Diagnostic>> {
    if forced
        && let Some(&s) = states
            .iter()
            .find(|&&s| work.model.variables[s].state_select == StateSelect::Never)
    {
        return Err(vec![never_state(&work.model.variables[s])]);
    }
    for (v, var) in work.model.variables.iter().enumerate() {
        if var.state_select != StateSelect::Always
            || var.ty != ScalarType::Real
            || !work.is_unknown(v)
            || var.derivative_of.is_some()
            || work.deriv.get(v).is_some_and(|d| d.is_some())
        {
            continue;
        }
        if smoothly_defined(work, v) {
            warnings.push(
                Diagnostic::warning(
                    var.span,
                    format!(
                        "`{}` has stateSelect = StateSelect.always but is not differentiated anywhere: minimo keeps it algebraic (it does not differentiate equations to make a state)",
                        var.name
                    ),
                )
                .with_note("StateSelect.always asks for the variable as a state (MLS 4.8.7.1); the solution is the same"),
            );
            continue;
        }
        return Err(vec![Diagnostic::error(
            var.span,
            format!(
                "`{}` has stateSelect = StateSelect.always, but it is not differentiated anywhere and no equation defines it smoothly, so it cannot be a state",
                var.name
            ),
        )
        .with_note("StateSelect.always: the variable must be selected as a state (MLS 4.8.7.1)")
        .with_help("remove the stateSelect modifier, or give it to a variable that appears under der()")]);
    }
    Ok(())
}

/// Whether some equation containing `v` has no switch in it (no `if`, no relation, no
/// event operator): differentiating it could make `v` a state.
fn smoothly_defined(work: &WorkingSystem, v: usize) -> bool {
    let mut vars = Vec::new();
    work.eqs.iter().any(|eq| {
        vars.clear();
        crate::structure::expr::vars_of(&eq.residual, &mut vars);
        vars.contains(&v) && !switches(&eq.residual)
    })
}

/// Whether `e` can change discontinuously: an `if`, a relation, `pre`, `sample`, `edge`...
fn switches(e: &crate::dae::Expr) -> bool {
    use crate::dae::{BinOp, Expr};
    let mut found = false;
    e.visit(&mut |x| {
        found |= matches!(
            x,
            Expr::If { .. }
                | Expr::Pre(_)
                | Expr::Edge(_)
                | Expr::Change(_)
                | Expr::Sample(..)
                | Expr::Initial
                | Expr::Terminal
                | Expr::Binary(
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne,
                    ..
                )
        );
    });
    found
}

/// `stateSelect = StateSelect.never` on a variable that must be a state: it appears under
/// der() and no index reduction offers another choice (MLS 4.8.7.1).
fn never_state(var: &crate::dae::Variable) -> Diagnostic {
    Diagnostic::error(
        var.span,
        format!(
            "`{}` has stateSelect = StateSelect.never, but it appears under der() with no other variable to take its place as a state",
            var.name
        ),
    )
    .with_note("StateSelect.never: the variable must not be used as a state (MLS 4.8.7.1)")
    .with_help("remove the stateSelect modifier, or write the model so that another variable is differentiated")
}
