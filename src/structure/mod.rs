//! Structural analysis: from the flat DAE to a sorted index-1 system.
//!
//! Phases (each in its own module): parameters evaluated at translation substituted
//! ([`evaluated`]), residual form ([`prepare`]), alias elimination ([`alias`]),
//! `der()` to derivative variables, a structural regularity check with Dulmage-Mendelsohn
//! diagnostics ([`dm`]), Pantelides index reduction ([`pantelides`]) with symbolic
//! differentiation ([`derivative`]), dummy-derivative state selection ([`dummy`]) and BLT
//! sorting ([`blt`]). The result is a [`SortedSystem`] plus a [`StructureReport`] for the
//! teaching views ([`view`], [`html`]).

mod alias;
pub(crate) mod blt;
pub(crate) mod derivative;
mod dm;
mod dummy;
mod evaluated;
pub(crate) mod expr;
pub mod html;
mod incidence;
mod initial_if;
pub(crate) mod matching;
mod pantelides;
mod preferred;
mod prepare;
pub mod print;
pub(crate) mod redundancy;
mod report;
mod semilinear;
mod state_select_rules;
mod string_values;
mod system;
pub mod tearing;
mod userfn;
pub mod view;
pub(crate) mod work;

pub use incidence::{BipartiteGraph, Lin, Node, incidence as incidence_of};
pub use report::*;
pub use system::*;

use crate::dae::{EquationKind, Expr, FlatModel, VarId};
use crate::diag::{self, Diagnostic};
// `std::time::Instant` natively; the browser's clock in WebAssembly (the playground).
use web_time::Instant;
use work::{Role, WorkingSystem};

/// Options of [`analyze`].
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// Eliminate aliases and trivial linear equations before matching (on by default).
    pub eliminate_aliases: bool,
    /// Variables the state selection should prefer as states (overrides every `stateSelect`
    /// hint except `always`).
    pub prefer_states: Vec<VarId>,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            eliminate_aliases: true,
            prefer_states: Vec::new(),
        }
    }
}

/// The result of [`analyze`]: the system for the simulator and the report for the views.
#[derive(Clone)]
pub struct Analysis {
    pub system: SortedSystem,
    pub report: StructureReport,
    /// The index-reduced system before state selection, kept for [`reselect`].
    reduced: Reduced,
}

#[derive(Clone)]
struct Reduced {
    work: WorkingSystem,
    discrete_equations: Vec<crate::dae::Equation>,
    discrete_vars: Vec<VarId>,
}

/// Runs structural analysis. Errors name the variables and equations involved.
pub fn analyze(mut model: FlatModel, opts: &AnalyzeOptions) -> diag::Result<Analysis> {
    evaluated::substitute(&mut model);
    string_values::lower(&mut model)?;
    initial_if::lower(&mut model)?;
    let mut timings = Timings {
        phases: Vec::new(),
        last: Some(Instant::now()),
    };
    let mut work = WorkingSystem::new(model);
    let mut discrete = prepare::prepare(&mut work)?;
    let n_vars_model = work.model.variables.len();
    let n_eqs_model = work.eqs.len();
    let n_unknowns_model = (0..n_vars_model).filter(|&v| work.is_unknown(v)).count();
    timings.lap("residual form");

    if opts.eliminate_aliases {
        let mut protected = Vec::new();
        for eq in &discrete.equations {
            collect_reinit(&eq.kind, &mut protected);
        }
        alias::eliminate(&mut work, &protected, &mut discrete.equations);
    }
    timings.lap("alias elimination");
    semilinear::rule1(&mut work);

    replace_ders(&mut work)?;
    initial_derivatives(&mut work)?;
    let mut reduced = Reduced {
        work,
        discrete_equations: discrete.equations,
        discrete_vars: discrete.vars,
    };
    // Preferred variables made state candidates (see `preferred`). They only widen the choice
    // of states; when that fails (an equation index reduction would then have to differentiate
    // cannot be), the next smaller set is tried: the preferred velocities alone, then none (the
    // model as written).
    let velocities = preferred::velocities(&reduced.work);
    let mut all = velocities.clone();
    all.extend(preferred::others(&reduced.work));
    all.sort_unstable();
    all.dedup();
    // Without other preferred variables the two sets are one: analyse it once.
    let trials = if all == velocities {
        vec![all]
    } else {
        vec![all, velocities]
    };
    let mut done = None;
    for candidates in trials {
        if candidates.is_empty() {
            continue;
        }
        let mut trial = reduced.clone();
        for &w in &candidates {
            trial.work.der_var(w);
        }
        let mut t = Timings {
            phases: timings.phases.clone(),
            last: timings.last,
        };
        match reduce_and_finish(&mut trial, &opts.prefer_states, &mut t) {
            Ok(r) => {
                reduced = trial;
                timings = t;
                done = Some(r);
                break;
            }
            // `MINIMO_DEBUG_STATES`: why a trial with preferred candidates was given up.
            Err(d) if std::env::var_os("MINIMO_DEBUG_STATES").is_some() => {
                for x in &d {
                    eprintln!("preferred-state trial failed: {}", x.message);
                }
            }
            Err(_) => {}
        }
    }
    let (system, mut report) = match done {
        Some(r) => r,
        None => reduce_and_finish(&mut reduced, &opts.prefer_states, &mut timings)?,
    };
    report.sizes.variables = n_vars_model;
    report.sizes.equations = n_eqs_model;
    report.sizes.unknowns = n_unknowns_model;
    timings.lap("report");
    report.timings = timings.phases;
    Ok(Analysis {
        system,
        report,
        reduced,
    })
}

/// Structural check, index reduction, then [`finish`].
fn reduce_and_finish(
    reduced: &mut Reduced,
    prefer: &[VarId],
    timings: &mut Timings,
) -> diag::Result<(SortedSystem, StructureReport)> {
    let work = &mut reduced.work;
    let mut adj: Vec<Vec<VarId>> = (0..work.eqs.len())
        .map(|e| pantelides::row(work, e))
        .collect();
    check_regular(work, &adj)?;
    timings.lap("structural check");

    pantelides::pantelides(work, &mut adj)?;
    replace_ders_initial(work);
    inline_late(work);
    timings.lap("index reduction");
    finish(reduced, prefer, timings)
}

/// The flat model in residual form with `der()` replaced by derivative variables, before alias
/// elimination and matching (what [`crate::analysis::reactions`] reads: it needs every equation
/// where the modeler wrote it, and no regular structure, since redundant constraints make a
/// model structurally singular).
pub(crate) fn preprocess(mut model: FlatModel) -> diag::Result<WorkingSystem> {
    evaluated::substitute(&mut model);
    let mut work = WorkingSystem::new(model);
    prepare::prepare(&mut work)?;
    replace_ders(&mut work)?;
    Ok(work)
}

/// Re-runs dummy-derivative selection preferring `prefer` as states (when the constraint
/// Jacobian of a [`StateSet`] becomes singular for the current choice), and sorts again.
/// Index reduction is not repeated.
pub fn reselect(analysis: &Analysis, prefer: &[VarId]) -> diag::Result<SortedSystem> {
    let mut timings = Timings::default();
    finish(&analysis.reduced, prefer, &mut timings).map(|(s, _)| s)
}

/// State selection, BLT and the report, from the index-reduced system.
fn finish(
    reduced: &Reduced,
    prefer: &[VarId],
    timings: &mut Timings,
) -> diag::Result<(SortedSystem, StructureReport)> {
    let work = &reduced.work;
    let selection = dummy::select(work, prefer)?;
    timings.lap("state selection");

    let n_vars = work.model.variables.len();
    let mut is_state = vec![false; n_vars];
    for &s in &selection.states {
        is_state[s] = true;
    }
    let unknown = |v: VarId| work.is_unknown(v) && !is_state[v];
    let rows = |frozen: bool| -> Vec<Vec<VarId>> {
        (0..work.eqs.len())
            .map(|e| {
                let u = |v: VarId| unknown(v);
                let r = &work.eqs[e].residual;
                if frozen {
                    incidence::incidence_frozen(r, &u).into_keys().collect()
                } else {
                    incidence::incidence(r, &u).into_keys().collect()
                }
            })
            .collect()
    };
    // Sorted as the simulator evaluates: relations (outside `noEvent`) and `pre` values are
    // fixed between event iterations (see `incidence_frozen`). When that view has no perfect
    // matching (an unknown that only a relation determines), the plain incidence is used.
    let mut adj = rows(true);
    let mut m = matching::maximum(&adj, n_vars, &unknown);
    let unknowns: Vec<VarId> = (0..n_vars).filter(|&v| unknown(v)).collect();
    if m.size() != work.eqs.len() || m.size() != unknowns.len() {
        adj = rows(false);
        m = matching::maximum(&adj, n_vars, &unknown);
    }
    if m.size() != work.eqs.len() || m.size() != unknowns.len() {
        let mut d = dm::report(work, &adj, &unknowns, &m);
        for x in d.iter_mut() {
            x.notes
                .push("this appeared after index reduction and state selection".into());
        }
        return Err(d);
    }
    let blocks = blt::sort(&work.eqs, &adj, &m);
    timings.lap("BLT");

    let states: Vec<State> = selection
        .states
        .iter()
        .filter_map(|&s| {
            work.deriv[s].map(|d| State {
                var: s,
                derivative: d,
            })
        })
        .collect();
    let system = SortedSystem {
        model: work.model.clone(),
        states,
        equations: work.eqs.clone(),
        blocks,
        eliminated: work.eliminated.clone(),
        dummy_derivatives: selection.dummies.clone(),
        discrete_equations: reduced.discrete_equations.clone(),
        discrete_vars: reduced.discrete_vars.clone(),
        state_sets: selection.state_sets.clone(),
    };
    let report = report::build(work, &system, &m, &adj, selection.warnings);
    Ok((system, report))
}

#[derive(Default)]
struct Timings {
    phases: Vec<Timing>,
    last: Option<Instant>,
}

impl Timings {
    fn lap(&mut self, phase: &str) {
        let now = Instant::now();
        let start = *self.last.get_or_insert(now);
        self.phases.push(Timing {
            phase: phase.to_string(),
            seconds: (now - start).as_secs_f64(),
        });
        self.last = Some(now);
    }
}

fn collect_reinit(kind: &EquationKind, out: &mut Vec<VarId>) {
    match kind {
        EquationKind::Reinit { var, .. } => out.push(*var),
        EquationKind::When { branches } | EquationKind::If { branches, .. } => {
            for (_, b) in branches {
                for e in b {
                    collect_reinit(&e.kind, out);
                }
            }
        }
        _ => {}
    }
}

/// `der(e)` becomes the derivative variable of `e` (or the derivative expression of `e`).
fn replace_ders(work: &mut WorkingSystem) -> diag::Result<()> {
    let mut errors = Vec::new();
    for e in 0..work.eqs.len() {
        let r = work.eqs[e].residual.clone();
        let mut has_der = false;
        r.visit(&mut |x| has_der |= matches!(x, Expr::Der(_)));
        if !has_der {
            continue;
        }
        let mut err = None;
        let new = expr::rewrite(&r, &mut |x| match x {
            Expr::Der(a) => match *a {
                Expr::Var(v) if work.is_continuous(v) => Expr::Var(work.der_var(v)),
                inner => match work.time_derivative(&inner) {
                    Ok(d) => expr::simplify(&d),
                    Err(msg) => {
                        err.get_or_insert(msg);
                        Expr::Der(Box::new(inner))
                    }
                },
            },
            other => other,
        });
        if let Some(msg) = err {
            errors.push(Diagnostic::error(
                work.eqs[e].span,
                format!("cannot take this derivative: {msg}"),
            ));
        }
        work.eqs[e].residual = new;
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// `der(e)` in an initial equation of an `e` the equations never differentiate (MSL
/// `InitializeFlange` sets `der(w)` of an algebraic `w = der(flange.phi)`): the variables of
/// `e` get their derivative variables before index reduction, so Pantelides finds the
/// equations defining them without an equation for the derivative, differentiates those, and
/// state selection treats the variables as candidates like any other (MLS 3.7.4.2: `der` of a
/// differentiable expression).
fn initial_derivatives(work: &mut WorkingSystem) -> diag::Result<()> {
    let mut args = Vec::new();
    for eq in &work.model.initial_equations {
        visit_equation(&eq.kind, &mut |x| {
            if let Expr::Der(a) = x {
                args.push((eq.span, (**a).clone()));
            }
        });
    }
    let mut errors = Vec::new();
    for (span, a) in args {
        if let Err(msg) = work.time_derivative(&a) {
            errors.push(Diagnostic::error(
                span,
                format!("cannot take this derivative: {msg}"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Visits every expression of an equation, nested bodies included.
fn visit_equation(kind: &EquationKind, f: &mut impl FnMut(&Expr)) {
    match kind {
        EquationKind::Simple { lhs, rhs } => {
            lhs.visit(f);
            rhs.visit(f);
        }
        EquationKind::If { branches, else_ } => {
            for (c, body) in branches {
                c.visit(f);
                for eq in body {
                    visit_equation(&eq.kind, f);
                }
            }
            for eq in else_ {
                visit_equation(&eq.kind, f);
            }
        }
        EquationKind::When { branches } => {
            for (c, body) in branches {
                c.visit(f);
                for eq in body {
                    visit_equation(&eq.kind, f);
                }
            }
        }
        EquationKind::Reinit { value, .. } => value.visit(f),
        EquationKind::Assert { condition, .. } => condition.visit(f),
        EquationKind::Terminate { .. } => {}
    }
}

/// In initial equations, `der(x)` becomes the derivative variable where one exists.
fn replace_ders_initial(work: &mut WorkingSystem) {
    let mut eqs = std::mem::take(&mut work.model.initial_equations);
    for eq in eqs.iter_mut() {
        if let EquationKind::Simple { lhs, rhs } = &mut eq.kind {
            for side in [lhs, rhs] {
                *side = expr::rewrite(side, &mut |x| match x {
                    Expr::Der(a) => match work.time_derivative_existing(&a) {
                        Some(d) => expr::simplify(&d),
                        None => Expr::Der(a),
                    },
                    other => other,
                });
            }
        }
    }
    work.model.initial_equations = eqs;
}

/// Index reduction is over: calls of `InlineAfterIndexReduction` functions (kept for their
/// declared derivatives, MLS 18.3) become their bodies in the equations and the initial
/// equations, so matching, sorting and the simulator's Jacobians see what each equation
/// depends on.
fn inline_late(work: &mut WorkingSystem) {
    for e in 0..work.eqs.len() {
        if let Some(r) = userfn::inline_late(&work.model, &work.eqs[e].residual) {
            work.eqs[e].residual = expr::simplify(&r);
        }
    }
    let mut eqs = std::mem::take(&mut work.model.initial_equations);
    for eq in eqs.iter_mut() {
        if let EquationKind::Simple { lhs, rhs } = &mut eq.kind {
            for side in [lhs, rhs] {
                if let Some(x) = userfn::inline_late(&work.model, side) {
                    *side = x;
                }
            }
        }
    }
    work.model.initial_equations = eqs;
}

/// Structural regularity: a perfect matching with each variable merged with its derivatives.
/// This is exactly the condition under which Pantelides terminates.
fn check_regular(work: &WorkingSystem, rows: &[Vec<VarId>]) -> diag::Result<()> {
    let n_vars = work.model.variables.len();
    let unknowns: Vec<VarId> = (0..n_vars)
        .filter(|&v| work.is_unknown(v) && work.model.variables[v].derivative_of.is_none())
        .collect();
    let adj: Vec<Vec<VarId>> = rows
        .iter()
        .map(|r| {
            let mut row: Vec<VarId> = r.iter().map(|&v| work.root(v).0).collect();
            row.sort_unstable();
            row.dedup();
            row
        })
        .collect();
    let allowed = |v: VarId| work.role[v] == Role::Unknown;
    let m = matching::maximum(&adj, n_vars, &allowed);
    if m.size() == adj.len() && m.size() == unknowns.len() {
        return Ok(());
    }
    Err(dm::report(work, &adj, &unknowns, &m))
}
