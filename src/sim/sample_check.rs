//! `sample(start, interval)` arguments the event scheduler can honour (MLS 16.5.2 / 3.7.5):
//! a start that is a number, and an interval that the event times can resolve over the run.
//!
//! Sample instants are compared with a tolerance that grows with the time (events at `t` are
//! the same event within about 1e-11·(unit + |t|), with `unit` the run's time unit, see
//! `time_scale.rs`). An interval below that resolution makes consecutive instants one event:
//! `sample(0, 1e-300)` would fire once and then never again, a wrong answer with no error.
//! Too many instants over the run would exhaust memory and time, as too fine an output
//! interval would. Both stop the run before it starts, naming the equation with the call.

use super::program::Sample;
use crate::diag::Diagnostic;

/// The smallest interval, as a fraction of the time scale `unit + |t|`: a hundred times the
/// tolerance within which two event times are the same event (some 4.5e5 floating-point
/// spacings of `t`).
const MIN_RELATIVE_INTERVAL: f64 = 1e-9;

/// At most this many sample instants in one run (the bound on output points as well: each
/// instant is an event that writes result rows).
const MAX_INSTANTS: f64 = 1e7;

/// Checks every sample of the program for the run from `t0` to `t_end`.
pub fn check(samples: &[Sample], t0: f64, t_end: f64) -> Result<(), Vec<Diagnostic>> {
    for s in samples {
        if let Some(d) = problem(s, t0, t_end) {
            return Err(vec![d]);
        }
    }
    Ok(())
}

fn problem(s: &Sample, t0: f64, t_end: f64) -> Option<Diagnostic> {
    let (start, interval) = (s.start, s.interval);
    if start.is_nan() {
        return Some(
            Diagnostic::error(s.span, "the start time of `sample(start, interval)` is NaN")
                .with_help("give `start` a number (a parameter that is not 0/0)"),
        );
    }
    // Compiled samples have a positive interval; NaN and infinity are caught here too.
    if interval.is_nan() || interval <= 0.0 {
        return Some(Diagnostic::error(
            s.span,
            format!("the interval of `sample(start, interval)` must be positive, got {interval}"),
        ));
    }
    // Instants after the end (or an infinite interval: one instant at `start`) are never a
    // problem: nothing after the first is inside the run.
    let first = start.max(t0);
    if first > t_end || interval.is_infinite() {
        return None;
    }
    let t_max = t0.abs().max(t_end.abs()).max(start.abs());
    let scale = super::time_scale::unit(t0, t_end) + t_max;
    if interval < MIN_RELATIVE_INTERVAL * scale {
        return Some(
            Diagnostic::error(
                s.span,
                format!(
                    "the interval {interval:e} of `sample(start, interval)` is too small to \
                     resolve at times up to {:e}: consecutive sample instants would be the \
                     same event",
                    t_max
                ),
            )
            .with_help(format!(
                "use an interval of at least {:e} (1e-9 of the time scale of the run)",
                MIN_RELATIVE_INTERVAL * scale
            )),
        );
    }
    let instants = (t_end - first) / interval;
    if instants > MAX_INSTANTS {
        return Some(
            Diagnostic::error(
                s.span,
                format!(
                    "`sample(start, interval)` with interval {interval:e} gives {instants:.3e} \
                     events from {first} to {t_end}; at most {MAX_INSTANTS:.0} are allowed"
                ),
            )
            .with_help("choose a larger interval or a shorter run"),
        );
    }
    None
}
