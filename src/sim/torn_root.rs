//! A last resort for a small nonlinear loop where damped Newton failed: the loop is torn at
//! run time into one equation in one unknown, whose root is bracketed (see [`super::scalar_root`]).
//!
//! Newton cannot leave the wrong piece of a piecewise-linear loop with positive feedback: a
//! Schmitt trigger's op-amp (`v_out = noEvent(if V0*v_in > vps then vps else ...)`, the input
//! fed back from the output) started at `v_in = 0` sits in the steep linear range, whose
//! solution lies beyond the supply limit, and every step ends at the kink. Tearing the loop
//! at one unknown `x` (the others solved from all equations but one, `e`, by Newton with `x`
//! held) leaves the scalar residual `f(x)` of equation `e`: continuous, and its sign change
//! is found by growing steps from the start, whatever the pieces in between. The point found
//! is then confirmed by the ordinary Newton iteration of the whole loop.

use super::dense_lu::Lu;
use super::engine::Engine;

/// Largest loop torn this way (each pairing of unknown and equation is tried in turn).
pub const MAX_TORN: usize = 6;
/// Newton iterations of the inner system for one value of the tearing unknown.
const INNER_ITERATIONS: usize = 30;

impl Engine {
    /// Tries every pairing of a tearing unknown and its residual equation (in order) until a
    /// bracketed root of the torn loop is found. Leaves the loop's unknowns at that root and
    /// returns true; false (the unknowns back at `start`) when no pairing gives one.
    pub(super) fn torn_root(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
        start: &[f64],
    ) -> bool {
        let k = vars.len();
        for t in 0..k {
            for e in 0..k {
                self.set_unknowns(vars, start);
                self.block_run(si);
                let tol = self.newton_tol;
                let f0 = self.torn_residual(si, vars, residuals, t, e, start[t]);
                let root = super::scalar_root::bracketed_root(start[t], f0, tol, |x| {
                    self.torn_residual(si, vars, residuals, t, e, x)
                });
                if let Some(x) = root
                    && self.torn_residual(si, vars, residuals, t, e, x).is_finite()
                {
                    return true;
                }
            }
        }
        self.set_unknowns(vars, start);
        self.block_rerun(si);
        false
    }

    fn set_unknowns(&mut self, vars: &[usize], values: &[f64]) {
        for (&v, &x) in vars.iter().zip(values) {
            self.regs[v] = x;
        }
    }

    /// Residual `e` with unknown `t` at `x` and the other unknowns solved from the other
    /// residuals (from their current values); NaN when that inner solve fails.
    fn torn_residual(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
        t: usize,
        e: usize,
        x: f64,
    ) -> f64 {
        let k = vars.len();
        self.regs[vars[t]] = x;
        self.block_rerun(si);
        let rows: Vec<usize> = (0..k).filter(|&i| i != e).collect();
        let cols: Vec<usize> = (0..k).filter(|&j| j != t).collect();
        let mut lu = Lu::default();
        let mut tmp = Vec::new();
        let mut converged = false;
        for _ in 0..INNER_ITERATIONS {
            let r: Vec<f64> = rows
                .iter()
                .map(|&i| self.regs[residuals[i] as usize])
                .collect();
            if r.iter().any(|v| !v.is_finite()) {
                return f64::NAN;
            }
            if rows.is_empty() || r.iter().all(|&v| v == 0.0) {
                converged = true;
                break;
            }
            let Some(jac) = self.block_jacobian(si) else {
                return f64::NAN;
            };
            let sub: Vec<f64> = rows
                .iter()
                .flat_map(|&i| cols.iter().map(move |&j| (i, j)))
                .map(|(i, j)| jac[i * k + j])
                .collect();
            if lu.factor(cols.len(), &sub).is_err() {
                return f64::NAN;
            }
            let mut d = r;
            lu.solve(&mut d, &mut tmp);
            let mut step = 0.0f64;
            for (c, &j) in cols.iter().enumerate() {
                let z = vars[j];
                step = step.max(d[c].abs() / (1.0 + self.regs[z].abs()));
                self.regs[z] -= d[c];
            }
            self.block_rerun(si);
            if step <= self.newton_tol {
                converged = true;
                break;
            }
        }
        if !converged {
            return f64::NAN;
        }
        self.regs[residuals[e] as usize]
    }
}
