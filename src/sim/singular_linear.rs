//! A linear block whose matrix is singular but whose equations are consistent: the solution
//! nearest the previous values.
//!
//! Two friction elements stuck in series (a bearing and a lossy gear on one shaft, both at
//! rest) each say `a = 0` for the shaft between them, and the torque each takes is not
//! determined: any split with the right sum solves the equations. The LU finds no pivot, yet
//! the block has solutions, and the motion (every acceleration) is the same in all of them.
//! Such a block is solved by regularized Gauss-Newton steps from the previous values (their
//! limit is the least-squares solution nearest them); it is accepted only when the residual
//! then vanishes, so a block with no solution (inconsistent equations) is still reported as
//! singular.

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
                let t = self.regs[self.prog.time as usize];
                if let super::program::Step::Implicit { block, .. } = &self.prog.steps[si] {
                    self.stats.non_unique.get_or_insert((*block, t));
                }
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

/// The note for the user: which loop had no unique solution, first when.
pub fn note(sys: &crate::structure::SortedSystem, block: usize, t: f64) -> String {
    let names: Vec<&str> = sys
        .blocks
        .get(block)
        .map(|b| {
            b.vars
                .iter()
                .filter_map(|&v| sys.model.variables.get(v).map(|x| x.name.as_str()))
                .collect()
        })
        .unwrap_or_default();
    format!(
        "warning at time {t}: the linear loop of {} is singular but consistent, so its solution is not unique (e.g. two friction elements stuck in series share a torque in any proportion); the solution nearest the previous values is taken",
        names.join(", ")
    )
}
