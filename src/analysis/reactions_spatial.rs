//! Reaction solvability for constraints stated at the acceleration level through intermediate
//! variables: the 3-D library `Minimo.Multibody` (joints after Kosenko et al. 2015, rigid contacts
//! with `der(v_n)`), whose bodies turn with quaternions and so have no `der(x) = v` coordinates.
//!
//! At a point (the values of the states), every variable an equation with one unknown gives from the
//! states is evaluated: positions and velocities. Accelerations and forces are never evaluated
//! there (derivatives, flows and variables in units of acceleration or force are left unknown). The
//! states whose derivative stays unknown (a body's `v` and `wb`, a hinge's `wrel`) are the
//! generalized velocities `u`; their derivatives are the columns of C. What is left is linear in the
//! accelerations and forces; the equations with no force in them (a flow or a variable in newtons)
//! are the kinematic ones. A derivative `der(z)` of a velocity-level `z` is `∂z/∂u · u̇` (central
//! differences of the evaluation, exact for `z` linear in `u`). The intermediate accelerations are
//! then eliminated, layer by layer from the columns: a body's equations (a component that owns
//! states) fix its own accelerations, other equations fix the rest; the equations left of each
//! constraint component, its own undetermined unknowns eliminated through the left null space, are
//! its rows of C. Since `∂(dg/dt)/∂u̇ = ∂g/∂u`, they are the velocity-level constraint Jacobian,
//! the matrix of the paper.

use super::reactions::{Level, PairInfo, PointReport, RowInfo, left_null, summarize};
use crate::dae::{BinOp, Expr, VarId};
use crate::diag::{self, Diagnostic, Span};
use crate::structure::print::residual_text;
use crate::structure::redundancy::Point;
use crate::structure::work::WorkingSystem;
use nalgebra::{DMatrix, DVector};
use std::collections::{BTreeMap, BTreeSet};

/// The model read for the analysis: alias classes and the unknowns of each equation.
pub(super) struct Spatial<'a> {
    work: &'a WorkingSystem,
    rep: Vec<VarId>,
    members: BTreeMap<VarId, Vec<VarId>>,
    /// `a = b` equations between unknowns: they only make the classes.
    alias_eq: Vec<bool>,
}

/// What the evaluation at a point found.
struct Evaluated {
    point: Point,
    /// Known classes (by representative).
    known: Vec<bool>,
    /// Equations used, and the evaluation order (equation, class) to replay.
    used: Vec<bool>,
    order: Vec<(usize, VarId)>,
}

/// An equation of the linear (acceleration and force) level: coefficient per unknown class.
struct LinEq {
    eq: usize,
    coef: Vec<(VarId, f64)>,
    kinematic: bool,
}

fn find(rep: &mut [VarId], mut v: VarId) -> VarId {
    while rep[v] != v {
        rep[v] = rep[rep[v]];
        v = rep[v];
    }
    v
}

/// Units of accelerations and forces: never evaluated from the states.
fn dynamic_unit(unit: Option<&str>) -> bool {
    unit.is_some_and(|u| u.contains("s2") || u.contains("s-2") || is_force_unit(Some(u)))
}

fn is_force_unit(unit: Option<&str>) -> bool {
    unit.is_some_and(|u| u.split(['.', '/', '(', ')']).any(|p| p == "N" || p == "kN"))
}

/// `e` with the branches of its `if` expressions chosen where the condition can be evaluated.
fn specialize(e: &Expr, p: &Point) -> Expr {
    match e {
        Expr::If { branches, else_ } => {
            for (c, v) in branches {
                match p.eval(c) {
                    Some(x) if x != 0.0 => return specialize(v, p),
                    Some(_) => {}
                    None => return e.clone(),
                }
            }
            specialize(else_, p)
        }
        Expr::Binary(op, a, b) => {
            Expr::Binary(*op, Box::new(specialize(a, p)), Box::new(specialize(b, p)))
        }
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(specialize(a, p))),
        Expr::NoEvent(a) => Expr::NoEvent(Box::new(specialize(a, p))),
        _ => e.clone(),
    }
}

impl<'a> Spatial<'a> {
    pub(super) fn new(work: &'a WorkingSystem) -> Spatial<'a> {
        let n = work.model.variables.len();
        let mut rep: Vec<VarId> = (0..n).collect();
        let mut alias_eq = vec![false; work.eqs.len()];
        for (e, eq) in work.eqs.iter().enumerate() {
            if let Expr::Binary(BinOp::Sub, a, b) = &eq.residual
                && let (Expr::Var(a), Expr::Var(b)) = (&**a, &**b)
                && work.is_unknown(*a)
                && work.is_unknown(*b)
                && work.model.variables[*a].derivative_of.is_none()
                && work.model.variables[*b].derivative_of.is_none()
            {
                let (ra, rb) = (find(&mut rep, *a), find(&mut rep, *b));
                if ra != rb {
                    rep[ra.max(rb)] = ra.min(rb);
                }
                alias_eq[e] = true;
            }
        }
        let rep: Vec<VarId> = (0..n).map(|v| find(&mut rep, v)).collect();
        let mut members: BTreeMap<VarId, Vec<VarId>> = BTreeMap::new();
        for (v, &r) in rep.iter().enumerate() {
            members.entry(r).or_default().push(v);
        }
        Spatial {
            work,
            rep,
            members,
            alias_eq,
        }
    }

    fn class(&self, r: VarId) -> &[VarId] {
        self.members.get(&r).map(|m| m.as_slice()).unwrap_or(&[])
    }

    fn set(&self, p: &mut Point, r: VarId, x: f64) {
        for &w in self.class(r) {
            p.set(w, x);
        }
    }

    /// The unknown, not yet known classes an expression mentions.
    fn unknowns(&self, e: &Expr, known: &[bool]) -> Vec<VarId> {
        let mut out = BTreeSet::new();
        e.visit(&mut |x| {
            if let Expr::Var(v) = x
                && self.work.is_unknown(*v)
                && !known[self.rep[*v]]
            {
                out.insert(self.rep[*v]);
            }
        });
        out.into_iter().collect()
    }

    /// A class never evaluated from the states: derivatives, flows, accelerations, forces.
    fn is_dynamic(&self, r: VarId) -> bool {
        self.class(r).iter().any(|&w| {
            let v = &self.work.model.variables[w];
            v.derivative_of.is_some() || v.flow || dynamic_unit(v.unit.as_deref())
        })
    }

    fn is_force(&self, r: VarId) -> bool {
        self.class(r).iter().any(|&w| {
            let v = &self.work.model.variables[w];
            v.flow || is_force_unit(v.unit.as_deref())
        })
    }

    /// The states: unknowns under `der()` with a fixed start value or `stateSelect = always`.
    pub(super) fn states(&self) -> Vec<VarId> {
        let work = self.work;
        (0..work.model.variables.len())
            .filter(|&v| {
                let var = &work.model.variables[v];
                work.is_unknown(v)
                    && work.in_der[v]
                    && var.derivative_of.is_none()
                    && (var.fixed == Some(true)
                        || var.state_select == crate::dae::StateSelect::Always)
            })
            .collect()
    }

    /// Solves `r(x) = 0` for the class `x` when `r` is linear in it.
    fn solve_linear(&self, p: &mut Point, r: &Expr, x: VarId) -> Option<f64> {
        let at = |v: f64, p: &mut Point| {
            self.set(p, x, v);
            p.eval(r)
        };
        let r0 = at(0.0, p)?;
        let r1 = at(1.0, p)?;
        let r2 = at(2.0, p)?;
        let d = r1 - r0;
        if !d.is_finite() || d == 0.0 || ((r2 - r1) - d).abs() > 1e-9 * (1.0 + d.abs()) {
            return None;
        }
        let v = -r0 / d;
        self.set(p, x, v);
        Some(v)
    }

    /// Evaluates every position- and velocity-level variable from the states' values.
    fn evaluate(&self, values: Vec<Option<f64>>, t: f64, states: &[VarId]) -> Evaluated {
        let work = self.work;
        let mut point = Point::with_values(work, values, t);
        let mut known: Vec<bool> = (0..work.model.variables.len())
            .map(|v| !work.is_unknown(v))
            .collect();
        for &s in states {
            if let Some(x) = point.eval(&Expr::Var(s)) {
                self.set(&mut point, self.rep[s], x);
                known[self.rep[s]] = true;
            }
        }
        let mut used = self.alias_eq.clone();
        let mut order = Vec::new();
        loop {
            let mut progress = false;
            for (e, eq) in work.eqs.iter().enumerate() {
                if used[e] {
                    continue;
                }
                let r = specialize(&eq.residual, &point);
                let unk = self.unknowns(&r, &known);
                if let [x] = unk[..]
                    && !self.is_dynamic(x)
                    && self.solve_linear(&mut point, &r, x).is_some()
                {
                    known[x] = true;
                    used[e] = true;
                    order.push((e, x));
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        Evaluated {
            point,
            known,
            used,
            order,
        }
    }

    /// Re-evaluates the velocity level with the class `u` moved by `du`.
    fn replay(&self, ev: &Evaluated, u: VarId, du: f64) -> Point {
        let mut p = ev.point.clone();
        if let Some(x) = p.eval(&Expr::Var(u)) {
            self.set(&mut p, u, x + du);
        }
        for &(e, x) in &ev.order {
            let r = specialize(&self.work.eqs[e].residual, &p);
            self.solve_linear(&mut p, &r, x);
        }
        p
    }
}

/// The analysis at one point: `values` hold the states' values (other entries are ignored).
pub(super) fn analyse_point(
    sp: &Spatial,
    values: Vec<Option<f64>>,
    t: f64,
    source: &str,
) -> diag::Result<(Vec<String>, PointReport)> {
    let work = sp.work;
    let vars = &work.model.variables;
    let states = sp.states();
    let mut ev = sp.evaluate(values, t, &states);
    // Position states: a kinematic equation gives their derivative from what is known.
    let mut velocity_states = Vec::new();
    for &s in &states {
        let Some(d) = work.deriv[s] else { continue };
        let mut given = false;
        for (e, eq) in work.eqs.iter().enumerate() {
            if ev.used[e] {
                continue;
            }
            let r = specialize(&eq.residual, &ev.point);
            let unk = sp.unknowns(&r, &ev.known);
            if unk == [sp.rep[d]] {
                ev.used[e] = true;
                given = true;
                break;
            }
        }
        if !given {
            velocity_states.push(s);
        }
    }
    if velocity_states.is_empty() {
        return Err(vec![Diagnostic::error(
            Span::DUMMY,
            format!(
                "`{}` has no velocity states (a state whose derivative is an acceleration)",
                work.model.name
            ),
        )]);
    }
    let cols: Vec<String> = velocity_states
        .iter()
        .map(|&s| vars[s].name.clone())
        .collect();
    let n = velocity_states.len();
    let mut warnings = Vec::new();
    let lin = linear_level(sp, &mut ev, &mut warnings);
    // Linear forms over the columns: der(u) and der(z) of velocity-level z.
    let mut form: BTreeMap<VarId, DVector<f64>> = BTreeMap::new();
    for (k, &s) in velocity_states.iter().enumerate() {
        if let Some(d) = work.deriv[s] {
            let mut f = DVector::zeros(n);
            f[k] = 1.0;
            form.insert(sp.rep[d], f);
        }
    }
    derivative_forms(sp, &ev, &lin, &velocity_states, &mut form);
    let (rows, pairs, c) = eliminate(sp, &ev, &lin, &mut form, n, &states);
    if rows.is_empty() {
        return Err(vec![Diagnostic::error(
            Span::DUMMY,
            format!(
                "`{}` has no constraint among its accelerations: no kinematic equation is left once the bodies' accelerations are known",
                work.model.name
            ),
        )]);
    }
    let mut report = summarize(&c, &rows, &pairs, &cols, (t, source), warnings);
    for p in &mut report.pairs {
        p.undetermined_on = p
            .undetermined_on
            .iter()
            .map(|c| format!("der({c})"))
            .collect();
    }
    Ok((cols, report))
}

/// The equations left after the evaluation, with their coefficients in the unknown classes (the
/// residual is linear in them; unknowns at zero, each moved to one in turn).
fn linear_level(sp: &Spatial, ev: &mut Evaluated, warnings: &mut Vec<String>) -> Vec<LinEq> {
    let work = sp.work;
    let vars = &work.model.variables;
    let mut out = Vec::new();
    let mut base = ev.point.clone();
    for r in 0..vars.len() {
        if sp.rep[r] == r && work.is_unknown(r) && !ev.known[r] {
            sp.set(&mut base, r, 0.0);
        }
    }
    for (e, eq) in work.eqs.iter().enumerate() {
        if ev.used[e] {
            continue;
        }
        let res = specialize(&eq.residual, &ev.point);
        let unk = sp.unknowns(&res, &ev.known);
        if unk.is_empty() {
            if let Some(x) = ev.point.eval(&res)
                && x.abs() > 1e-6
            {
                warnings.push(format!(
                    "the values do not satisfy `{}` (residual {x:.3e})",
                    residual_text(&eq.residual, vars)
                ));
            }
            continue;
        }
        let Some(r0) = base.eval(&res) else {
            warnings.push(format!(
                "cannot evaluate `{}` at this point",
                residual_text(&eq.residual, vars)
            ));
            continue;
        };
        let mut coef = Vec::new();
        for &x in &unk {
            sp.set(&mut base, x, 1.0);
            let r1 = base.eval(&res);
            sp.set(&mut base, x, 0.0);
            if let Some(r1) = r1
                && r1 != r0
            {
                coef.push((x, r1 - r0));
            }
        }
        let kinematic = !unk.iter().any(|&x| sp.is_force(x));
        out.push(LinEq {
            eq: e,
            coef,
            kinematic,
        });
    }
    out
}

/// `der(z)` for a velocity-level `z` evaluated from the states: `∂z/∂u` by central differences.
fn derivative_forms(
    sp: &Spatial,
    ev: &Evaluated,
    lin: &[LinEq],
    velocity_states: &[VarId],
    form: &mut BTreeMap<VarId, DVector<f64>>,
) {
    let work = sp.work;
    let mut needed = BTreeSet::new();
    for l in lin.iter().filter(|l| l.kinematic) {
        for &(x, _) in &l.coef {
            if form.contains_key(&x) {
                continue;
            }
            for &w in sp.class(x) {
                if let Some(z) = work.model.variables[w].derivative_of
                    && ev.known[sp.rep[z]]
                {
                    needed.insert((x, sp.rep[z]));
                }
            }
        }
    }
    if needed.is_empty() {
        return;
    }
    let n = velocity_states.len();
    let mut forms: BTreeMap<VarId, DVector<f64>> = needed
        .iter()
        .map(|&(x, _)| (x, DVector::zeros(n)))
        .collect();
    for (k, &s) in velocity_states.iter().enumerate() {
        let u = sp.rep[s];
        let scale = ev.point.eval(&Expr::Var(s)).unwrap_or(0.0).abs().max(1.0);
        let h = 1e-4 * scale;
        let plus = sp.replay(ev, u, h);
        let minus = sp.replay(ev, u, -h);
        for &(x, z) in &needed {
            if let (Some(a), Some(b)) = (plus.eval(&Expr::Var(z)), minus.eval(&Expr::Var(z))) {
                // `forms` has a row for every variable of `needed` (built from it above).
                if let Some(row) = forms.get_mut(&x) {
                    row[k] = (a - b) / (2.0 * h);
                }
            }
        }
    }
    form.extend(forms);
}

type Eliminated = (Vec<RowInfo>, Vec<PairInfo>, DMatrix<f64>);

/// Eliminates the intermediate accelerations from the kinematic equations; returns the rows of C
/// grouped by constraint component.
fn eliminate(
    sp: &Spatial,
    ev: &Evaluated,
    lin: &[LinEq],
    form: &mut BTreeMap<VarId, DVector<f64>>,
    n: usize,
    states: &[VarId],
) -> Eliminated {
    let work = sp.work;
    let vars = &work.model.variables;
    let bodies: BTreeSet<&str> = states.iter().map(|&s| vars[s].component.as_str()).collect();
    let kin: Vec<&LinEq> = lin.iter().filter(|l| l.kinematic).collect();
    let is_body = |l: &LinEq| bodies.contains(work.eqs[l.eq].component.as_str());
    // A body's accelerations are fixed by the body's own equations, never by a constraint's.
    let body_vars: BTreeSet<VarId> = kin
        .iter()
        .filter(|l| is_body(l))
        .flat_map(|l| l.coef.iter().map(|&(x, _)| x))
        .collect();
    let mut used = vec![false; kin.len()];
    loop {
        let mut cands: Vec<(bool, usize, VarId)> = Vec::new();
        for (i, l) in kin.iter().enumerate() {
            if used[i] {
                continue;
            }
            let open: Vec<&(VarId, f64)> = l
                .coef
                .iter()
                .filter(|(x, _)| !form.contains_key(x))
                .collect();
            let cmax = l.coef.iter().fold(0.0f64, |m, (_, c)| m.max(c.abs()));
            if let [&(x, c)] = open[..]
                && c.abs() > 1e-12 * cmax
                && (is_body(l) || !body_vars.contains(&x))
            {
                cands.push((!is_body(l), i, x));
            }
        }
        if cands.is_empty() {
            break;
        }
        cands.sort();
        let mut fixed_now = BTreeSet::new();
        for (_, i, x) in cands {
            if !fixed_now.insert(x) {
                continue;
            }
            let l = kin[i];
            let mut f = DVector::zeros(n);
            let mut cx = 0.0;
            for &(y, c) in &l.coef {
                if y == x {
                    cx = c;
                } else {
                    f += &form[&y] * c;
                }
            }
            form.insert(x, -f / cx);
            used[i] = true;
        }
    }
    group_rows(sp, ev, &kin, &used, form, n)
}

/// The equations left, grouped by component (and by shared undetermined unknowns); each group's
/// own unknowns eliminated by the left null space of their coefficients.
fn group_rows(
    sp: &Spatial,
    ev: &Evaluated,
    kin: &[&LinEq],
    used: &[bool],
    form: &BTreeMap<VarId, DVector<f64>>,
    n: usize,
) -> Eliminated {
    let work = sp.work;
    let vars = &work.model.variables;
    let left: Vec<usize> = (0..kin.len()).filter(|&i| !used[i]).collect();
    // Union of equations sharing a component or an undetermined unknown.
    let mut parent: Vec<usize> = (0..left.len()).collect();
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_var: BTreeMap<VarId, usize> = BTreeMap::new();
    for (k, &i) in left.iter().enumerate() {
        let comp = pair_component(work, kin[i].eq);
        let mut keys = vec![*owner.entry(comp).or_insert(k)];
        for &(x, _) in &kin[i].coef {
            if !form.contains_key(&x) {
                keys.push(*by_var.entry(x).or_insert(k));
            }
        }
        for j in keys {
            let (a, b) = (find(&mut parent, j), find(&mut parent, k));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, &eq) in left.iter().enumerate() {
        let g = find(&mut parent, k);
        groups.entry(g).or_default().push(eq);
    }
    let mut rows: Vec<RowInfo> = Vec::new();
    let mut data: Vec<DVector<f64>> = Vec::new();
    let mut pairs = Vec::new();
    for eqs in groups.values() {
        let open: Vec<VarId> = eqs
            .iter()
            .flat_map(|&i| kin[i].coef.iter().map(|&(x, _)| x))
            .filter(|x| !form.contains_key(x))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let f = DMatrix::from_fn(eqs.len(), n, |r, k| {
            kin[eqs[r]]
                .coef
                .iter()
                .filter_map(|(x, c)| form.get(x).map(|v| v[k] * c))
                .sum()
        });
        let level = if eqs.iter().any(|&i| states_position(sp, ev, kin[i].eq)) {
            Level::Position
        } else {
            Level::Acceleration
        };
        let name = common_component(
            &eqs.iter()
                .map(|&i| pair_component(work, kin[i].eq))
                .collect::<Vec<_>>(),
        );
        let texts: Vec<String> = eqs
            .iter()
            .map(|&i| residual_text(&work.eqs[kin[i].eq].residual, vars))
            .collect();
        let start = rows.len();
        let note = if open.is_empty() {
            for (r, t) in texts.into_iter().enumerate() {
                rows.push(RowInfo { level, equation: t });
                data.push(f.row(r).transpose());
            }
            None
        } else {
            let ju = DMatrix::from_fn(eqs.len(), open.len(), |r, k| {
                kin[eqs[r]]
                    .coef
                    .iter()
                    .find(|(x, _)| *x == open[k])
                    .map_or(0.0, |(_, c)| *c)
            });
            let scale = ju.norm().max(f64::MIN_POSITIVE);
            let nl = left_null(&ju, 1e-9 * scale);
            let combined = nl.transpose() * &f;
            let names: Vec<&str> = open.iter().map(|&x| vars[x].name.as_str()).collect();
            for r in 0..combined.nrows() {
                rows.push(RowInfo {
                    level,
                    equation: format!(
                        "row {} of {} equations without {}",
                        r + 1,
                        eqs.len(),
                        names.join(", ")
                    ),
                });
                data.push(combined.row(r).transpose());
            }
            Some(format!(
                "rows: its {} kinematic equations with {} eliminated: {}",
                eqs.len(),
                names.join(", "),
                texts.join("; ")
            ))
        };
        let idx: Vec<usize> = (start..rows.len()).collect();
        if idx.is_empty() {
            continue;
        }
        pairs.push(PairInfo {
            name,
            rows: idx,
            multipliers: None,
            note,
        });
    }
    let c = DMatrix::from_fn(data.len(), n, |r, k| data[r][k]);
    (rows, pairs, c)
}

/// The component an equation belongs to for the pairs: a socket of a contact (`contact.elastic`)
/// counts as the contact's.
fn pair_component(work: &WorkingSystem, e: usize) -> String {
    let owners: BTreeSet<String> = work
        .model
        .variables
        .iter()
        .filter(|v| v.flow)
        .map(|v| {
            let parts = split_instance(&v.name);
            parts[..parts.len().saturating_sub(2)].join(".")
        })
        .collect();
    let mut parts = split_instance(&work.eqs[e].component);
    while !parts.is_empty() {
        let name = parts.join(".");
        if owners.contains(&name) {
            return name;
        }
        parts.pop();
    }
    work.eqs[e].component.clone()
}

/// The longest common instance prefix of the equations' components.
fn common_component(comps: &[String]) -> String {
    let mut common: Option<Vec<String>> = None;
    for comp in comps {
        let parts: Vec<String> = split_instance(comp);
        common = Some(match common {
            None => parts,
            Some(c) => c
                .iter()
                .zip(&parts)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a.clone())
                .collect(),
        });
    }
    let c = common.unwrap_or_default().join(".");
    if c.is_empty() {
        "(top level)".to_string()
    } else {
        c
    }
}

/// `a.b[2].c` as `a`, `b[2]`, `c` (dots inside brackets kept).
fn split_instance(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    for ch in name.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether the equation keeps a position-level condition: with every velocity and acceleration at
/// zero its residual still moves with a position-level value (a drift stabilization names the gap
/// or the distance from the axis: the constraint is the second derivative of a holonomic one).
fn states_position(sp: &Spatial, ev: &Evaluated, e: usize) -> bool {
    let work = sp.work;
    let res = specialize(&work.eqs[e].residual, &ev.point);
    let mut p = ev.point.clone();
    let mut position = Vec::new();
    let mut seen = BTreeSet::new();
    res.visit(&mut |x| {
        if let Expr::Var(v) = x {
            seen.insert(sp.rep[*v]);
        }
    });
    for &r in &seen {
        if !work.is_unknown(r) {
            continue;
        }
        if !ev.known[r] || velocity_level(sp, r) {
            sp.set(&mut p, r, 0.0);
        } else {
            position.push(r);
        }
    }
    let Some(r0) = p.eval(&res) else { return false };
    position.iter().any(|&x| {
        let Some(v) = p.eval(&Expr::Var(x)) else {
            return false;
        };
        let h = 1e-6 * v.abs().max(1.0);
        sp.set(&mut p, x, v + h);
        let r1 = p.eval(&res);
        sp.set(&mut p, x, v);
        r1.is_some_and(|r1| (r1 - r0).abs() > 1e-9 * h.max(r0.abs() * 1e-6))
    })
}

/// A velocity-level class: a velocity state or a value in units of velocity.
fn velocity_level(sp: &Spatial, r: VarId) -> bool {
    sp.class(r).iter().any(|&w| {
        let v = &sp.work.model.variables[w];
        v.unit
            .as_deref()
            .is_some_and(|u| u.ends_with("/s") && !u.contains("s2"))
    })
}
