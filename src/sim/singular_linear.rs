//! A linear block whose matrix is singular but whose equations are consistent: told apart
//! from an inconsistent one, so that the error can say the solution exists but is not unique.
//!
//! Two friction elements stuck in series (a bearing and a lossy gear on one shaft, both at
//! rest) each say `a = 0` for the shaft between them, and the torque each takes is not
//! determined: any split with the right sum solves the equations. The LU finds no pivot, yet
//! the block has solutions, and the motion (every acceleration) is the same in all of them.
//! Regularized Gauss-Newton steps from the previous values (their limit is the least-squares
//! solution nearest them) reach a vanishing residual exactly when the block is consistent.
//! Such a block is still an error (`NewtonFailure::NotUnique`): the split it would pick can
//! change the motion later (in LossyGearDemo2 it decides which element slips first, and the
//! run left the reference at t = 0.36 with exit 0), and minimo does not yet check that the
//! undetermined directions stay out of everything the motion reads.

use super::block_solve::MAX_REGULARIZED;
use super::engine::Engine;

/// Regularized steps tried; each gains about eight digits along the regular directions.
const MAX_STEPS: usize = 8;

impl Engine {
    /// Solves linear block `si` with a singular matrix from the current values of its unknowns.
    /// Returns whether the residual reached the solve tolerance (then the unknowns hold the
    /// solution); otherwise they are back at their values before.
    pub(super) fn singular_linear_solve(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
    ) -> bool {
        let k = vars.len();
        if k > MAX_REGULARIZED {
            return false;
        }
        let start: Vec<f64> = vars.iter().map(|&v| self.regs[v]).collect();
        self.block_run(si);
        let r0 = super::block_solve::max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
        let tol = self.newton_tol * (1.0 + r0);
        for _ in 0..MAX_STEPS {
            if self.factor_block(si).is_ok() || self.jac.len() != k * k {
                // Regular after all (or no dense matrix to work on): not this case.
                break;
            }
            self.rhs_buf.clear();
            self.rhs_buf
                .extend(residuals.iter().map(|&r| self.regs[r as usize]));
            if !super::dense_lu::regularized_step(
                &self.jac,
                k,
                &mut self.rhs_buf,
                &mut self.reg_lu,
                &mut self.tmp,
            ) {
                break;
            }
            for (i, &z) in vars.iter().enumerate() {
                self.regs[z] -= self.rhs_buf[i];
            }
            self.block_rerun(si);
            let r = super::block_solve::max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
            if r <= tol {
                self.blocks[si].factored = false;
                return true;
            }
        }
        for (i, &z) in vars.iter().enumerate() {
            self.regs[z] = start[i];
        }
        self.block_rerun(si);
        self.blocks[si].factored = false;
        false
    }
}
