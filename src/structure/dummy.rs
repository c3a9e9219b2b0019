//! State selection by dummy derivatives (Mattsson & Söderlind 1993).
//!
//! Level 1: the rows are the highest-order differentiated equations, the columns the
//! highest-order derivative variables. As many columns as rows are chosen such that the square
//! submatrix is structurally nonsingular; the chosen derivatives become dummy (algebraic).
//! Level i+1: the rows are the equations those rows were differentiated from (when they are
//! themselves differentiated), the columns the variables the chosen columns are derivatives of.
//! Stop when no differentiated equation is left.
//!
//! The choice among columns is a greedy basis of a transversal matroid: columns are tried from
//! the most to the least dummy-worthy, and a column is kept when an augmenting path makes room
//! for it. The order ranks each column by the `stateSelect` of the variable it is the
//! derivative of (a derivative that index reduction introduced inherits its chain's hint, with
//! `always` counting as `prefer`), then by the simulator's preference ([`super::reselect`]), a
//! `fixed` start, being written under `der()`, and finally declaration order (earlier declared
//! variables are preferred as states). Inheriting the hint keeps the levels consistent: when
//! `der(x)` is dummy at one level, `der(der(x))` is at the level above.

use super::derivative::{Partial, diff};
use super::expr::{is_zero, num, simplify};
use super::incidence::incidence;
use super::matching::{Augmenter, Matching};
use super::work::WorkingSystem;
use crate::dae::{Expr, StateSelect, VarId};
use crate::diag::Diagnostic;
use crate::structure::StateSet;
use std::collections::BTreeSet;

pub struct Selection {
    pub dummies: Vec<VarId>,
    pub states: Vec<VarId>,
    pub state_sets: Vec<StateSet>,
    pub warnings: Vec<Diagnostic>,
}

/// What ranks the columns besides `stateSelect`: the simulator's preference.
struct Ranking {
    prefer: BTreeSet<VarId>,
}

/// State preference of a base variable (higher = rather a state).
fn state_rank(
    work: &WorkingSystem,
    ranking: &Ranking,
    v: VarId,
) -> (
    u8,
    bool,
    bool,
    std::cmp::Reverse<u32>,
    std::cmp::Reverse<VarId>,
) {
    let (root, order) = work.root(v);
    let var = &work.model.variables[root];
    let rank = |s: StateSelect| match s {
        StateSelect::Never => 0,
        StateSelect::Avoid => 1,
        StateSelect::Default => 2,
        StateSelect::Prefer => 3,
        StateSelect::Always => 5,
    };
    // Column `v` is dummy when the variable it is the derivative of is not a state. That
    // variable's own `stateSelect` counts; a derivative index reduction introduced (`der(x)`
    // of `x(stateSelect = always)`) inherits the chain's hint, but `always` only as `prefer`:
    // `always` on a position says nothing about its velocity, and MultiBody's RollingWheel
    // has `x`, `y` and the angles' rates `der_angles` all `always`, where the rolling
    // constraint leaves `der(x)` and `der(y)` to be the dummies.
    let level = work.model.variables[v].derivative_of.unwrap_or(root);
    let own = work.model.variables[level].state_select;
    let select = if level == root || own != StateSelect::Default {
        rank(own)
    } else {
        rank(var.state_select).min(3)
    };
    // The simulator's preference overrides every hint except `always`.
    let select = if ranking.prefer.contains(&root) && select < 5 {
        4
    } else {
        select
    };
    // Among equals, higher derivatives go first, so `x` and `v = der(x)` end up the states rather
    // than `x` and `der(x)`.
    (
        select,
        var.fixed == Some(true),
        work.in_der[root],
        std::cmp::Reverse(order),
        std::cmp::Reverse(root),
    )
}

pub fn select(work: &WorkingSystem, prefer: &[VarId]) -> Result<Selection, Vec<Diagnostic>> {
    let prefer = Ranking {
        prefer: prefer.iter().copied().collect(),
    };
    let n_eqs = work.eqs.len();
    let mut rows: Vec<usize> = (0..n_eqs)
        .filter(|&e| work.eq_deriv[e].is_none() && work.eq_parent[e].is_some())
        .collect();
    let mut cols: Vec<VarId> = (0..work.model.variables.len())
        .filter(|&v| {
            work.is_unknown(v)
                && work.deriv[v].is_none()
                && work.model.variables[v].derivative_of.is_some()
        })
        .collect();
    let forced = rows.is_empty();
    let mut dummies: Vec<VarId> = Vec::new();
    let mut state_sets = Vec::new();
    let mut warnings = Vec::new();
    let point = if rows.is_empty() {
        None
    } else {
        Some(super::redundancy::Point::generic(work))
    };
    while !rows.is_empty() {
        if let Some(point) = &point
            && let Some(dep) = super::redundancy::dependent_rows(work, point, &rows, &cols)
            && !dep.is_empty()
        {
            return Err(redundant(work, &rows, &dep));
        }
        // Columns from the most dummy-worthy (lowest state rank) to the least.
        cols.sort_by_key(|&v| state_rank(work, &prefer, v));
        let col_pos: std::collections::HashMap<VarId, usize> =
            cols.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        // Transposed incidence: column -> rows (local indices).
        let mut adj_t: Vec<Vec<usize>> = vec![Vec::new(); cols.len()];
        let mut rows_of: Vec<Vec<(usize, VarId)>> = Vec::with_capacity(rows.len());
        for (ri, &e) in rows.iter().enumerate() {
            let in_cols = |v: VarId| col_pos.contains_key(&v);
            let inc = incidence(&work.eqs[e].residual, &in_cols);
            let mut r = Vec::new();
            for v in inc.into_keys() {
                if let Some(&ci) = col_pos.get(&v) {
                    adj_t[ci].push(ri);
                    r.push((ci, v));
                }
            }
            rows_of.push(r);
        }
        let mut m = Matching::new(cols.len(), rows.len());
        let mut aug = Augmenter::default();
        let mut chosen = 0;
        for ci in 0..cols.len() {
            if chosen == rows.len() {
                break;
            }
            if aug.augment(&adj_t, &|_| true, &mut m, ci) {
                chosen += 1;
            }
        }
        if chosen < rows.len() {
            let unmatched: Vec<usize> = (0..rows.len())
                .filter(|&r| m.eq_of_var[r].is_none())
                .map(|r| rows[r])
                .collect();
            return Err(lacking_state(work, &unmatched));
        }
        let mut selected: Vec<VarId> = (0..cols.len())
            .filter(|&ci| m.var_of_eq[ci].is_some())
            .map(|ci| cols[ci])
            .collect();
        let involved: BTreeSet<usize> = rows_of
            .iter()
            .flat_map(|r| r.iter().map(|(ci, _)| *ci))
            .collect();
        if involved.len() > rows.len() {
            // A choice exists. Partials of the rows with respect to the columns they contain.
            let jac: Option<Vec<Vec<(usize, Expr)>>> = rows
                .iter()
                .zip(&rows_of)
                .map(|(&e, r)| {
                    r.iter()
                        .map(|&(ci, v)| partial(work, e, v).map(|d| (ci, d)))
                        .filter(|d| d.as_ref().is_none_or(|(_, d)| !is_zero(d)))
                        .collect()
                })
                .collect();
            if let Some(jac) = jac {
                let point = point.as_ref().map(|p| (work, p));
                if let Some(generic) =
                    point.and_then(|(_, p)| generic_choice(p, &cols, &selected, &jac))
                {
                    selected = generic;
                }
                match constant_choice(work, point, &prefer, &cols, &selected, &jac) {
                    // Regular whatever the state: a static choice.
                    Some(stat) => selected = stat,
                    // A real choice with state-dependent coefficients: record, for dynamic
                    // selection, the smallest block that needs one.
                    None => {
                        if let Some(set) = reduced_set(work, point, &rows, &cols, &selected, &jac) {
                            state_sets.push(set);
                        }
                    }
                }
            }
        }
        warn_always_dummies(work, &selected, &mut warnings);
        dummies.extend(selected.iter().copied());
        // Next level.
        rows = rows
            .iter()
            .filter_map(|&e| work.eq_parent[e])
            .filter(|&p| work.eq_parent[p].is_some())
            .collect();
        cols = selected
            .iter()
            .filter_map(|&v| work.model.variables[v].derivative_of)
            .filter(|&p| work.model.variables[p].derivative_of.is_some())
            .collect();
    }
    dummies.sort_unstable();
    let is_dummy = |v: VarId| dummies.binary_search(&v).is_ok();
    let states: Vec<VarId> = (0..work.model.variables.len())
        .filter(|&v| work.is_unknown(v) && work.deriv[v].is_some_and(|d| !is_dummy(d)))
        .collect();
    for &s in &states {
        let var = &work.model.variables[s];
        if var.state_select == StateSelect::Never {
            warnings.push(Diagnostic::warning(
                var.span,
                format!(
                    "`{}` has stateSelect = StateSelect.never but had to be chosen as a state",
                    var.name
                ),
            ));
        }
    }
    super::state_select_rules::check(work, &states, forced, &mut warnings)?;
    // Record the sets with the lowest level first: that is where the simulator should look.
    state_sets.reverse();
    Ok(Selection {
        dummies,
        states,
        state_sets,
        warnings,
    })
}

/// A warning for each variable with `stateSelect = always` whose derivative the level made
/// dummy (constraints fix it, so it cannot be a state).
fn warn_always_dummies(work: &WorkingSystem, selected: &[VarId], warnings: &mut Vec<Diagnostic>) {
    for &v in selected {
        // The variable that is not a state because its derivative `v` is dummy.
        let level = work.model.variables[v]
            .derivative_of
            .unwrap_or_else(|| work.root(v).0);
        if work.model.variables[level].state_select == StateSelect::Always {
            warnings.push(
                Diagnostic::warning(
                    work.model.variables[level].span,
                    format!(
                        "`{}` has stateSelect = StateSelect.always but cannot be a state: its derivative is fixed by constraints",
                        work.model.variables[level].name
                    ),
                )
                .with_help("give stateSelect = always to fewer of the constrained variables"),
            );
        }
    }
}

/// `d residual(e) / d v`, through the partials of user functions that index reduction generated.
fn partial(work: &WorkingSystem, e: usize, v: VarId) -> Option<Expr> {
    let mut existing =
        |f: &str, args: &[Expr], output: usize, _: usize, k: usize| -> Result<Expr, String> {
            let name = super::userfn::partial_name(f, output, k);
            if work.model.functions.contains_key(&name) {
                Ok(Expr::UserCall {
                    function: name,
                    args: args.to_vec(),
                    output: 0,
                    element: 0,
                })
            } else {
                Err(format!("no derivative of {f}"))
            }
        };
    let d = diff(
        &work.eqs[e].residual,
        &mut Partial {
            var: v,
            user: &mut existing,
        },
    )
    .ok()?;
    Some(simplify(&d))
}

/// Where coefficients made of parameters are evaluated.
type At<'a> = Option<(&'a WorkingSystem, &'a super::redundancy::Point)>;

/// The value of a coefficient that is constant during simulation (numbers and parameters, such
/// as a gear ratio), when it is nonzero.
fn constant(at: At, d: &Expr) -> Option<f64> {
    let c = match num(d) {
        Some(c) => c,
        None => {
            let (work, point) = at?;
            if super::expr::any_var(d, &|v| work.role[v] != super::work::Role::Known) {
                return None;
            }
            point.eval(d)?
        }
    };
    (c != 0.0 && c.is_finite()).then_some(c)
}

/// The static choice of dummy derivatives among `cols` (indices into `jac`'s columns), when one
/// is regular for every value of the states: each row matched to a column it contains with a
/// nonzero constant coefficient, such that the square submatrix of the chosen columns is block
/// triangular with constant diagonal blocks of nonzero determinant. This is the case of an
/// explicit definition `w = f(x)` differentiated (`der(w)` has coefficient 1 in its own row):
/// `der(w)` is the dummy derivative and `x` stays a state. `None` when no such choice exists or
/// it would keep fewer variables of high `stateSelect` (or with a `fixed` start) as states than
/// the structural choice `selected` (which is optimal for the ranking). Columns are tried in the
/// same order as for the structural choice, so intermediate variables (not written under
/// `der()`) become dummy derivatives before the body states.
fn constant_choice(
    work: &WorkingSystem,
    at: At,
    prefer: &Ranking,
    cols: &[VarId],
    selected: &[VarId],
    jac: &[Vec<(usize, Expr)>],
) -> Option<Vec<VarId>> {
    let n_rows = jac.len();
    let mut order: Vec<usize> = (0..cols.len()).collect();
    order.sort_by_key(|&ci| state_rank(work, prefer, cols[ci]));
    let mut adj_t: Vec<Vec<usize>> = vec![Vec::new(); cols.len()];
    for (ri, r) in jac.iter().enumerate() {
        for (ci, d) in r {
            if constant(at, d).is_some() {
                adj_t[*ci].push(ri);
            }
        }
    }
    let mut m = Matching::new(cols.len(), n_rows);
    let mut aug = Augmenter::default();
    let mut chosen = 0;
    for &ci in &order {
        if chosen == n_rows {
            break;
        }
        if !adj_t[ci].is_empty() && aug.augment(&adj_t, &|_| true, &mut m, ci) {
            chosen += 1;
        }
    }
    if chosen < n_rows {
        return None;
    }
    // Row r depends on row r' when r contains the column matched to r'. Acyclic parts are
    // triangular with constant nonzero diagonal; cycles must be constant and nonsingular.
    let succ = row_successors(jac, &m.var_of_eq);
    for scc in super::blt::tarjan(&succ) {
        if scc.len() < 2 {
            continue;
        }
        let n = scc.len();
        let mut a = vec![0.0; n * n];
        for (i, &ri) in scc.iter().enumerate() {
            for (ci, d) in &jac[ri] {
                if let Some(j) = m.var_of_eq[*ci].and_then(|r2| scc.iter().position(|&x| x == r2)) {
                    a[i * n + j] = constant(at, d)?;
                }
            }
        }
        if !regular(&mut a, n) {
            return None;
        }
    }
    let mut stat: Vec<VarId> = (0..cols.len())
        .filter(|&ci| m.var_of_eq[ci].is_some())
        .map(|ci| cols[ci])
        .collect();
    // Honour stateSelect (and the simulator's preference) exactly as the structural choice does.
    let selects = |vs: &[VarId]| {
        let mut k: Vec<(u8, bool)> = vs
            .iter()
            .map(|&v| {
                let r = state_rank(work, prefer, v);
                (r.0, r.1)
            })
            .collect();
        k.sort_unstable();
        k
    };
    if selects(&stat) != selects(selected) {
        return None;
    }
    stat.sort_unstable_by_key(|&v| cols.iter().position(|&c| c == v));
    Some(stat)
}

/// A choice for when the structural one (`selected`) is singular at a generic point: the
/// matrix has full structural rank, but its constant coefficients cancel (the MSL's three-phase
/// star point: `i[k]*r = -pin[k].i` for k = 1, 2 and `(-3*i0 - i[1] - i[2])*r = pin[1].i +
/// pin[2].i` sum to zero on the currents, so choosing them all as dummies leaves `i0`, which the
/// rows pin to zero, as a state). Columns are taken greedily in the same order of preference
/// (`cols` is sorted by it) while their values at the point are linearly independent of those
/// already taken: the most preferred choice that is regular at a generic point. `None` when
/// the structural choice is regular there, the coefficients cannot be evaluated, or no choice is
/// regular (the run-time checks then report the singular block).
///
/// Everything is sparse: a level of a large multibody model has thousands of rows and tens of
/// thousands of candidate columns, and dense matrices of that size took gigabytes (a vehicle
/// with 79 omni wheels: 2.6 GB) and cubic time.
fn generic_choice(
    point: &super::redundancy::Point,
    cols: &[VarId],
    selected: &[VarId],
    jac: &[Vec<(usize, Expr)>],
) -> Option<Vec<VarId>> {
    let n = jac.len();
    // columns[ci]: (row, value at the point), rows ascending.
    let mut columns: Vec<Vec<(usize, f64)>> = vec![Vec::new(); cols.len()];
    for (ri, row) in jac.iter().enumerate() {
        for (ci, d) in row {
            columns[*ci].push((ri, point.eval(d)?));
        }
    }
    let col_pos: std::collections::HashMap<VarId, usize> =
        cols.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let chosen_cols: Option<Vec<usize>> =
        selected.iter().map(|v| col_pos.get(v).copied()).collect();
    let chosen_cols = chosen_cols?;
    if selected.len() != n || square_regular(&columns, &chosen_cols, n) {
        return None;
    }
    // Columns in preference order, each kept if independent of the earlier kept ones.
    equilibrate_sparse(&mut columns, n);
    let mut echelon = SparseEchelon::new(n, 1e-9 * n as f64);
    let mut chosen = Vec::with_capacity(n);
    for (ci, col) in columns.iter().enumerate() {
        if echelon.len() == n {
            break;
        }
        if echelon.insert(col) {
            chosen.push(cols[ci]);
        }
    }
    (chosen.len() == n).then_some(chosen)
}

/// The rows each row depends on through a matching (`matched_row[column]`): row `r` depends
/// on row `r2` when it has an entry in the column matched to `r2`. The strongly connected
/// components of this graph are the diagonal blocks of the block triangular form.
fn row_successors<T>(rows: &[Vec<(usize, T)>], matched_row: &[Option<usize>]) -> Vec<Vec<usize>> {
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .filter_map(|(j, _)| matched_row[*j])
                .filter(|&r2| r2 != r)
                .collect()
        })
        .collect()
}

/// Whether the square matrix of the columns `chosen` (sparse, `n` rows) is numerically
/// nonsingular. Its determinant is the product of those of the diagonal blocks of its block
/// triangular form (a perfect matching on the nonzero entries, then the strongly connected
/// components of "row r reads the column matched to row r'"), so each block is factorized
/// densely on its own: memory and time follow the largest block, not the whole level.
fn square_regular(columns: &[Vec<(usize, f64)>], chosen: &[usize], n: usize) -> bool {
    if chosen.len() != n {
        return false;
    }
    // rows[r]: (local column, value).
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for (j, &ci) in chosen.iter().enumerate() {
        for &(r, x) in &columns[ci] {
            if !x.is_finite() {
                return false;
            }
            if x != 0.0 {
                rows[r].push((j, x));
            }
        }
    }
    // A perfect matching on the nonzero entries (column j -> row), else singular.
    let mut adj_t: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, row) in rows.iter().enumerate() {
        for &(j, _) in row {
            adj_t[j].push(r);
        }
    }
    let mut m = Matching::new(n, n);
    let mut aug = Augmenter::default();
    for j in 0..n {
        if !aug.augment(&adj_t, &|_| true, &mut m, j) {
            return false;
        }
    }
    let succ = row_successors(&rows, &m.var_of_eq);
    let mut pos = vec![usize::MAX; n];
    for scc in super::blt::tarjan(&succ) {
        // A block of one row: its matched entry is nonzero.
        if scc.len() < 2 {
            continue;
        }
        let b = scc.len();
        for (i, &r) in scc.iter().enumerate() {
            pos[r] = i;
        }
        let mut a = vec![0.0; b * b];
        for (i, &r) in scc.iter().enumerate() {
            for &(j, x) in &rows[r] {
                if let Some(r2) = m.var_of_eq[j]
                    && pos[r2] != usize::MAX
                {
                    a[i * b + pos[r2]] = x;
                }
            }
        }
        for &r in &scc {
            pos[r] = usize::MAX;
        }
        if !regular(&mut a, b) {
            return false;
        }
    }
    true
}

/// [`super::redundancy::equilibrate`] on sparse columns (`n` rows): each column, then each row,
/// scaled to a largest magnitude of 1.
fn equilibrate_sparse(columns: &mut [Vec<(usize, f64)>], n: usize) {
    for col in columns.iter_mut() {
        let s = col.iter().fold(0.0f64, |s, (_, x)| s.max(x.abs()));
        if s > 0.0 && s.is_finite() {
            col.iter_mut().for_each(|(_, x)| *x /= s);
        }
    }
    let mut row_max = vec![0.0f64; n];
    for col in columns.iter() {
        for &(r, x) in col {
            row_max[r] = row_max[r].max(x.abs());
        }
    }
    for col in columns.iter_mut() {
        for (r, x) in col.iter_mut() {
            let s = row_max[*r];
            if s > 0.0 && s.is_finite() {
                *x /= s;
            }
        }
    }
}

/// (index, value) of the nonzero entries of a vector.
type SparseVec = Vec<(usize, f64)>;

/// [`super::redundancy::Echelon`] with sparse kept vectors: the same reductions in the same
/// order (so the same choice), in memory proportional to the kept vectors' nonzeros.
struct SparseEchelon {
    tol: f64,
    /// (pivot, its value, nonzeros) of each kept vector.
    basis: Vec<(usize, f64, SparseVec)>,
    /// `acc[i]`: entry i of the vector being reduced; zero between calls.
    acc: Vec<f64>,
}

impl SparseEchelon {
    fn new(n: usize, tol: f64) -> SparseEchelon {
        SparseEchelon {
            tol,
            basis: Vec::new(),
            acc: vec![0.0; n],
        }
    }

    /// Reduces `v` by the kept vectors; keeps it and returns true if its largest remaining
    /// entry exceeds the tolerance.
    fn insert(&mut self, v: &[(usize, f64)]) -> bool {
        for &(i, x) in v {
            self.acc[i] = x;
        }
        for (p, bp, b) in &self.basis {
            let f = self.acc[*p] / bp;
            if f != 0.0 {
                for &(i, y) in b {
                    self.acc[i] -= f * y;
                }
            }
        }
        let (p, pv) = self
            .acc
            .iter()
            .enumerate()
            .fold((0, 0.0f64), |acc, (i, x)| {
                if x.abs() > acc.1 { (i, x.abs()) } else { acc }
            });
        let independent = pv > self.tol;
        if independent {
            let kept: Vec<(usize, f64)> = self
                .acc
                .iter()
                .enumerate()
                .filter(|(_, x)| **x != 0.0)
                .map(|(i, x)| (i, *x))
                .collect();
            self.basis.push((p, self.acc[p], kept));
        }
        self.acc.iter_mut().for_each(|x| *x = 0.0);
        independent
    }

    fn len(&self) -> usize {
        self.basis.len()
    }
}

/// Whether the `n x n` row-major matrix is numerically nonsingular (partial pivoting).
///
/// Rows and columns are scaled first (`redundancy::equilibrate`): their entries carry different
/// units, and one threshold relative to the largest entry of the whole matrix calls a regular
/// choice singular.
fn regular(a: &mut [f64], n: usize) -> bool {
    // NaN or infinite entries make the matrix unusable, like an all-zero row or column.
    if n == 0 || a.iter().any(|x| !x.is_finite()) {
        return n == 0;
    }
    let mut rows: Vec<Vec<f64>> = a.chunks(n).map(<[f64]>::to_vec).collect();
    super::redundancy::equilibrate(&mut rows);
    for (dst, src) in a.chunks_mut(n).zip(&rows) {
        dst.copy_from_slice(src);
    }
    for k in 0..n {
        let Some(p) = (k..n).max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))
        else {
            return false;
        };
        let pivot = a[p * n + k].abs();
        if pivot.is_nan() || pivot <= 1e-12 {
            return false;
        }
        for j in 0..n {
            a.swap(k * n + j, p * n + j);
        }
        for i in k + 1..n {
            let f = a[i * n + k] / a[k * n + k];
            for j in k..n {
                a[i * n + j] -= f * a[k * n + j];
            }
        }
    }
    true
}

/// The state set of a level whose choice depends on the state, reduced to the block that needs
/// a choice at run time. Pairs (row, dummy) are peeled off while a row has a single candidate
/// left (the choice is forced) or a chosen dummy appears in a single remaining row with a
/// constant coefficient (always a regular pivot): each peel multiplies the determinant of the
/// choice by a factor that no other choice could improve, so the remaining block decides alone.
/// `None` when nothing state-dependent is left to choose.
fn reduced_set(
    work: &WorkingSystem,
    at: At,
    rows: &[usize],
    cols: &[VarId],
    selected: &[VarId],
    jac: &[Vec<(usize, Expr)>],
) -> Option<StateSet> {
    let is_sel: Vec<bool> = cols.iter().map(|v| selected.contains(v)).collect();
    let mut row_alive = vec![true; jac.len()];
    let mut col_alive = vec![true; cols.len()];
    let mut col_rows: Vec<Vec<usize>> = vec![Vec::new(); cols.len()];
    for (ri, r) in jac.iter().enumerate() {
        for (ci, _) in r {
            col_rows[*ci].push(ri);
        }
    }
    loop {
        let mut peeled = None;
        for (ri, r) in jac.iter().enumerate().filter(|(ri, _)| row_alive[*ri]) {
            let mut live = r.iter().filter(|(ci, _)| col_alive[*ci]);
            if let (Some((ci, _)), None) = (live.next(), live.next())
                && is_sel[*ci]
            {
                peeled = Some((ri, *ci));
                break;
            }
        }
        if peeled.is_none() {
            for ci in (0..cols.len()).filter(|&c| col_alive[c] && is_sel[c]) {
                let mut live = col_rows[ci].iter().filter(|&&r| row_alive[r]);
                if let (Some(&ri), None) = (live.next(), live.next())
                    && jac[ri]
                        .iter()
                        .any(|(c, d)| *c == ci && constant(at, d).is_some())
                {
                    peeled = Some((ri, ci));
                    break;
                }
            }
        }
        let Some((ri, ci)) = peeled else { break };
        row_alive[ri] = false;
        col_alive[ci] = false;
    }
    let set_rows: Vec<usize> = (0..jac.len()).filter(|&r| row_alive[r]).collect();
    let mut set_cols: Vec<usize> = (0..cols.len())
        .filter(|&c| col_alive[c] && col_rows[c].iter().any(|&r| row_alive[r]))
        .collect();
    set_cols.sort_unstable_by_key(|&c| cols[c]);
    if set_cols.len() <= set_rows.len() {
        return None;
    }
    let mut jacobian = Vec::new();
    for (i, &ri) in set_rows.iter().enumerate() {
        for (ci, d) in &jac[ri] {
            if let Some(j) = set_cols.iter().position(|c| c == ci) {
                jacobian.push((i, j, d.clone()));
            }
        }
    }
    jacobian.sort_by_key(|(i, j, _)| (*i, *j));
    if jacobian.iter().all(|(_, _, e)| constant(at, e).is_some()) {
        return None;
    }
    let candidates: Vec<VarId> = set_cols.iter().map(|&c| cols[c]).collect();
    Some(StateSet {
        equations: set_rows.iter().map(|&r| rows[r]).collect(),
        candidate_states: candidates
            .iter()
            .map(|&v| work.model.variables[v].derivative_of.unwrap_or(v))
            .collect(),
        dummies: selected
            .iter()
            .copied()
            .filter(|v| candidates.contains(v))
            .collect(),
        candidates,
        jacobian,
    })
}

fn lacking_state(work: &WorkingSystem, unmatched: &[usize]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &e in unmatched {
        let eq = &work.eqs[e];
        let text = super::print::residual_text(
            &work.eqs[eq_origin_root(work, e)].residual,
            &work.model.variables,
        );
        out.push(
            Diagnostic::error(eq.span, "after index reduction this constraint has no state left to trade")
                .with_label(format!("`{text}` (differentiated {} times)", eq.differentiated))
                .with_note("each constraint on positions or velocities removes one state; here every variable it constrains is already fixed by other constraints or is not a state candidate")
                .with_help("check for a duplicated or redundant constraint, or a `stateSelect = StateSelect.never` on the constrained variables"),
        );
    }
    out
}

fn redundant(work: &WorkingSystem, rows: &[usize], dep: &[usize]) -> Vec<Diagnostic> {
    let text = |e: usize| super::dm::equation_text(&work.model, work.eqs[e].origin);
    let first = rows[dep[0]];
    let others: Vec<String> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| !dep.contains(i))
        .map(|(_, &e)| format!("`{}`", text(e)))
        .take(12)
        .collect();
    let mut d = Diagnostic::error(
        work.eqs[first].span,
        format!(
            "redundant constraints: {} constraint equation(s) depend on the others",
            dep.len()
        ),
    )
    .with_label(format!(
        "`{}` is implied by the other constraints",
        text(first)
    ));
    for &i in dep.iter().skip(1).take(12) {
        let e = rows[i];
        d = d.with_secondary(work.eqs[e].span, format!("`{}` is redundant too", text(e)));
    }
    d.with_note(format!("independent constraints: {}", others.join(", ")))
        .with_note("with redundant constraints the motion can still be unique, but the reaction forces are not (Wojtyra & Frączek 2013)")
        .with_help("remove the duplicated joint or constraint, or build the closed loop from joints that leave its redundant directions free")
        .pipe_vec()
}

trait PipeVec {
    fn pipe_vec(self) -> Vec<Diagnostic>;
}

impl PipeVec for Diagnostic {
    fn pipe_vec(self) -> Vec<Diagnostic> {
        vec![self]
    }
}

fn eq_origin_root(work: &WorkingSystem, mut e: usize) -> usize {
    while let Some(p) = work.eq_parent[e] {
        e = p;
    }
    e
}
