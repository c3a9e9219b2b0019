//! Stepping through one integration phase: output points by interpolation, state and time
//! events, the event iteration at each, chattering, the terminal event; and the same for a
//! model without states (evaluation at the output points, events located by bisection).

use super::SimStats;
use super::diffsol_adapter::SimEqn;
use super::engine::Engine;
use super::errors::{block_error, non_finite_error, solver_error};
use super::events::{EventError, EventState, changed_relation, check_asserts, event_iteration};
use super::results::Recorder;
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;
use diffsol::error::{DiffsolError, OdeSolverError};
use diffsol::{Matrix, OdeEquations, OdeSolverMethod, OdeSolverStopReason, Vector};

/// A run in progress as the integration phases step it: the system (after re-selections), the
/// output points still due, the recorded rows, the event state and the step statistics.
pub(super) struct Stepper<'s> {
    pub(super) base: &'s SortedSystem,
    /// The system after a re-selection of states, if any.
    pub(super) alt: Option<std::rc::Rc<SortedSystem>>,
    /// Where the current phase starts (after a re-selection).
    pub(super) t_restart: f64,
    /// Whether to watch the dynamic state sets.
    pub(super) monitor: bool,
    pub(super) t_end: f64,
    pub(super) interval: f64,
    pub(super) t0: f64,
    /// Index of the next output point `t0 + k * interval`.
    pub(super) k: u64,
    pub(super) rec: Recorder,
    pub(super) es: EventState,
    /// The first time and the number of the state events close together (see
    /// [`check_chattering`]).
    pub(super) burst: (f64, usize),
    pub(super) stats: SimStats,
    pub(super) progress: Option<indicatif::ProgressBar>,
    /// [`super::SimOptions::max_steps`].
    pub(super) max_steps: Option<usize>,
}

pub(super) enum SegmentEnd {
    Finished,
    Reselect {
        t: f64,
        y: Vec<f64>,
        prefer: Vec<crate::dae::VarId>,
    },
    Event {
        t: f64,
        y: Vec<f64>,
        triggered: Option<usize>,
    },
}

impl Stepper<'_> {
    pub(super) fn sys(&self) -> &SortedSystem {
        self.alt.as_deref().unwrap_or(self.base)
    }
    pub(super) fn next_out(&self) -> f64 {
        (self.t0 + self.k as f64 * self.interval).min(self.t_end)
    }

    /// Records the output points up to `t` (inclusive or not) by interpolation.
    pub(super) fn outputs_until<'a, Eqn, S>(
        &mut self,
        solver: &S,
        eqn: &SimEqn<Eqn::M>,
        t: f64,
        inclusive: bool,
    ) -> Result<(), Vec<Diagnostic>>
    where
        Eqn: OdeEquations<T = f64> + 'a,
        Eqn::M: Matrix<T = f64, V = Eqn::V>,
        S: OdeSolverMethod<'a, Eqn>,
    {
        loop {
            let to = self.next_out();
            let done_all = self.k > 0
                && to >= self.t_end
                && self.rec.time.last().is_some_and(|&l| l >= self.t_end);
            if done_all || to > t || (!inclusive && to >= t) {
                return Ok(());
            }
            // An output point past the solver's time by rounding only (the stop time reached
            // within diffsol's round-off, or an event there): the state itself is the value.
            let st = solver.state();
            let ys = if to > st.t {
                st.y.clone_as_vec()
            } else {
                solver
                    .interpolate(to)
                    .map_err(|e| solver_error(e, to))?
                    .clone_as_vec()
            };
            let mut e = eqn.engine.borrow_mut();
            if let Err(err) = e.eval_at(to, &ys[..eqn.nx]) {
                return Err(vec![block_error(self.sys(), &e.prog, &err)]);
            }
            e.run_outputs();
            // A variable that is not a state can be NaN while every state is fine (a failed
            // function call, an out-of-range variable subscript): never write it as a result.
            let computed = &e.prog.computed_by;
            if (0..computed.len()).any(|v| computed[v].is_some() && !e.regs[v].is_finite())
                && let Some(d) = non_finite_error(self.sys(), &mut e, to)
            {
                return Err(vec![d]);
            }
            check_asserts(&e, &mut self.es, to).map_err(|d| vec![*d])?;
            self.rec.record(to, &e);
            drop(e);
            if let Some(pb) = &self.progress {
                pb.set_position(((to - self.t0) / (self.t_end - self.t0) * 1000.0) as u64);
            }
            self.k += 1;
            if to >= self.t_end {
                return Ok(());
            }
        }
    }

    /// The accepted step to `t` as a point of the history of each `delay` (`delay.rs`).
    fn accept_delays<'a, Eqn, S>(
        &self,
        solver: &S,
        eqn: &SimEqn<Eqn::M>,
        t: f64,
    ) -> Result<(), Vec<Diagnostic>>
    where
        Eqn: OdeEquations<T = f64> + 'a,
        Eqn::M: Matrix<T = f64, V = Eqn::V>,
        S: OdeSolverMethod<'a, Eqn>,
    {
        let mut y = solver.state().y.clone_as_vec();
        y.truncate(eqn.nx);
        let mut e = eqn.engine.borrow_mut();
        if let Err(err) = e.eval_at(t, &y) {
            return Err(vec![block_error(self.sys(), &e.prog, &err)]);
        }
        e.run_outputs();
        super::delay::record(&e.prog.delays, t, &e.regs);
        Ok(())
    }

    /// The solver accepted a step: its loops' solutions there become the next anchors
    /// (`sim/loop_anchor.rs`). Only for programs with nonlinear loops, where it costs an
    /// evaluation unless the root functions just made one at that point.
    fn accept<'a, Eqn, S>(&self, solver: &S, eqn: &SimEqn<Eqn::M>)
    where
        Eqn: OdeEquations<T = f64> + 'a,
        Eqn::M: Matrix<T = f64, V = Eqn::V>,
        S: OdeSolverMethod<'a, Eqn>,
    {
        let mut e = eqn.engine.borrow_mut();
        if !e.has_anchors() {
            return;
        }
        let st = solver.state();
        let y = st.y.clone_as_vec();
        // A failure here keeps the previous anchors; the integrator evaluated this point
        // already, so it is not expected.
        let _ = e.accept_point(st.t, &y[..eqn.nx]);
    }

    /// The solver stands at `stop`: the end of the run, or a time event.
    pub(super) fn stop_reached<'a, Eqn, S>(
        &mut self,
        solver: &S,
        eqn: &SimEqn<Eqn::M>,
        stop: f64,
    ) -> Result<SegmentEnd, Vec<Diagnostic>>
    where
        Eqn: OdeEquations<T = f64> + 'a,
        Eqn::M: Matrix<T = f64, V = Eqn::V>,
        S: OdeSolverMethod<'a, Eqn>,
    {
        if stop >= self.t_end {
            self.outputs_until(solver, eqn, self.t_end, true)?;
            return Ok(SegmentEnd::Finished);
        }
        let t = solver.state().t;
        self.outputs_until(solver, eqn, t, false)?;
        let mut y = solver.state().y.clone_as_vec();
        y.truncate(eqn.nx);
        // The scheduled time itself, so that the time event is recognised as due.
        Ok(SegmentEnd::Event {
            t: stop.max(t),
            y,
            triggered: None,
        })
    }

    pub(super) fn segment<'a, Eqn, S>(
        &mut self,
        solver: &mut S,
        eqn: &SimEqn<Eqn::M>,
    ) -> Result<SegmentEnd, Vec<Diagnostic>>
    where
        Eqn: OdeEquations<T = f64> + 'a,
        Eqn::M: Matrix<T = f64, V = Eqn::V>,
        S: OdeSolverMethod<'a, Eqn>,
    {
        let t_start = solver.state().t;
        let delayed = super::delay::next_event(&eqn.engine.borrow().prog.delays, t_start);
        let stop = match super::delay::earlier(self.es.next_time_event(t_start), delayed) {
            Some(te) if te < self.t_end => te,
            _ => self.t_end,
        };
        match solver.set_stop_time(stop) {
            Ok(()) => {}
            // The solver already stands at `stop` within diffsol's round-off (an event found
            // at the stop time or just before a time event): that stop is reached, no step.
            Err(DiffsolError::OdeSolverError(OdeSolverError::StopTimeAtCurrentTime)) => {
                return self.stop_reached(solver, eqn, stop);
            }
            Err(e) => return Err(solver_error(e, t_start)),
        }
        let steps0 = solver.get_statistics().number_of_steps;
        let result = loop {
            let t_before = solver.state().t;
            if std::env::var_os("MINIMO_DEBUG_ROOTS").is_some() {
                eprintln!("step from t={t_before} h={}", solver.state().h);
            }
            if let Some(max) = self.max_steps {
                let taken = self.stats.steps + solver.get_statistics().number_of_steps - steps0;
                if taken >= max {
                    return Err(vec![Diagnostic::error(
                        Span::DUMMY,
                        format!("the step limit ({max} steps) was reached at time {t_before}"),
                    )]);
                }
            }
            match solver.step() {
                Ok(OdeSolverStopReason::InternalTimestep) => {
                    let t = solver.state().t;
                    self.accept(solver, eqn);
                    self.outputs_until(solver, eqn, t, true)?;
                    if !eqn.engine.borrow().prog.delays.is_empty() {
                        self.accept_delays(solver, eqn, t)?;
                    }
                    eqn.engine.borrow_mut().commit_anchors();
                    settle_algebraic(solver, eqn);
                    if self.monitor {
                        let mut y = solver.state().y.clone_as_vec();
                        y.truncate(eqn.nx);
                        let mut e = eqn.engine.borrow_mut();
                        if e.eval_at(t, &y).is_ok() {
                            e.run_outputs();
                            if let Some(prefer) = super::statesel::check(&mut e) {
                                break SegmentEnd::Reselect { t, y, prefer };
                            }
                        }
                    }
                }
                Ok(OdeSolverStopReason::TstopReached) => {
                    break self.stop_reached(solver, eqn, stop)?;
                }
                Ok(OdeSolverStopReason::RootFound(t, idx)) => {
                    // A crossing from agreement (`root_baseline.rs`): the event changes it.
                    // One from disagreement where the root finder started (by more than
                    // rounding, so no band) is a crossing back to the kept value: no change.
                    let agreed = eqn.baseline.borrow().agreed(idx);
                    self.es.crossed(idx, agreed);
                    self.outputs_until(solver, eqn, t, false)?;
                    let mut y = solver
                        .interpolate(t)
                        .map_err(|e| solver_error(e, t))?
                        .clone_as_vec();
                    y.truncate(eqn.nx);
                    break SegmentEnd::Event {
                        t,
                        y,
                        triggered: Some(idx),
                    };
                }
                Err(err) => {
                    // Explain with the model's words when we can.
                    let mut e = eqn.engine.borrow_mut();
                    let near = 1e-6 * (1.0 + t_before.abs()) + (solver.state().h).abs() * 2.0;
                    if let Some(be) = e
                        .last_error
                        .clone()
                        .filter(|be| (be.time - t_before).abs() <= near)
                    {
                        // The integrator gave up (too many failures, step too small) after
                        // this block failed at its trial points: both facts help the user.
                        let d = block_error(self.sys(), &e.prog, &be)
                            .with_note(format!("the integrator then stopped: {err}"));
                        return Err(vec![d]);
                    }
                    if let Some((t, y)) = e.nan_at.clone() {
                        let time = e.prog.time as usize;
                        e.regs[time] = t;
                        for (i, &(s, _)) in e.prog.states.clone().iter().enumerate() {
                            e.regs[s] = y[i];
                        }
                        if let Some(d) = non_finite_error(self.sys(), &mut e, t) {
                            return Err(vec![d]);
                        }
                    }
                    return Err(vec![solver_error(err, t_before)[0].clone()]);
                }
            }
        };
        let st = solver.get_statistics();
        self.stats.steps += st.number_of_steps - steps0;
        self.stats.rejected_steps +=
            st.number_of_error_test_failures + st.number_of_nonlinear_solver_fails;
        self.stats.error_test_failures += st.number_of_error_test_failures;
        self.stats.newton_failures += st.number_of_nonlinear_solver_fails;
        self.stats.newton_iterations += st.number_of_nonlinear_solver_iterations;
        Ok(result)
    }
}

/// Makes the error-controlled algebraic components (`integrate.rs`, [`error_controlled`]) of
/// an accepted step agree with the main pass at its states again when their offset would
/// stall the error test. The integrator's Newton iteration may stop after one iteration with
/// a Jacobian from earlier steps (its test is on the size of the update, with the convergence
/// rate of the previous steps), and the rows of these components depend on the states through
/// that Jacobian: the accepted point then holds them off their value, and that point is the
/// start of every later predictor. Each later corrector makes them consistent, so the
/// predictor-corrector difference the error test reads keeps that offset however small the
/// step: BDF rejected 40 steps in a row (ActuatorWithNoise at 1e-5: the stator-frame currents
/// of a machine, the dummy states of its state set, 1.7e-4 off, 14 error weights).
/// Writing the values into the solver's state makes it restart its history from this point
/// (order one for BDF), which costs steps and accuracy: settling every offset whose weighted
/// RMS norm exceeded 1 doubled the steps of examples/pendulum_horizontal.mo and made its error
/// four times larger. So only an offset that stalls the test is settled: one whose weighted RMS
/// norm (the error test's own norm over the whole state vector) times BDF's largest error
/// constant (0.315, at order one) exceeds 1, which no step size can pass.
///
/// [`error_controlled`]: super::integrate::error_controlled
fn settle_algebraic<'a, Eqn, S>(solver: &mut S, eqn: &SimEqn<Eqn::M>)
where
    Eqn: OdeEquations<T = f64> + 'a,
    Eqn::M: Matrix<T = f64, V = Eqn::V>,
    S: OdeSolverMethod<'a, Eqn>,
{
    if eqn.alg.is_empty() {
        return;
    }
    let nx = eqn.nx;
    let (t, y) = {
        let st = solver.state();
        (st.t, st.y.clone_as_vec())
    };
    let mut e = eqn.engine.borrow_mut();
    // A failure here leaves the state as the solver accepted it; its next step meets it.
    if e.eval_at(t, &y[..nx]).is_err() {
        return;
    }
    let consistent: Vec<f64> = eqn.alg.iter().map(|&r| e.regs[r as usize]).collect();
    drop(e);
    let p = solver.problem();
    let atol = p.atol.clone_as_vec();
    let sum: f64 = consistent
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let k = nx + i;
            ((g - y[k]) / (atol[k] + p.rtol * y[k].abs())).powi(2)
        })
        .sum();
    if sum.sqrt() * STALLING_ERROR_CONSTANT <= (y.len() as f64).sqrt() {
        return;
    }
    let st = solver.state_mut();
    for (i, g) in consistent.into_iter().enumerate() {
        st.y.set_index(nx + i, g);
    }
}

/// BDF's error constant at order one, `1/2 - 0.185` (diffsol's `kappa` for NDF), the largest
/// of its orders: the factor from the predictor-corrector difference to the error estimate.
const STALLING_ERROR_CONSTANT: f64 = 0.315;

pub(super) fn algebraic_only(
    run: &mut Stepper,
    engine: &mut Engine,
) -> Result<PhaseEnd, Vec<Diagnostic>> {
    let mut crossings = 0usize;
    loop {
        // A run that stops at its start time (initialization only) has its rows already.
        if run.t_end == run.t0 && !run.rec.time.is_empty() {
            break;
        }
        let t = run.next_out();
        let t_last = run.rec.time.last().copied().unwrap_or(run.t0);
        let te = super::delay::earlier(
            run.es.next_time_event(t_last),
            super::delay::next_event(&engine.prog.delays, t_last),
        );
        // A time event within rounding after the output point comes first: once `t` is
        // recorded, `next_time_event` only looks after it and would skip the event.
        let slack = 10.0 * run.es.time_eps(t);
        if let Some(te) = te.filter(|&te| te <= t + slack && te <= run.t_end + slack) {
            let te = te.min(run.t_end);
            engine.regs[engine.prog.time as usize] = te;
            handle_event(run, engine, te, None)?;
            if run.es.terminated.is_some() {
                break;
            }
            continue;
        }
        // State events: without states no integrator looks for roots, so a relation that
        // changed since the last point (`time >= pre(next)` of a time table) is located by
        // bisection in time.
        let t_prev = run.rec.time.last().copied().unwrap_or(run.t0);
        if t > t_prev
            && let Some((tc, idx)) = locate_state_event(run, engine, t_prev, t)?
        {
            // A relation that flips straight back after its event (chattering) would never
            // let time reach the next output point: stop and name it.
            crossings += 1;
            if crossings > 10_000 {
                let r = &engine.prog.relations[idx];
                let model = &run.sys().model;
                let name = |reg: u32| {
                    model
                        .variables
                        .get(reg as usize)
                        .map_or("an expression".to_string(), |v| format!("`{}`", v.name))
                };
                return Err(vec![Diagnostic::error(
                    Span::DUMMY,
                    format!(
                        "at time {tc}, a relation between {} and {} keeps changing (10000 events between two output points)",
                        name(r.a),
                        name(r.b)
                    ),
                )]);
            }
            engine.regs[engine.prog.time as usize] = tc;
            handle_event(run, engine, tc, Some(idx))?;
            if run.es.terminated.is_some() {
                break;
            }
            continue;
        }
        engine.regs[engine.prog.time as usize] = t;
        engine
            .run_main()
            .map_err(|e| vec![block_error(run.sys(), &engine.prog, &e)])?;
        // Without states no integrator sees the values: a NaN must be caught here, not written.
        let computed = &engine.prog.computed_by;
        if (0..computed.len()).any(|v| computed[v].is_some() && !engine.regs[v].is_finite())
            && let Some(d) = non_finite_error(run.sys(), engine, t)
        {
            return Err(vec![d]);
        }
        engine.run_outputs();
        check_asserts(engine, &mut run.es, t).map_err(|d| vec![*d])?;
        run.rec.record(t, engine);
        run.k += 1;
        crossings = 0;
        if t >= run.t_end {
            break;
        }
    }
    terminal_event(run, engine)?;
    Ok(PhaseEnd {
        stats: engine.stats.clone(),
        jacobians: 0,
        reselect: None,
    })
}

/// The earliest time in `(t0, t1]` where a relation changes its value, with that relation,
/// for a model without states (bisection to rounding).
pub(super) fn locate_state_event(
    run: &Stepper,
    engine: &mut Engine,
    t0: f64,
    t1: f64,
) -> Result<Option<(f64, usize)>, Vec<Diagnostic>> {
    let changed_at = |engine: &mut Engine, t: f64| -> Result<Option<usize>, Vec<Diagnostic>> {
        engine.regs[engine.prog.time as usize] = t;
        engine
            .run_main()
            .map_err(|e| vec![block_error(run.sys(), &engine.prog, &e)])?;
        engine.run_outputs();
        Ok(changed_relation(engine))
    };
    let Some(mut idx) = changed_at(engine, t1)? else {
        return Ok(None);
    };
    let (mut lo, mut hi) = (t0, t1);
    while hi - lo > 1e-14 * (1.0 + hi.abs()) {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        match changed_at(engine, mid)? {
            Some(i) => {
                hi = mid;
                idx = i;
            }
            None => lo = mid,
        }
    }
    Ok(Some((hi, idx)))
}

/// State events this close together (relative to the run's time unit plus the time) count
/// as one burst.
pub(super) const BURST_WINDOW: f64 = 1e-9;
/// More state events than this in one burst are chattering.
pub(super) const BURST_MAX: usize = 50;

/// Stops a run whose state events pile up at one instant: a relation that flips straight back
/// after its event (a thermostat `heat = T < Tbar` without hysteresis: heating off makes
/// `T < Tbar` true again at once). Time would advance by rounding only, event after event.
pub(super) fn check_chattering(
    run: &mut Stepper,
    engine: &Engine,
    t: f64,
    idx: usize,
) -> Result<(), Vec<Diagnostic>> {
    if t - run.burst.0 <= BURST_WINDOW * (run.es.time_unit + t.abs()) {
        run.burst.1 += 1;
    } else {
        run.burst = (t, 1);
    }
    if run.burst.1 <= BURST_MAX {
        return Ok(());
    }
    let r = &engine.prog.relations[idx];
    Err(vec![
        Diagnostic::error(
            Span::DUMMY,
            format!(
                "at time {t}, the relation `{}` keeps switching: {} events within {:e} s \
                 (chattering: each new value makes the relation flip back)",
                r.text,
                run.burst.1,
                t - run.burst.0
            ),
        )
        .with_help(
            "the model has no solution that moves on from here by events; add hysteresis \
             (two thresholds, or `pre` of the switch in the condition) or make the switching \
             continuous",
        ),
    ])
}

/// `terminal()` becomes true after the last output point (MLS 3.7.5): `when terminal()`
/// clauses act, and their values are recorded as one more row at the end time.
pub(super) fn terminal_event(
    run: &mut Stepper,
    engine: &mut Engine,
) -> Result<(), Vec<Diagnostic>> {
    let term = engine.prog.terminal;
    let p = &engine.prog;
    let used = p.code.iter().any(|i| i.reads().any(|r| r == term))
        || p.whens
            .iter()
            .any(|w| w.elements.iter().flatten().any(|&r| r == term));
    if !used {
        return Ok(());
    }
    let t = run.rec.time.last().copied().unwrap_or(run.t0);
    engine.regs[term as usize] = 1.0;
    match event_iteration(engine, &mut run.es, t, None, false) {
        Ok(()) => {}
        Err(EventError::Block(b)) => return Err(vec![block_error(run.sys(), &engine.prog, &b)]),
        Err(EventError::Diagnostic(d)) => return Err(vec![*d]),
    }
    run.rec.record(t, engine);
    Ok(())
}

/// Records the values before and after an event and runs the event iteration.
pub(super) fn handle_event(
    run: &mut Stepper,
    engine: &mut Engine,
    t: f64,
    triggered: Option<usize>,
) -> Result<(), Vec<Diagnostic>> {
    engine
        .run_main()
        .map_err(|e| vec![block_error(run.sys(), &engine.prog, &e)])?;
    engine.run_outputs();
    run.rec.record(t, engine);
    match event_iteration(engine, &mut run.es, t, triggered, false) {
        Ok(()) => {}
        Err(EventError::Block(b)) => return Err(vec![block_error(run.sys(), &engine.prog, &b)]),
        Err(EventError::Diagnostic(d)) => return Err(vec![*d]),
    }
    run.rec.record(t, engine);
    Ok(())
}

/// How an integration phase ended: at the stop time, or asking for a new choice of states
/// (time, values of every model variable, variables to prefer as states).
pub(super) struct PhaseEnd {
    pub(super) stats: super::engine::EvalStats,
    pub(super) jacobians: usize,
    pub(super) reselect: Option<(f64, Vec<f64>, Vec<crate::dae::VarId>)>,
}
