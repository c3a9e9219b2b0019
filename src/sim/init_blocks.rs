//! The initial system solved block by block before the whole-system Newton of `init.rs`.
//!
//! The initial equations are residuals of the main pass, which computes every variable from
//! the states. A start point can make some of them meaningless although the system is fine:
//! a tank whose states are its mass `m` and enthalpy `H`, with `level(fixed = true)` and
//! `T(fixed = true)`, computes `h = H/m`, which is NaN at `m = 0` (no start value). Newton on
//! all unknowns at once then sees a NaN Jacobian and reports the system singular. A tool sorts
//! the initial system into blocks (matching, strongly connected components) as it sorts the
//! simulation system: `level = 0.9` involves `m` alone and gives it first, then `T = T0` gives
//! `H` with `m` known. Each block is solved by damped Newton on its own unknowns and
//! residuals, which the blocks before it made evaluable.

use crate::structure::blt::equation_blocks;
use crate::structure::matching::maximum;

/// Newton iterations per block.
const MAX_ITER: usize = 50;
/// A block is solved when its largest residual is below this (as the whole-system solve).
const TOL: f64 = 1e-11;

/// Solves the square system `rows` (for each residual, the unknowns it depends on) block by
/// block in place in `x`; `eval` writes every residual at a point and says whether the point
/// could be evaluated. Returns whether every block was solved; on failure `x` keeps the
/// blocks solved so far, and the caller decides whether that point is better than its start.
pub(super) fn solve_by_blocks(
    rows: &[Vec<usize>],
    x: &mut [f64],
    eval: &mut dyn FnMut(&[f64], &mut Vec<f64>) -> bool,
) -> bool {
    let n = x.len();
    if rows.len() != n {
        return false;
    }
    let m = maximum(rows, n, &|_| true);
    if m.size() != n {
        return false;
    }
    let blocks = equation_blocks(rows, &m);
    if blocks.len() < 2 {
        // One block: nothing to gain over the whole-system Newton.
        return false;
    }
    let mut r = Vec::new();
    for eqs in &blocks {
        let vars: Vec<usize> = eqs.iter().filter_map(|&e| m.var_of_eq[e]).collect();
        if !solve_block(eqs, &vars, x, &mut r, eval) {
            return false;
        }
    }
    true
}

/// Damped Newton with finite-difference columns on one block.
fn solve_block(
    eqs: &[usize],
    vars: &[usize],
    x: &mut [f64],
    r: &mut Vec<f64>,
    eval: &mut dyn FnMut(&[f64], &mut Vec<f64>) -> bool,
) -> bool {
    let k = vars.len();
    let block_norm = |r: &[f64]| {
        eqs.iter().fold(0.0f64, |m, &e| {
            let v = r.get(e).copied().unwrap_or(f64::NAN);
            if v.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(v.abs())
            }
        })
    };
    if !eval(x, r) {
        return false;
    }
    let mut lu = super::dense_lu::Lu::default();
    let (mut tmp, mut r2) = (Vec::new(), Vec::new());
    for _ in 0..MAX_ITER {
        let r0 = block_norm(r);
        if !r0.is_finite() {
            return false;
        }
        if r0 <= TOL {
            return true;
        }
        let mut jac = vec![0.0; k * k];
        for (j, &v) in vars.iter().enumerate() {
            let h = 1e-7 * (1.0 + x[v].abs());
            let saved = x[v];
            x[v] += h;
            let ok = eval(x, &mut r2);
            x[v] = saved;
            if !ok {
                return false;
            }
            for (i, &e) in eqs.iter().enumerate() {
                jac[i * k + j] = (r2[e] - r[e]) / h;
            }
        }
        if lu.factor(k, &jac).is_err() {
            return false;
        }
        let mut dx: Vec<f64> = eqs.iter().map(|&e| r[e]).collect();
        lu.solve(&mut dx, &mut tmp);
        let start: Vec<f64> = vars.iter().map(|&v| x[v]).collect();
        let mut lambda = 1.0;
        loop {
            for (j, &v) in vars.iter().enumerate() {
                x[v] = start[j] - lambda * dx[j];
            }
            let ok = eval(x, &mut r2);
            let rn = if ok { block_norm(&r2) } else { f64::NAN };
            if rn.is_finite() && rn < r0 {
                std::mem::swap(r, &mut r2);
                break;
            }
            lambda *= 0.5;
            if lambda < 1e-6 {
                for (j, &v) in vars.iter().enumerate() {
                    x[v] = start[j];
                }
                return false;
            }
        }
    }
    block_norm(r) <= TOL
}
