//! Solving one algebraic block in place: linear blocks by refinement with the previous LU or one
//! new LU, nonlinear ones by damped Newton from the previous solution (line search, regularized
//! steps at singular Jacobians, kinks), with guesses derived by run-time tearing when Newton
//! cannot start.

use super::engine::{BlockError, Engine, block_tangent};
pub(super) use super::newton::max_abs;
use super::newton::{Check, LineSearch, NewtonPolicy, Outcome, Rules, damped_newton};
use super::program::Step;

/// Why a block solve failed.
#[derive(Clone, Debug)]
pub enum NewtonFailure {
    /// The Jacobian is singular; the column (unknown) with no pivot.
    Singular { column: usize },
    /// No convergence; the final residual max-norm.
    NoConvergence { residual: f64, iterations: usize },
    /// A residual became NaN or infinite.
    NotFinite { equation: usize },
    /// A linear block whose matrix is singular while its equations are consistent: solutions
    /// exist but are not unique (`sim/singular_linear.rs`); the column with no pivot.
    NotUnique { column: usize },
}

/// Refinement steps with an earlier factorization before a linear block's matrix is rebuilt.
pub(super) const MAX_REFINEMENTS: usize = 6;
/// Relative accuracy of algebraic loop solves unless the integrator asks for more
/// ([`newton_tol_for`]).
pub const DEFAULT_NEWTON_TOL: f64 = 1e-10;

/// The loop accuracy for an integrator tolerance `tol`: a loop solved less accurately than the
/// error test tolerates makes the right-hand side noisy, and the error test then fails at every
/// step size (Andrews' squeezer, whose dummy angles are error-controlled, stopped at t = 0
/// with tolerance 1e-10). Two digits below the tolerance, never looser than the default and
/// never tighter than rounding can reach in practice.
pub fn newton_tol_for(tol: f64) -> f64 {
    (tol * 1e-2).clamp(1e-13, DEFAULT_NEWTON_TOL)
}
/// Consecutive regularized steps a nonlinear block may take at singular Jacobians before the
/// solve is reported singular.
pub(super) const MAX_SINGULAR_STEPS: usize = 5;
/// Largest block solved with the dense regularized step (it forms `JᵀJ`).
pub(super) const MAX_REGULARIZED: usize = 200;

impl Engine {
    /// Solves one algebraic block in place, from the values currently in its registers.
    ///
    /// On failure the unknowns are put back to their values before the solve: a diverged
    /// iterate or NaN left in the registers would be the next evaluation's warm start, and every
    /// later attempt of the integrator (with a smaller step) would fail from there.
    pub(super) fn solve_block(&mut self, si: usize) -> Result<(), BlockError> {
        self.stats.block_solves += 1;
        let Step::Implicit { linear, .. } = &self.prog.steps[si] else {
            return Ok(());
        };
        let linear = *linear;
        let (vars, residuals) = (
            self.blocks[si].vars.clone(),
            self.blocks[si].residuals.clone(),
        );
        let max_iter = if linear { 1 } else { 50 };
        let mut z_start = std::mem::take(&mut self.z_start);
        z_start.clear();
        z_start.extend(vars.iter().map(|&v| {
            if self.regs[v].is_finite() {
                self.regs[v]
            } else {
                self.prog.init_regs[v]
            }
        }));
        for (i, &v) in vars.iter().enumerate() {
            self.regs[v] = z_start[i];
        }
        // A nonlinear loop starts from its solution at the last accepted point
        // (`sim/loop_anchor.rs`), so that the branch it takes does not depend on the points
        // the integrator tried since.
        let anchor_failed = !linear && {
            match self.solve_from_anchor(si, &vars, &residuals, &z_start) {
                Some(true) => {
                    self.z_start = z_start;
                    return Ok(());
                }
                Some(false) => true,
                None => false,
            }
        };
        let mut result = self.newton(si, &vars, &residuals, linear, max_iter);
        if result.is_err() && !linear {
            // Start values that make the loop's equations meaningless (a thermal voltage
            // `vt_t` of 0 divides by zero) are what tearing would never meet: it computes such
            // variables from the others. `derive_guesses` does the same, then Newton runs again
            // from there.
            for (i, &v) in vars.iter().enumerate() {
                self.regs[v] = z_start[i];
            }
            let derive: Vec<bool> = z_start.iter().map(|&z| z == 0.0).collect();
            if derive.iter().any(|&d| d) && self.derive_guesses(si, &vars, &residuals, &derive) {
                result = self.newton(si, &vars, &residuals, linear, max_iter);
            }
        }
        // A consistent singular block has many solutions. Which one is taken can change the
        // motion later (LossyGearDemo2: the torque split decides which friction element slips
        // first), so the run stops and says why rather than pick one.
        if linear
            && let Err(NewtonFailure::Singular { column }) = result
            && self.singular_linear_solve(si, &vars, &residuals)
        {
            result = Err(NewtonFailure::NotUnique { column });
        }
        if result.is_err() && !linear && vars.len() <= super::torn_root::MAX_TORN {
            // A small loop where Newton stays on the wrong piece of a piecewise-linear
            // residual: a root of the loop torn to one unknown, confirmed by Newton.
            if self.torn_root(si, &vars, &residuals, &z_start) {
                self.blocks[si].factored = false;
                result = self.newton(si, &vars, &residuals, linear, max_iter);
            }
        }
        if let Err(failure) = result {
            let err = BlockError {
                step: si,
                time: self.regs[self.prog.time as usize],
                failure,
                values: vars.iter().map(|&v| self.regs[v]).collect(),
                residuals: residuals.iter().map(|&r| self.regs[r as usize]).collect(),
            };
            for (i, &v) in vars.iter().enumerate() {
                self.regs[v] = z_start[i];
            }
            self.z_start = z_start;
            self.last_error = Some(err.clone());
            return Err(err);
        }
        if anchor_failed {
            self.remember_alternative(si, &vars);
        }
        self.z_start = z_start;
        Ok(())
    }

    /// Values for the unknowns marked in `derive` (those whose guess is 0: no start value) by
    /// tearing at run time: the others (a temperature starting at 288.15 K) are held, and
    /// repeatedly an equation whose residual is finite and that, among the unknowns still to
    /// derive, depends on exactly one (numeric tangents) gives that one by a scalar Newton step
    /// (exact when it enters linearly: `vt_t = k*T/q`, then `aux` from `vt_t`, ...). Returns
    /// whether every residual ends finite, so that Newton may restart from there.
    pub(super) fn derive_guesses(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
        derive: &[bool],
    ) -> bool {
        let Step::Implicit { code, inputs, .. } = &self.prog.steps[si] else {
            return false;
        };
        let (range, inputs) = (code.clone(), inputs.clone());
        let k = vars.len();
        let mut open: Vec<usize> = (0..k).filter(|&j| derive[j]).collect();
        let mut used = vec![false; k];
        self.block_run(si);
        while !open.is_empty() {
            // cols[c][i]: d residual i / d unknown open[c].
            let mut cols = Vec::with_capacity(open.len());
            for &j in &open {
                for &i in &inputs {
                    self.tan[i as usize] = 0.0;
                }
                for &z in vars {
                    self.tan[z] = 0.0;
                }
                self.tan[vars[j]] = 1.0;
                block_tangent(
                    &self.block_code[si],
                    &self.prog.code[range.clone()],
                    &self.regs,
                    &mut self.tan,
                );
                cols.push(
                    residuals
                        .iter()
                        .map(|&r| self.tan[r as usize])
                        .collect::<Vec<f64>>(),
                );
            }
            let pick = (0..k).filter(|&i| !used[i]).find_map(|i| {
                let r = self.regs[residuals[i] as usize];
                if !r.is_finite() || cols.iter().any(|c| !c[i].is_finite()) {
                    return None;
                }
                let mut nz = (0..open.len()).filter(|&c| cols[c][i] != 0.0);
                match (nz.next(), nz.next()) {
                    (Some(c), None) => Some((i, c, r)),
                    _ => None,
                }
            });
            let Some((i, c, r)) = pick else { break };
            let j = open[c];
            self.regs[vars[j]] -= r / cols[c][i];
            used[i] = true;
            open.remove(c);
            self.block_rerun(si);
        }
        for &z in vars {
            self.tan[z] = 0.0;
        }
        self.blocks[si].factored = false;
        residuals.iter().all(|&r| self.regs[r as usize].is_finite())
    }

    /// A linear block `A z = b`. The factorization of `A` from the previous evaluation is tried
    /// first, as the matrix of an iterative refinement: between the integrator's evaluations the
    /// positions change little, so `A` does too, and each refinement step (one pass of the block
    /// code and one triangular solve) gains several digits; building and factoring `A` costs one
    /// pass per Jacobian colour plus the LU. When the refinement converges slowly (a contact
    /// switched, the step was large) the matrix is rebuilt and the solve is then one exact step.
    pub(super) fn linear_solve(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
    ) -> Result<(), NewtonFailure> {
        let not_finite = |regs: &[f64]| {
            residuals
                .iter()
                .position(|&r| !regs[r as usize].is_finite())
        };
        self.z0.clear();
        self.z0.extend(vars.iter().map(|&v| self.regs[v]));
        self.block_run(si);
        if let Some(e) = not_finite(&self.regs) {
            return Err(NewtonFailure::NotFinite { equation: e });
        }
        let mut prev_step = f64::INFINITY;
        self.blocks[si].current = false;
        for attempt in 0..=MAX_REFINEMENTS {
            let fresh = !self.blocks[si].factored || attempt == MAX_REFINEMENTS;
            if fresh {
                self.factor_block(si)
                    .map_err(|column| NewtonFailure::Singular { column })?;
            }
            self.stats.newton_iterations += 1;
            self.rhs_buf.clear();
            self.rhs_buf
                .extend(residuals.iter().map(|&r| self.regs[r as usize]));
            self.block_solve(si);
            let mut step = 0.0f64;
            for (i, &z) in vars.iter().enumerate() {
                let d = self.rhs_buf[i];
                step = step.max(d.abs() / (1.0 + self.regs[z].abs()));
                self.regs[z] -= d;
            }
            // The refinement contracts linearly: with rate `q` the error left after this step is
            // about q / (1 - q) times the step (the usual rate-based Newton test). Converged, the
            // block code need not run again unless later steps read its temporaries: the
            // unknowns are all they read.
            let q = if prev_step.is_finite() {
                step / prev_step
            } else {
                1.0
            };
            let converged = fresh
                || step <= self.newton_tol
                || (q < 0.5 && step * q / (1.0 - q) <= self.newton_tol);
            if converged && step.is_finite() && !self.blocks[si].temporaries_read_later {
                return Ok(());
            }
            self.block_rerun(si);
            let bad = not_finite(&self.regs);
            if fresh {
                // Exact up to rounding.
                return match bad {
                    Some(e) => Err(NewtonFailure::NotFinite { equation: e }),
                    None => Ok(()),
                };
            }
            if bad.is_none() && converged {
                return Ok(());
            }
            if bad.is_some() || !step.is_finite() {
                // The old matrix is too far off: start again from the warm start with a new one.
                for (i, &z) in vars.iter().enumerate() {
                    self.regs[z] = self.z0[i];
                }
                self.block_rerun(si);
                self.blocks[si].factored = false;
            } else if step > 0.1 * prev_step {
                self.blocks[si].factored = false;
            }
            prev_step = step;
        }
        // Not reached: the last attempt uses a fresh factorization and returns.
        Err(NewtonFailure::NoConvergence {
            residual: prev_step,
            iterations: MAX_REFINEMENTS + 1,
        })
    }

    /// Damped Newton on one block (one LU step for a linear block): [`damped_newton`] with
    /// the block's compiled Jacobian ([`BlockNewton`]).
    pub(super) fn newton(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
        linear: bool,
        max_iter: usize,
    ) -> Result<(), NewtonFailure> {
        if linear {
            return self.linear_solve(si, vars, residuals);
        }
        let mut work = std::mem::take(&mut self.newton_work);
        work.x.clear();
        work.x.extend(vars.iter().map(|&v| self.regs[v]));
        let mut policy = BlockNewton {
            engine: self,
            si,
            vars,
            residuals,
            max_iter,
        };
        let outcome = damped_newton(&mut policy, &mut work);
        self.newton_work = work;
        match outcome? {
            Outcome {
                converged: false,
                norm,
                ..
            } => Err(NewtonFailure::NoConvergence {
                residual: norm,
                iterations: max_iter,
            }),
            _ => Ok(()),
        }
    }
}

/// A nonlinear block as a [`NewtonPolicy`]: the unknowns and residuals are registers, the
/// Jacobian is the compiled one (`block_jac.rs`, sparse or dense LU). Converged when the full
/// Newton step is below the engine's tolerance (relative to `1 + |z|`), when the residual is
/// exactly zero, or when steps at the default accuracy stop shrinking; the Armijo line search;
/// at most [`MAX_SINGULAR_STEPS`] regularized steps in a row, on blocks of at most
/// [`MAX_REGULARIZED`] unknowns.
struct BlockNewton<'e, 'v> {
    engine: &'e mut Engine,
    si: usize,
    vars: &'v [usize],
    residuals: &'v [u32],
    max_iter: usize,
}

impl BlockNewton<'_, '_> {
    fn norm(&self) -> f64 {
        let regs = &self.engine.regs;
        max_abs(self.residuals.iter().map(|&r| regs[r as usize]))
    }

    fn set(&mut self, x: &[f64]) {
        for (&v, &z) in self.vars.iter().zip(x) {
            self.engine.regs[v] = z;
        }
    }
}

impl NewtonPolicy for BlockNewton<'_, '_> {
    type Error = NewtonFailure;

    fn rules(&self) -> Rules {
        Rules {
            max_iter: self.max_iter,
            step_tol: Some(self.engine.newton_tol),
            line_search: LineSearch::Armijo,
            max_singular_steps: MAX_SINGULAR_STEPS,
        }
    }

    fn start(&mut self, _x: &[f64]) -> Result<f64, NewtonFailure> {
        self.engine.block_run(self.si);
        Ok(self.norm())
    }

    fn eval(&mut self, x: &[f64]) -> Result<f64, NewtonFailure> {
        self.set(x);
        self.engine.block_rerun(self.si);
        Ok(self.norm())
    }

    fn converged(&mut self, norm: f64, check: Check) -> Result<bool, NewtonFailure> {
        match check {
            Check::BeforeStep => {
                let regs = &self.engine.regs;
                match self
                    .residuals
                    .iter()
                    .position(|&r| !regs[r as usize].is_finite())
                {
                    Some(e) => Err(NewtonFailure::NotFinite { equation: e }),
                    None => Ok(false),
                }
            }
            // A tolerance tied to a tight integrator tolerance can lie below what rounding
            // allows for this block: once the steps stop shrinking at the default accuracy,
            // the iterate is as good as it gets.
            Check::AfterStep { step, prev_step } => {
                Ok(norm == 0.0 || (step <= DEFAULT_NEWTON_TOL && step > 0.25 * prev_step))
            }
        }
    }

    fn factor(
        &mut self,
        x: &[f64],
        probe: Option<&[f64]>,
    ) -> Result<Result<(), usize>, NewtonFailure> {
        let si = self.si;
        let factored = match probe {
            // The Jacobian of the piece past the kink where the last line search stopped
            // (with the residual here): a semismooth Newton step.
            Some(p) => {
                self.set(p);
                self.engine.block_rerun(si);
                let f = self.engine.factor_block(si);
                self.set(x);
                self.engine.block_rerun(si);
                f
            }
            None => self.engine.factor_block(si),
        };
        self.engine.stats.newton_iterations += 1;
        Ok(factored)
    }

    fn residuals(&self, out: &mut Vec<f64>) {
        let regs = &self.engine.regs;
        out.clear();
        out.extend(self.residuals.iter().map(|&r| regs[r as usize]));
    }

    fn solve(&mut self, dx: &mut [f64]) {
        let e = &mut *self.engine;
        e.rhs_buf.clear();
        e.rhs_buf.extend_from_slice(dx);
        e.block_solve(self.si);
        dx.copy_from_slice(&e.rhs_buf[..dx.len()]);
    }

    /// `jac` holds the dense matrix whenever the factorization failed.
    fn regularized(&mut self, column: usize, dx: &mut [f64]) -> Result<(), NewtonFailure> {
        let e = &mut *self.engine;
        let k = self.vars.len();
        if k > MAX_REGULARIZED
            || e.jac.len() != k * k
            || !super::dense_lu::regularized_step(&e.jac, k, dx, &mut e.reg_lu, &mut e.tmp)
        {
            return Err(NewtonFailure::Singular { column });
        }
        e.blocks[self.si].factored = false;
        Ok(())
    }

    fn singular(&mut self, column: usize) -> NewtonFailure {
        NewtonFailure::Singular { column }
    }

    fn trace(&self, norm: f64, new_norm: f64, lambda: f64, step: f64) {
        if debug_newton() {
            let e = &self.engine;
            eprintln!(
                "newton block {} t={}: |r| {norm:e} -> {new_norm:e} (lambda {lambda}, step {step:e})",
                self.si, e.regs[e.prog.time as usize]
            );
        }
    }
}

/// `MINIMO_DEBUG_NEWTON` set: each Newton iteration of a nonlinear block is printed.
pub(super) fn debug_newton() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MINIMO_DEBUG_NEWTON").is_some())
}
