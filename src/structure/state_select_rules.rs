//! The `stateSelect` attributes that cannot be honoured (MLS 4.8.7.1): `always` on a variable
//! that never appears differentiated (it cannot be a state), and `never` on a variable that
//! must be a state (written under der() with no index reduction offering another choice). The
//! model is refused rather than simulated against the modeler's stated intent.

use super::work::WorkingSystem;
use crate::dae::{ScalarType, StateSelect};
use crate::diag::Diagnostic;

/// `states` are the selected states; `forced`: no index reduction took place, so every
/// state is written under der() with no alternative.
pub(super) fn check(
    work: &WorkingSystem,
    states: &[usize],
    forced: bool,
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
        return Err(vec![Diagnostic::error(
            var.span,
            format!(
                "`{}` has stateSelect = StateSelect.always, but it is not differentiated anywhere, so it cannot be a state",
                var.name
            ),
        )
        .with_note("StateSelect.always: the variable must be selected as a state (MLS 4.8.7.1)")
        .with_help("remove the stateSelect modifier, or give it to a variable that appears under der()")]);
    }
    Ok(())
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
