//! Solvability of constraint reactions (Wojtyra & Frączek, Multibody Syst Dyn 30, 2013).
//!
//! With redundant constraints the motion can be unique while the reactions are not: only the
//! total generalized reaction `f = Cᵀλ` is. The reaction of one constraint X is unique exactly
//! when `span(C_Xᵀ) ∩ span(C_Yᵀ) = {0}` (Y: every other constraint), i.e. when
//! `rank C_X + rank C_Y = rank C`, i.e. when `B_X = C_Xᵀ Ñ_X = 0` for an orthonormal basis `Ñ` of
//! the left null space of `C` (the paper's QR test, here with an SVD).
//!
//! What is read from the model (after alias elimination, before any matching, so redundant
//! models, which are structurally singular as soon as they have more constraint rows than
//! coordinates, can be analysed):
//! - **coordinates** `q`: unknowns `x` with a kinematic equation `der(x) = v` where `v` is itself
//!   differentiated (second order); `der(x)` and `v` are the velocity of `x`, `der(v)` its
//!   acceleration;
//! - **constraint equations**: equations whose unknowns are coordinates, velocities or
//!   accelerations only (besides unknowns fixed by parameters, such as a ground frame). One in
//!   coordinates only is holonomic (its row is `∂Φ/∂q`); one in velocities is a velocity-level
//!   (nonholonomic, Pfaffian) constraint (its row is `∂/∂q̇`); one in accelerations gives its
//!   row `∂/∂q̈`. The rows are grouped by the component the equation comes from: one
//!   "kinematic pair" per joint or edge instance.
//! - **multipliers**: the unknowns declared directly in the pair's component that are neither
//!   coordinates nor computable from the coordinates and velocities (reaction variables), paired
//!   with the rows in order when there are as many of them as rows.
//!
//! `Minimo.Multibody.Planar` is written in that form. The 3-D library states its joints at the
//! acceleration level through intermediate variables and turns its bodies with quaternions: when
//! this reading finds no constraint, [`super::reactions_spatial`] reads C at velocity level.
//!
//! Rank decisions use the singular values with the tolerance [`RANK_TOL`] times the largest
//! one; the Jacobian is symbolic (exact up to rounding), so the gap between the last nonzero
//! singular value and the zero ones is many orders of magnitude.

use crate::dae::{Expr, FlatModel, VarId};
use crate::diag::{self, Diagnostic, Span};
use crate::structure::derivative::{Partial, diff};
use crate::structure::print::residual_text;
use crate::structure::redundancy::Point;
use crate::structure::work::WorkingSystem;
use crate::structure::{Lin, incidence_of};
use nalgebra::DMatrix;
use serde::Serialize;
use std::collections::BTreeMap;

/// Relative tolerance of the rank decisions: singular values below `RANK_TOL * σ_max` are zero.
pub const RANK_TOL: f64 = 1e-9;

/// Options of [`analyze`].
#[derive(Clone, Debug, Default)]
pub struct ReactionOptions {
    /// Times of a simulation at which to analyse; empty: the start values.
    pub times: Vec<f64>,
    /// Options of that simulation (stop time raised to the last of `times`).
    pub sim: crate::sim::SimOptions,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReactionReport {
    pub model: String,
    /// The generalized coordinates, in column order.
    pub coordinates: Vec<String>,
    pub tolerance: f64,
    pub points: Vec<PointReport>,
}

/// The analysis at one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct PointReport {
    pub time: f64,
    /// Where the values come from: `start values` or `simulation`.
    pub source: String,
    /// n: generalized coordinates.
    pub n: usize,
    /// m: holonomic rows.
    pub holonomic: usize,
    /// h: velocity-level (nonholonomic) rows.
    pub nonholonomic: usize,
    /// Rows stated on accelerations.
    pub acceleration: usize,
    pub rank_holonomic: usize,
    pub rank_nonholonomic: usize,
    /// r = rank C.
    pub rank: usize,
    /// p = m + h - r: the degree of redundancy.
    pub redundancy: usize,
    /// Degrees of freedom of the velocities: n - r.
    pub dof: usize,
    /// Singular values of C, largest first.
    pub singular_values: Vec<f64>,
    pub pairs: Vec<PairReport>,
    /// Constraints the values do not satisfy.
    pub warnings: Vec<String>,
}

/// One kinematic pair (a joint, a driving constraint, a knife edge).
#[derive(Clone, Debug, Serialize)]
pub struct PairReport {
    pub name: String,
    pub rows: Vec<RowReport>,
    /// rank C_X.
    pub rank: usize,
    /// rank C_Y (all other rows).
    pub rank_others: usize,
    /// dim(span C_Xᵀ ∩ span C_Yᵀ) = rank C_X + rank C_Y - rank C.
    pub shared: usize,
    /// The reaction `f_X = C_Xᵀ λ_X` is uniquely determined.
    pub unique: bool,
    /// ‖B_X‖_F (independent of the choice of the orthonormal null basis).
    pub b_norm: f64,
    /// Generalized coordinates on which f_X is not determined.
    pub undetermined_on: Vec<String>,
    /// The reason, in the paper's terms.
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct RowReport {
    /// `holonomic`, `nonholonomic` or `acceleration`.
    pub kind: String,
    pub equation: String,
    /// The reaction variable (Lagrange multiplier) of this row, when the component names one.
    pub multiplier: Option<String>,
    /// The multiplier itself is unique (its row of the null basis is zero).
    pub unique: bool,
}

/// Levels of the variables a constraint is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    Position = 0,
    Velocity = 1,
    Acceleration = 2,
}

struct Row {
    eq: usize,
    level: Level,
    /// Column and partial derivative.
    entries: Vec<(usize, Expr)>,
}

struct Pair {
    name: String,
    rows: Vec<usize>,
    multipliers: Option<Vec<VarId>>,
}

/// What the model says about its mechanism: coordinates, constraint rows, pairs.
struct Mechanism {
    coords: Vec<VarId>,
    /// Velocity variable of each coordinate (its start value and its trajectory are read).
    velocity: Vec<VarId>,
    rows: Vec<Row>,
    pairs: Vec<Pair>,
    /// Unknowns fixed by parameters: (variable, equation), in dependency order.
    fixed: Vec<(VarId, usize)>,
    /// Representative of each variable's alias class, and the members of each class.
    rep: Vec<VarId>,
    members: BTreeMap<VarId, Vec<VarId>>,
}

/// The model simulated up to the last of the times asked for (or the options' stop time if
/// later), for the analysis at those times.
fn simulate_through(
    model: FlatModel,
    opts: &ReactionOptions,
) -> diag::Result<crate::sim::SimResult> {
    let analysis = crate::structure::analyze(model, &Default::default())?;
    let mut sim = opts.sim.clone();
    let last = opts.times.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if sim.stop_time.is_none_or(|s| s < last) {
        sim.stop_time = Some(last);
    }
    crate::sim::simulate_analysis(&analysis, &sim)
}

fn find_rep(rep: &mut [VarId], mut v: VarId) -> VarId {
    while rep[v] != v {
        rep[v] = rep[rep[v]];
        v = rep[v];
    }
    v
}

/// Analyses the reactions of `model` at its start values, or at `opts.times` of a simulation.
pub fn analyze(model: FlatModel, opts: &ReactionOptions) -> diag::Result<ReactionReport> {
    let work = crate::structure::preprocess(model.clone())?;
    let mech = match Mechanism::find(&work) {
        Ok(m) => m,
        Err(planar) => {
            return analyze_spatial(model, &work, opts).map_err(|mut spatial| {
                spatial.extend(planar);
                spatial
            });
        }
    };
    let coordinates: Vec<String> = mech
        .coords
        .iter()
        .map(|&v| work.model.variables[v].name.clone())
        .collect();
    let mut points = Vec::new();
    if opts.times.is_empty() {
        let t0 = opts.sim.start_time.unwrap_or(0.0);
        let mut values = vec![None; work.model.variables.len()];
        let start = Point::with_values(&work, Vec::new(), t0);
        for (v, var) in work.model.variables.iter().enumerate() {
            if work.is_unknown(v)
                && let Some(s) = &var.start
            {
                values[v] = start.eval(s);
            }
        }
        let point = mech.point(&work, values, t0)?;
        points.push(mech.analyse(&work, &point, t0, "start values"));
    } else {
        let res = simulate_through(model, opts)?;
        for &t in &opts.times {
            let mut values = vec![None; work.model.variables.len()];
            for &v in mech.coords.iter().chain(&mech.velocity) {
                let name = &work.model.variables[v].name;
                values[v] = Some(res.value_at(name, t).ok_or_else(|| {
                    vec![Diagnostic::error(
                        work.model.variables[v].span,
                        format!("the simulation result has no trajectory of `{name}`"),
                    )]
                })?);
            }
            let point = mech.point(&work, values, t)?;
            points.push(mech.analyse(&work, &point, t, "simulation"));
        }
    }
    Ok(ReactionReport {
        model: work.model.name.clone(),
        coordinates,
        tolerance: RANK_TOL,
        points,
    })
}

/// The analysis of constraints stated at the acceleration level (the 3-D library): see
/// [`super::reactions_spatial`].
fn analyze_spatial(
    model: FlatModel,
    work: &WorkingSystem,
    opts: &ReactionOptions,
) -> diag::Result<ReactionReport> {
    use super::reactions_spatial::{Spatial, analyse_point};
    let sp = Spatial::new(work);
    let states = sp.states();
    let mut points = Vec::new();
    let mut coordinates = Vec::new();
    let n_vars = work.model.variables.len();
    // Parameters bound to function calls (a mounting matrix from a quaternion) are evaluated as
    // the simulator does; the point's own evaluation only knows the built-in operators.
    let params = crate::sim::params::evaluate(&model, &Default::default())?;
    let with_params = |mut values: Vec<Option<f64>>| {
        for (v, x) in params.values.iter().enumerate() {
            if v < n_vars && !work.is_unknown(v) && x.is_finite() {
                values[v] = Some(*x);
            }
        }
        values
    };
    if opts.times.is_empty() {
        let t0 = opts.sim.start_time.unwrap_or(0.0);
        let start = Point::with_values(work, Vec::new(), t0);
        let mut values = vec![None; n_vars];
        for &s in &states {
            values[s] = work.model.variables[s]
                .start
                .as_ref()
                .and_then(|e| start.eval(e));
        }
        let (cols, p) = analyse_point(&sp, with_params(values), t0, "start values")?;
        coordinates = cols;
        points.push(p);
    } else {
        let res = simulate_through(model.clone(), opts)?;
        for &t in &opts.times {
            let mut values = vec![None; n_vars];
            for &s in &states {
                let name = &work.model.variables[s].name;
                values[s] = Some(res.value_at(name, t).ok_or_else(|| {
                    vec![Diagnostic::error(
                        work.model.variables[s].span,
                        format!("the simulation result has no trajectory of `{name}`"),
                    )]
                })?);
            }
            let (cols, p) = analyse_point(&sp, with_params(values), t, "simulation")?;
            coordinates = cols;
            points.push(p);
        }
    }
    Ok(ReactionReport {
        model: work.model.name.clone(),
        coordinates,
        tolerance: RANK_TOL,
        points,
    })
}

impl Mechanism {
    /// Reads the mechanism from the model in named steps: alias classes, coordinates, unknowns
    /// fixed by parameters, constraint rows, pairs and their multipliers.
    fn find(work: &WorkingSystem) -> diag::Result<Mechanism> {
        let mut r = Reading::new(work);
        let (coords, velocity) = r.coordinates();
        if coords.is_empty() {
            return Err(vec![Diagnostic::error(
                Span::DUMMY,
                format!(
                    "`{}` has no generalized coordinates: no variable x with `der(x) = v` and `der(v)` in the model",
                    work.model.name
                ),
            )
            .with_help("the reaction analysis reads mechanisms written with Minimo.Multibody.Planar (coordinates x, y, phi per body)")]);
        }
        let fixed = r.fixed_unknowns();
        let rows = r.constraint_rows()?;
        if rows.is_empty() {
            return Err(vec![Diagnostic::error(
                Span::DUMMY,
                format!(
                    "`{}` has {} generalized coordinates but no constraint equation written in them",
                    work.model.name,
                    coords.len()
                ),
            )
            .with_help("a constraint must be an equation in the coordinates and their derivatives only (see Minimo.Multibody.Planar)")]);
        }
        let mut pairs = group_pairs(work, &rows);
        r.name_multipliers(&mut pairs);
        Ok(Mechanism {
            coords,
            velocity,
            rows,
            pairs,
            fixed,
            rep: r.rep,
            members: r.members,
        })
    }

    /// The evaluation point: the given values, parameters, unknowns fixed by parameters, and
    /// the velocity of each coordinate copied to its `der()` variable.
    fn point(&self, work: &WorkingSystem, values: Vec<Option<f64>>, t: f64) -> diag::Result<Point> {
        let mut p = Point::with_values(work, values, t);
        for (i, &x) in self.coords.iter().enumerate() {
            let v = self.velocity[i];
            let missing = |w: VarId| {
                vec![Diagnostic::error(
                    work.model.variables[w].span,
                    format!(
                        "`{}` has no value to analyse the reactions at (give it a start value)",
                        work.model.variables[w].name
                    ),
                )]
            };
            let vv = p.eval(&Expr::Var(v)).ok_or_else(|| missing(v))?;
            let xv = p.eval(&Expr::Var(x)).ok_or_else(|| missing(x))?;
            for (u, val) in [(x, xv), (v, vv)] {
                for &w in self.members.get(&self.rep[u]).into_iter().flatten() {
                    p.set(w, val);
                    if u == x
                        && let Some(dw) = work.deriv[w]
                    {
                        p.set(dw, vv);
                    }
                }
            }
        }
        for &(v, e) in &self.fixed {
            // Linear in v: v = -r(0) / (dr/dv).
            let r = &work.eqs[e].residual;
            p.set(v, 0.0);
            let r0 = p.eval(r);
            p.set(v, 1.0);
            let r1 = p.eval(r);
            if let (Some(r0), Some(r1)) = (r0, r1)
                && r1 != r0
            {
                for &w in self.members.get(&self.rep[v]).into_iter().flatten() {
                    p.set(w, -r0 / (r1 - r0));
                }
            }
        }
        Ok(p)
    }

    fn analyse(&self, work: &WorkingSystem, p: &Point, t: f64, source: &str) -> PointReport {
        let n = self.coords.len();
        let nr = self.rows.len();
        let mut c = DMatrix::<f64>::zeros(nr, n);
        let mut warnings = Vec::new();
        let vars = &work.model.variables;
        for (i, r) in self.rows.iter().enumerate() {
            for (col, d) in &r.entries {
                match p.eval(d) {
                    Some(x) => c[(i, *col)] += x,
                    None => warnings.push(format!(
                        "cannot evaluate a partial derivative of `{}`",
                        residual_text(&work.eqs[r.eq].residual, vars)
                    )),
                }
            }
            // Is the constraint satisfied at this point? (Position and velocity levels.)
            if r.level != Level::Acceleration
                && let Some(res) = p.eval(&work.eqs[r.eq].residual)
                && res.abs() > 1e-6
            {
                warnings.push(format!(
                    "the values do not satisfy `{}` (residual {res:.3e})",
                    residual_text(&work.eqs[r.eq].residual, vars)
                ));
            }
        }
        let rows: Vec<RowInfo> = self
            .rows
            .iter()
            .map(|r| RowInfo {
                level: r.level,
                equation: residual_text(&work.eqs[r.eq].residual, vars),
            })
            .collect();
        let pairs: Vec<PairInfo> = self
            .pairs
            .iter()
            .map(|pair| PairInfo {
                name: pair.name.clone(),
                rows: pair.rows.clone(),
                multipliers: pair
                    .multipliers
                    .as_ref()
                    .map(|m| m.iter().map(|&v| vars[v].name.clone()).collect()),
                note: None,
            })
            .collect();
        let cols: Vec<String> = self.coords.iter().map(|&v| vars[v].name.clone()).collect();
        summarize(&c, &rows, &pairs, &cols, (t, source), warnings)
    }
}

/// One row of C: its level and the equation it comes from.
pub(super) struct RowInfo {
    pub level: Level,
    pub equation: String,
}

/// One kinematic pair: its rows of C and, when known, a multiplier per row.
pub(super) struct PairInfo {
    pub name: String,
    pub rows: Vec<usize>,
    pub multipliers: Option<Vec<String>>,
    /// How the rows were obtained, when they are not the model's equations one by one.
    pub note: Option<String>,
}

/// The paper's analysis of the constraint matrix `c` (rows: constraints, columns: the
/// generalized coordinates or velocities named by `cols`).
pub(super) fn summarize(
    c: &DMatrix<f64>,
    rows: &[RowInfo],
    pairs: &[PairInfo],
    cols: &[String],
    (t, source): (f64, &str),
    warnings: Vec<String>,
) -> PointReport {
    let (nr, n) = (c.nrows(), c.ncols());
    let of_kind = |l: Level| -> Vec<usize> { (0..nr).filter(|&i| rows[i].level == l).collect() };
    let hol = of_kind(Level::Position);
    let non = of_kind(Level::Velocity);
    let acc = of_kind(Level::Acceleration);
    let sv = singular_values(c);
    let smax = sv.first().copied().unwrap_or(0.0);
    let tol = RANK_TOL * smax.max(f64::MIN_POSITIVE);
    let rank_of = |rs: &[usize]| rank(&select_rows(c, rs), tol);
    let r = sv.iter().filter(|&&s| s > tol).count();
    let null = left_null(c, tol);
    let pairs = pairs
        .iter()
        .map(|pair| {
            let others: Vec<usize> = (0..nr).filter(|i| !pair.rows.contains(i)).collect();
            let rx = rank_of(&pair.rows);
            let ry = rank_of(&others);
            let cx = select_rows(c, &pair.rows);
            let nx = select_rows(&null, &pair.rows);
            let b = cx.transpose() * &nx;
            let b_norm = b.norm();
            let scale = smax.max(f64::MIN_POSITIVE);
            let undetermined_on: Vec<String> = (0..n)
                .filter(|&k| b.row(k).norm() > 1e-7 * scale)
                .map(|k| cols[k].clone())
                .collect();
            let shared = (rx + ry).saturating_sub(r);
            let unique = shared == 0;
            let row_reports = pair
                .rows
                .iter()
                .enumerate()
                .map(|(k, &i)| RowReport {
                    kind: match rows[i].level {
                        Level::Position => "holonomic",
                        Level::Velocity => "nonholonomic",
                        Level::Acceleration => "acceleration",
                    }
                    .to_string(),
                    equation: rows[i].equation.clone(),
                    multiplier: pair.multipliers.as_ref().map(|m| m[k].clone()),
                    unique: null.row(i).norm() <= 1e-7,
                })
                .collect();
            let mut reason = if unique {
                format!(
                    "span(C_Xᵀ) ⊕ span(C_Yᵀ) = span(Cᵀ) is a direct sum: rank C_X + rank C_Y = {rx} + {ry} = {r} = rank C, so B_X = 0"
                )
            } else {
                format!(
                    "span(C_Xᵀ) and span(C_Yᵀ) share {shared} dimension(s): rank C_X + rank C_Y = {rx} + {ry} = {} > {r} = rank C, ‖B_X‖ = {b_norm:.6}; the total reaction can be split between this pair and the others in more than one way",
                    rx + ry
                )
            };
            if let Some(note) = &pair.note {
                reason = format!("{reason} ({note})");
            }
            PairReport {
                name: pair.name.clone(),
                rows: row_reports,
                rank: rx,
                rank_others: ry,
                shared,
                unique,
                b_norm,
                undetermined_on,
                reason,
            }
        })
        .collect();
    PointReport {
        time: t,
        source: source.to_string(),
        n,
        holonomic: hol.len(),
        nonholonomic: non.len(),
        acceleration: acc.len(),
        rank_holonomic: rank_of(&hol),
        rank_nonholonomic: rank_of(&non),
        rank: r,
        redundancy: nr - r,
        dof: n - r,
        singular_values: sv,
        pairs,
        warnings,
    }
}

/// What [`Mechanism::find`] has learnt about the model's unknowns so far.
struct Reading<'a> {
    work: &'a WorkingSystem,
    /// Incidence of each equation in the unknowns.
    inc: Vec<BTreeMap<VarId, Lin>>,
    /// Equations already used (aliases, kinematic `der(x) = v`): not constraints.
    skip: Vec<bool>,
    /// Representative of each variable's alias class, and the members of each class.
    rep: Vec<VarId>,
    members: BTreeMap<VarId, Vec<VarId>>,
    /// Column and level of every variable that is a coordinate or one of its derivatives.
    level: Vec<Option<(usize, Level)>>,
    /// Unknowns fixed by parameters.
    is_fixed: Vec<bool>,
}

impl<'a> Reading<'a> {
    /// The incidence and the alias classes of `a = b` equations (connections, a body's frame =
    /// its coordinates).
    fn new(work: &'a WorkingSystem) -> Reading<'a> {
        let n_vars = work.model.variables.len();
        let unknown = |v: VarId| work.is_unknown(v);
        let inc: Vec<BTreeMap<VarId, Lin>> = work
            .eqs
            .iter()
            .map(|e| incidence_of(&e.residual, &unknown))
            .collect();
        let mut rep: Vec<VarId> = (0..n_vars).collect();
        let mut skip = vec![false; work.eqs.len()];
        for (e, eq) in work.eqs.iter().enumerate() {
            if let Expr::Binary(crate::dae::BinOp::Sub, a, b) = &eq.residual
                && let (Expr::Var(a), Expr::Var(b)) = (&**a, &**b)
                && unknown(*a)
                && unknown(*b)
                && work.model.variables[*a].derivative_of.is_none()
                && work.model.variables[*b].derivative_of.is_none()
            {
                let (ra, rb) = (find_rep(&mut rep, *a), find_rep(&mut rep, *b));
                if ra != rb {
                    rep[ra.max(rb)] = ra.min(rb);
                }
                skip[e] = true;
            }
        }
        let rep: Vec<VarId> = (0..n_vars).map(|v| find_rep(&mut rep, v)).collect();
        let mut members: BTreeMap<VarId, Vec<VarId>> = BTreeMap::new();
        for (v, &r) in rep.iter().enumerate() {
            members.entry(r).or_default().push(v);
        }
        Reading {
            work,
            inc,
            skip,
            rep,
            members,
            level: vec![None; n_vars],
            is_fixed: vec![false; n_vars],
        }
    }

    /// Every member of `u`'s alias class.
    fn class(&self, u: VarId) -> Vec<VarId> {
        self.members.get(&self.rep[u]).cloned().unwrap_or_default()
    }

    /// Coordinates: `der(x) = v` with `v` differentiated too. Marks the levels of each
    /// coordinate's alias class and derivatives; returns the coordinates and their velocities.
    fn coordinates(&mut self) -> (Vec<VarId>, Vec<VarId>) {
        let work = self.work;
        let mut coords = Vec::new();
        let mut velocity = Vec::new();
        for x in 0..work.model.variables.len() {
            let Some(dx) = work.deriv[x] else { continue };
            if !work.is_unknown(x)
                || work.model.variables[x].derivative_of.is_some()
                || self.level[x].is_some()
            {
                continue;
            }
            let Some((e, v)) = self.kinematic_equation(x, dx) else {
                continue;
            };
            let col = coords.len();
            coords.push(x);
            velocity.push(v);
            self.skip[e] = true;
            self.mark(x, col, Level::Position);
            self.mark(dx, col, Level::Velocity);
            self.mark(v, col, Level::Velocity);
            if let Some(a) = work.deriv[v] {
                self.mark(a, col, Level::Acceleration);
            }
        }
        (coords, velocity)
    }

    /// The equation `der(x) = v` (coefficients ±1) with `v` differentiated in the model.
    fn kinematic_equation(&self, x: VarId, dx: VarId) -> Option<(usize, VarId)> {
        self.inc.iter().enumerate().find_map(|(e, row)| {
            if self.skip[e]
                || row.len() != 2
                || row.get(&dx).and_then(|l| l.integer()).map(i64::abs) != Some(1)
            {
                return None;
            }
            let (&v, l) = row.iter().find(|(v, _)| **v != dx)?;
            (l.integer().map(i64::abs) == Some(1) && v != x && self.work.deriv[v].is_some())
                .then_some((e, v))
        })
    }

    fn mark(&mut self, u: VarId, col: usize, l: Level) {
        for w in self.class(u) {
            self.level[w] = Some((col, l));
            if l == Level::Position
                && let Some(dw) = self.work.deriv[w]
            {
                self.level[dw] = Some((col, Level::Velocity));
            }
        }
    }

    /// Unknowns fixed by parameters (a ground frame), in dependency order, with the equation
    /// that gives each (linear in it).
    fn fixed_unknowns(&mut self) -> Vec<(VarId, usize)> {
        let mut fixed = Vec::new();
        for _ in 0..64 {
            let mut changed = false;
            for e in 0..self.inc.len() {
                if self.skip[e] {
                    continue;
                }
                let row = &self.inc[e];
                let free: Vec<VarId> = row
                    .keys()
                    .copied()
                    .filter(|&v| !self.is_fixed[v] && self.level[v].is_none())
                    .collect();
                if let [v] = free[..]
                    && row.len() == 1 + row.keys().filter(|&&u| self.is_fixed[u]).count()
                    && matches!(row[&v], Lin::Linear(_))
                {
                    fixed.push((v, e));
                    for w in self.class(v) {
                        self.is_fixed[w] = true;
                    }
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        fixed
    }

    /// The constraint rows: equations in coordinates, their derivatives and fixed unknowns
    /// only, each differentiated by the variables of its highest level.
    fn constraint_rows(&self) -> diag::Result<Vec<Row>> {
        let work = self.work;
        let mut rows = Vec::new();
        for (e, row) in self.inc.iter().enumerate() {
            if self.skip[e] || row.is_empty() {
                continue;
            }
            if !row
                .keys()
                .all(|&v| self.level[v].is_some() || self.is_fixed[v])
            {
                continue;
            }
            let Some(top) = row.keys().filter_map(|&v| self.level[v].map(|l| l.1)).max() else {
                continue;
            };
            let mut entries: Vec<(usize, Expr)> = Vec::new();
            for &v in row.keys() {
                let Some((col, l)) = self.level[v] else {
                    continue;
                };
                if l != top {
                    continue;
                }
                let d = diff(
                    &work.eqs[e].residual,
                    &mut Partial {
                        var: v,
                        user: &mut |_: &str, _: &[Expr], _: usize, _: usize, _: usize| {
                            Err("a user function".to_string())
                        },
                    },
                )
                .map_err(|msg| {
                    vec![Diagnostic::error(
                        work.eqs[e].span,
                        format!("cannot differentiate this constraint: {msg}"),
                    )]
                })?;
                entries.push((col, crate::structure::expr::simplify(&d)));
            }
            rows.push(Row {
                eq: e,
                level: top,
                entries,
            });
        }
        Ok(rows)
    }

    /// Multipliers: the pair's own unknowns that are not kinematic (not computable from the
    /// coordinates and velocities), when there are as many as the pair has rows.
    fn name_multipliers(&self, pairs: &mut [Pair]) {
        let work = self.work;
        let n_vars = work.model.variables.len();
        let mut kin: Vec<bool> = (0..n_vars)
            .map(|v| {
                self.is_fixed[v]
                    || matches!(self.level[v], Some((_, l)) if l != Level::Acceleration)
            })
            .collect();
        for _ in 0..64 {
            let mut changed = false;
            for row in &self.inc {
                let free: Vec<VarId> = row.keys().copied().filter(|&v| !kin[v]).collect();
                if let [v] = free[..]
                    && self.level[v].is_none()
                {
                    for w in self.class(v) {
                        kin[w] = true;
                    }
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for p in pairs.iter_mut() {
            let own: Vec<VarId> = (0..n_vars)
                .filter(|&v| {
                    let var = &work.model.variables[v];
                    work.is_unknown(v)
                        && var.component == p.name
                        && !var.flow
                        && !kin[v]
                        && self.level[v].is_none()
                        && var.derivative_of.is_none()
                })
                .collect();
            if own.len() == p.rows.len() {
                p.multipliers = Some(own);
            }
        }
    }
}

/// The rows grouped by the component their equation comes from, in the order of first rows.
fn group_pairs(work: &WorkingSystem, rows: &[Row]) -> Vec<Pair> {
    let mut pairs: Vec<Pair> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let comp = &work.eqs[r.eq].component;
        match pairs.iter_mut().find(|p| &p.name == comp) {
            Some(p) => p.rows.push(i),
            None => pairs.push(Pair {
                name: comp.clone(),
                rows: vec![i],
                multipliers: None,
            }),
        }
    }
    pairs
}

pub(super) fn select_rows(c: &DMatrix<f64>, rows: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), c.ncols(), |i, j| c[(rows[i], j)])
}

/// Singular values, largest first.
pub(super) fn singular_values(c: &DMatrix<f64>) -> Vec<f64> {
    if c.nrows() == 0 || c.ncols() == 0 {
        return Vec::new();
    }
    let mut sv: Vec<f64> = c
        .clone()
        .svd(false, false)
        .singular_values
        .iter()
        .copied()
        .collect();
    sv.sort_by(|a, b| b.total_cmp(a));
    sv
}

pub(super) fn rank(c: &DMatrix<f64>, tol: f64) -> usize {
    singular_values(c).iter().filter(|&&s| s > tol).count()
}

/// An orthonormal basis (columns) of the left null space of `c` (`Ñ` with `cᵀ Ñ = 0`). The
/// matrix is padded with zero columns to a square one so that the SVD's U is complete.
pub(super) fn left_null(c: &DMatrix<f64>, tol: f64) -> DMatrix<f64> {
    let (m, n) = (c.nrows(), c.ncols());
    if m == 0 {
        return DMatrix::zeros(0, 0);
    }
    let k = m.max(n);
    let padded = DMatrix::from_fn(m, k, |i, j| if j < n { c[(i, j)] } else { 0.0 });
    let svd = padded.svd(true, false);
    let Some(u) = svd.u else {
        return DMatrix::zeros(m, 0);
    };
    let cols: Vec<usize> = (0..svd.singular_values.len())
        .filter(|&j| svd.singular_values[j] <= tol)
        .collect();
    DMatrix::from_fn(m, cols.len(), |i, j| u[(i, cols[j])])
}

/// The report as text: the ranks, then one line per pair.
pub fn text(r: &ReactionReport) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "model {}", r.model);
    for p in &r.points {
        let _ = writeln!(o, "\nat t = {} ({})", p.time, p.source);
        for w in &p.warnings {
            let _ = writeln!(o, "  warning: {w}");
        }
        let _ = writeln!(
            o,
            "  n = {} coordinates, m = {} holonomic rows, h = {} nonholonomic rows{}",
            p.n,
            p.holonomic,
            p.nonholonomic,
            if p.acceleration > 0 {
                format!(", {} acceleration-level rows", p.acceleration)
            } else {
                String::new()
            }
        );
        let _ = writeln!(
            o,
            "  rank Φ_q = {}, rank Ψ = {}, rank C = {}, redundancy p = m + h - rank C = {}, degrees of freedom n - rank C = {}",
            p.rank_holonomic, p.rank_nonholonomic, p.rank, p.redundancy, p.dof
        );
        let _ = writeln!(
            o,
            "  (ranks from singular values above {:.0e} x the largest, {:.4e})",
            r.tolerance,
            p.singular_values.first().copied().unwrap_or(0.0)
        );
        let unique: Vec<&str> = p
            .pairs
            .iter()
            .filter(|x| x.unique)
            .map(|x| x.name.as_str())
            .collect();
        let not: Vec<&str> = p
            .pairs
            .iter()
            .filter(|x| !x.unique)
            .map(|x| x.name.as_str())
            .collect();
        let _ = writeln!(o, "  uniquely determined reactions: {}", list(&unique));
        let _ = writeln!(o, "  not uniquely determined: {}", list(&not));
        let _ = writeln!(
            o,
            "\n  {:<16} {:>4} {:>7} {:>9}  {:<10} reason",
            "pair", "rows", "rank CX", "‖B_X‖", "reaction"
        );
        for x in &p.pairs {
            let _ = writeln!(
                o,
                "  {:<16} {:>4} {:>7} {:>9.6}  {:<10} {}",
                x.name,
                x.rows.len(),
                x.rank,
                x.b_norm,
                if x.unique { "unique" } else { "NOT unique" },
                x.reason
            );
            for row in &x.rows {
                let _ = writeln!(
                    o,
                    "      {:<12} {:<13} {}  {}",
                    row.multiplier.as_deref().unwrap_or("-"),
                    row.kind,
                    if row.unique {
                        "unique    "
                    } else {
                        "not unique"
                    },
                    row.equation
                );
            }
            if !x.undetermined_on.is_empty() {
                let _ = writeln!(
                    o,
                    "      undetermined components of f_X: {}",
                    x.undetermined_on.join(", ")
                );
            }
        }
    }
    o
}

fn list(xs: &[&str]) -> String {
    if xs.is_empty() {
        "none".to_string()
    } else {
        xs.join(", ")
    }
}

/// The report as JSON.
pub fn json(r: &ReactionReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
