//! Consistent initialization (MLS 8.6).
//!
//! The unknowns of the initial system are the states that are not `fixed = true`; its
//! equations are the `initial equation`s (the continuous equations hold through the main pass,
//! which computes every other variable from the states). With no initial equations every state
//! starts at its `start` value. When there are fewer initial equations than free states, the
//! states that no initial equation depends on keep their start values (said in the output);
//! any remaining mismatch is reported by name. The system is solved by damped Newton with
//! finite-difference Jacobian columns, from the start values.

use super::eval::{BlockError, Engine};
use super::jacobian::initial_residual_deps;
use super::newton::Lu;
use super::tape::run;
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;

pub enum InitError {
    Block(BlockError),
    Diagnostics(Vec<Diagnostic>),
}

impl From<BlockError> for InitError {
    fn from(e: BlockError) -> Self {
        InitError::Block(e)
    }
}

/// Solves the initial equations for the free states; returns notes for the user.
pub fn solve_initial_equations(
    engine: &mut Engine,
    sys: &SortedSystem,
    t0: f64,
) -> Result<Vec<String>, InitError> {
    let mut notes = Vec::new();
    let model = &sys.model;
    let neq = engine.prog.initial_residuals.len();
    engine.regs[engine.prog.time as usize] = t0;
    if neq == 0 {
        return Ok(notes);
    }
    let states = engine.prog.states.clone();
    let deps = initial_residual_deps(&engine.prog);
    let mut touched = vec![false; states.len()];
    for d in &deps {
        for &s in d {
            touched[s as usize] = true;
        }
    }
    let mut free: Vec<usize> = (0..states.len())
        .filter(|&i| model.variables[states[i].0].fixed != Some(true) && touched[i])
        .collect();
    let init_res = engine.prog.initial_residuals.clone();
    let eq_names = |idx: &[usize]| -> Vec<String> {
        idx.iter()
            .map(|&i| {
                let (_, e) = init_res[i];
                let eq = &model.initial_equations[e];
                format!(
                    "initial equation {} in `{}`",
                    e + 1,
                    if eq.component.is_empty() {
                        &model.name
                    } else {
                        &eq.component
                    }
                )
            })
            .collect()
    };
    if free.len() < neq {
        let fixed: Vec<String> = states
            .iter()
            .filter(|(x, _)| model.variables[*x].fixed == Some(true))
            .map(|(x, _)| model.variables[*x].name.clone())
            .collect();
        let mut d = Diagnostic::error(
            model.initial_equations.first().map(|e| e.span).unwrap_or(Span::DUMMY),
            format!(
                "the initial system is over-specified: {neq} initial equation(s) but only {} state(s) left to determine",
                free.len()
            ),
        )
        .with_help("remove an initial equation, or `fixed = true` from a state's start value");
        d = d.with_note(format!(
            "initial equations: {}",
            eq_names(&(0..neq).collect::<Vec<_>>()).join(", ")
        ));
        if !fixed.is_empty() {
            d = d.with_note(format!("states with fixed = true: {}", fixed.join(", ")));
        }
        return Err(InitError::Diagnostics(vec![d]));
    }
    if free.len() > neq {
        // Keep start values for the states with an explicit start, last ones first.
        let mut kept = Vec::new();
        while free.len() > neq {
            let pos = free
                .iter()
                .rposition(|&i| model.variables[states[i].0].start.is_some())
                .unwrap_or(free.len() - 1);
            kept.push(free.remove(pos));
        }
        kept.sort();
        let names: Vec<&str> = kept
            .iter()
            .map(|&i| model.variables[states[i].0].name.as_str())
            .collect();
        notes.push(format!(
            "initial system under-specified: {} kept at its start value (add `fixed = true` or an initial equation to say so)",
            names.join(", ")
        ));
    }
    // Damped Newton on the free states.
    let n = free.len();
    let residual = |engine: &mut Engine, x: &[f64], out: &mut Vec<f64>| -> Result<(), BlockError> {
        for (k, &i) in free.iter().enumerate() {
            engine.regs[states[i].0] = x[k];
        }
        engine.run_main()?;
        engine.run_outputs();
        let p = &engine.prog;
        run(&p.code[p.initial_code.clone()], &mut engine.regs);
        out.clear();
        out.extend(
            p.initial_residuals
                .iter()
                .map(|(r, _)| engine.regs[*r as usize]),
        );
        Ok(())
    };
    let mut x: Vec<f64> = free.iter().map(|&i| engine.regs[states[i].0]).collect();
    let mut r = Vec::new();
    let mut r2 = Vec::new();
    residual(engine, &x, &mut r)?;
    let mut lu = Lu::default();
    let mut tmp = Vec::new();
    let norm = |v: &[f64]| {
        v.iter().fold(
            0.0f64,
            |m, x| if x.is_nan() { f64::NAN } else { m.max(x.abs()) },
        )
    };
    for _ in 0..60 {
        let r0 = norm(&r);
        if r0 <= 1e-11 {
            return Ok(notes);
        }
        let mut jac = vec![0.0; n * n];
        for j in 0..n {
            let h = 1e-7 * (1.0 + x[j].abs());
            let mut xp = x.clone();
            xp[j] += h;
            residual(engine, &xp, &mut r2)?;
            for i in 0..n {
                jac[i * n + j] = (r2[i] - r[i]) / h;
            }
        }
        if let Err(col) = lu.factor(n, &jac) {
            let name = &model.variables[states[free[col]].0].name;
            return Err(InitError::Diagnostics(vec![
                Diagnostic::error(
                    model
                        .initial_equations
                        .first()
                        .map(|e| e.span)
                        .unwrap_or(Span::DUMMY),
                    format!(
                        "the initial equations do not determine `{name}` (singular initial system)"
                    ),
                )
                .with_note(format!(
                    "initial equations: {}",
                    eq_names(&(0..neq).collect::<Vec<_>>()).join(", ")
                ))
                .with_help(format!(
                    "give `{name}` a fixed start value or add an initial equation for it"
                )),
            ]));
        }
        let mut dx = r.clone();
        lu.solve(&mut dx, &mut tmp);
        let mut lambda = 1.0;
        loop {
            let xn: Vec<f64> = x.iter().zip(&dx).map(|(a, d)| a - lambda * d).collect();
            residual(engine, &xn, &mut r2)?;
            let rn = norm(&r2);
            if rn.is_finite() && (rn < r0 || lambda < 1e-4) {
                x = xn;
                std::mem::swap(&mut r, &mut r2);
                break;
            }
            lambda *= 0.5;
            if lambda < 1e-6 {
                x = xn;
                std::mem::swap(&mut r, &mut r2);
                break;
            }
        }
    }
    let worst = (0..neq)
        .max_by(|&a, &b| r[a].abs().total_cmp(&r[b].abs()))
        .unwrap_or(0);
    let names: Vec<&str> = free
        .iter()
        .map(|&i| model.variables[states[i].0].name.as_str())
        .collect();
    Err(InitError::Diagnostics(vec![
        Diagnostic::error(
            model
                .initial_equations
                .get(init_res[worst].1)
                .map(|e| e.span)
                .unwrap_or(Span::DUMMY),
            format!(
                "the initial equations could not be solved: residual {:e} remains here",
                r[worst]
            ),
        )
        .with_note(format!("unknowns: {}", names.join(", ")))
        .with_help("give start values closer to the solution"),
    ]))
}
