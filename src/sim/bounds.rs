//! The `min` and `max` attributes (MLS 4.8.7): a recorded value outside its variable's range
//! stops the run with an error naming the variable, the value, the bound and the time. A result
//! outside the range the modeler declared is outside the model's validity, so it is not
//! written as if it were right.

use super::params::{ParamValues, eval_param_expr};
use crate::dae::{Expr, FlatModel};
use crate::diag::Diagnostic;

/// Slack for round-off: a value may pass its bound by this fraction of the bound's magnitude
/// (at least of 1), so `min = 0` is not broken by an integrator's -1e-15.
const SLACK: f64 = 1e-6;

/// The first recorded value outside its variable's `min`/`max`, if any. `cols` are the
/// recorded variables, `rows` one row of values per time in `time`.
pub fn first_violation(
    model: &FlatModel,
    params: &ParamValues,
    cols: &[usize],
    time: &[f64],
    rows: &[Vec<f64>],
) -> Option<Diagnostic> {
    let bound = |e: &Option<Expr>| -> Option<f64> {
        let v = eval_param_expr(model, params, e.as_ref()?).ok()?;
        v.is_finite().then_some(v)
    };
    let limits: Vec<(usize, Option<f64>, Option<f64>)> = cols
        .iter()
        .enumerate()
        .filter_map(|(c, &var)| {
            let v = model.variables.get(var)?;
            let (lo, hi) = (bound(&v.min), bound(&v.max));
            (lo.is_some() || hi.is_some()).then_some((c, lo, hi))
        })
        .collect();
    if limits.is_empty() {
        return None;
    }
    for (r, row) in rows.iter().enumerate() {
        for &(c, lo, hi) in &limits {
            let x = row[c];
            let below = lo.filter(|&m| x < m - SLACK * m.abs().max(1.0));
            let above = hi.filter(|&m| x > m + SLACK * m.abs().max(1.0));
            let (which, m) = match (below, above) {
                (Some(m), _) => ("min", m),
                (_, Some(m)) => ("max", m),
                _ => continue,
            };
            let v = &model.variables[cols[c]];
            let mut d = Diagnostic::error(
                v.span,
                format!(
                    "`{}` = {x} at time {} is outside its range: {which} = {m}",
                    v.name, time[r]
                ),
            )
            .with_label(format!("declared with `{which} = {m}`"))
            .with_help(
                "the model left the range its author declared valid: check the parameters and \
                 start values, or widen the `min`/`max` attribute if the range was too narrow",
            );
            if !v.component.is_empty() {
                d = d.with_note(format!("in component `{}`", v.component));
            }
            return Some(d);
        }
    }
    None
}
