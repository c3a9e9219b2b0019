//! Integration with diffsol, output at the requested interval and at events.
//!
//! ODE mode: diffsol sees only the states; the right-hand side runs the compiled BLT blocks.
//! The equations implement diffsol's `OdeEquations` directly (not the closure builder) so that
//! the Jacobian sparsity comes from the program structure and large systems never pay for a
//! dense probe. Small systems use dense nalgebra matrices, large ones faer's sparse LU; both use
//! a column colouring so a Jacobian costs a few Jacobian-vector products.
//!
//! After each event the solver is rebuilt from the new state (states may jump by `reinit`,
//! relations switch the right-hand side), which restarts the method at low order.

use super::compile::{Program, Step, compile};
use super::eval::{BlockError, Engine};
use super::events::{
    EventError, EventState, changed_relation, check_asserts, event_iteration, init_relations,
    note_consistency,
};
use super::init::{InitError, solve_initial_equations};
use super::jacobian::{register_pattern, state_jacobian_pattern};
use super::newton::NewtonFailure;
use super::params::{ParamValues, eval_param_expr, evaluate, parse_overrides};
use super::{Method, ResultVar, SimOptions, SimResult, SimStats, VarKind};
use crate::dae::{ScalarType, VarId, Variability};
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;
use diffsol::error::{DiffsolError, OdeSolverError};
use diffsol::jacobian::JacobianColoring;
use diffsol::matrix::sparsity::MatrixSparsity;
use diffsol::op::ParameterisedOp;
use diffsol::{
    ConstantOp, FaerSparseLU, FaerSparseMat, LinearOp, Matrix, NalgebraLU, NalgebraMat,
    NonLinearOp, NonLinearOpJacobian, OdeBuilder, OdeEquations, OdeEquationsRef, OdeSolverMethod,
    OdeSolverStopReason, Op, UnitCallable, Vector, VectorIndex,
};
use std::cell::RefCell;
// `std::time::Instant` natively; the browser's clock in WebAssembly (the playground).
use web_time::Instant;

/// Systems with more states than this use sparse matrices.
const DENSE_LIMIT: usize = 60;

type Index<M> = <<M as diffsol::MatrixCommon>::V as Vector>::Index;

/// Where the entries of the Jacobian pattern go in the matrix data: entry `src[p]` of the values
/// (in pattern order) to data slot `dst[p]`.
struct Scatter<M: Matrix<T = f64>> {
    dst: Index<M>,
    src: Index<M>,
    pattern: Vec<(usize, usize)>,
}

pub struct SimEqn<M: Matrix<T = f64>> {
    pub engine: RefCell<Engine>,
    pub y0: RefCell<Vec<f64>>,
    /// Size of diffsol's state vector: the states, then the algebraic components `alg`.
    n: usize,
    /// Number of states (the differential components).
    nx: usize,
    /// Registers of the algebraic components (see [`error_controlled`]): component `nx + i` is
    /// `regs[alg[i]]`, with the residual `regs[alg[i]] - y[nx + i]` and a zero row in the mass
    /// matrix, so that diffsol's error test covers them.
    alg: Vec<u32>,
    nroots: usize,
    ctx: M::C,
    sparsity: Option<M::Sparsity>,
    coloring: Option<JacobianColoring<M>>,
    /// Set when the engine builds the state Jacobian itself ([`Engine::state_jacobian`]).
    scatter: Option<Scatter<M>>,
    pub jacobians: RefCell<usize>,
    /// The dense state Jacobian of the engine, kept between Jacobians (an allocation of this
    /// size is a fresh mapping each time: its pages are zeroed by the kernel on every call).
    dense: RefCell<Vec<f64>>,
}

impl<M: Matrix<T = f64>> SimEqn<M> {
    fn new(engine: Engine, alg: Vec<u32>) -> SimEqn<M> {
        let ctx = M::C::default();
        let nx = engine.nstates();
        let n = nx + alg.len();
        let mut y0 = engine.states();
        y0.extend(alg.iter().map(|&r| engine.regs[r as usize]));
        let nroots = engine.prog.relations.len();
        let mut pattern = state_jacobian_pattern(&engine.prog);
        if !alg.is_empty() {
            let rows: Vec<usize> = alg.iter().map(|&r| r as usize).collect();
            for (i, j) in register_pattern(&engine.prog, &rows) {
                pattern.push((nx + i, j));
            }
            pattern.extend((nx..n).map(|i| (i, i)));
            pattern.sort_unstable();
        }
        let sparsity = M::Sparsity::try_from_indices(n, n, pattern.clone()).ok();
        let coloring = sparsity
            .as_ref()
            .map(|s| JacobianColoring::new(s, &pattern, ctx.clone()));
        // The engine's state Jacobian covers the states' rows only.
        let scatter = match &sparsity {
            Some(s) if engine.has_state_jacobian() && alg.is_empty() => Some(Scatter {
                dst: s.get_index(&pattern, ctx.clone()),
                src: Index::<M>::from_vec((0..pattern.len()).collect(), ctx.clone()),
                pattern,
            }),
            _ => None,
        };
        SimEqn {
            engine: RefCell::new(engine),
            y0: RefCell::new(y0),
            n,
            nx,
            alg,
            nroots,
            ctx,
            sparsity,
            coloring,
            scatter,
            jacobians: RefCell::new(0),
            dense: RefCell::new(Vec::new()),
        }
    }
}

pub struct SimRhs<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);
pub struct SimInit<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);
pub struct SimRoot<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);
pub struct SimMass<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);

macro_rules! sim_op {
    ($name:ident, $nout:expr) => {
        impl<M: Matrix<T = f64>> Op for $name<'_, M> {
            type M = M;
            type V = M::V;
            type T = f64;
            type C = M::C;
            fn nstates(&self) -> usize {
                self.0.n
            }
            #[allow(clippy::redundant_closure_call)]
            fn nout(&self) -> usize {
                ($nout)(self.0)
            }
            fn nparams(&self) -> usize {
                0
            }
            fn context(&self) -> &M::C {
                &self.0.ctx
            }
        }
    };
}
sim_op!(SimRhs, |e: &SimEqn<M>| e.n);
sim_op!(SimInit, |e: &SimEqn<M>| e.n);
sim_op!(SimRoot, |e: &SimEqn<M>| e.nroots);
sim_op!(SimMass, |e: &SimEqn<M>| e.n);

impl<M: Matrix<T = f64>> SimEqn<M> {
    /// The algebraic residuals `regs[alg[i]] - y[nx + i]` after a main pass at `y[..nx]`.
    fn alg_residuals(&self, e: &Engine, y: &[f64], out: &mut [f64]) {
        for (i, &r) in self.alg.iter().enumerate() {
            out[i] = e.regs[r as usize] - y[i];
        }
    }
}

impl<M: Matrix<T = f64>> NonLinearOp for SimRhs<'_, M> {
    fn call_inplace(&self, x: &M::V, t: f64, y: &mut M::V) {
        let eq = self.0;
        let nx = eq.nx;
        let mut e = eq.engine.borrow_mut();
        y.for_each_batch_host([x], |y, [x], _| match e.eval_at(t, &x[..nx]) {
            Ok(()) => {
                let (dx, res) = y.split_at_mut(nx);
                e.derivatives(dx);
                eq.alg_residuals(&e, &x[nx..], res);
            }
            Err(_) => y.iter_mut().for_each(|v| *v = f64::NAN),
        });
    }
}

impl<M: Matrix<T = f64>> NonLinearOpJacobian for SimRhs<'_, M> {
    fn jac_mul_inplace(&self, x: &M::V, t: f64, v: &M::V, y: &mut M::V) {
        let eq = self.0;
        let nx = eq.nx;
        let mut e = eq.engine.borrow_mut();
        y.for_each_batch_host([x, v], |y, [x, v], _| match e.eval_at(t, &x[..nx]) {
            Ok(()) => {
                let (dx, res) = y.split_at_mut(nx);
                e.jvp(&v[..nx], dx);
                for (i, &r) in eq.alg.iter().enumerate() {
                    res[i] = e.tangent(r) - v[nx + i];
                }
            }
            Err(_) => y.iter_mut().for_each(|v| *v = f64::NAN),
        });
    }
    fn jacobian_inplace(&self, x: &M::V, t: f64, y: &mut M) {
        *self.0.jacobians.borrow_mut() += 1;
        if let Some(Scatter { dst, src, pattern }) = &self.0.scatter {
            let n = self.0.n;
            let mut dense = self.0.dense.borrow_mut();
            dense.resize(n * n, 0.0);
            let mut ok = false;
            let mut e = self.0.engine.borrow_mut();
            x.clone().for_each_batch_host([x], |_, [x], _| {
                ok = e.eval_at(t, x).is_ok() && e.state_jacobian(&mut dense);
            });
            if ok {
                let vals = pattern.iter().map(|&(i, j)| dense[i * n + j]).collect();
                y.set_data_with_indices(dst, src, &M::V::from_vec(vals, self.0.ctx.clone()));
                return;
            }
        }
        match &self.0.coloring {
            Some(c) => c.jacobian_inplace(self, x, t, y),
            None => self._default_jacobian_inplace(x, t, y),
        }
    }
    fn jacobian_sparsity(&self) -> Option<M::Sparsity> {
        self.0.sparsity.clone()
    }
}

impl<M: Matrix<T = f64>> ConstantOp for SimInit<'_, M> {
    fn call_inplace(&self, _t: f64, y: &mut M::V) {
        let y0 = self.0.y0.borrow();
        y.for_each_batch_host([], |y, [], _| y.copy_from_slice(&y0));
    }
}

impl<M: Matrix<T = f64>> NonLinearOp for SimRoot<'_, M> {
    fn call_inplace(&self, x: &M::V, t: f64, y: &mut M::V) {
        let nx = self.0.nx;
        let mut e = self.0.engine.borrow_mut();
        y.for_each_batch_host([x], |y, [x], _| match e.eval_at(t, &x[..nx]) {
            Ok(()) => {
                e.run_outputs();
                e.roots(y);
                if std::env::var_os("MINIMO_DEBUG_ROOTS").is_some() {
                    eprintln!(
                        "root fn at t={t}: {:?}",
                        y.iter()
                            .enumerate()
                            .filter(|(_, v)| v.abs() < 1e-3 || !v.is_finite())
                            .collect::<Vec<_>>()
                    );
                }
            }
            Err(_) => y.iter_mut().for_each(|v| *v = f64::NAN),
        });
    }
}

/// `diag(1, ..., 1, 0, ..., 0)`: ones for the states, zeros for the algebraic components.
impl<M: Matrix<T = f64>> LinearOp for SimMass<'_, M> {
    fn gemv_inplace(&self, x: &M::V, _t: f64, beta: f64, y: &mut M::V) {
        let nx = self.0.nx;
        y.for_each_batch_host([x], |y, [x], _| {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = if i < nx {
                    x[i] + beta * *yi
                } else {
                    beta * *yi
                };
            }
        });
    }
    fn matrix_inplace(&self, _t: f64, y: &mut M) {
        let (n, nx) = (self.0.n, self.0.nx);
        let diag = (0..n).map(|i| if i < nx { 1.0 } else { 0.0 }).collect();
        *y = M::from_diagonal(&M::V::from_vec(diag, self.0.ctx.clone()));
    }
    fn sparsity(&self) -> Option<M::Sparsity> {
        Some(M::Sparsity::new_diagonal(self.0.n))
    }
}

impl<M: Matrix<T = f64>> Op for SimEqn<M> {
    type M = M;
    type V = M::V;
    type T = f64;
    type C = M::C;
    fn nstates(&self) -> usize {
        self.n
    }
    fn nout(&self) -> usize {
        self.n
    }
    fn nparams(&self) -> usize {
        0
    }
    fn context(&self) -> &M::C {
        &self.ctx
    }
}

impl<'a, M: Matrix<T = f64>> OdeEquationsRef<'a> for SimEqn<M> {
    type Rhs = SimRhs<'a, M>;
    type Init = SimInit<'a, M>;
    type Mass = SimMass<'a, M>;
    type Root = SimRoot<'a, M>;
    type Out = ParameterisedOp<'a, UnitCallable<M>>;
    type Reset = ParameterisedOp<'a, UnitCallable<M>>;
}

impl<M: Matrix<T = f64>> OdeEquations for SimEqn<M> {
    fn rhs(&self) -> SimRhs<'_, M> {
        SimRhs(self)
    }
    fn mass(&self) -> Option<SimMass<'_, M>> {
        // Without algebraic components this stays a plain ODE (no consistent-initialization
        // solve, identity mass).
        (!self.alg.is_empty()).then_some(SimMass(self))
    }
    fn root(&self) -> Option<SimRoot<'_, M>> {
        (self.nroots > 0).then_some(SimRoot(self))
    }
    fn init(&self) -> SimInit<'_, M> {
        SimInit(self)
    }
    fn set_params(&mut self, _p: &M::V) {}
    fn get_params(&self, _p: &mut M::V) {}
}

/// Start values of every variable (parameters: their values).
fn start_values(sys: &SortedSystem, params: &ParamValues) -> crate::diag::Result<Vec<f64>> {
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
    d.with_help("check the start values of the loop variables (they are the first Newton guess) and the equations for a singular configuration")
}

/// Finds the first variable that became NaN or infinite and the equation that computed it.
fn non_finite_error(sys: &SortedSystem, engine: &mut Engine, t: f64) -> Option<Diagnostic> {
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

struct Recorder {
    cols: Vec<usize>,
    time: Vec<f64>,
    rows: Vec<Vec<f64>>,
}

impl Recorder {
    fn record(&mut self, t: f64, engine: &Engine) {
        self.time.push(t);
        self.rows
            .push(self.cols.iter().map(|&v| engine.regs[v]).collect());
    }
}

struct Run<'s> {
    base: &'s SortedSystem,
    /// The system after a re-selection of states, if any.
    alt: Option<std::rc::Rc<SortedSystem>>,
    /// Where the current phase starts (after a re-selection).
    t_restart: f64,
    /// Whether to watch the dynamic state sets.
    monitor: bool,
    t_end: f64,
    interval: f64,
    t0: f64,
    /// Index of the next output point `t0 + k * interval`.
    k: u64,
    rec: Recorder,
    es: EventState,
    /// The first time and the number of the state events close together (see
    /// [`check_chattering`]).
    burst: (f64, usize),
    stats: SimStats,
    progress: Option<indicatif::ProgressBar>,
    /// [`super::SimOptions::max_steps`].
    max_steps: Option<usize>,
}

enum SegmentEnd {
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

impl Run<'_> {
    fn sys(&self) -> &SortedSystem {
        self.alt.as_deref().unwrap_or(self.base)
    }
    fn next_out(&self) -> f64 {
        (self.t0 + self.k as f64 * self.interval).min(self.t_end)
    }

    /// Records the output points up to `t` (inclusive or not) by interpolation.
    fn outputs_until<'a, Eqn, S>(
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

    /// The solver stands at `stop`: the end of the run, or a time event.
    fn stop_reached<'a, Eqn, S>(
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

    fn segment<'a, Eqn, S>(
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
        let stop = match self.es.next_time_event(t_start) {
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
                    self.outputs_until(solver, eqn, t, true)?;
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
                        return Err(vec![block_error(self.sys(), &e.prog, &be)]);
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

fn solver_error(e: DiffsolError, t: f64) -> Vec<Diagnostic> {
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

/// Simulates a sorted system with fixed state selection.
pub fn simulate(sys: &SortedSystem, opts: &SimOptions) -> crate::diag::Result<SimResult> {
    simulate_with(sys, opts, None)
}

/// Everything up to integration, shared by the dense and sparse paths. With `analysis`, state
/// sets are monitored and the states re-selected when the current choice becomes singular.
/// The most output points a run may record.
const MAX_OUTPUT_POINTS: f64 = 1e7;

pub fn simulate_with(
    sys: &SortedSystem,
    opts: &SimOptions,
    analysis: Option<&crate::structure::Analysis>,
) -> crate::diag::Result<SimResult> {
    let model = &sys.model;
    let t_compile = Instant::now();
    let exp = &model.experiment;
    let t0 = opts.start_time.or(exp.start_time).unwrap_or(0.0);
    let t_end = opts.stop_time.or(exp.stop_time).unwrap_or(t0 + 1.0);
    let tol = opts.tolerance.or(exp.tolerance).unwrap_or(1e-6);
    let interval = opts
        .interval
        .or(exp.interval)
        .unwrap_or((t_end - t0) / 500.0);
    if t_end.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater) {
        return Err(vec![Diagnostic::error(
            Span::DUMMY,
            format!("the stop time {t_end} must be after the start time {t0}"),
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
    let overrides = parse_overrides(model, &opts.set)?;
    let params = evaluate(model, &overrides)?;
    let start = start_values(sys, &params)?;
    let prog = compile(sys, &params, &start)?;
    let mut engine = Engine::new(prog);
    engine.newton_tol = super::eval::newton_tol_for(tol);
    let compile_time = t_compile.elapsed();

    // Result columns.
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

    // Initialization.
    let t_init = Instant::now();
    let mut messages = Vec::new();
    let fail_block = |engine: &Engine, e: BlockError| vec![block_error(sys, &engine.prog, &e)];
    engine.regs[engine.prog.time as usize] = t0;
    engine.regs[engine.prog.initial as usize] = 1.0;
    for &(v, p) in &engine.prog.pre.clone() {
        engine.regs[p as usize] = engine.regs[v as usize];
    }
    if let Err(e) = init_relations(&mut engine) {
        return Err(fail_block(&engine, e));
    }
    match solve_initial_equations(&mut engine, sys, t0) {
        Ok(notes) => messages.extend(notes),
        Err(InitError::Block(e)) => return Err(fail_block(&engine, e)),
        Err(InitError::Diagnostics(d)) => return Err(d),
    }
    // Parameters with fixed = false got their values from the initial system.
    for (rv, x) in &mut parameters {
        *x = engine.regs[rv.id];
    }
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
    let mut es = EventState::new(&engine, t0);
    // The initial system (`initial()` true, `pre` of fixed discrete variables at their start
    // values), then the event at the start time: `pre(v) := v`, samples due at `t0` fire, and
    // the discrete variables settle before the integration starts (a friction element's mode
    // goes from `Unknown` to what its state gives).
    // The solution of the initial system is the first row; when the event at the start time
    // changes a value (`y = pre(u)` with `pre(u)` given by an initial equation), its result is
    // a second row at the same time, as at every event.
    let mut initial_row: Vec<f64> = Vec::new();
    for initial in [true, false] {
        if let Err(e) = event_iteration(&mut engine, &mut es, t0, None, initial) {
            return Err(match e {
                EventError::Block(b) => fail_block(&engine, b),
                EventError::Diagnostic(d) => vec![*d],
            });
        }
        if initial {
            initial_row = engine.regs[..model.variables.len()].to_vec();
        }
    }
    if let Some(d) = non_finite_at(sys, &mut engine, t0) {
        return Err(vec![d]);
    }
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
    let mut run = Run {
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
    let mut total = super::eval::EvalStats::default();
    let mut jacobians = 0;
    let mut phases = 0;
    loop {
        let n = engine.nstates();
        // The algebraic components diffsol's error test covers are part of its matrix too
        // (hundreds for the six crank loops of an engine's state set).
        let n_alg = match opts.method {
            Method::Tsit45 => 0,
            _ => error_controlled(run.sys(), &engine).len(),
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
        let new_sys = crate::structure::reselect(analysis, &prefer)?;
        if new_sys.model.variables.len() != values.len() {
            return Err(vec![Diagnostic::error(
                Span::DUMMY,
                "state re-selection changed the variables of the model",
            )]);
        }
        let prog = compile(&new_sys, &params, &values)?;
        engine = Engine::new(prog);
        engine.newton_tol = super::eval::newton_tol_for(tol);
        engine.regs[engine.prog.time as usize] = t;
        for &(v, p) in &engine.prog.pre.clone() {
            engine.regs[p as usize] = engine.regs[v as usize];
        }
        if let Err(e) = init_relations(&mut engine) {
            return Err(vec![block_error(&new_sys, &engine.prog, &e)]);
        }
        note_consistency(&engine, &mut run.es);
        messages.push(format!("t = {t}: states {}", state_names(&new_sys)));
        run.alt = Some(std::rc::Rc::new(new_sys));
        run.t_restart = t;
    }
    let eval_stats = (total, jacobians);
    if let Some(pb) = &run.progress {
        pb.finish_and_clear();
    }
    stats.integrate_time = t_int.elapsed();
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
    messages.extend(run.es.warnings.iter().cloned());
    if let Some(m) = &run.es.terminated {
        messages.push(format!(
            "terminated at time {}: {m}",
            run.rec.time.last().copied().unwrap_or(t0)
        ));
    }
    if let Some(d) = non_finite_output(run.sys(), &run.rec) {
        return Err(vec![d]);
    }
    if let Some(d) = super::bounds::first_violation(
        &run.sys().model,
        &params,
        &run.rec.cols,
        &run.rec.time,
        &run.rec.rows,
    ) {
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

/// The first recorded value that is NaN or infinite, as an error naming the variable, the time
/// and the equation that computes it. Variables that feed no state (`y = 1/x` watched only)
/// are never seen by the integrator, so the check is made on what would be written.
fn non_finite_output(sys: &SortedSystem, rec: &Recorder) -> Option<Diagnostic> {
    let (row, col) = rec
        .rows
        .iter()
        .enumerate()
        .find_map(|(r, vals)| vals.iter().position(|x| !x.is_finite()).map(|c| (r, c)))?;
    let var = rec.cols[col];
    let value = rec.rows[row][col];
    let t = rec.time[row];
    let v = sys.model.variables.get(var)?;
    let eq = sys
        .blocks
        .iter()
        .find(|b| b.vars.contains(&var))
        .and_then(|b| b.equations.first())
        .and_then(|&i| sys.equations.get(i));
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

fn state_names(sys: &SortedSystem) -> String {
    sys.states
        .iter()
        .map(|s| sys.model.variables[s.var].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn non_finite_at(sys: &SortedSystem, engine: &mut Engine, t: f64) -> Option<Diagnostic> {
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

fn algebraic_only(run: &mut Run, engine: &mut Engine) -> Result<PhaseEnd, Vec<Diagnostic>> {
    let mut crossings = 0usize;
    loop {
        let t = run.next_out();
        let te = run
            .es
            .next_time_event(run.rec.time.last().copied().unwrap_or(run.t0));
        // A time event within rounding after the output point comes first: once `t` is
        // recorded, `next_time_event` only looks after it and would skip the event.
        let slack = 1e-11 * (1.0 + t.abs());
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
fn locate_state_event(
    run: &Run,
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

/// State events this close together (relative to the time) count as one burst.
const BURST_WINDOW: f64 = 1e-9;
/// More state events than this in one burst are chattering.
const BURST_MAX: usize = 50;

/// Stops a run whose state events pile up at one instant: a relation that flips straight back
/// after its event (a thermostat `heat = T < Tbar` without hysteresis: heating off makes
/// `T < Tbar` true again at once). Time would advance by rounding only, event after event.
fn check_chattering(
    run: &mut Run,
    engine: &Engine,
    t: f64,
    idx: usize,
) -> Result<(), Vec<Diagnostic>> {
    if t - run.burst.0 <= BURST_WINDOW * (1.0 + t.abs()) {
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
fn terminal_event(run: &mut Run, engine: &mut Engine) -> Result<(), Vec<Diagnostic>> {
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
fn handle_event(
    run: &mut Run,
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

/// The variables diffsol's error test covers besides the states: the dummy states of the
/// dynamic state sets (the pendulum's `y` and `der(y)` while `x`, `vx` are the states). The main
/// pass computes them from the states, so an error test on the states alone leaves their error
/// to the sensitivity of that solve, and a dynamic set exists because that sensitivity grows
/// without bound as the choice nears a singular one (`dy/dx = -x/y` near the horizontal; the
/// re-selection hysteresis lets it grow about tenfold). Measured on the pendulum released at
/// 2.5 rad: the error stopped following the tolerance (1.8e-5 at 1e-8, rumoca 5.6e-7). A DAE
/// solver (and rumoca) tests every unknown; here these become algebraic components of
/// diffsol's state vector with zero rows in the mass matrix, computed by the same main pass, so
/// the integrator's Newton settles them in one iteration and the evaluation is unchanged.
/// Static choices keep a plain ODE: their dummy states include contact quantities switched under
/// `noEvent` (the omni vehicle), which no error test can follow.
/// Sets of more candidates than [`MAX_CONTROLLED_SET`] are left out: a mechanism that large
/// (the six crank loops of MultiBody's EngineV6: 427 candidates, one state) put hundreds of
/// components into diffsol's matrix, and BDF then stopped at a relation crossing with 40 error
/// test failures while it integrates to the end without them (esdirk34 agrees).
fn error_controlled(sys: &SortedSystem, engine: &Engine) -> Vec<(VarId, u32)> {
    let states: std::collections::HashSet<VarId> =
        engine.prog.states.iter().map(|&(x, _)| x).collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for set in &sys.state_sets {
        if set.candidates.len() > MAX_CONTROLLED_SET {
            continue;
        }
        for (k, cand) in set.candidates.iter().enumerate() {
            let Some(&v) = set.candidate_states.get(k) else {
                continue;
            };
            if !set.dummies.contains(cand) || states.contains(&v) || !seen.insert(v) {
                continue;
            }
            // Variables the main pass does not compute (eliminated aliases) are left out, and
            // so is a copy of a state (`der(x)` read from `vx`): the error test covers it.
            if let Some(r) = engine.value_reg(v)
                && !states.contains(&(r as usize))
            {
                out.push((v, r));
            }
        }
    }
    out
}

/// The largest state set whose dummy states join diffsol's error test.
const MAX_CONTROLLED_SET: usize = 100;

/// How an integration phase ended: at the stop time, or asking for a new choice of states
/// (time, values of every model variable, variables to prefer as states).
struct PhaseEnd {
    stats: super::eval::EvalStats,
    jacobians: usize,
    reselect: Option<(f64, Vec<f64>, Vec<crate::dae::VarId>)>,
}

macro_rules! integrate_with {
    ($fname:ident, $m:ty, $ls:ty) => {
        fn $fname(
            run: &mut Run,
            engine: Engine,
            tol: f64,
            method: Method,
        ) -> Result<PhaseEnd, Vec<Diagnostic>> {
            let model = &run.sys().model;
            // An explicit method cannot take a mass matrix: plain ODE there.
            let alg = match method {
                Method::Tsit45 => Vec::new(),
                _ => error_controlled(run.sys(), &engine),
            };
            // Absolute tolerances scaled by each component's nominal value.
            let atol: Vec<f64> = engine
                .prog
                .states
                .iter()
                .map(|&(x, _)| x)
                .chain(alg.iter().map(|&(v, _)| v))
                .map(|x| {
                    let nominal = model.variables[x]
                        .nominal
                        .as_ref()
                        .and_then(|e| {
                            eval_param_expr(
                                model,
                                &ParamValues {
                                    values: engine.prog.init_regs[..model.variables.len()].to_vec(),
                                },
                                e,
                            )
                            .ok()
                        })
                        .map(f64::abs)
                        .filter(|x| *x > 0.0)
                        .unwrap_or(1.0);
                    tol * nominal
                })
                .collect();
            let eqn = SimEqn::<$m>::new(engine, alg.iter().map(|&(_, r)| r).collect());
            let span = run.t_end - run.t0;
            let mut reselect = None;
            let mut problem = OdeBuilder::<$m>::new()
                .rtol(tol)
                .atol(atol)
                .t0(run.t_restart)
                .h0((span * 1e-6).min(run.interval))
                .build_from_eqn(eqn)
                .map_err(|e| solver_error(e, run.t_restart))?;
            // diffsol counts Newton failures over the solver's whole life (50 by default), not
            // per step: a bouncing contact costs a few at every touchdown and the run stopped
            // after the fifth bounce with the step still healthy. A step that really cannot
            // converge still ends, by the step size falling below the minimum.
            problem.ode_options.max_nonlinear_solver_failures = usize::MAX;
            // diffsol's smallest step is an absolute 1e-13: a circuit simulated for 1e-7 s
            // starts each segment with a step of 1e-13 (span * 1e-6) and fails at its first
            // rejection after an event. The floor follows the span of the run.
            problem.ode_options.min_timestep = problem.ode_options.min_timestep.min(span * 1e-14);
            loop {
                let end = {
                    let p = &problem;
                    match method {
                        Method::Bdf => {
                            let mut state =
                                p.bdf_state::<$ls>().map_err(|e| solver_error(e, p.t0))?;
                            start_algebraic_rates(&mut state, &p.eqn);
                            let mut s = p
                                .bdf_solver::<$ls>(state)
                                .map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                        Method::Esdirk34 => {
                            let mut s = p.esdirk34::<$ls>().map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                        Method::TrBdf2 => {
                            let mut s = p.tr_bdf2::<$ls>().map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                        Method::Tsit45 => {
                            let mut s = p.tsit45().map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                    }
                };
                match end {
                    SegmentEnd::Finished => {
                        let mut engine = problem.eqn.engine.borrow_mut();
                        terminal_event(run, &mut engine)?;
                        break;
                    }
                    SegmentEnd::Reselect { t, y, prefer } => {
                        let mut engine = problem.eqn.engine.borrow_mut();
                        engine
                            .eval_at(t, &y)
                            .map_err(|e| vec![block_error(run.sys(), &engine.prog, &e)])?;
                        engine.run_outputs();
                        let n = run.sys().model.variables.len();
                        reselect = Some((t, engine.regs[..n].to_vec(), prefer));
                        break;
                    }
                    SegmentEnd::Event { t, y, triggered } => {
                        let mut engine = problem.eqn.engine.borrow_mut();
                        if let Some(idx) = triggered {
                            check_chattering(run, &engine, t, idx)?;
                        }
                        let time = engine.prog.time as usize;
                        engine.regs[time] = t;
                        for (i, &(s, _)) in engine.prog.states.clone().iter().enumerate() {
                            engine.regs[s] = y[i];
                        }
                        handle_event(run, &mut engine, t, triggered)?;
                        if run.es.terminated.is_some() {
                            terminal_event(run, &mut engine)?;
                            break;
                        }
                        let mut y_new = engine.states();
                        y_new.extend(problem.eqn.alg.iter().map(|&r| engine.regs[r as usize]));
                        drop(engine);
                        *problem.eqn.y0.borrow_mut() = y_new;
                        problem.t0 = t;
                        problem.h0 = (span * 1e-6).min(run.interval);
                    }
                }
            }
            let jac = *problem.eqn.jacobians.borrow();
            let stats = problem.eqn.engine.borrow().stats.clone();
            Ok(PhaseEnd {
                stats,
                jacobians: jac,
                reselect,
            })
        }
    };
}

/// The rates of the algebraic components in a fresh BDF state (`sim/alg_rates.rs`).
fn start_algebraic_rates<M: Matrix<T = f64>, S: diffsol::OdeSolverState<M::V>>(
    state: &mut S,
    eqn: &SimEqn<M>,
) {
    if eqn.alg.is_empty() {
        return;
    }
    let st = state.as_mut();
    let y = st.y.clone_as_vec();
    let dy = st.dy.clone_as_vec();
    let rates = super::alg_rates::rates(
        &mut eqn.engine.borrow_mut(),
        &eqn.alg,
        *st.t,
        &y[..eqn.nx],
        &dy[..eqn.nx],
        *st.h,
    );
    for (i, r) in rates.into_iter().enumerate() {
        st.dy.set_index(eqn.nx + i, r);
    }
}

integrate_with!(integrate_dense, NalgebraMat<f64>, NalgebraLU<f64>);
integrate_with!(integrate_sparse, FaerSparseMat<f64>, FaerSparseLU<f64>);
