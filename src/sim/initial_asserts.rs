//! `assert` in `initial equation` and `initial algorithm` sections (MLS 8.3.7, 8.6).
//!
//! Such an assert belongs to the initial system only: it is checked once, on the solution of
//! the initial system, and never during the run (its condition may read values that change
//! later, e.g. a parameter with `fixed = false` next to a state). Its condition and message
//! are compiled with the initial code, so they are current after that code has run.

use super::engine::Engine;
use super::program::FailedAssert;
use super::tape::run;
use crate::diag::Diagnostic;

/// Checks the initial asserts on the current solution at time `t0`: `Ok(warnings)` (messages
/// of failed asserts of level `warning`), or the first failed error-level assert.
pub fn check(engine: &mut Engine, t0: f64) -> Result<Vec<String>, Box<Diagnostic>> {
    if engine.prog.initial_asserts.is_empty() {
        return Ok(Vec::new());
    }
    engine.run_outputs();
    let p = &engine.prog;
    run(&p.code[p.initial_code.clone()], &mut engine.regs);
    let mut warnings = Vec::new();
    for a in &engine.prog.initial_asserts {
        let Some(FailedAssert {
            text,
            warning,
            span,
        }) = a.failed_assert(&engine.regs)
        else {
            continue;
        };
        if warning {
            warnings.push(format!(
                "warning at initialization (time {t0}): assertion failed: {text}"
            ));
        } else {
            return Err(Box::new(
                Diagnostic::error(
                    span,
                    format!("assertion failed at initialization (time {t0}): {text}"),
                )
                .with_label("this assert of the initial system"),
            ));
        }
    }
    Ok(warnings)
}
