//! The driver of a simulation: options checked, parameters evaluated, the program compiled,
//! result columns chosen, initialization and the event at the start time, then integration
//! phases (one per choice of states) and the result with its statistics.
//!
//! After each event the solver is rebuilt from the new state (states may jump by `reinit`,
//! relations switch the right-hand side), which restarts the method at low order.

use super::compile::compile;
use super::engine::{BlockError, Engine};
use super::errors::{block_error, non_finite_at, non_finite_output};
use super::events::{EventError, EventState, event_iteration, init_relations, note_consistency};
use super::init::InitError;
use super::integrate::{integrate_dense, integrate_sparse};
use super::params::{ParamValues, eval_param_expr, evaluate, parse_overrides};
use super::program::Step;
use super::results::Recorder;
use super::stepping::{Stepper, algebraic_only};
use super::{ResultVar, SimOptions, SimResult, SimStats, VarKind};
use crate::dae::{ScalarType, Variability};
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;
// `std::time::Instant` natively; the browser's clock in WebAssembly (the playground).
use web_time::Instant;

/// Systems with more states than this use sparse matrices.
pub(super) const DENSE_LIMIT: usize = 60;

/// Start values of every variable (parameters: their values).
pub(super) fn start_values(
    sys: &SortedSystem,
    params: &ParamValues,
) -> crate::diag::Result<Vec<f64>> {
    let model = &sys.model;
    let mut out = vec![0.0; model.variables.len()];
    let mut errors = Vec::new();
    for (i, v) in model.variables.iter().enumerate() {
        if !v.is_unknown() {
            out[i] = params.values[i];
        } else if let Some(s) = &v.start {
            match eval_param_expr(model, params, s) {
                Ok(x) => out[i] = x,
                Err(m) => errors.push(Diagnostic::error(
                    v.span,
                    format!(
                        "the start value of `{}` must be a parameter expression: {m}",
                        v.name
                    ),
                )),
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Compiles a system with `--set` overrides into an engine at its start values (for benchmarks
/// and tools that evaluate the right-hand side directly).
pub fn prepare_engine(sys: &SortedSystem, set: &[String]) -> crate::diag::Result<Engine> {
    let overrides = parse_overrides(&sys.model, set)?;
    let params = evaluate(&sys.model, &overrides)?;
    let start = start_values(sys, &params)?;
    Ok(Engine::new(compile(sys, &params, &start)?))
}

/// Simulates a sorted system with fixed state selection.
pub fn simulate(sys: &SortedSystem, opts: &SimOptions) -> crate::diag::Result<SimResult> {
    simulate_with(sys, opts, None)
}

/// Simulates the result of structural analysis; when the system has dynamic state sets, the
/// choice of states is re-made during the run (see [`simulate_with`]).
pub fn simulate_analysis(
    analysis: &crate::structure::Analysis,
    opts: &SimOptions,
) -> crate::diag::Result<SimResult> {
    simulate_with(&analysis.system, opts, Some(analysis))
}

/// The most output points a run may record.
pub(super) const MAX_OUTPUT_POINTS: f64 = 1e7;

/// Everything up to integration, shared by the dense and sparse paths. With `analysis`, state
/// sets are monitored and the states re-selected when the current choice becomes singular.
pub fn simulate_with(
    sys: &SortedSystem,
    opts: &SimOptions,
    analysis: Option<&crate::structure::Analysis>,
) -> crate::diag::Result<SimResult> {
    let model = &sys.model;
    let t_compile = Instant::now();
    // Each run draws the impure random numbers from the state its initialization set, not
    // from where an earlier run on this thread left it (same model, same numbers).
    crate::flatten::restart_impure();
    let (t0, t_end, tol, interval) = run_times(opts, &model.experiment)?;
    let overrides = parse_overrides(model, &opts.set)?;
    let params = evaluate(model, &overrides)?;
    let start = start_values(sys, &params)?;
    let mut prog = compile(sys, &params, &start)?;
    // A state set whose structural choice is singular at the start values is re-chosen before
    // initialization: the initial equations are solved in the states of the run's first phase.
    let chosen_at_start = analysis.and_then(|a| states_at_start(a, &prog, t0));
    if let Some(new_sys) = &chosen_at_start {
        prog = compile(new_sys, &params, &start_values(new_sys, &params)?)?;
    }
    let sys = chosen_at_start.as_ref().unwrap_or(sys);
    let model = &sys.model;
    super::sample_check::check(&prog.samples, t0, t_end)?;
    let mut engine = Engine::new(prog);
    engine.newton_tol = super::block_solve::newton_tol_for(tol);
    let compile_time = t_compile.elapsed();

    let (variables, mut parameters) = result_columns(sys, opts, &params);

    // Initialization.
    let t_init = Instant::now();
    let (mut messages, es, initial_row) =
        initialize(&mut engine, sys, (t0, t_end), &mut parameters)?;
    let init_time = t_init.elapsed();

    let n = engine.nstates();
    let mut stats = SimStats {
        compile_time,
        init_time,
        states: n,
        torn_blocks: engine.prog.torn.clone(),
        method: opts.method.name().to_string(),
        ..Default::default()
    };
    let progress = opts.progress.then(|| {
        let pb = indicatif::ProgressBar::new(1000);
        pb.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {percent}% {elapsed_precise}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let cols = variables.iter().map(|v| v.id).collect();
    let mut rec = Recorder {
        cols,
        time: Vec::new(),
        rows: Vec::new(),
    };
    let after: Vec<f64> = rec.cols.iter().map(|&v| engine.regs[v]).collect();
    let before: Vec<f64> = rec.cols.iter().map(|&v| initial_row[v]).collect();
    if before
        .iter()
        .zip(&after)
        .any(|(a, b)| a != b && !(a.is_nan() && b.is_nan()))
    {
        rec.time.push(t0);
        rec.rows.push(before);
    }
    rec.record(t0, &engine);
    let monitor = analysis.is_some() && !sys.state_sets.is_empty();
    if monitor {
        messages.push(format!("t = {t0}: states {}", state_names(sys)));
    }
    let mut run = Stepper {
        base: sys,
        alt: None,
        t_restart: t0,
        monitor,
        t_end,
        interval,
        t0,
        k: 1,
        rec,
        es,
        burst: (f64::NEG_INFINITY, 0),
        max_steps: opts.max_steps,
        stats: SimStats::default(),
        progress,
    };
    let t_int = Instant::now();
    let mut total = super::engine::EvalStats::default();
    let mut jacobians = 0;
    let mut phases = 0;
    loop {
        let n = engine.nstates();
        // The algebraic components diffsol's error test covers are part of its matrix too
        // (hundreds for the six crank loops of an engine's state set).
        // The histories of the `delay`s go on in the program of the next phase.
        let delays = engine.prog.delays.clone();
        let n_alg = match opts.method {
            super::Method::Tsit45 => 0,
            _ => super::integrate::error_controlled(run.sys(), &engine).len(),
        };
        let end = if n == 0 {
            // Nothing to integrate: evaluate at the output points (and time events).
            algebraic_only(&mut run, &mut engine)?
        } else if n + n_alg <= DENSE_LIMIT {
            integrate_dense(&mut run, engine, tol, opts.method)?
        } else {
            stats.sparse_jacobian = true;
            integrate_sparse(&mut run, engine, tol, opts.method)?
        };
        total.rhs += end.stats.rhs;
        total.jvp += end.stats.jvp;
        total.newton_iterations += end.stats.newton_iterations;
        total.block_factorizations += end.stats.block_factorizations;
        jacobians += end.jacobians;
        let Some((t, values, prefer)) = end.reselect else {
            break;
        };
        phases += 1;
        let Some(analysis) = analysis.filter(|_| phases < 1000) else {
            return Err(vec![Diagnostic::error(
                Span::DUMMY,
                format!("the choice of states keeps changing at time {t}"),
            )]);
        };
        engine = restart_with_states(
            &mut run,
            analysis,
            &prefer,
            (t, &values),
            &params,
            tol,
            &mut messages,
        )?;
        carry_delays(&delays, &engine.prog.delays, t)?;
    }
    let eval_stats = (total, jacobians);
    if let Some(pb) = &run.progress {
        pb.finish_and_clear();
    }
    stats.integrate_time = t_int.elapsed();
    add_phase_stats(&mut stats, &run, eval_stats);
    messages.extend(run.es.warnings.iter().cloned());
    if let Some(m) = &run.es.terminated {
        messages.push(format!(
            "terminated at time {}: {m}",
            run.rec.time.last().copied().unwrap_or(t0)
        ));
    }
    if let Some(d) = check_recorded(run.sys(), &params, &run.rec) {
        return Err(vec![d]);
    }
    let stop_time = run.rec.time.last().copied().unwrap_or(t_end);
    Ok(SimResult {
        model: model.name.clone(),
        variables,
        parameters,
        time: run.rec.time,
        rows: run.rec.rows,
        stats,
        messages,
        start_time: t0,
        stop_time,
    })
}

pub(super) fn state_names(sys: &SortedSystem) -> String {
    sys.states
        .iter()
        .map(|s| sys.model.variables[s.var].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The system re-analysed with other states when a state set's structural choice is singular
/// at the start values (the parameters, and the start values of the states and of the
/// unknowns the main pass computes from them): the zero-sequence current of a machine fed by
/// a current source is structurally a state candidate like the source's input, but the
/// constraints fix it (the three phase currents sum to zero up to rounding), so initializing
/// with it as the state leaves the input's initial equation near-singular. The check is the
/// one made after every step ([`super::statesel::check`]), on a probe engine so that the
/// initialization starts untouched. `None`: no state set, the main pass fails at the start
/// values (the first step's check decides then), or the structural choice is regular.
fn states_at_start(
    analysis: &crate::structure::Analysis,
    prog: &super::program::Program,
    t0: f64,
) -> Option<SortedSystem> {
    if prog.state_sets.is_empty() {
        return None;
    }
    let mut probe = Engine::new(prog.clone());
    probe.regs[probe.prog.time as usize] = t0;
    probe.regs[probe.prog.initial as usize] = 1.0;
    probe.run_main().ok()?;
    probe.run_outputs();
    let prefer = super::statesel::check(&mut probe)?;
    crate::structure::reselect(analysis, &prefer).ok()
}

/// Start and stop time, tolerance and output interval from the options, else the model's
/// `experiment`, else the defaults; checked, and the number of output points bounded.
fn run_times(
    opts: &SimOptions,
    exp: &crate::dae::Experiment,
) -> crate::diag::Result<(f64, f64, f64, f64)> {
    let t0 = opts.start_time.or(exp.start_time).unwrap_or(0.0);
    let t_end = opts.stop_time.or(exp.stop_time).unwrap_or(t0 + 1.0);
    let tol = opts.tolerance.or(exp.tolerance).unwrap_or(1e-6);
    // A stop time equal to the start time is an initialization only (MSL examples such as
    // `Media.Examples.SolveOneNonlinearEquation.Inverse_sine` have `StopTime = 0`): the rows of
    // the start time, no integration.
    let span = t_end - t0;
    let interval =
        opts.interval
            .or(exp.interval)
            .unwrap_or(if span > 0.0 { span / 500.0 } else { 1.0 });
    if t_end.partial_cmp(&t0) == Some(std::cmp::Ordering::Less) || t_end.is_nan() || t0.is_nan() {
        return Err(vec![Diagnostic::error(
            Span::DUMMY,
            format!("the stop time {t_end} must not be before the start time {t0}"),
        )]);
    }
    if interval.is_nan() || tol.is_nan() || interval <= 0.0 || tol <= 0.0 {
        return Err(vec![Diagnostic::error(
            Span::DUMMY,
            "the output interval and the tolerance must be positive",
        )]);
    }
    // Each output point is a row of every variable: a tiny interval would exhaust memory long
    // before the run ends.
    let points = (t_end - t0) / interval;
    if points.is_nan() || points > MAX_OUTPUT_POINTS {
        return Err(vec![
            Diagnostic::error(
                Span::DUMMY,
                format!(
                    "the output interval {interval:e} gives {points:.3e} output points from {t0} \
                     to {t_end}; at most {MAX_OUTPUT_POINTS:.0} are allowed"
                ),
            )
            .with_help("choose a larger `Interval` (or --interval)"),
        ]);
    }
    Ok((t0, t_end, tol, interval))
}

/// The recorded variables (all but strings, filtered by `--vars`) with their kinds, and the
/// parameters with their values.
fn result_columns(
    sys: &SortedSystem,
    opts: &SimOptions,
    params: &ParamValues,
) -> (Vec<ResultVar>, Vec<(ResultVar, f64)>) {
    let model = &sys.model;
    let mut variables = Vec::new();
    let mut parameters = Vec::new();
    let state_set: std::collections::BTreeSet<usize> = sys.states.iter().map(|s| s.var).collect();
    let discrete: std::collections::BTreeSet<usize> = sys.discrete_vars.iter().copied().collect();
    for (i, v) in model.variables.iter().enumerate() {
        if v.ty == ScalarType::String {
            continue;
        }
        if opts.vars.as_ref().is_some_and(|re| !re.is_match(&v.name)) {
            continue;
        }
        let kind = match v.variability {
            Variability::Parameter | Variability::Constant => VarKind::Parameter,
            _ if state_set.contains(&i) => VarKind::State,
            _ if v.derivative_of.is_some() => VarKind::Derivative,
            Variability::Discrete => VarKind::Discrete,
            _ if discrete.contains(&i) => VarKind::Discrete,
            _ => VarKind::Algebraic,
        };
        let rv = ResultVar {
            name: v.name.clone(),
            kind,
            unit: v.unit.clone(),
            description: v.description.clone(),
            id: i,
        };
        if kind == VarKind::Parameter {
            parameters.push((rv, params.values[i]));
        } else {
            variables.push(rv);
        }
    }
    (variables, parameters)
}

/// `MINIMO_DEBUG_VARS` (a regular expression: the variables whose values the event iteration
/// prints) and `MINIMO_DEBUG_EVENTS` (the iteration variables of mixed loops printed).
fn debug_hooks(model: &crate::dae::FlatModel, engine: &Engine) {
    if let Ok(re) = std::env::var("MINIMO_DEBUG_VARS")
        && let Ok(re) = regex::Regex::new(&re)
    {
        super::events::DEBUG_VARS.with(|d| {
            *d.borrow_mut() = model
                .variables
                .iter()
                .enumerate()
                .filter(|(_, v)| re.is_match(&v.name))
                .map(|(i, v)| (v.name.clone(), i))
                .collect()
        });
    }
    if std::env::var_os("MINIMO_DEBUG_EVENTS").is_some() {
        for &si in &engine.prog.iteration_steps {
            if let Step::Explicit { var, .. } = &engine.prog.steps[si] {
                eprintln!("iteration variable: {}", model.variables[*var].name);
            }
        }
    }
}

/// The step statistics of the phases and the engine's counters, into the result's statistics.
fn add_phase_stats(
    stats: &mut SimStats,
    run: &Stepper,
    eval_stats: (super::engine::EvalStats, usize),
) {
    stats.steps = run.stats.steps;
    stats.rejected_steps = run.stats.rejected_steps;
    stats.error_test_failures = run.stats.error_test_failures;
    stats.newton_failures = run.stats.newton_failures;
    stats.newton_iterations = run.stats.newton_iterations;
    stats.block_iterations = eval_stats.0.newton_iterations;
    stats.block_factorizations = eval_stats.0.block_factorizations;
    stats.rhs_evaluations = eval_stats.0.rhs;
    stats.jacobian_vector_products = eval_stats.0.jvp;
    stats.jacobian_evaluations = eval_stats.1;
    stats.events = run.es.count.saturating_sub(2);
}

/// The checks on the recorded values, first failure first: NaN or infinite values, the 32-bit
/// `Integer` range, `min`/`max` attributes.
fn check_recorded(sys: &SortedSystem, params: &ParamValues, rec: &Recorder) -> Option<Diagnostic> {
    non_finite_output(sys, rec)
        .or_else(|| super::int_range::first_overflow(sys, params, &rec.cols, &rec.time, &rec.rows))
        .or_else(|| {
            super::bounds::first_violation(&sys.model, params, &rec.cols, &rec.time, &rec.rows)
        })
}

/// Consistent initialization at `t0`: the initial equations, then the initial system's event
/// iteration and the event at the start time. Returns the notes for the user, the event state
/// and the values of the initial system's solution (the first row when the event changes them).
fn initialize(
    engine: &mut Engine,
    sys: &SortedSystem,
    (t0, t_end): (f64, f64),
    parameters: &mut [(ResultVar, f64)],
) -> crate::diag::Result<(Vec<String>, EventState, Vec<f64>)> {
    let model = &sys.model;
    let mut messages = Vec::new();
    let fail_block = |engine: &Engine, e: BlockError| vec![block_error(sys, &engine.prog, &e)];
    engine.regs[engine.prog.time as usize] = t0;
    engine.regs[engine.prog.initial as usize] = 1.0;
    for &(v, p) in &engine.prog.pre.clone() {
        engine.regs[p as usize] = engine.regs[v as usize];
    }
    match super::homotopy::solve_initial(engine, sys, t0) {
        Ok(notes) => messages.extend(notes),
        Err(InitError::Block(e)) => return Err(fail_block(engine, e)),
        Err(InitError::Diagnostics(d)) => return Err(d),
    }
    messages.extend(super::initial_asserts::check(engine, t0).map_err(|d| vec![*d])?);
    // Parameters with fixed = false got their values from the initial system.
    for (rv, x) in parameters.iter_mut() {
        *x = engine.regs[rv.id];
    }
    debug_hooks(model, engine);
    let mut es = EventState::new(engine, t0, t_end);
    // The initial system (`initial()` true, `pre` of fixed discrete variables at their start
    // values), then the event at the start time: `pre(v) := v`, samples due at `t0` fire, and
    // the discrete variables settle before the integration starts (a friction element's mode
    // goes from `Unknown` to what its state gives).
    // The solution of the initial system is the first row; when the event at the start time
    // changes a value (`y = pre(u)` with `pre(u)` given by an initial equation), its result is
    // a second row at the same time, as at every event.
    let mut initial_row: Vec<f64> = Vec::new();
    for initial in [true, false] {
        if let Err(e) = event_iteration(engine, &mut es, t0, None, initial) {
            return Err(match e {
                EventError::Block(b) => fail_block(engine, b),
                EventError::Diagnostic(d) => vec![*d],
            });
        }
        if initial {
            initial_row = engine.regs[..model.variables.len()].to_vec();
        }
    }
    if let Some(d) = non_finite_at(sys, engine, t0) {
        return Err(vec![d]);
    }
    Ok((messages, es, initial_row))
}

/// The histories of the `delay` lines of the phase before (`old`) in the new program's lines
/// (matched by their arguments); a line without a match would restart its history: an error.
fn carry_delays(
    old: &[std::sync::Arc<super::delay::DelayLine>],
    new: &[std::sync::Arc<super::delay::DelayLine>],
    t: f64,
) -> crate::diag::Result<()> {
    for l in new {
        let Some(o) = old.iter().find(|o| o.key == l.key) else {
            return Err(vec![Diagnostic::error(
                Span::DUMMY,
                format!(
                    "at time {t}, the states changed and a `delay` ({}) could not keep its history",
                    l.key
                ),
            )]);
        };
        l.take_history(o);
    }
    Ok(())
}

/// After the phase that asked for a new choice of states (at time `t`, with `values` of every
/// model variable): the system analysed again preferring `prefer`, compiled into a new engine
/// at those values, and the stepper switched to it.
fn restart_with_states(
    run: &mut Stepper,
    analysis: &crate::structure::Analysis,
    prefer: &[crate::dae::VarId],
    (t, values): (f64, &[f64]),
    params: &ParamValues,
    tol: f64,
    messages: &mut Vec<String>,
) -> crate::diag::Result<Engine> {
    let new_sys = crate::structure::reselect(analysis, prefer)?;
    if new_sys.model.variables.len() != values.len() {
        return Err(vec![Diagnostic::error(
            Span::DUMMY,
            "state re-selection changed the variables of the model",
        )]);
    }
    let prog = compile(&new_sys, params, values)?;
    let mut engine = Engine::new(prog);
    engine.newton_tol = super::block_solve::newton_tol_for(tol);
    engine.regs[engine.prog.time as usize] = t;
    for &(v, p) in &engine.prog.pre.clone() {
        engine.regs[p as usize] = engine.regs[v as usize];
    }
    if let Err(e) = init_relations(&mut engine, false) {
        return Err(vec![block_error(&new_sys, &engine.prog, &e)]);
    }
    note_consistency(&mut engine, &mut run.es, None);
    messages.push(format!("t = {t}: states {}", state_names(&new_sys)));
    run.alt = Some(std::rc::Rc::new(new_sys));
    run.t_restart = t;
    Ok(engine)
}
