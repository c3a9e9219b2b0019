//! Preferred variables as state candidates.
//!
//! A variable with `stateSelect = prefer` (or `always`) that the model defines as a derivative,
//! `w = der(x)`, but never writes under `der()` itself (the relative velocity `v_rel` of MSL
//! Translational's `PartialCompliantWithRelativeStates`) is no state candidate for Pantelides and
//! dummy derivatives: only variables that appear differentiated are. MLS 4.9.4 asks that such a
//! variable be preferred as a state when a choice exists, so it gets its derivative variable
//! before index reduction (as `der(w)` in an initial equation does): Pantelides then
//! differentiates what defines `w`, and state selection ranks `w` by its hint like any other
//! candidate. This matters across a `reinit`: with `w` a state, the velocity that is reinitialized
//! jumps and `w` stays continuous, as in the other tools.

use super::incidence::{Lin, incidence};
use super::work::WorkingSystem;
use crate::dae::{StateSelect, VarId};

/// The variables `w` (`stateSelect` at least `prefer`, not written under `der()`, no derivative
/// yet) of an equation `w = der(x)` (two unknowns, linear with opposite numeric coefficients).
pub fn velocities(work: &WorkingSystem) -> Vec<VarId> {
    let mut out = Vec::new();
    for eq in &work.eqs {
        let inc = incidence(&eq.residual, &|v| work.is_unknown(v));
        if inc.len() != 2 {
            continue;
        }
        let terms: Vec<(VarId, Option<f64>)> = inc
            .iter()
            .map(|(&v, l)| match l {
                Lin::Linear(c) => (v, *c),
                Lin::Nonlinear => (v, None),
            })
            .collect();
        let (Some(a), Some(b)) = (terms[0].1, terms[1].1) else {
            continue;
        };
        if a == 0.0 || a != -b {
            continue;
        }
        for (w, d) in [(terms[0].0, terms[1].0), (terms[1].0, terms[0].0)] {
            if candidate(work, w) && work.model.variables[d].derivative_of.is_some() {
                out.push(w);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Every other unknown with `stateSelect` at least `prefer` that is not written under `der()`
/// (the `level` of a tank and the `medium.T` of its fluid, where the balances differentiate
/// the mass `m` and energy `U`). MLS 4.9.4 asks that they be states when a choice exists: with
/// a derivative variable they become candidates, index reduction differentiates what ties them
/// to `m` and `U`, and state selection ranks them above those. This also decides a free
/// initialization (MLS 8.6): the start values of `level` and `medium.T` are then the initial
/// values, where with `m` and `U` as states (no start: 0) the tank starts empty with a NaN
/// temperature.
///
/// `always` is left out: such a variable that is never differentiated is refused, or kept
/// algebraic with a warning, by `state_select_rules` (MLS 4.8.7.1), as the language asks.
pub fn others(work: &WorkingSystem) -> Vec<VarId> {
    (0..work.model.variables.len())
        .filter(|&w| {
            work.is_unknown(w)
                && candidate(work, w)
                && work.model.variables[w].state_select == StateSelect::Prefer
        })
        .collect()
}

fn candidate(work: &WorkingSystem, w: VarId) -> bool {
    let var = &work.model.variables[w];
    work.is_continuous(w)
        && !work.in_der[w]
        && work.deriv[w].is_none()
        && var.derivative_of.is_none()
        && var.state_select >= StateSelect::Prefer
}
