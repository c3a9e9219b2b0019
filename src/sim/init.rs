//! Consistent initialization (MLS 8.6).
//!
//! Unknowns of the initial system: the states that are not `fixed = true` and the parameters
//! with `fixed = false` and no binding. Equations: the `initial equation`s (and `initial
//! algorithm`s, converted by flattening), plus `v = start` for every other variable with
//! `fixed = true` (an algebraic variable, or a derivative chosen as dummy by index reduction).
//! The continuous equations hold through the main pass, which computes every other variable
//! from the states, so `der(x) = 0` (steady state) and equations on algebraic variables need
//! nothing special.
//!
//! With no initial equations every state starts at its `start` value. When there are fewer
//! equations than free states, the states no equation depends on keep their start values (said
//! in the output); so do the unknowns the equations leave undetermined numerically (the
//! Jacobian at the solution singular, to rounding, in their columns), when the equations still
//! hold at their start values. A `fixed` start that constrains no free unknown, or that does
//! not fit in the system, is checked after solving instead: consistent values pass,
//! inconsistent ones are an error naming the variable. More initial equations than unknowns is an error naming them. The
//! system is solved by damped Newton with finite-difference Jacobian columns, from the start
//! values.

use super::dense_lu::{Lu, Regularization, regularized_solve, undetermined_columns};
use super::engine::{BlockError, Engine};
use super::jacobian::initial_deps;
use super::newton::{Check, LineSearch, NewtonPolicy, NewtonWork, Rules, damped_newton};
use super::params::{ParamValues, eval_param_expr, is_initial_unknown};
use super::tape::{Reg, run};
use crate::dae::{FlatModel, VarId, Variability};
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;
use std::collections::BTreeSet;

pub enum InitError {
    Block(BlockError),
    Diagnostics(Vec<Diagnostic>),
}

impl From<BlockError> for InitError {
    fn from(e: BlockError) -> Self {
        InitError::Block(e)
    }
}

/// A `fixed = true` variable that is not a state: the equation `var = start`.
#[derive(Clone, Copy)]
struct FixedStart {
    var: VarId,
    start: f64,
}

/// Solves the initial system; returns notes for the user.
pub fn solve_initial_equations(
    engine: &mut Engine,
    sys: &SortedSystem,
    t0: f64,
) -> Result<Vec<String>, InitError> {
    let mut notes = Vec::new();
    let model = &sys.model;
    engine.regs[engine.prog.time as usize] = t0;
    let states = engine.prog.states.clone();
    let fixed_starts = fixed_starts(engine, sys);
    let params: Vec<VarId> = (0..model.variables.len())
        .filter(|&i| is_initial_unknown(&model.variables[i]))
        .collect();
    let n_eq = engine.prog.initial_residuals.len();
    settle_discrete(engine, model)?;
    if n_eq == 0 && fixed_starts.is_empty() && params.is_empty() {
        let all: Vec<VarId> = states
            .iter()
            .map(|s| s.0)
            .filter(|&v| model.variables[v].fixed != Some(true))
            .collect();
        notes.extend(start_value_note(model, &all));
        return Ok(notes);
    }
    let (problem, untouched) = InitProblem::select(engine, model, &fixed_starts, params);
    notes.extend(start_value_note(model, &untouched));
    let mut problem = problem;
    let mut over_notes = Vec::new();
    if problem.free.len() < problem.neq {
        let error = problem.over_specified(&states);
        problem.set_aside_what_constrains_nothing();
        if problem.free.len() < problem.neq {
            return Err(InitError::Diagnostics(vec![error]));
        }
        over_notes = error.notes;
        if !problem.aside.is_empty() {
            notes.push(format!(
                "initial equations that determine no unknown are only checked: {}",
                problem.aside_names().join(", ")
            ));
        }
    }
    if problem.free.len() > problem.neq {
        notes.extend(problem.keep_start_values()?);
    }
    let mut x: Vec<f64> = problem.free.iter().map(|&v| engine.regs[v]).collect();
    let mut r = Vec::new();
    problem.residual(engine, &x, &mut r)?;
    problem.sweep_explicit(engine, &mut x, &mut r)?;
    problem.solve_by_blocks_where_unevaluable(engine, &mut x, &mut r)?;
    let (converged, kept_note) = problem.newton(engine, &mut x, &mut r)?;
    if converged {
        notes.extend(kept_note);
        check_fixed_starts(engine, sys, &problem.checked, &problem.free)?;
        problem.check_aside(engine, &x, &over_notes)?;
        return Ok(notes);
    }
    Err(InitError::Diagnostics(vec![problem.unsolved(&r)]))
}

/// The `fixed = true` variables that are not states, with their start values. Variables
/// assigned in `when` start from their start value (their `pre`) by definition, and alias
/// elimination moved an eliminated variable's `fixed` start onto the kept one, so both are
/// left out.
fn fixed_starts(engine: &Engine, sys: &SortedSystem) -> Vec<FixedStart> {
    let state_vars: BTreeSet<VarId> = engine.prog.states.iter().map(|s| s.0).collect();
    let eliminated: BTreeSet<VarId> = sys.eliminated.iter().map(|(v, _)| *v).collect();
    let discrete: BTreeSet<VarId> = sys.discrete_vars.iter().copied().collect();
    sys.model
        .variables
        .iter()
        .enumerate()
        .filter(|(i, v)| {
            v.variability == Variability::Continuous
                && v.fixed == Some(true)
                && !state_vars.contains(i)
                && !eliminated.contains(i)
                && !discrete.contains(i)
        })
        .map(|(i, _)| FixedStart {
            var: i,
            start: engine.prog.init_regs[i],
        })
        .collect()
}

/// The initial system as solved: its unknowns and its equations (the initial equations, then
/// the fixed starts that joined them).
struct InitProblem<'a> {
    model: &'a FlatModel,
    /// Free states the equations depend on, then the parameters with `fixed = false`.
    free: Vec<VarId>,
    params: Vec<VarId>,
    /// Fixed starts that are equations of the system.
    active: Vec<FixedStart>,
    /// Fixed starts only checked after solving.
    checked: Vec<FixedStart>,
    init_res: Vec<(Reg, usize)>,
    /// Per entry of `init_res`: the equation depends on no unknown of the system.
    constrains_nothing: Vec<bool>,
    /// Initial equations set aside (they constrain no unknown), checked after solving.
    aside: Vec<(Reg, usize)>,
    neq: usize,
}

impl<'a> InitProblem<'a> {
    /// Chooses the unknowns and the fixed starts that join the equations; also returns the
    /// free states no equation depends on (they keep their start values).
    fn select(
        engine: &Engine,
        model: &'a FlatModel,
        fixed_starts: &[FixedStart],
        params: Vec<VarId>,
    ) -> (Self, Vec<VarId>) {
        let states = &engine.prog.states;
        let n_eq = engine.prog.initial_residuals.len();
        // Dependencies on the free parameters count too (index `states.len() + k`): a `fixed`
        // acceleration determines a spring constant (MultiBody's InitSpringConstant).
        let deps = initial_deps(&engine.prog, &params);
        let candidate = |i: usize| {
            states
                .get(i)
                .is_none_or(|s| model.variables[s.0].fixed != Some(true))
        };
        let mut touched = vec![false; states.len() + params.len()];
        for (r, _) in &engine.prog.initial_residuals {
            for &s in &deps[*r as usize] {
                touched[s as usize] = true;
            }
        }
        // Fixed starts that constrain a free state join the system (as many as fit); the
        // others are only checked.
        let mut active: Vec<FixedStart> = Vec::new();
        let mut checked: Vec<FixedStart> = Vec::new();
        let n_candidates = (0..states.len()).filter(|&i| candidate(i)).count() + params.len();
        for f in fixed_starts {
            let constrains = deps[f.var].iter().any(|&s| candidate(s as usize));
            if constrains && n_eq + active.len() < n_candidates {
                active.push(*f);
                for &s in &deps[f.var] {
                    touched[s as usize] = true;
                }
            } else {
                checked.push(*f);
            }
        }
        let mut free: Vec<VarId> = (0..states.len())
            .filter(|&i| candidate(i) && touched[i])
            .map(|i| states[i].0)
            .collect();
        let untouched: Vec<VarId> = (0..states.len())
            .filter(|&i| candidate(i) && !touched[i])
            .map(|i| states[i].0)
            .collect();
        free.extend(&params);
        let neq = n_eq + active.len();
        let constrains_nothing = engine
            .prog
            .initial_residuals
            .iter()
            .map(|(r, _)| !deps[*r as usize].iter().any(|&s| candidate(s as usize)))
            .collect();
        let problem = InitProblem {
            model,
            free,
            params,
            active,
            checked,
            init_res: engine.prog.initial_residuals.clone(),
            constrains_nothing,
            aside: Vec::new(),
            neq,
        };
        (problem, untouched)
    }

    /// Names of the equations with indices `idx` (initial equations, then fixed starts).
    fn eq_names(&self, idx: &[usize]) -> Vec<String> {
        let model = self.model;
        idx.iter()
            .map(|&i| {
                if i >= self.init_res.len() {
                    let v = &model.variables[self.active[i - self.init_res.len()].var];
                    return format!("`{}` = its fixed start value", v.name);
                }
                equation_name(model, self.init_res[i].1)
            })
            .collect()
    }

    fn all_eq_names(&self) -> String {
        self.eq_names(&(0..self.neq).collect::<Vec<_>>()).join(", ")
    }

    /// Where errors about the system as a whole point: its first equation.
    fn first_span(&self) -> Span {
        self.model
            .initial_equations
            .first()
            .map(|e| e.span)
            .or_else(|| {
                self.active
                    .first()
                    .map(|f| self.model.variables[f.var].span)
            })
            .unwrap_or(Span::DUMMY)
    }

    fn unknown_names(&self) -> Vec<&'a str> {
        let model = self.model;
        self.free
            .iter()
            .map(|&v| model.variables[v].name.as_str())
            .collect()
    }

    /// More equations than unknowns.
    fn over_specified(&self, states: &[(VarId, VarId)]) -> Diagnostic {
        let model = self.model;
        let fixed: Vec<String> = states
            .iter()
            .filter(|(x, _)| model.variables[*x].fixed == Some(true))
            .map(|(x, _)| model.variables[*x].name.clone())
            .collect();
        let unknowns = self.unknown_names();
        let mut d = Diagnostic::error(
            self.first_span(),
            format!(
                "the initial system is over-specified: {} initial equation(s) but only {} unknown(s) left to determine",
                self.neq,
                self.free.len()
            ),
        )
        .with_help("remove an initial equation, or `fixed = true` from a state's start value");
        d = d.with_note(format!("initial equations: {}", self.all_eq_names()));
        d = d.with_note(if unknowns.is_empty() {
            "no unknown is left: every state has fixed = true".to_string()
        } else {
            format!("unknowns: {}", unknowns.join(", "))
        });
        if !fixed.is_empty() {
            d = d.with_note(format!("states with fixed = true: {}", fixed.join(", ")));
        }
        d
    }

    /// Fewer equations than unknowns: keeps start values for the states with an explicit
    /// start, last ones first, until the counts match (parameters with fixed = false are
    /// never kept: they asked to be determined). Returns the note naming the kept states.
    fn keep_start_values(&mut self) -> Result<Option<String>, InitError> {
        let model = self.model;
        let neq = self.neq;
        let free = &mut self.free;
        let n_states = free.len() - self.params.len();
        let mut kept = Vec::new();
        while free.len() > neq {
            let pos = free[..n_states - kept.len()]
                .iter()
                .rposition(|&v| model.variables[v].start.is_some())
                .or((n_states > kept.len()).then(|| n_states - kept.len() - 1));
            let Some(pos) = pos else {
                break;
            };
            kept.push(free.remove(pos));
        }
        kept.sort();
        if free.len() > neq {
            let names: Vec<&str> = self
                .params
                .iter()
                .map(|&v| model.variables[v].name.as_str())
                .collect();
            return Err(InitError::Diagnostics(vec![
                Diagnostic::error(
                    model.variables[self.params[0]].span,
                    format!(
                        "the initial system is under-determined: {} parameter(s) with fixed = false but only {neq} initial equation(s) for them",
                        self.params.len()
                    ),
                )
                .with_note(format!("parameters to determine: {}", names.join(", ")))
                .with_help("add an initial equation for each parameter with fixed = false"),
            ]));
        }
        let names: Vec<&str> = kept
            .iter()
            .map(|&v| model.variables[v].name.as_str())
            .collect();
        Ok((!names.is_empty()).then(|| {
            format!(
                "initial system under-specified: {} kept at its start value (add `fixed = true` or an initial equation to say so)",
                names.join(", ")
            )
        }))
    }

    /// The residuals of the system with the unknowns set to `x`.
    fn residual(
        &self,
        engine: &mut Engine,
        x: &[f64],
        out: &mut Vec<f64>,
    ) -> Result<(), InitError> {
        for (k, &v) in self.free.iter().enumerate() {
            engine.regs[v] = x[k];
        }
        settle_discrete(engine, self.model)?;
        out.clear();
        out.extend(self.init_res.iter().map(|(r, _)| engine.regs[*r as usize]));
        out.extend(self.active.iter().map(|f| engine.regs[f.var] - f.start));
        Ok(())
    }

    /// Initial equations `v = e` (`parameter Real c(fixed = false)` given by a function of
    /// other such parameters): sweeps of `v := e` give their values in as many sweeps as they
    /// depend on each other, where Newton could start from a point at which `e` is not
    /// defined (`0/0` from parameters still at 0). The best point of the sweeps is kept in
    /// `x`, its residuals in `r`.
    fn sweep_explicit(
        &self,
        engine: &mut Engine,
        x: &mut Vec<f64>,
        r: &mut Vec<f64>,
    ) -> Result<(), InitError> {
        let explicit: Vec<(usize, u32)> = engine
            .prog
            .initial_explicit
            .iter()
            .flatten()
            // Only parameters: the continuous and discrete unknowns keep Newton from their
            // start values (a sweep could move a mixed system to another of its solutions).
            .filter(|&&(v, _)| self.model.variables[v].variability == Variability::Parameter)
            .filter_map(|&(v, e)| self.free.iter().position(|&u| u == v).map(|k| (k, e)))
            .collect();
        if explicit.is_empty() {
            return Ok(());
        }
        // Fewer residuals that cannot be evaluated first, then the largest of the others.
        let measure = |r: &[f64]| {
            let bad = r.iter().filter(|x| !x.is_finite()).count();
            let good: Vec<f64> = r.iter().copied().filter(|x| x.is_finite()).collect();
            (bad, norm_of(&good))
        };
        let mut r2 = Vec::new();
        let mut best = (measure(r), x.clone(), r.clone());
        let mut xs = x.clone();
        for _ in 0..self.free.len().min(50) {
            let mut moved = false;
            for &(k, e) in &explicit {
                let v = engine.regs[e as usize];
                if v.is_finite() && v != xs[k] {
                    xs[k] = v;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
            self.residual(engine, &xs, &mut r2)?;
            let m = measure(&r2);
            if m.0 < best.0.0 || (m.0 == best.0.0 && m.1 < best.0.1) {
                best = (m, xs.clone(), r2.clone());
            }
        }
        *x = best.1;
        *r = best.2;
        self.residual(engine, x, r)
    }

    /// At a start point where some residuals cannot be evaluated (`h = H/m` at `m = 0`), the
    /// whole-system Newton has no Jacobian: the blocks of the initial system are solved in
    /// order first (`sim/init_blocks.rs`). Only there, so that every other model keeps the
    /// solution Newton finds from its start values.
    fn solve_by_blocks_where_unevaluable(
        &self,
        engine: &mut Engine,
        x: &mut Vec<f64>,
        r: &mut Vec<f64>,
    ) -> Result<(), InitError> {
        if norm_of(r).is_finite() {
            return Ok(());
        }
        let deps = initial_deps(&engine.prog, &self.params);
        let states = engine.prog.states.clone();
        let rows = initial_rows(
            &deps,
            &states,
            &self.params,
            &self.free,
            &self.init_res,
            &self.active,
        );
        let mut xb = x.clone();
        let mut eval = |xs: &[f64], out: &mut Vec<f64>| self.residual(engine, xs, out).is_ok();
        super::init_blocks::solve_by_blocks(&rows, &mut xb, &mut eval);
        let mut rb = Vec::new();
        if self.residual(engine, &xb, &mut rb).is_ok() && norm_of(&rb).is_finite() {
            *x = xb;
        }
        self.residual(engine, x, r)
    }

    /// The error for a Jacobian singular in column `col`.
    fn singular(&self, col: usize) -> InitError {
        // A failed call gives NaN, whose Jacobian column is no information: the failure is
        // the cause.
        if let Some(m) = super::funcall::take_failure() {
            return InitError::Diagnostics(vec![Diagnostic::error(
                self.first_span(),
                format!("the initial equations cannot be evaluated: {m}"),
            )]);
        }
        let name = &self.model.variables[self.free[col]].name;
        InitError::Diagnostics(vec![
            Diagnostic::error(
                self.first_span(),
                format!(
                    "the initial equations do not determine `{name}` (singular initial system)"
                ),
            )
            .with_note(format!("initial equations: {}", self.all_eq_names()))
            .with_help(format!(
                "give `{name}` a fixed start value or add an initial equation for it"
            )),
        ])
    }

    /// Damped Newton on the unknowns from `x` (residuals `r`): [`damped_newton`] with
    /// [`InitNewton`]. `x` and `r` hold the last iterate. Returns whether the residual reached
    /// [`INIT_RESIDUAL_TOL`], with the engine's registers holding the solution, and a note
    /// naming the unknowns kept at their start values. The Jacobian at the solution is checked:
    /// the unknowns it leaves undetermined take their start values when the residual still
    /// holds there ([`InitNewton::keep_undetermined_at_start`]); otherwise, when a step was
    /// taken with a singular Jacobian, the error names an unknown the system does not
    /// determine.
    fn newton(
        &self,
        engine: &mut Engine,
        x: &mut Vec<f64>,
        r: &mut Vec<f64>,
    ) -> Result<(bool, Option<String>), InitError> {
        let scales = typical_scales(engine, self.model, &self.free);
        let mut policy = InitNewton {
            scales,
            problem: self,
            engine,
            r: std::mem::take(r),
            r2: Vec::new(),
            jac: Vec::new(),
            jac_x: Vec::new(),
            lu: Lu::default(),
            tmp: Vec::new(),
        };
        let start = x.clone();
        let mut work = NewtonWork::starting_at(std::mem::take(x));
        let outcome = damped_newton(&mut policy, &mut work)?;
        let mut kept = Vec::new();
        // A solution that leaves unknowns undetermined is no better than another with other
        // values of them: a Newton step the equations hardly constrain can have moved them
        // anywhere (`der(w) = -w^2*sin(phi)` with `w = 0`: one step from `w = 0.01` moved
        // `phi` by `tan(phi)`). A solution at the start point needs no check.
        if outcome.singular_seen || (outcome.converged && work.x != start) {
            if let Err(col) = policy.factor_at(&work.x)? {
                if !outcome.converged {
                    return Err(self.singular(col));
                }
                match policy.keep_undetermined_at_start(&mut work.x, &start)? {
                    Some(cols) => kept = cols,
                    None if outcome.singular_seen => return Err(self.singular(col)),
                    None => {}
                }
            }
            if outcome.converged {
                policy.eval(&work.x)?;
            }
        }
        *x = work.x;
        *r = policy.r;
        let model = self.model;
        let names: Vec<&str> = kept
            .iter()
            .map(|&j| model.variables[self.free[j]].name.as_str())
            .collect();
        Ok((
            outcome.converged,
            (!names.is_empty()).then(|| {
                format!(
                    "the initial equations do not determine {} (the Jacobian of the initial system is singular at the solution): start values kept (MLS 8.6; add `fixed = true` or an initial equation to say so)",
                    names.join(", ")
                )
            }),
        ))
    }

    /// More equations than unknowns: the initial equations that depend on no unknown (a
    /// vessel's `medium.p = p_start` where a boundary of fixed pressure already gives `p`)
    /// leave the system, to be checked once it is solved. Consistent ones are redundant, as
    /// the other tools treat them; inconsistent ones are still an error, naming them.
    fn set_aside_what_constrains_nothing(&mut self) {
        let (aside, kept): (Vec<_>, Vec<_>) = self
            .init_res
            .iter()
            .zip(std::mem::take(&mut self.constrains_nothing))
            .partition(|(_, nothing)| *nothing);
        self.neq -= aside.len();
        self.aside = aside.into_iter().map(|(&res, _)| res).collect();
        self.constrains_nothing = vec![false; kept.len()];
        self.init_res = kept.into_iter().map(|(&res, _)| res).collect();
    }

    fn aside_names(&self) -> Vec<String> {
        self.aside
            .iter()
            .map(|&(_, e)| equation_name(self.model, e))
            .collect()
    }

    /// The set-aside equations must hold at the solution `x`; one that does not is an error
    /// (the system was over-specified after all: `over_notes` say with what).
    fn check_aside(
        &self,
        engine: &mut Engine,
        x: &[f64],
        over_notes: &[String],
    ) -> Result<(), InitError> {
        if self.aside.is_empty() {
            return Ok(());
        }
        let mut r = Vec::new();
        self.residual(engine, x, &mut r)?;
        let scale = x.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let errors: Vec<Diagnostic> = self
            .aside
            .iter()
            .filter_map(|&(reg, e)| {
                let res = engine.regs[reg as usize];
                (res.is_nan() || res.abs() > 1e-8 * scale).then(|| {
                    let d = Diagnostic::error(
                        self.model.initial_equations[e].span,
                        format!(
                            "the initial system is over-specified: {} determines no unknown and does not hold (residual {res:e})",
                            equation_name(self.model, e)
                        ),
                    )
                    .with_help("remove this initial equation, or make it consistent with the rest of the model");
                    over_notes.iter().fold(d, |d, n| d.with_note(n.clone()))
                })
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(InitError::Diagnostics(errors))
        }
    }

    /// Newton did not converge: the error points at the equation with the largest residual.
    fn unsolved(&self, r: &[f64]) -> Diagnostic {
        let model = self.model;
        let worst = (0..self.neq)
            .max_by(|&a, &b| r[a].abs().total_cmp(&r[b].abs()))
            .unwrap_or(0);
        let span = match self.init_res.get(worst) {
            Some((_, e)) => model.initial_equations[*e].span,
            None => self
                .active
                .get(worst - self.init_res.len())
                .map(|f| model.variables[f.var].span)
                .unwrap_or(Span::DUMMY),
        };
        Diagnostic::error(
            span,
            format!(
                "the initial equations could not be solved: residual {:e} remains here",
                r.get(worst).copied().unwrap_or(f64::NAN)
            ),
        )
        .with_note(format!("unknowns: {}", self.unknown_names().join(", ")))
        .with_help("give start values closer to the solution")
    }
}

/// Converged when the largest residual of the initial system is at most this.
const INIT_RESIDUAL_TOL: f64 = 1e-11;
/// A residual at most this is accepted when Newton's steps are at round-off ([`InitNewton`]).
const INIT_ROUNDOFF_RESIDUAL: f64 = 1e-8;
/// Scaled size of a Newton step at round-off (about 50 ulp of the unknowns).
const INIT_ROUNDOFF_STEP: f64 = 1e-14;
/// A pivot of the initial system's Jacobian below this fraction of the largest is no pivot:
/// at double precision such a system is singular but for rounding.
const INIT_SINGULAR_RATIO: f64 = 1e-15;
/// Iterations of the initial system's Newton.
const INIT_MAX_ITER: usize = 60;
/// The regularized step of the initial system: 1e-10 of the largest diagonal of `JᵀJ`, or 1
/// when that is zero.
const INIT_REGULARIZATION: Regularization = Regularization {
    relative: 1e-10,
    at_zero: Some(1.0),
};

/// The initial system as a [`NewtonPolicy`]: the unknowns `free`, the residuals from
/// [`InitProblem::residual`] (main pass, discrete values settled), the Jacobian by forward
/// differences (dense). Converged when the largest residual is at most [`INIT_RESIDUAL_TOL`]
/// (tested before each step); no test on the step's size; a line search that takes any
/// decrease; regularized steps at singular Jacobians without limit (the solution is checked to
/// be regular afterwards).
struct InitNewton<'p, 'a, 'e> {
    problem: &'p InitProblem<'a>,
    engine: &'e mut Engine,
    /// The residuals of the last evaluation.
    r: Vec<f64>,
    r2: Vec<f64>,
    jac: Vec<f64>,
    /// The unknowns at which `jac` was built.
    jac_x: Vec<f64>,
    lu: Lu,
    tmp: Vec<f64>,
    /// Per unknown, its typical magnitude ([`typical_scales`]).
    scales: Vec<f64>,
}

/// The typical magnitude of each unknown in `free`: its `nominal` attribute where that is a
/// positive parameter expression, else 1.
fn typical_scales(engine: &Engine, model: &FlatModel, free: &[VarId]) -> Vec<f64> {
    let params = ParamValues {
        values: engine.prog.init_regs[..model.variables.len()].to_vec(),
    };
    free.iter()
        .map(|&v| {
            model.variables[v]
                .nominal
                .as_ref()
                .and_then(|e| eval_param_expr(model, &params, e).ok())
                .map(f64::abs)
                .filter(|x| *x > 0.0 && x.is_finite())
                .unwrap_or(1.0)
        })
        .collect()
}

impl InitNewton<'_, '_, '_> {
    /// The Jacobian at `x` (residuals `self.r` there) by forward differences, row-major, into
    /// `self.jac`. The step in an unknown is `sqrt(eps)` of its size: its value, or its typical
    /// scale when the value is smaller (an enthalpy of nominal 1e6 starting at 0: a step of
    /// 1e-7 there moved `T = H/(m*cp)` by less than the rounding of `T - 300`, and the
    /// column came out zero). The difference is divided by the step actually taken.
    fn jacobian(&mut self, x: &[f64]) -> Result<(), InitError> {
        let n = self.problem.free.len();
        self.jac.clear();
        self.jac.resize(n * n, 0.0);
        for j in 0..n {
            let mut xp = x.to_vec();
            xp[j] += f64::EPSILON.sqrt() * x[j].abs().max(self.scales[j]);
            let h = xp[j] - x[j];
            self.problem.residual(self.engine, &xp, &mut self.r2)?;
            for i in 0..n {
                self.jac[i * n + j] = (self.r2[i] - self.r[i]) / h;
            }
        }
        Ok(())
    }

    /// Builds and factors the Jacobian at `x` (the point of the last evaluation). A pivot
    /// below [`INIT_SINGULAR_RATIO`] of the largest counts as none: the Jacobian is singular
    /// but for rounding (MultiBody's FreeMotionScalarInit4: three angles the equations leave
    /// free, whose columns hold products of values 1e-15; the Newton step through such a pivot
    /// moved them by hundreds of radians).
    fn factor_at(&mut self, x: &[f64]) -> Result<Result<(), usize>, InitError> {
        self.jacobian(x)?;
        self.jac_x.clear();
        self.jac_x.extend_from_slice(x);
        Ok(match self.lu.factor(self.problem.free.len(), &self.jac) {
            Ok(()) if self.lu.pivot_ratio < INIT_SINGULAR_RATIO => Err(self.lu.min_pivot_column),
            f => f,
        })
    }

    /// At a solution `x` where the Jacobian (just built) is singular: the unknowns it leaves
    /// undetermined ([`undetermined_columns`], columns in their typical scales) take their
    /// start values `start` (MLS 8.6: an under-determined initial system may be completed by
    /// start values), if the residual stays converged there. Returns their indices in `free`,
    /// or `None` when they cannot keep their start values.
    fn keep_undetermined_at_start(
        &mut self,
        x: &mut [f64],
        start: &[f64],
    ) -> Result<Option<Vec<usize>>, InitError> {
        let n = self.problem.free.len();
        let scaled: Vec<f64> = (0..n * n)
            .map(|k| self.jac[k] * self.scales[k % n])
            .collect();
        let cols = undetermined_columns(&scaled, n, INIT_SINGULAR_RATIO);
        if cols.is_empty() {
            return Ok(Some(cols));
        }
        let mut xs = x.to_vec();
        for &j in &cols {
            xs[j] = start[j];
        }
        if self.eval(&xs)? > INIT_RESIDUAL_TOL {
            self.eval(x)?;
            return Ok(None);
        }
        x.copy_from_slice(&xs);
        Ok(Some(cols))
    }

    /// Whether every residual is at most what an error of [`INIT_ROUNDOFF_STEP`] in the
    /// unknowns (relative, as the step test measures it) changes it by, through the last
    /// Jacobian. The residual `der(p)` of a liquid volume is its net inflow over
    /// `V*d(rho)/dp`: 1e7 Pa/s per Pa in a 0.16 l pipe of water (MSL HeatingSystem), so a
    /// pressure of 1.3e5 Pa known to its last bit (3e-11 Pa) can leave a residual of 1e-5 or
    /// more, far above [`INIT_ROUNDOFF_RESIDUAL`].
    fn at_roundoff(&self) -> bool {
        let n = self.jac_x.len();
        if n == 0 || self.jac.len() != n * n || self.r.len() != n {
            return false;
        }
        self.r.iter().enumerate().all(|(i, r)| {
            let row = &self.jac[i * n..(i + 1) * n];
            let reach: f64 = row
                .iter()
                .zip(&self.jac_x)
                .map(|(j, x)| (j * (1.0 + x.abs())).abs())
                .sum();
            r.abs() <= INIT_ROUNDOFF_RESIDUAL.max(INIT_ROUNDOFF_STEP * reach)
        })
    }
}

impl NewtonPolicy for InitNewton<'_, '_, '_> {
    type Error = InitError;

    fn rules(&self) -> Rules {
        Rules {
            max_iter: INIT_MAX_ITER,
            step_tol: None,
            line_search: LineSearch::Decrease {
                accept_below: 1e-4,
                give_up_below: 1e-6,
            },
            max_singular_steps: usize::MAX,
        }
    }

    /// The residuals at the start are those the caller evaluated.
    fn start(&mut self, _x: &[f64]) -> Result<f64, InitError> {
        Ok(norm_of(&self.r))
    }

    fn eval(&mut self, x: &[f64]) -> Result<f64, InitError> {
        self.problem.residual(self.engine, x, &mut self.r)?;
        Ok(norm_of(&self.r))
    }

    /// Converged at [`INIT_RESIDUAL_TOL`], or at round-off: an equation between quantities of
    /// size 1e5 (a pressure) cannot get below about 1e-11, so a residual at round-off
    /// ([`InitNewton::at_roundoff`]) is accepted once the full Newton step has shrunk to
    /// [`INIT_ROUNDOFF_STEP`] of the unknowns' size, in two iterations in a row (nothing is
    /// left to improve; a step that small once can be a stall at a singular point).
    fn converged(&mut self, norm: f64, check: Check) -> Result<bool, InitError> {
        Ok(match check {
            Check::BeforeStep => norm <= INIT_RESIDUAL_TOL,
            Check::AfterStep { step, prev_step } => {
                step <= INIT_ROUNDOFF_STEP
                    && prev_step <= INIT_ROUNDOFF_STEP
                    && (norm <= INIT_ROUNDOFF_RESIDUAL || self.at_roundoff())
            }
        })
    }

    fn factor(&mut self, x: &[f64], probe: Option<&[f64]>) -> Result<Result<(), usize>, InitError> {
        let Some(p) = probe else {
            return self.factor_at(x);
        };
        self.eval(p)?;
        let f = self.factor_at(p)?;
        self.eval(x)?;
        Ok(f)
    }

    fn residuals(&self, out: &mut Vec<f64>) {
        out.clone_from(&self.r);
    }

    fn solve(&mut self, dx: &mut [f64]) {
        self.lu.solve(dx, &mut self.tmp);
    }

    /// Singular at this point, which need not be singular at the solution: with `parameter
    /// Real r(fixed = false)` starting at 0 and `der(x) = r*(x - u)`, `x` enters only once `r`
    /// is known. The regularized step moves the unknowns the equations do determine.
    fn regularized(&mut self, column: usize, dx: &mut [f64]) -> Result<(), InitError> {
        let n = self.problem.free.len();
        regularized_solve(
            &self.jac,
            n,
            dx,
            &mut self.lu,
            &mut self.tmp,
            INIT_REGULARIZATION,
        )
        .map_err(|col| self.problem.singular(col.unwrap_or(column)))
    }

    fn singular(&mut self, column: usize) -> InitError {
        self.problem.singular(column)
    }
}

/// For each residual of the initial system (the initial equations, then the active fixed
/// starts), the positions in `free` of the unknowns it depends on.
fn initial_rows(
    deps: &[Vec<u32>],
    states: &[(VarId, VarId)],
    params: &[VarId],
    free: &[VarId],
    init_res: &[(u32, usize)],
    active: &[FixedStart],
) -> Vec<Vec<usize>> {
    // `deps` numbers the states first, then the free parameters.
    let pos: Vec<Option<usize>> = states
        .iter()
        .map(|s| s.0)
        .chain(params.iter().copied())
        .map(|v| free.iter().position(|&u| u == v))
        .collect();
    let row = |reg: usize| {
        let mut r: Vec<usize> = deps
            .get(reg)
            .into_iter()
            .flatten()
            .filter_map(|&d| pos.get(d as usize).copied().flatten())
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    };
    init_res
        .iter()
        .map(|(reg, _)| row(*reg as usize))
        .chain(active.iter().map(|f| row(f.var)))
        .collect()
}

/// The largest magnitude, NaN when any element is NaN.
fn norm_of(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| {
        if x.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(x.abs())
        }
    })
}

/// Evaluates the system and the initial code, assigning the discrete unknowns their initial
/// equations give (`v = e`, `pre(v) = e`) until nothing changes: those values may depend on
/// each other and on the continuous unknowns.
fn settle_discrete(engine: &mut Engine, model: &FlatModel) -> Result<(), InitError> {
    for _ in 0..50 {
        engine.run_main()?;
        engine.run_outputs();
        let p = &engine.prog;
        run(&p.code[p.initial_code.clone()], &mut engine.regs);
        let mut changed = false;
        for a in &engine.prog.initial_assigns {
            let x = engine.regs[a.value as usize];
            let mut set = |r: usize| {
                // NaN != NaN would never settle; a NaN is reported by the caller's checks.
                if engine.regs[r] != x && !(x.is_nan() && engine.regs[r].is_nan()) {
                    engine.regs[r] = x;
                    changed = true;
                }
            };
            if a.set_var {
                set(a.var);
            }
            if let Some(p) = a.pre {
                set(p as usize);
            }
        }
        changed |= run_initial_whens(engine);
        if !changed {
            return Ok(());
        }
    }
    let first = engine.prog.initial_assigns.first().map(|a| a.eq);
    let names: Vec<&str> = engine
        .prog
        .initial_assigns
        .iter()
        .map(|a| model.variables[a.var].name.as_str())
        .collect();
    Err(InitError::Diagnostics(vec![
        Diagnostic::error(
            first
                .map(|e| model.initial_equations[e].span)
                .unwrap_or(Span::DUMMY),
            "the initial values of the discrete variables do not settle: their initial equations keep changing each other",
        )
        .with_note(format!("discrete unknowns: {}", names.join(", "))),
    ]))
}

/// The `when initial()` branches (MLS 8.6: their equations are active during initialization)
/// assign their variables, so that initial equations reading those variables see the values
/// the branches give (`q = y` with `when initial() then y = 3`). Returns whether a value changed.
fn run_initial_whens(engine: &mut Engine) -> bool {
    let mut changed = false;
    for k in 0..engine.prog.whens.len() {
        let w = &engine.prog.whens[k];
        let Some(b) = w.initial.iter().position(|&i| i) else {
            continue;
        };
        let body = w.bodies.get(b).cloned();
        let assigns: Vec<(VarId, Reg)> = w.branches[b]
            .1
            .iter()
            .filter_map(|a| match a {
                super::program::Action::Assign { var, value } => Some((*var, *value)),
                _ => None,
            })
            .collect();
        if let Some(r) = body {
            run(&engine.prog.code[r], &mut engine.regs);
        }
        for (var, value) in assigns {
            let x = engine.regs[value as usize];
            if engine.regs[var] != x && !(x.is_nan() && engine.regs[var].is_nan()) {
                engine.regs[var] = x;
                changed = true;
            }
        }
    }
    changed
}

/// "initial equation 3 in `tank`".
fn equation_name(model: &FlatModel, e: usize) -> String {
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
}

/// `fixed = true` starts that were not equations of the initial system must hold after it.
fn check_fixed_starts(
    engine: &Engine,
    sys: &SortedSystem,
    checked: &[FixedStart],
    free: &[VarId],
) -> Result<(), InitError> {
    let model = &sys.model;
    let mut errors = Vec::new();
    for f in checked {
        let x = engine.regs[f.var];
        if (x - f.start).abs() <= 1e-6 * f.start.abs().max(1.0) {
            continue;
        }
        let v = &model.variables[f.var];
        let unknowns: Vec<&str> = free
            .iter()
            .map(|&u| model.variables[u].name.as_str())
            .collect();
        let mut d = Diagnostic::error(
            v.span,
            format!(
                "the initial system is over-specified: `{}` has fixed = true with start {}, but the other initial conditions give {} = {x}",
                v.name, f.start, v.name
            ),
        )
        .with_help(format!(
            "remove `fixed = true` from `{}`, or make its start value consistent with the fixed states",
            v.name
        ));
        if !unknowns.is_empty() {
            d = d.with_note(format!(
                "unknowns of the initial system: {}",
                unknowns.join(", ")
            ));
        }
        errors.push(d);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(InitError::Diagnostics(errors))
    }
}

/// The note naming the states that no initial equation and no `fixed = true` determines: they
/// start at their `start` values (MLS 8.6), which the modeler should know were chosen for them.
fn start_value_note(model: &FlatModel, vars: &[VarId]) -> Option<String> {
    const SHOWN: usize = 10;
    if vars.is_empty() {
        return None;
    }
    let mut names: Vec<String> = vars
        .iter()
        .take(SHOWN)
        .map(|&v| {
            let var = &model.variables[v];
            match &var.start {
                Some(_) => var.name.clone(),
                None => format!("{} (no start: 0)", var.name),
            }
        })
        .collect();
    if vars.len() > SHOWN {
        names.push(format!("and {} more", vars.len() - SHOWN));
    }
    Some(format!(
        "initial values taken from start values (no initial equation or `fixed = true` determines them): {}",
        names.join(", ")
    ))
}
