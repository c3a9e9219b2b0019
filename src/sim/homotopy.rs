//! Initialization with `homotopy(actual, simplified)` (MLS 3.7.4.1).
//!
//! The specification asks that the initial system be solved by following its solution from
//! the simplified problem to the actual one. Each call compiles to
//! `simplified + λ (actual - simplified)` (exactly `actual` at λ = 1, see
//! [`super::program::Program::homotopy`]); here λ goes from 0 to 1, each step solving the
//! initial system (relations included) from the solution of the step before. The path matters
//! where the actual problem has several solutions: an op-amp with positive feedback
//! (`simplified` at a supply limit) must start saturated, not at the unstable balance its
//! start values are closest to. A step that fails is retried shorter; λ = 1 is the actual
//! problem, whose solution is the one kept. When the path cannot be followed (a simplified
//! problem that is itself singular), the actual problem is solved from the start values, as
//! without `homotopy`: the operator is a hint, not a condition of the model.

use super::engine::Engine;
use super::events::init_relations;
use super::init::{InitError, solve_initial_equations};
use crate::structure::SortedSystem;

/// The first step of λ; a successful step doubles the next one, a failed one halves it.
const FIRST_STEP: f64 = 0.25;
/// Below this step the continuation gives up with the error of the last attempt.
const MIN_STEP: f64 = 1e-4;

/// Solves the initial system (with the relations taking their values from it), following
/// the homotopy path when the model has `homotopy` calls. Returns notes for the user.
pub fn solve_initial(
    engine: &mut Engine,
    sys: &SortedSystem,
    t0: f64,
) -> Result<Vec<String>, InitError> {
    let Some(lambda) = engine.prog.homotopy.map(|r| r as usize) else {
        init_relations(engine, true)?;
        return solve_initial_equations(engine, sys, t0);
    };
    let solve_at = |engine: &mut Engine, l: f64| -> Result<Vec<String>, InitError> {
        engine.regs[lambda] = l;
        engine.invalidate();
        init_relations(engine, false)?;
        solve_initial_equations(engine, sys, t0)
    };
    let start = engine.regs.clone();
    match follow(engine, lambda, &solve_at) {
        Ok(notes) => Ok(notes),
        Err(_) => {
            engine.regs = start;
            // A call that failed on the path is not a failure of the actual problem.
            let _ = super::funcall::take_failure();
            solve_at(engine, 1.0)
        }
    }
}

/// Solves the initial system at one value of λ.
type SolveAt<'a> = dyn Fn(&mut Engine, f64) -> Result<Vec<String>, InitError> + 'a;

/// λ from 0 to 1 by steps that shrink on failure.
fn follow(
    engine: &mut Engine,
    lambda: usize,
    solve_at: &SolveAt,
) -> Result<Vec<String>, InitError> {
    let mut notes = solve_at(engine, 0.0)?;
    let (mut at, mut step) = (0.0f64, FIRST_STEP);
    while at < 1.0 {
        let next = (at + step).min(1.0);
        let saved = engine.regs.clone();
        match solve_at(engine, next) {
            Ok(n) => {
                notes = n;
                at = next;
                step *= 2.0;
            }
            Err(e) => {
                engine.regs = saved;
                step /= 2.0;
                if step < MIN_STEP {
                    engine.regs[lambda] = 1.0;
                    return Err(e);
                }
            }
        }
    }
    engine.regs[lambda] = 1.0;
    Ok(notes)
}
