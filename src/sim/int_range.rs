//! The range of `Integer` (MLS 4.9.2: at least 32 bits). minimo's Integer is 32 bits, as
//! `ModelicaServices.Machine.Integer_inf = 2147483647` of the MSL says; flattening refuses
//! constant arithmetic that leaves the range (`tensor.rs`). At run time Integer values live in
//! the simulator's floating-point registers, where `2147483647 + 1` is exact and silently
//! gives 2147483648: here every Integer parameter and every recorded Integer value is checked,
//! and the first one outside the range stops the run with the variable, the value, the time
//! and the equation that computes it.

use super::params::ParamValues;
use crate::dae::ScalarType;
use crate::diag::Diagnostic;
use crate::structure::SortedSystem;

/// The range of a 32-bit Integer.
pub const INT_MIN: f64 = i32::MIN as f64;
pub const INT_MAX: f64 = i32::MAX as f64;

fn outside(x: f64) -> bool {
    // NaN and infinities are reported by the non-finite checks, with their own words.
    x.is_finite() && !(INT_MIN..=INT_MAX).contains(&x)
}

/// The first Integer parameter or recorded Integer value outside the 32-bit range, if any.
pub fn first_overflow(
    sys: &SortedSystem,
    params: &ParamValues,
    cols: &[usize],
    time: &[f64],
    rows: &[Vec<f64>],
) -> Option<Diagnostic> {
    let model = &sys.model;
    let is_int = |v: usize| {
        model
            .variables
            .get(v)
            .is_some_and(|v| v.ty == ScalarType::Integer)
    };
    for (i, v) in model.variables.iter().enumerate() {
        if v.ty == ScalarType::Integer
            && !v.is_unknown()
            && let Some(&x) = params.values.get(i)
            && outside(x)
        {
            return Some(
                Diagnostic::error(
                    v.span,
                    format!(
                        "Integer overflow: the value of `{}` is {x}, outside the 32-bit Integer \
                         range [{INT_MIN}, {INT_MAX}]",
                        v.name
                    ),
                )
                .with_label(format!("the value of `{}`", v.name))
                .with_help("use a Real variable for values this large"),
            );
        }
    }
    let int_cols: Vec<(usize, usize)> = cols
        .iter()
        .enumerate()
        .filter(|&(_, &v)| is_int(v))
        .map(|(c, &v)| (c, v))
        .collect();
    if int_cols.is_empty() {
        return None;
    }
    for (r, row) in rows.iter().enumerate() {
        for &(c, var) in &int_cols {
            let x = row[c];
            if !outside(x) {
                continue;
            }
            let v = &model.variables[var];
            let eq = super::errors::computing_equation(sys, var);
            let msg = format!(
                "Integer overflow: `{}` = {x} at time {} is outside the 32-bit Integer range \
                 [{INT_MIN}, {INT_MAX}]",
                v.name, time[r]
            );
            let mut d = match eq {
                Some(e) => Diagnostic::error(e.span, msg)
                    .with_label(format!("this equation computes `{}`", v.name)),
                None => Diagnostic::error(v.span, msg),
            };
            if !v.component.is_empty() {
                d = d.with_note(format!("in component `{}`", v.component));
            }
            return Some(d.with_help("use a Real variable for values this large"));
        }
    }
    None
}
