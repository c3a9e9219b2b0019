//! Numerical detection of redundant constraints (Wojtyra & Frączek's setting).
//!
//! A duplicated joint passes every structural test: the duplicate brings its own reaction force,
//! so the counts and the matching are fine, but the constraint Jacobian is rank deficient.
//! At each dummy-derivative level we evaluate the Jacobian of the differentiated constraints
//! with respect to the candidate derivatives at a generic point (parameters at their values,
//! unknowns at deterministic pseudo-random values in [0.5, 1.5]) and eliminate with partial
//! pivoting: a row that vanishes depends on the ones before it. A generic point catches
//! redundancy that holds everywhere (duplicated joints, a joint restated by a loop); redundancy
//! that only holds on the constraint manifold (a planar loop of spatial joints) shows up as a
//! singular linear block at run time instead. Levels with more than [`MAX_ROWS`] constraints are
//! skipped to keep the check linear in practice.

use super::derivative::{Partial, diff};
use super::work::WorkingSystem;
use crate::dae::{Builtin, Expr, UnOp, VarId};
use crate::sim::tape::{apply, apply_builtin, bin_op};

pub const MAX_ROWS: usize = 200;

/// Values for evaluating expressions at a generic point.
#[derive(Clone)]
pub struct Point {
    values: Vec<Option<f64>>,
    time: f64,
}

impl Point {
    pub fn generic(work: &WorkingSystem) -> Point {
        let n = work.model.variables.len();
        let mut p = Point {
            values: vec![None; n],
            time: 0.5,
        };
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        for v in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if work.is_unknown(v) || work.role[v] == super::work::Role::Discrete {
                p.values[v] = Some(0.5 + (seed >> 11) as f64 / (1u64 << 53) as f64);
            }
        }
        p.bind_parameters(work, 4);
        p
    }

    /// The given values (indexed by variable) at time `time`, parameters from their bindings.
    pub fn with_values(work: &WorkingSystem, values: Vec<Option<f64>>, time: f64) -> Point {
        let mut p = Point { values, time };
        p.values.resize(work.model.variables.len(), None);
        p.bind_parameters(work, 64);
        p
    }

    /// Sets (or overrides) one value.
    pub fn set(&mut self, v: VarId, x: f64) {
        if let Some(slot) = self.values.get_mut(v) {
            *slot = Some(x);
        }
    }

    /// Parameters from their bindings (in declaration order, a few passes for dependencies).
    fn bind_parameters(&mut self, work: &WorkingSystem, passes: usize) {
        let n = work.model.variables.len();
        let p = self;
        // Until nothing changes, at most `passes` times.
        for _ in 0..passes {
            let mut changed = false;
            for v in 0..n {
                if p.values[v].is_none()
                    && let Some(b) = &work.model.variables[v].binding
                {
                    p.values[v] = p.eval(b);
                    changed |= p.values[v].is_some();
                }
            }
            if !changed {
                break;
            }
        }
    }

    pub fn eval(&self, e: &Expr) -> Option<f64> {
        let b = |x: bool| if x { 1.0 } else { 0.0 };
        Some(match e {
            Expr::Real(r) => *r,
            Expr::Integer(i) => *i as f64,
            Expr::Boolean(x) => b(*x),
            Expr::Var(v) => (*self.values.get(*v)?)?,
            Expr::Time => self.time,
            Expr::Unary(UnOp::Neg, a) => -self.eval(a)?,
            Expr::Unary(UnOp::Not, a) => b(self.eval(a)? == 0.0),
            Expr::NoEvent(a) | Expr::Smooth(_, a) | Expr::Pre(a) => self.eval(a)?,
            // The operators and built-ins through the simulator's one table, so a value here is
            // the value the compiled program computes (`sign(0) = 0`, Integer division, `^`).
            Expr::Binary(op, x, y) => apply(bin_op(*op), self.eval(x)?, self.eval(y)?, 0.0),
            // At a generic point the current value stands for the delayed one.
            Expr::Call(Builtin::Delay, args) => self.eval(args.first()?)?,
            Expr::Call(f, args) => {
                let a: Option<Vec<f64>> = args.iter().map(|x| self.eval(x)).collect();
                apply_builtin(*f, &a?).ok()?
            }
            Expr::If { branches, else_ } => {
                for (c, v) in branches {
                    if self.eval(c)? != 0.0 {
                        return self.eval(v);
                    }
                }
                self.eval(else_)?
            }
            _ => return None,
        })
        .filter(|x: &f64| x.is_finite())
    }
}

/// Scales every row, then every column, of `m` to a largest magnitude of 1 (zero rows and
/// columns stay as they are). Neither changes which rows, or which columns, are independent,
/// and it makes one relative tolerance meaningful: the entries of a Jacobian carry the units of
/// their equation and variable (a tank's `u = 1.1e6 J/kg` next to the `1` and `0.001 m2` of its
/// volume equation), and a tolerance relative to the largest entry of the whole matrix calls
/// the small but exact entries zero.
pub fn equilibrate(m: &mut [Vec<f64>]) {
    for row in m.iter_mut() {
        let s = row.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        if s > 0.0 && s.is_finite() {
            row.iter_mut().for_each(|x| *x /= s);
        }
    }
    let ncols = m.iter().map(Vec::len).max().unwrap_or(0);
    for j in 0..ncols {
        let s = m
            .iter()
            .fold(0.0f64, |s, r| s.max(r.get(j).map_or(0.0, |x| x.abs())));
        if s > 0.0 && s.is_finite() {
            m.iter_mut()
                .filter_map(|r| r.get_mut(j))
                .for_each(|x| *x /= s);
        }
    }
}

/// Vectors in row echelon form, each with its pivot position: whether a new vector is
/// independent of the ones kept, in the order they come (dependent rows of a level; the sparse
/// twin for the columns of a dummy-derivative choice is in `structure/dummy.rs`).
pub struct Echelon {
    /// What is left of a vector after reduction must exceed this to count as independent.
    tol: f64,
    basis: Vec<(usize, Vec<f64>)>,
}

impl Echelon {
    pub fn new(tol: f64) -> Echelon {
        Echelon {
            tol,
            basis: Vec::new(),
        }
    }

    /// Reduces `v` by the kept vectors; keeps it and returns true if its largest remaining
    /// entry exceeds the tolerance, returns false (dependent) otherwise.
    pub fn insert(&mut self, mut v: Vec<f64>) -> bool {
        for (p, b) in &self.basis {
            let f = v[*p] / b[*p];
            if f != 0.0 {
                for (x, y) in v.iter_mut().zip(b) {
                    *x -= f * y;
                }
            }
        }
        let (p, pv) = v.iter().enumerate().fold((0, 0.0f64), |acc, (i, x)| {
            if x.abs() > acc.1 { (i, x.abs()) } else { acc }
        });
        let independent = pv > self.tol;
        if independent {
            self.basis.push((p, v));
        }
        independent
    }
}

/// Rows (indices into `rows`) that depend on earlier rows, given the Jacobian at a generic point.
/// `None` when the Jacobian cannot be evaluated (user functions, ...).
pub fn dependent_rows(
    work: &WorkingSystem,
    point: &Point,
    rows: &[usize],
    cols: &[VarId],
) -> Option<Vec<usize>> {
    if rows.len() > MAX_ROWS || rows.is_empty() {
        return Some(Vec::new());
    }
    let mut no_user = |_: &str, _: &[Expr], _: usize, _: usize, _: usize| -> Result<Expr, String> {
        Err(String::new())
    };
    // Only the columns these rows touch (the level may have many more candidates).
    let all: std::collections::HashSet<VarId> = cols.iter().copied().collect();
    let incs: Vec<Vec<VarId>> = rows
        .iter()
        .map(|&e| {
            super::incidence::incidence(&work.eqs[e].residual, &|v: VarId| all.contains(&v))
                .into_keys()
                .collect()
        })
        .collect();
    let mut used: Vec<VarId> = incs.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let col_of: std::collections::HashMap<VarId, usize> =
        used.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let cols = &used;
    let mut a = vec![vec![0.0f64; cols.len()]; rows.len()];
    for (ri, &e) in rows.iter().enumerate() {
        for v in &incs[ri] {
            let Some(&ci) = col_of.get(v) else { continue };
            let d = diff(
                &work.eqs[e].residual,
                &mut Partial {
                    var: *v,
                    user: &mut no_user,
                },
            )
            .ok()?;
            a[ri][ci] = point.eval(&d)?;
        }
    }
    // Row echelon form, processing rows in order: a row reduced to ~0 is dependent.
    equilibrate(&mut a);
    let mut echelon = Echelon::new(1e-9 * (cols.len().max(1) as f64));
    let dependent = a
        .into_iter()
        .enumerate()
        .filter_map(|(ri, row)| (!echelon.insert(row)).then_some(ri))
        .collect();
    Some(dependent)
}
