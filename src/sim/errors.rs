//! Simulation errors in the modeler's words: a failed block solve, a variable that became NaN
//! or infinite (with the equation that computes it), an integrator failure.

use super::block_solve::NewtonFailure;
use super::engine::{BlockError, Engine};
use super::program::{Program, Step};
use super::results::Recorder;
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;
use diffsol::error::DiffsolError;

/// A diagnostic for a failed block solve, naming block, variables, residual and time.
pub fn block_error(sys: &SortedSystem, prog: &Program, e: &BlockError) -> Diagnostic {
    let model = &sys.model;
    let (vars, block) = match &prog.steps[e.step] {
        Step::Implicit { vars, block, .. } => (vars.clone(), *block),
        Step::Explicit { var, block, .. } => (vec![*var], *block),
    };
    let names: Vec<String> = vars
        .iter()
        .map(|&v| model.variables[v].name.clone())
        .collect();
    let eqs = sys
        .blocks
        .get(block)
        .map(|b| b.equations.clone())
        .unwrap_or_default();
    let span = eqs
        .first()
        .and_then(|&i| sys.equations.get(i))
        .map(|e| e.span)
        .unwrap_or(Span::DUMMY);
    let what = match &e.failure {
        NewtonFailure::Singular { column } => format!(
            "its Jacobian is singular (no pivot for `{}`)",
            names.get(*column).cloned().unwrap_or_default()
        ),
        NewtonFailure::NotUnique { column } => format!(
            "its equations are consistent but do not determine `{}` (singular matrix): the solution is not unique (the equations fix only a combination of the unknowns, such as the sum of two shares of one total); minimo stops rather than pick one, since the choice can change the result",
            names.get(*column).cloned().unwrap_or_default()
        ),
        NewtonFailure::NoConvergence {
            residual,
            iterations,
        } => {
            format!("Newton did not converge in {iterations} iterations (residual {residual:e})")
        }
        NewtonFailure::NotFinite { equation } => {
            format!("residual {} became NaN or infinite", equation + 1)
        }
    };
    // A vehicle's loop has hundreds of unknowns: name a few, and the equation that failed.
    const SHOWN: usize = 12;
    let listed = |items: Vec<String>| {
        let n = items.len();
        let mut out: Vec<String> = items.into_iter().take(SHOWN).collect();
        if n > SHOWN {
            out.push(format!("and {} more", n - SHOWN));
        }
        out.join(", ")
    };
    let culprit = match &e.failure {
        NewtonFailure::NotFinite { equation } => eqs.get(*equation).copied(),
        _ => None,
    };
    let span = culprit
        .and_then(|i| sys.equations.get(i))
        .map(|e| e.span)
        .unwrap_or(span);
    let mut d = Diagnostic::error(
        span,
        format!(
            "at time {}, the algebraic loop of block {} ({} unknowns: {}) could not be solved: {what}",
            e.time,
            block + 1,
            names.len(),
            listed(names.clone())
        ),
    )
    .with_label(if culprit.is_some() {
        "this equation's residual is NaN or infinite"
    } else {
        "first equation of the loop"
    });
    for &i in eqs.iter().skip(1).take(4) {
        if let Some(eq) = sys.equations.get(i) {
            d = d.with_secondary(eq.span, "equation of the loop");
        }
    }
    let vals: Vec<String> = names
        .iter()
        .zip(&e.values)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    d = d.with_note(format!("last iterate: {}", listed(vals)));
    d = d.with_note(format!(
        "residuals: {}",
        listed(e.residuals.iter().map(|r| format!("{r:e}")).collect())
    ));
    // A failed call returns NaN, so the loop's residual is NaN for a reason only the call's
    // message tells (an assert or a division by zero inside a device model's function).
    if let NewtonFailure::NotFinite { .. } = &e.failure
        && let Some(m) = super::funcall::take_failure()
    {
        d = d.with_note(format!("a function call failed: {m}"));
        return d.with_help(
            "check the function's inputs at that time and the statements of the function named",
        );
    }
    if let Some(help) = undetermined_derivative_help(model, &e.failure, &vars) {
        return d.with_help(help);
    }
    d.with_help("check the start values of the loop variables (they are the first Newton guess) and the equations for a singular configuration")
}

/// The help for a singular loop whose undetermined unknown is a derivative: the usual cause is a
/// coefficient of it that is zero at this point (a device capacitance of 0 in a circuit, a
/// massless body), so the equations fix no derivative for a variable integrated as a state.
fn undetermined_derivative_help(
    model: &crate::dae::FlatModel,
    failure: &NewtonFailure,
    vars: &[usize],
) -> Option<String> {
    let (NewtonFailure::Singular { column } | NewtonFailure::NotUnique { column }) = failure else {
        return None;
    };
    let der = &model.variables[*vars.get(*column)?];
    let state = &model.variables[der.derivative_of?].name;
    Some(format!(
        "`{}` is not determined at this point: if every term that multiplies it is zero here (a capacitance, inductance, mass or inertia of 0, e.g. a device parameter left at a default of 0), `{state}` cannot be integrated as a state; give that element a nonzero value, or write the equation without the derivative",
        der.name
    ))
}

/// Finds the first variable that became NaN or infinite and the equation that computed it.
pub(super) fn non_finite_error(
    sys: &SortedSystem,
    engine: &mut Engine,
    t: f64,
) -> Option<Diagnostic> {
    let (step, var) = engine.first_non_finite()?;
    let block = match &engine.prog.steps[step] {
        Step::Explicit { block, .. } | Step::Implicit { block, .. } => *block,
    };
    let eq = sys
        .blocks
        .get(block)
        .and_then(|b| b.equations.first())
        .and_then(|&i| sys.equations.get(i));
    let name = &sys.model.variables[var].name;
    let span = eq.map(|e| e.span).unwrap_or(Span::DUMMY);
    // A failed call gives NaN: the call, not the arithmetic, is then what to report.
    let failure = super::funcall::take_failure();
    let kind = if engine.regs[var].is_nan() {
        "NaN"
    } else {
        "infinite"
    };
    let mut d = match &failure {
        Some(m) => Diagnostic::error(
            span,
            format!("`{name}` became {kind} at time {t} because a function call failed: {m}"),
        ),
        None => Diagnostic::error(span, format!("`{name}` became {kind} at time {t}")),
    }
    .with_label(format!("this equation computes `{name}`"));
    if let Some(e) = eq.filter(|e| !e.component.is_empty()) {
        d = d.with_note(format!("in component `{}`", e.component));
    }
    if failure.is_some() {
        return Some(d.with_help(
            "check the function's inputs at that time and the statements of the function named",
        ));
    }
    Some(d.with_help("look for a division by zero, the square root or logarithm of a negative number, or a value that grows without bound"))
}

pub(super) fn solver_error(e: DiffsolError, t: f64) -> Vec<Diagnostic> {
    let msg = e.to_string();
    let lower = msg.to_lowercase();
    let mut d = Diagnostic::error(
        Span::DUMMY,
        format!("the integrator stopped at time {t}: {msg}"),
    );
    if lower.contains("step size") || lower.contains("too small") {
        d = d.with_help(
            "the step size became too small: the model may be stiff beyond the tolerance, discontinuous without events, or reach a singular configuration; try --solver bdf or a looser --tolerance",
        );
    }
    vec![d]
}

/// The first recorded value that is NaN or infinite, as an error naming the variable, the time
/// and the equation that computes it. Variables that feed no state (`y = 1/x` watched only)
/// are never seen by the integrator, so the check is made on what would be written.
/// The first equation of the block that computes `var`, to point at in messages about its values.
pub(super) fn computing_equation(
    sys: &SortedSystem,
    var: crate::dae::VarId,
) -> Option<&crate::structure::SortedEquation> {
    sys.blocks
        .iter()
        .find(|b| b.vars.contains(&var))
        .and_then(|b| b.equations.first())
        .and_then(|&i| sys.equations.get(i))
}

pub(super) fn non_finite_output(sys: &SortedSystem, rec: &Recorder) -> Option<Diagnostic> {
    let (row, col) = rec
        .rows
        .iter()
        .enumerate()
        .find_map(|(r, vals)| vals.iter().position(|x| !x.is_finite()).map(|c| (r, c)))?;
    let var = rec.cols[col];
    let value = rec.rows[row][col];
    let t = rec.time[row];
    let v = sys.model.variables.get(var)?;
    let eq = computing_equation(sys, var);
    let what = if value.is_nan() { "NaN" } else { "infinite" };
    let mut d = match eq {
        Some(e) => Diagnostic::error(e.span, format!("`{}` became {what} at time {t}", v.name))
            .with_label(format!("this equation computes `{}`", v.name)),
        None => Diagnostic::error(v.span, format!("`{}` became {what} at time {t}", v.name)),
    };
    if let Some(e) = eq.filter(|e| !e.component.is_empty()) {
        d = d.with_note(format!("in component `{}`", e.component));
    }
    Some(d.with_help(
        "look for a division by zero, the square root or logarithm of a negative number, or a \
         value that grows without bound",
    ))
}

pub(super) fn non_finite_at(sys: &SortedSystem, engine: &mut Engine, t: f64) -> Option<Diagnostic> {
    let bad = engine
        .prog
        .states
        .iter()
        .any(|&(x, d)| !engine.regs[x].is_finite() || !engine.regs[d].is_finite());
    if !bad {
        return None;
    }
    if let Some(&(x, _)) = engine
        .prog
        .states
        .iter()
        .find(|&&(x, _)| !engine.regs[x].is_finite())
    {
        let v = &sys.model.variables[x];
        return Some(Diagnostic::error(
            v.span,
            format!("the initial value of state `{}` is not finite", v.name),
        ));
    }
    non_finite_error(sys, engine, t)
}
