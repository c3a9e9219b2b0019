//! Events: relation switching, `when` / `elsewhen`, `reinit`, `pre`, time events, asserts.
//!
//! Between events every relation outside `noEvent` keeps the value it had after the last
//! event (its register is not recomputed by the tape), so the right-hand side is smooth for
//! the integrator. At an event (a root of some `a - b`, a `sample` instant, or initialization)
//! the event iteration runs: relations take their new values, `when` branches whose condition
//! became true fire (assignments, `reinit`, `terminate`), and the whole system is re-evaluated
//! until no discrete value changes (MLS 8.6), with `pre(v)` holding the value before.

use super::engine::{BlockError, Engine};
use super::program::{Action, FailedAssert, WhenClause, message_text};
use super::tape::apply;
use crate::diag::{Diagnostic, Span};

thread_local! {
    pub static DEBUG_VARS: std::cell::RefCell<Vec<(String, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub struct EventState {
    /// Condition values of every `when` branch (each element of a vector condition) after the
    /// last event.
    cond_prev: Vec<Vec<Vec<bool>>>,
    /// Next instant of each `sample`: `start + k * interval` (MLS 3.7.5), computed from the
    /// count `k` in [`Self::sample_index`] at each step, never by adding the interval to the
    /// previous instant (25 additions of 0.001 give 0.025000000000000015, which put the
    /// 25th sample after a `time < 0.025` relation had already switched).
    next_sample: Vec<f64>,
    /// Per `sample`: the index `k` of its next instant.
    sample_index: Vec<f64>,
    /// Set by `terminate(...)`: the message.
    pub terminated: Option<String>,
    /// Warnings from `assert(..., level = warning)`, reported once each.
    pub warnings: Vec<String>,
    pub count: usize,
    /// Per `when` clause: whether its event clock ticked at the current event instant (a
    /// clock ticks at most once per instant, MLS 16.3).
    ticked: Vec<bool>,
    /// Per relation: whether it agreed with its operands when the integration (re)started.
    consistent: Vec<bool>,
    /// The run's time unit ([`super::time_scale::unit`]): times closer than
    /// [`super::time_scale::same_instant`] are one instant.
    pub time_unit: f64,
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
    pub fn new(engine: &Engine, t0: f64, t_end: f64) -> EventState {
        let p = &engine.prog;
        let time_unit = super::time_scale::unit(t0, t_end);
        for line in &p.delays {
            line.set_time_unit(time_unit);
        }
        // Index of the first instant at or after the start time.
        let sample_index: Vec<f64> = p
            .samples
            .iter()
            .map(|s| ((t0 - s.start) / s.interval).ceil().max(0.0))
            .collect();
        EventState {
            cond_prev: p
                .whens
                .iter()
                .map(|w| w.elements.iter().map(|e| vec![false; e.len()]).collect())
                .collect(),
            next_sample: p
                .samples
                .iter()
                .zip(&sample_index)
                .map(|(s, &k)| s.start + k * s.interval)
                .collect(),
            sample_index,
            terminated: None,
            warnings: Vec::new(),
            count: 0,
            ticked: vec![false; p.whens.len()],
            consistent: Vec::new(),
            time_unit,
        }
    }

    /// The next time event strictly after `t`, if any.
    pub fn next_time_event(&self, t: f64) -> Option<f64> {
        self.next_sample
            .iter()
            .copied()
            .filter(|&s| s > t + self.time_eps(t))
            .reduce(f64::min)
    }

    /// Times within this of `t` are one instant.
    pub fn time_eps(&self, t: f64) -> f64 {
        super::time_scale::same_instant(t, self.time_unit)
    }
}

/// Runs the event iteration at time `t` (states already in the engine's registers).
/// `triggered` is the relation whose zero crossing caused the event.
///
/// MLS 8.6, with the discrete part of mixed loops solved as Dymola and OpenModelica do: a
/// *round* solves the whole system with every `pre(v)` fixed. Inside a round, the main pass
/// solves the continuous equations with relations and discrete variables fixed, then the
/// relations are evaluated again from their operands and the `when` / discrete equations
/// applied; this repeats until nothing changes (the friction elements' `sa > f0_max` decides
/// `startForward`, which decides the loop that gives `sa`). Then, when some discrete variable
/// differs from its `pre`, `pre := v` and another round starts.
pub fn event_iteration(
    engine: &mut Engine,
    es: &mut EventState,
    t: f64,
    triggered: Option<usize>,
    initial: bool,
) -> Result<(), EventError> {
    es.count += 1;
    if !initial {
        // The initial event iteration continues the initialization's instant.
        super::funcall::new_instant();
    }
    let time = engine.prog.time as usize;
    engine.regs[time] = t;
    engine.regs[engine.prog.initial as usize] = f64::from(u8::from(initial));
    let active = activate_samples(engine, es, t, initial);
    es.ticked.fill(false);
    let kept = kept_pre(engine, initial);
    let relations_before = super::mixed_search::relation_values(engine);
    copy_pre(engine, &kept);
    engine.run_main()?;
    engine.run_outputs();
    let instant = Instant {
        t,
        triggered: triggered.map(|i| switch_triggered(engine, es, i)),
        initial,
    };
    // The clauses are taken out of the program for the iteration (not cloned at every
    // event: a clause can hold thousands of assignments) and put back whatever the outcome.
    let whens = std::mem::take(&mut engine.prog.whens);
    let always = std::mem::take(&mut engine.prog.always);
    let settled = settle(engine, es, &instant, &kept, &whens, &always);
    engine.prog.whens = whens;
    engine.prog.always = always;
    settled?;
    if initial {
        // The event at the start time follows (`event_iteration` with `initial = false`): it
        // takes these values as `pre` and re-evaluates with `initial()` false. Evaluating
        // here with `initial()` false would already change the discrete variables that
        // depend on it (a friction element's `startBackward = ... or initial() and w < 0`),
        // and their `pre` would miss the initial values.
        for &(v, p) in &engine.prog.pre.clone() {
            engine.regs[p as usize] = engine.regs[v as usize];
        }
        engine.invalidate();
        return Ok(());
    }
    leave_event(engine, es, &active, &relations_before)
}

/// Sets the sample registers for the instants active at `t` and returns which are. Not at
/// initialization: a sample at the start time fires at the event right after it (as `when`
/// clauses do not act at initialization unless their condition has `initial()`).
fn activate_samples(engine: &mut Engine, es: &EventState, t: f64, initial: bool) -> Vec<bool> {
    let mut active = vec![false; es.next_sample.len()];
    for (i, s) in engine.prog.samples.clone().iter().enumerate() {
        active[i] = !initial && (es.next_sample[i] - t).abs() <= es.time_eps(t) * 10.0;
        engine.regs[s.reg as usize] = f64::from(u8::from(active[i]));
    }
    active
}

/// The `pre` registers the event does not overwrite with the values just before it. At
/// initialization, the `pre` values that initial equations determined are unknowns of the
/// initial system and stay as solved. So do those of discrete variables with `fixed = true`:
/// `pre(v) = v.start`.
fn kept_pre(engine: &Engine, initial: bool) -> Vec<u32> {
    if !initial {
        return Vec::new();
    }
    let mut kept: Vec<u32> = engine
        .prog
        .initial_assigns
        .iter()
        .filter_map(|a| a.pre)
        .collect();
    for &p in &engine.prog.pre_fixed {
        if !kept.contains(&p) {
            kept.push(p);
        }
    }
    kept
}

/// The triggered relation `i` takes its new value; returns it with its operands. The root
/// finder stops just past the crossing, so the comparison usually gives it; when rounding (a
/// loop solved again from another start) puts the operands back on the old side, it is
/// toggled, but only if it agreed with its operands when the integration started: a relation
/// that did not (itself toggled at the previous event) crosses back to agreement, which is no
/// change. It keeps that value only while its operands stay where they crossed: when the
/// event changes them (`time >= pre(next)` after `next` moved on), it is evaluated again, or
/// it would stay true and never fire again.
fn switch_triggered(engine: &mut Engine, es: &EventState, i: usize) -> Triggered {
    let r = engine.prog.relations[i].clone();
    let (a, b) = (engine.regs[r.a as usize], engine.regs[r.b as usize]);
    let old = engine.regs[r.reg as usize];
    let now = apply(r.op, a, b, 0.0);
    let value = if now != old {
        now
    } else if es.consistent.get(i).copied().unwrap_or(true) {
        1.0 - old
    } else {
        old
    };
    engine.regs[r.reg as usize] = value;
    (i, a, b, value)
}

/// Back to continuous time after an event: samples off (the active ones move to their next
/// instant), and the conditions remembered as they are between events so that the next edge
/// is detected. `relations_before` are the relation values before the event: those it
/// switched get hysteresis ([`note_consistency`]).
fn leave_event(
    engine: &mut Engine,
    es: &mut EventState,
    active: &[bool],
    relations_before: &[bool],
) -> Result<(), EventError> {
    for (i, s) in engine.prog.samples.clone().iter().enumerate() {
        engine.regs[s.reg as usize] = 0.0;
        if active[i] {
            es.sample_index[i] += 1.0;
            es.next_sample[i] = s.start + es.sample_index[i] * s.interval;
        }
    }
    engine.regs[engine.prog.initial as usize] = 0.0;
    engine.run_main()?;
    engine.run_outputs();
    for (k, w) in engine.prog.whens.iter().enumerate() {
        es.cond_prev[k] = conditions(engine, w);
    }
    for &(v, p) in &engine.prog.pre.clone() {
        engine.regs[p as usize] = engine.regs[v as usize];
    }
    note_consistency(engine, es, Some(relations_before));
    engine.invalidate();
    Ok(())
}

/// The triggered relation after [`switch_triggered`]: index, operands, value.
type Triggered = (usize, f64, f64, f64);

/// The event instant the iteration settles.
struct Instant {
    t: f64,
    triggered: Option<Triggered>,
    /// At initialization (`initial()` true).
    initial: bool,
}

/// The rounds of the event iteration (see [`event_iteration`]) until no `pre` value differs.
fn settle(
    engine: &mut Engine,
    es: &mut EventState,
    at: &Instant,
    kept: &[u32],
    whens: &[WhenClause],
    always: &[Action],
) -> Result<(), EventError> {
    let mut rounds = 0;
    loop {
        rounds += 1;
        if rounds > 100 {
            return Err(EventError::Diagnostic(Box::new(Diagnostic::error(
                Span::DUMMY,
                format!("the event iteration at time {} did not converge after 100 rounds", at.t),
            ).with_help("discrete variables keep changing each other; check `when` conditions that depend on their own results"))));
        }
        settle_round(engine, es, at, whens, always, rounds)?;
        for (k, w) in whens.iter().enumerate() {
            es.cond_prev[k] = conditions(engine, w);
        }
        let pre_differs = engine.prog.pre.iter().any(|&(v, p)| {
            !kept.contains(&p) && engine.regs[v as usize] != engine.regs[p as usize]
        });
        if !pre_differs {
            break;
        }
        copy_pre(engine, kept);
        // Relations on `pre` values (`pre(mode) == Stuck`) follow at once; the others agree
        // with their operands after a settled round.
        update_relations(engine, at.triggered);
    }
    Ok(())
}

/// What the passes of one round remember about each `when` clause.
struct RoundWhens {
    /// Values of each clause's assigned variables at the start of the round (their `pre`),
    /// taken when the clause first fires in the round: only its own actions assign them
    /// (MLS 8.3.5: one `when` per variable), so they still hold the round's start values.
    snapshot: Vec<Option<Vec<(usize, f64)>>>,
    /// The branch that fired in the last pass.
    fired_before: Vec<Option<usize>>,
}

/// One round: passes with every `pre` fixed until no relation switches and no action changes
/// a value, then the asserts checked on the settled values.
fn settle_round(
    engine: &mut Engine,
    es: &mut EventState,
    at: &Instant,
    whens: &[WhenClause],
    always: &[Action],
    round: usize,
) -> Result<(), EventError> {
    let mut state = RoundWhens {
        snapshot: vec![None; whens.len()],
        fired_before: vec![None; whens.len()],
    };
    let mut passes = 0;
    let mut seen: Vec<Vec<bool>> = Vec::new();
    // Event clocks tick on the settled values of the instant (a pass that changed nothing):
    // a condition true only midway (before a simultaneous time event has changed what it
    // compares) is no tick (MLS 16.9).
    let has_clocks = whens.iter().any(|w| w.clocked);
    let mut clocks_due = false;
    loop {
        passes += 1;
        if passes == 1 {
            if debug_events() {
                debug_print_vars(engine, "   before: ");
            }
            engine.run_main_holding()?;
        } else {
            engine.run_main()?;
        }
        engine.run_outputs();
        let mut changed = fire_whens(engine, es, at, whens, &mut state, clocks_due)?;
        // Asserts are checked once the iteration has settled (below): a pass in between
        // sees values that the next pass still changes (MLS 8.3.7).
        for a in always
            .iter()
            .filter(|a| !matches!(a, Action::Assert { .. }))
        {
            changed |= apply_action(engine, es, a, at.t)?;
        }
        let switched = switch_relations(engine, at.triggered, changed, &mut seen)?;
        if debug_events() {
            debug_print_vars(engine, "   ");
            debug_print_pass(engine, at.t, round, passes, changed, switched);
        }
        // A first pass held the iteration variables of mixed loops: they are settled
        // only once a pass has computed them from the discrete values of this round.
        let held = passes == 1 && !engine.prog.iteration_steps.is_empty();
        let settled = switched.is_none() && !changed && !held;
        if settled && (clocks_due || !has_clocks) {
            return check_settled_asserts(engine, es, at.t, whens, always, &state.fired_before);
        }
        clocks_due = settled;
        if passes > 50 {
            return Err(EventError::Diagnostic(Box::new(chattering(
                engine, at.t, switched,
            ))));
        }
    }
}

/// Applies the `when` clauses whose conditions fire in this pass, and restores the values of
/// those that fell back; returns whether a value changed. Event clocks may tick only when
/// `clocks_due` (the last pass settled).
fn fire_whens(
    engine: &mut Engine,
    es: &mut EventState,
    at: &Instant,
    whens: &[WhenClause],
    state: &mut RoundWhens,
    clocks_due: bool,
) -> Result<bool, EventError> {
    let mut changed = false;
    for (k, w) in whens.iter().enumerate() {
        let fired = if w.clocked && state.fired_before[k].is_some() {
            // A clock's tick stands for the instant once taken: the partition it runs may
            // make its condition false again (a rotational clock resets the angle it watches
            // through `hold`), which does not undo the tick (MLS 16.3, 16.9).
            state.fired_before[k]
        } else if w.clocked && (es.ticked[k] || !clocks_due) {
            // Ticked in an earlier round of this instant (a clock ticks once per instant), or
            // the pass has not settled yet.
            None
        } else {
            rising_branch(es, at, w, k, &engine.regs)
        };
        if w.clocked && fired.is_some() {
            es.ticked[k] = true;
        }
        match fired {
            Some(b) => {
                if state.snapshot[k].is_none() {
                    state.snapshot[k] = Some(assigned_values(engine, w));
                }
                super::when_bodies::run_body(engine, w, b);
                // Actions other than assignments (reinit, terminate, asserts) act once per
                // round.
                let first = state.fired_before[k] != Some(b);
                for a in &w.branches[b].1 {
                    // Asserts are checked once the passes settle: here the relations may
                    // still hold their values from before the event (at initialization,
                    // from the start values).
                    if matches!(a, Action::Assert { .. }) {
                        continue;
                    }
                    if first || matches!(a, Action::Assign { .. }) {
                        changed |= apply_action(engine, es, a, at.t)?;
                    }
                }
                state.fired_before[k] = Some(b);
            }
            None if state.fired_before[k].is_some() => {
                // The condition fell back within the round: `v = pre(v)` again.
                for &(v, x) in state.snapshot[k].iter().flatten() {
                    changed |= engine.regs[v] != x;
                    engine.regs[v] = x;
                }
                state.fired_before[k] = None;
            }
            None => {}
        }
    }
    Ok(changed)
}

/// The first branch of clause `k` whose condition rises at this pass (an element true now that
/// was false after the last event; at initialization, a true condition with `initial()` or
/// of an event clock).
fn rising_branch(
    es: &EventState,
    at: &Instant,
    w: &WhenClause,
    k: usize,
    regs: &[f64],
) -> Option<usize> {
    (0..w.branches.len()).find(|&b| {
        let mut rising = w.elements[b]
            .iter()
            .enumerate()
            .filter(|&(_, &r)| regs[r as usize] != 0.0)
            .map(|(e, _)| e);
        if at.initial {
            // An event clock whose condition is true at initialization has become true
            // (from `false` before the start): it ticks (MLS 16.3).
            (w.initial[b] || w.clocked) && rising.next().is_some()
        } else {
            rising.any(|e| !es.cond_prev[k][b][e])
        }
    })
}

/// Evaluates the relations again from their operands; returns the one that switched, if any.
/// Relations back at values of an earlier pass (`seen`) mean the loop cycles between modes
/// that each contradict themselves: its relations are searched (`sim/mixed_search.rs`).
fn switch_relations(
    engine: &mut Engine,
    triggered: Option<Triggered>,
    changed: bool,
    seen: &mut Vec<Vec<bool>>,
) -> Result<Option<usize>, EventError> {
    let mut switched = update_relations(engine, triggered);
    let values = super::mixed_search::relation_values(engine);
    if let Some(i) = switched.filter(|_| !changed && seen.contains(&values)) {
        if operands_equal_but_for_rounding(engine, i) {
            // The cycle is rounding noise: the operands are equal to the last digits and
            // their sign flips with each solve of the loop (EngineV6's pistons at dead
            // centre, `v_rel` = +-5e-16). Either value is consistent at this instant; the one
            // it has now is kept, and a later real move to the other side is a zero crossing
            // (`root_baseline.rs`).
            switched = None;
        } else if super::mixed_search::resolve(engine, i)? {
            seen.clear();
            switched = Some(i);
        }
    } else {
        seen.push(values);
    }
    Ok(switched)
}

/// The asserts, outside `when` and in the branches that fired, checked on the settled values.
fn check_settled_asserts(
    engine: &mut Engine,
    es: &mut EventState,
    t: f64,
    whens: &[WhenClause],
    always: &[Action],
    fired_before: &[Option<usize>],
) -> Result<(), EventError> {
    for a in always.iter().filter(|a| matches!(a, Action::Assert { .. })) {
        apply_action(engine, es, a, t)?;
    }
    for (k, w) in whens.iter().enumerate() {
        let Some(b) = fired_before[k] else { continue };
        for a in w.branches[b].1.iter() {
            if matches!(a, Action::Assert { .. }) {
                apply_action(engine, es, a, t)?;
            }
        }
    }
    Ok(())
}

/// `MINIMO_DEBUG_EVENTS` set: each pass of the event iteration is printed.
fn debug_events() -> bool {
    std::env::var_os("MINIMO_DEBUG_EVENTS").is_some()
}

/// Prints the variables registered for debugging (`DEBUG_VARS`) after `prefix`.
fn debug_print_vars(engine: &Engine, prefix: &str) {
    DEBUG_VARS.with(|d| {
        let d = d.borrow();
        let txt: Vec<String> = d
            .iter()
            .map(|(n, r)| format!("{n}={}", engine.regs[*r]))
            .collect();
        eprintln!("{prefix}{}", txt.join(" "));
    });
}

fn debug_print_pass(
    engine: &Engine,
    t: f64,
    round: usize,
    pass: usize,
    changed: bool,
    switched: Option<usize>,
) {
    eprintln!(
        "event t={t} round {round} pass {pass}: changed {changed}, relation {:?}",
        switched.map(|i| {
            let r = &engine.prog.relations[i];
            format!(
                "{} = {} ({}, {})",
                r.text,
                engine.regs[r.reg as usize],
                engine.regs[r.a as usize],
                engine.regs[r.b as usize]
            )
        })
    );
}

/// The variables the branches of `w` assign, with their current values.
fn assigned_values(engine: &Engine, w: &WhenClause) -> Vec<(usize, f64)> {
    w.branches
        .iter()
        .flat_map(|(_, acts)| acts.iter())
        .filter_map(|a| match a {
            Action::Assign { var, .. } => Some((*var, engine.regs[*var])),
            _ => None,
        })
        .collect()
}

/// The value of every element of every branch condition of `w`.
fn conditions(engine: &Engine, w: &WhenClause) -> Vec<Vec<bool>> {
    w.elements
        .iter()
        .map(|e| e.iter().map(|&r| engine.regs[r as usize] != 0.0).collect())
        .collect()
}

/// Remembers which relations agree with their operands where the integration starts (see
/// the triggered relation in [`event_iteration`]).
/// Also sets the hysteresis of the zero-crossing functions of those that disagree by rounding,
/// and of those the event just switched whose operands are still within rounding of the
/// switching point (`sim/relation_hysteresis.rs`); `before` holds the relation values before
/// the event (`None` at the start of the run: nothing switched).
pub fn note_consistency(engine: &mut Engine, es: &mut EventState, before: Option<&[bool]>) {
    es.consistent = engine
        .prog
        .relations
        .iter()
        .map(|r| {
            apply(
                r.op,
                engine.regs[r.a as usize],
                engine.regs[r.b as usize],
                0.0,
            ) == engine.regs[r.reg as usize]
        })
        .collect();
    let regs = &engine.regs;
    engine.root_shift = engine
        .prog
        .relations
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let kept = regs[r.reg as usize] != 0.0;
            let switched = before.is_some_and(|b| b.get(i).is_some_and(|&v| v != kept));
            super::relation_hysteresis::shift(
                r.op,
                regs[r.a as usize],
                regs[r.b as usize],
                kept,
                switched,
            )
        })
        .collect();
    if let Some(before) = before {
        let unit = es.time_unit;
        super::relation_hysteresis::drop_band_where_mode_leaves(
            engine,
            before,
            &es.consistent,
            unit,
        );
    }
}

impl EventState {
    /// The integrator found relation `i` crossing. From agreement with its operands to
    /// disagreement (`from_agreement`: its crossing function started the segment agreeing,
    /// `root_baseline.rs`), at the event it changes even when evaluating its operands again
    /// puts them back by rounding. Otherwise the root finder's first value already disagreed,
    /// by more than rounding, with the value the event left it (the loops solved again at the
    /// same instant from other start values: an ideal diode switched off with the voltage
    /// -1.5e-5 V at the event and +3.2e-5 V where the segment started), and the crossing is
    /// the way back to the kept value: at the event it stays as it is unless its operands say
    /// otherwise. Toggling it there turned the diode on again with a negative current, and
    /// the event iteration cycled between the two modes.
    pub fn crossed(&mut self, i: usize, from_agreement: bool) {
        if let Some(c) = self.consistent.get_mut(i) {
            *c = from_agreement;
        }
    }
}

/// The error for a relation that keeps switching within one event (chattering).
fn chattering(engine: &Engine, t: f64, relation: Option<usize>) -> Diagnostic {
    // A call that failed gives NaN, which differs from itself at every pass: the failure is
    // the cause to report, not switching.
    if let Some(m) = super::funcall::take_failure() {
        return Diagnostic::error(
            Span::DUMMY,
            format!("at time {t}, a function called at this event failed: {m}"),
        );
    }
    let what = match relation {
        Some(i) => {
            let r = &engine.prog.relations[i];
            format!(
                "the relation `{}` keeps switching (its operands are {} and {})",
                r.text, engine.regs[r.a as usize], engine.regs[r.b as usize]
            )
        }
        None => "discrete variables keep switching".to_string(),
    };
    Diagnostic::error(
        Span::DUMMY,
        format!("at time {t}, the event iteration does not settle: {what} (chattering: each value makes the condition flip back)"),
    )
    .with_help("the model switches back and forth at this instant without time advancing; add hysteresis (e.g. `when`/`pre` with two thresholds) or smooth the switching condition")
}

/// `pre(v) := v` for every `pre` register except `kept`.
fn copy_pre(engine: &mut Engine, kept: &[u32]) {
    for &(v, p) in &engine.prog.pre {
        if !kept.contains(&p) {
            engine.regs[p as usize] = engine.regs[v as usize];
        }
    }
}

/// Sets relation registers from their operands; the triggered one has the value it took at
/// the event while its operands stay where they crossed (also after a pass that moved them
/// and changed it: a mode that brings them back to the crossing is the mode it left, and the
/// cycle is then seen and resolved by `sim/mixed_search.rs`). Returns the first relation that
/// changed, if any.
fn update_relations(
    engine: &mut Engine,
    triggered: Option<(usize, f64, f64, f64)>,
) -> Option<usize> {
    let mut changed = None;
    for (i, r) in engine.prog.relations.iter().enumerate() {
        let old = engine.regs[r.reg as usize];
        let (a, b) = (engine.regs[r.a as usize], engine.regs[r.b as usize]);
        let new = if let Some((_, a0, b0, v0)) = triggered.filter(|t| t.0 == i)
            && ((a - b) - (a0 - b0)).abs() <= ROUNDING * (1.0 + a0.abs() + b0.abs())
        {
            v0
        } else {
            apply(r.op, a, b, 0.0)
        };
        if new != old {
            changed.get_or_insert(i);
            engine.regs[r.reg as usize] = new;
        }
    }
    changed
}

/// The largest difference of a relation's operands, relative to `1 + |a| + |b|`, that counts
/// as rounding: within it a triggered relation's operands count as unmoved, a cycle is noise
/// (below), and a crossing function gets a band (`root_baseline.rs`, `relation_hysteresis.rs`).
pub(super) const ROUNDING: f64 = 1e-9;

/// Whether relation `i`'s operands are equal within rounding (the margin within which the
/// triggered relation counts as unmoved in [`update_relations`]).
fn operands_equal_but_for_rounding(engine: &Engine, i: usize) -> bool {
    let r = &engine.prog.relations[i];
    let (a, b) = (engine.regs[r.a as usize], engine.regs[r.b as usize]);
    (a - b).abs() <= ROUNDING * (1.0 + a.abs() + b.abs())
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
///
/// The first pass runs with the relations at their placeholder values, so it may take a branch
/// that means nothing at the start: a pulse source whose `time < TD` still reads false divides
/// by its zero-length falling phase, and the loops downstream see an infinite voltage. A block
/// that fails in such a pass does not stop it (`Engine::run_main_continuing`); the relations
/// are set from the operands the pass computed, and only a pass that leaves them unchanged (or
/// the last one) decides, with its first failure as the error.
///
/// With `from_starts`, every pass after one that changed a relation starts the nonlinear
/// loops from their start values again (MLS 8.6: the start values are the guesses of the
/// iteration), not from what the pass with the placeholder relations made of them: a ramp
/// whose `time < startTime + duration` still reads false gives its final value, a loop solved
/// for that target lands far away, and from there Newton may reach another root than from
/// the start (a mass flow found from `kc = f(abs(m_flow))` at -0.35 kg/s with `start = 0.1`).
pub fn init_relations(engine: &mut Engine, from_starts: bool) -> Result<(), BlockError> {
    let mut failure = None;
    for _ in 0..5 {
        // Failures of the passes before the relations settled are not the model's: none may
        // be reported later as the cause of an integrator failure or of a NaN. Those of the
        // deciding pass stay (a function call that fails whatever the relations say).
        engine.last_error = None;
        let _ = super::funcall::take_failure();
        failure = engine.run_main_continuing();
        engine.run_outputs();
        if update_relations(engine, None).is_none() {
            break;
        }
        if from_starts {
            restart_loops(engine);
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(())
}

/// Puts the unknowns of every nonlinear loop back to their start values (the guesses the
/// first pass had), for [`init_relations`].
fn restart_loops(engine: &mut Engine) {
    for si in 0..engine.prog.steps.len() {
        if let super::program::Step::Implicit { linear: false, .. } = &engine.prog.steps[si] {
            for &v in engine.blocks[si].vars.iter() {
                engine.regs[v] = engine.prog.init_regs[v];
            }
            engine.blocks[si].factored = false;
        }
    }
    engine.invalidate();
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
        Action::Assert { .. } => {
            check_assert(engine, es, a, t).map_err(EventError::Diagnostic)?;
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
        check_assert(engine, es, a, t)?;
    }
    Ok(())
}

/// One assert at time `t`: a failed one of level `warning` is noted once, of level `error` is
/// the error. A NaN condition failed too: it is a call that failed (a function called for its
/// effect, `flatten/effect_call.rs`), and the call's own message says why.
fn check_assert(
    engine: &Engine,
    es: &mut EventState,
    a: &Action,
    t: f64,
) -> Result<(), Box<Diagnostic>> {
    for w in super::funcall::take_effect_warnings() {
        let w = format!("warning at time {t}: {w}");
        if !es.warnings.contains(&w) {
            es.warnings.push(w);
        }
    }
    let Some(FailedAssert {
        text,
        warning,
        span,
    }) = a.failed_assert(&engine.regs)
    else {
        return Ok(());
    };
    if warning {
        let w = format!("warning at time {t}: assertion failed: {text}");
        if !es.warnings.contains(&w) {
            es.warnings.push(w);
        }
        return Ok(());
    }
    Err(Box::new(
        Diagnostic::error(span, format!("assertion failed at time {t}: {text}"))
            .with_label("this assert"),
    ))
}
