//! Events: relation switching, `when` / `elsewhen`, `reinit`, `pre`, time events, asserts.
//!
//! Between events every relation outside `noEvent` keeps the value it had after the last
//! event (its register is not recomputed by the tape), so the right-hand side is smooth for
//! the integrator. At an event (a root of some `a - b`, a `sample` instant, or initialization)
//! the event iteration runs: relations take their new values, `when` branches whose condition
//! became true fire (assignments, `reinit`, `terminate`), and the whole system is re-evaluated
//! until no discrete value changes (MLS 8.6), with `pre(v)` holding the value before.

use super::compile::{Action, message_text};
use super::eval::{BlockError, Engine};
use super::tape::apply;
use crate::diag::{Diagnostic, Span};

pub struct EventState {
    /// Condition values of every `when` branch after the last event.
    cond_prev: Vec<Vec<bool>>,
    /// Next instant of each `sample`.
    next_sample: Vec<f64>,
    /// Set by `terminate(...)`: the message.
    pub terminated: Option<String>,
    /// Warnings from `assert(..., level = warning)`, reported once each.
    pub warnings: Vec<String>,
    pub count: usize,
}

/// Why an event could not be handled.
pub enum EventError {
    Block(BlockError),
    Diagnostic(Box<Diagnostic>),
}

impl From<BlockError> for EventError {
    fn from(e: BlockError) -> Self {
        EventError::Block(e)
    }
}

impl EventState {
    pub fn new(engine: &Engine, t0: f64) -> EventState {
        let p = &engine.prog;
        EventState {
            cond_prev: p
                .whens
                .iter()
                .map(|w| vec![false; w.branches.len()])
                .collect(),
            next_sample: p
                .samples
                .iter()
                .map(|s| {
                    // First instant at or after the start time.
                    let k = ((t0 - s.start) / s.interval).ceil().max(0.0);
                    s.start + k * s.interval
                })
                .collect(),
            terminated: None,
            warnings: Vec::new(),
            count: 0,
        }
    }

    /// The next time event strictly after `t`, if any.
    pub fn next_time_event(&self, t: f64) -> Option<f64> {
        self.next_sample
            .iter()
            .copied()
            .filter(|&s| s > t + time_eps(t))
            .reduce(f64::min)
    }
}

fn time_eps(t: f64) -> f64 {
    1e-12 * (1.0 + t.abs())
}

/// Runs the event iteration at time `t` (states already in the engine's registers).
/// `triggered` is the relation whose zero crossing caused the event.
pub fn event_iteration(
    engine: &mut Engine,
    es: &mut EventState,
    t: f64,
    triggered: Option<usize>,
    initial: bool,
) -> Result<(), EventError> {
    es.count += 1;
    let time = engine.prog.time as usize;
    engine.regs[time] = t;
    engine.regs[engine.prog.initial as usize] = f64::from(u8::from(initial));
    // Sample instants active at this event.
    let mut active = vec![false; es.next_sample.len()];
    for (i, s) in engine.prog.samples.clone().iter().enumerate() {
        active[i] = (es.next_sample[i] - t).abs() <= time_eps(t) * 10.0;
        engine.regs[s.reg as usize] = f64::from(u8::from(active[i]));
    }
    // pre(v): the values just before the event. At initialization, the `pre` values that
    // initial equations determined are unknowns of the initial system and stay as solved.
    let kept: Vec<u32> = if initial {
        engine
            .prog
            .initial_assigns
            .iter()
            .filter_map(|a| a.pre)
            .collect()
    } else {
        Vec::new()
    };
    copy_pre(engine, &kept);
    engine.run_main()?;
    engine.run_outputs();
    // The triggered relation's operands at the crossing: it keeps its new value only while
    // they stay there; when the event changes them (`time >= pre(next)` after `next` moved
    // on), it is evaluated again, or it would stay true and never fire again.
    let triggered = triggered.map(|i| {
        let r = &engine.prog.relations[i];
        (i, engine.regs[r.a as usize], engine.regs[r.b as usize])
    });
    update_relations(engine, triggered, true);

    let mut converged = false;
    for _ in 0..100 {
        engine.run_main()?;
        engine.run_outputs();
        let mut changed = false;
        let whens = engine.prog.whens.clone();
        for (k, w) in whens.iter().enumerate() {
            let conds: Vec<bool> = w
                .branches
                .iter()
                .map(|(c, _)| engine.regs[*c as usize] != 0.0)
                .collect();
            let fired = (0..conds.len()).find(|&b| {
                if initial {
                    w.initial[b] && conds[b]
                } else {
                    conds[b] && !es.cond_prev[k][b]
                }
            });
            if let Some(b) = fired {
                for a in &w.branches[b].1 {
                    changed |= apply_action(engine, es, a, t)?;
                }
            }
            es.cond_prev[k] = conds;
        }
        for a in &engine.prog.always.clone() {
            changed |= apply_action(engine, es, a, t)?;
        }
        changed |= update_relations(engine, triggered, false);
        if !changed {
            converged = true;
            break;
        }
        copy_pre(engine, &kept);
    }
    if !converged {
        return Err(EventError::Diagnostic(Box::new(Diagnostic::error(
            Span::DUMMY,
            format!("the event iteration at time {t} did not converge after 100 iterations"),
        ).with_help("discrete variables keep changing each other; check `when` conditions that depend on their own results"))));
    }
    // Back to continuous time: samples off, initial() false, and remember the conditions as
    // they are between events so that the next edge is detected.
    for (i, s) in engine.prog.samples.clone().iter().enumerate() {
        engine.regs[s.reg as usize] = 0.0;
        if active[i] {
            es.next_sample[i] += s.interval;
        }
    }
    engine.regs[engine.prog.initial as usize] = 0.0;
    engine.run_main()?;
    engine.run_outputs();
    for (k, w) in engine.prog.whens.iter().enumerate() {
        es.cond_prev[k] = w
            .branches
            .iter()
            .map(|(c, _)| engine.regs[*c as usize] != 0.0)
            .collect();
    }
    for &(v, p) in &engine.prog.pre.clone() {
        engine.regs[p as usize] = engine.regs[v as usize];
    }
    engine.invalidate();
    Ok(())
}

/// `pre(v) := v` for every `pre` register except `kept`.
fn copy_pre(engine: &mut Engine, kept: &[u32]) {
    for &(v, p) in &engine.prog.pre {
        if !kept.contains(&p) {
            engine.regs[p as usize] = engine.regs[v as usize];
        }
    }
}

/// Sets relation registers from their operands; the triggered one is toggled (its operands are
/// at the crossing, where the sign test is unreliable). Returns whether any value changed.
fn update_relations(
    engine: &mut Engine,
    triggered: Option<(usize, f64, f64)>,
    first: bool,
) -> bool {
    let mut changed = false;
    for (i, r) in engine.prog.relations.iter().enumerate() {
        let old = engine.regs[r.reg as usize];
        let (a, b) = (engine.regs[r.a as usize], engine.regs[r.b as usize]);
        let new = if let Some((_, a0, b0)) = triggered.filter(|t| t.0 == i)
            && (first || ((a - b) - (a0 - b0)).abs() <= 1e-9 * (1.0 + a0.abs() + b0.abs()))
        {
            if first { 1.0 - old } else { old }
        } else {
            apply(
                r.op,
                engine.regs[r.a as usize],
                engine.regs[r.b as usize],
                0.0,
            )
        };
        if new != old {
            changed = true;
            engine.regs[r.reg as usize] = new;
        }
    }
    changed
}

/// The first relation whose value at the current registers differs from the one it keeps
/// (a zero crossing since the last event).
pub fn changed_relation(engine: &Engine) -> Option<usize> {
    engine.prog.relations.iter().position(|r| {
        let now = apply(
            r.op,
            engine.regs[r.a as usize],
            engine.regs[r.b as usize],
            0.0,
        );
        now != engine.regs[r.reg as usize]
    })
}

/// Sets every relation from its operands (at initialization, before any event).
pub fn init_relations(engine: &mut Engine) -> Result<(), BlockError> {
    for _ in 0..5 {
        engine.run_main()?;
        engine.run_outputs();
        if !update_relations(engine, None, false) {
            break;
        }
    }
    Ok(())
}

fn apply_action(
    engine: &mut Engine,
    es: &mut EventState,
    a: &Action,
    t: f64,
) -> Result<bool, EventError> {
    match a {
        Action::Assign { var, value } => {
            let x = engine.regs[*value as usize];
            let changed = engine.regs[*var] != x;
            engine.regs[*var] = x;
            Ok(changed)
        }
        Action::Reinit { var, value } => {
            engine.regs[*var] = engine.regs[*value as usize];
            Ok(false)
        }
        Action::Assert {
            condition,
            message,
            warning,
            span,
        } => {
            if engine.regs[*condition as usize] == 0.0 {
                let text = message_text(message, &engine.regs);
                if *warning {
                    let w = format!("warning at time {t}: assertion failed: {text}");
                    if !es.warnings.contains(&w) {
                        es.warnings.push(w);
                    }
                } else {
                    return Err(EventError::Diagnostic(Box::new(
                        Diagnostic::error(*span, format!("assertion failed at time {t}: {text}"))
                            .with_label("this assert"),
                    )));
                }
            }
            Ok(false)
        }
        Action::Terminate { message } => {
            es.terminated = Some(message_text(message, &engine.regs));
            Ok(false)
        }
    }
}

/// Checks the asserts outside `when` at the current point (after `run_outputs`).
pub fn check_asserts(engine: &Engine, es: &mut EventState, t: f64) -> Result<(), Box<Diagnostic>> {
    for a in &engine.prog.always {
        if let Action::Assert {
            condition,
            message,
            warning,
            span,
        } = a
            && engine.regs[*condition as usize] == 0.0
        {
            {
                let text = message_text(message, &engine.regs);
                if *warning {
                    let w = format!("warning at time {t}: assertion failed: {text}");
                    if !es.warnings.contains(&w) {
                        es.warnings.push(w);
                    }
                } else {
                    return Err(Box::new(
                        Diagnostic::error(*span, format!("assertion failed at time {t}: {text}"))
                            .with_label("this assert"),
                    ));
                }
            }
        }
    }
    Ok(())
}
