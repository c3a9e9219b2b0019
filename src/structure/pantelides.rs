//! Pantelides' index reduction.
//!
//! Equations are matched to highest-order derivatives only. When the augmenting search from an
//! equation fails, every equation it visited is differentiated symbolically and every variable
//! it visited gets its derivative; the derivatives inherit the matching of the variables, and the
//! search is repeated from the differentiated equation. Termination is guaranteed because the
//! caller checked beforehand that the system with each variable merged with its derivatives has
//! a perfect matching (structural regularity); a guard on the number of differentiations turns
//! anything unexpected into an error rather than a hang.

use super::incidence::incidence;
use super::matching::{Augmenter, Matching};
use super::work::WorkingSystem;
use crate::dae::VarId;
use crate::diag::Diagnostic;
use crate::structure::SortedEquation;

/// The unknowns (in order of first appearance) of equation `e`. A call that is inlined after
/// index reduction counts by its body (`userfn::inline_late`): the body says which arguments
/// the value depends on, the declared derivative only how it changes.
pub fn row(work: &WorkingSystem, e: usize) -> Vec<VarId> {
    let u = |v: VarId| work.is_unknown(v);
    let residual = &work.eqs[e].residual;
    let inlined = super::userfn::inline_late(&work.model, residual);
    incidence(inlined.as_ref().unwrap_or(residual), &u)
        .into_keys()
        .collect()
}

pub fn pantelides(
    work: &mut WorkingSystem,
    adj: &mut Vec<Vec<VarId>>,
) -> Result<Matching, Vec<Diagnostic>> {
    let n_orig = work.eqs.len();
    let mut m = Matching::new(n_orig, work.model.variables.len());
    let mut aug = Augmenter::default();
    let limit = 10 * n_orig + 100;
    let mut created = 0usize;
    for k in 0..n_orig {
        let mut i = k;
        loop {
            let ok = {
                let allowed = |v: VarId| work.deriv[v].is_none() && work.is_unknown(v);
                aug.augment(adj, &allowed, &mut m, i)
            };
            if ok {
                break;
            }
            let colored_vars = aug.colored_vars.clone();
            let colored_eqs = aug.colored_eqs.clone();
            for &v in &colored_vars {
                if work.is_continuous(v) {
                    work.der_var(v);
                }
            }
            let mut step = super::work::PantelidesStep {
                equation: i,
                equations: colored_eqs.clone(),
                variables: colored_vars.clone(),
                differentiated: Vec::new(),
            };
            for &l in &colored_eqs {
                if work.eq_deriv[l].is_some() {
                    continue;
                }
                let eq = &work.eqs[l];
                let residual = eq.residual.clone();
                let d = work.time_derivative(&residual).map_err(|msg| {
                    let eq = &work.eqs[l];
                    vec![Diagnostic::error(eq.span, format!("index reduction has to differentiate this equation, but {msg}"))
                        .with_help("write the equation so that it can be differentiated (e.g. as a scalar function of scalar arguments)")]
                })?;
                let d = super::expr::simplify(&d);
                // An equation of piecewise-constant quantities only (`b = x2 >= x1` for a Boolean
                // `b`, or one that parameters alone determine) differentiates to `0 = 0`: it says
                // nothing about derivatives, and keeping it would leave an empty, unmatchable
                // constraint row (MSL KinematicPTP2's `noWphase` in RobotR3 was refused as
                // redundant). The equation stays as it is, matched to its own variable.
                if super::expr::is_zero(&d) {
                    continue;
                }
                let eq = &work.eqs[l];
                let new = SortedEquation {
                    residual: d,
                    origin: eq.origin,
                    differentiated: eq.differentiated + 1,
                    span: eq.span,
                    component: eq.component.clone(),
                };
                let ne = work.push_eq(new);
                work.eq_deriv[l] = Some(ne);
                work.eq_parent[ne] = Some(l);
                step.differentiated.push((l, ne));
                adj.push(row(work, ne));
                created += 1;
            }
            work.pantelides_steps.push(step);
            m.grow(work.eqs.len(), work.model.variables.len());
            for &v in &colored_vars {
                if let (Some(dv), Some(e)) = (work.deriv[v], m.eq_of_var[v])
                    && let Some(de) = work.eq_deriv[e]
                {
                    m.set(de, dv);
                }
            }
            match work.eq_deriv[i] {
                Some(next) if created <= limit => i = next,
                _ => {
                    let eq = &work.eqs[k];
                    return Err(vec![Diagnostic::error(
                        eq.span,
                        "index reduction does not terminate: this equation keeps needing differentiation",
                    )
                    .with_help("the model is probably structurally singular; check for equations that only restate others")]);
                }
            }
        }
    }
    Ok(m)
}
