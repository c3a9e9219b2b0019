//! The dense state Jacobian `d der(x) / d x` through the largest sparse block, by coloured
//! tangent passes and one multi-column solve with the block's factorization (instead of one
//! full tangent pass per state).

use super::block_code::LaneTangent;
use super::block_jac::{BlockJac, block_deps, color_columns};
use super::engine::Engine;
use super::program::{Program, Step};
use super::state_lanes::StateLanes;
use super::tape::run_deps;

impl Engine {
    /// Whether [`Self::state_jacobian`] applies (the program has a sparse-LU block).
    pub fn has_state_jacobian(&self) -> bool {
        self.state_jac.is_some()
    }

    /// The dense state Jacobian `d der(x) / d x` (row-major, `out[row * n + col]`) at the last
    /// evaluated point, through the largest block `B` (unknowns `z`, residuals `r`) by
    /// `dz/dx = -J_z⁻¹ ∂r/∂x`: the tangents with `z` held fixed (`∂r/∂x`, and the derivatives'
    /// direct dependence on the states) and those of `z` alone (`∂der/∂z`) are both sparse, so a
    /// few coloured passes give them; one solve per state with the block's factorization then
    /// replaces the dense part, which costs one full tangent pass per state through `jvp`.
    /// Returns false (leaving `out` alone) when the program has no such block.
    pub fn state_jacobian(&mut self, out: &mut [f64]) -> bool {
        if self.state_jac.is_none() {
            return false;
        }
        self.refresh_factorizations();
        let Some(plan) = self.state_jac.take() else {
            return false;
        };
        let n = self.nstates();
        let big = plan.big;
        out[..n * n].iter_mut().for_each(|v| *v = 0.0);
        let ders: Vec<usize> = self.der_regs.iter().map(|&d| d as usize).collect();
        // ∂r/∂x by state: (residual, value).
        let mut dr: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        // ∂der/∂z by row: (unknown, value).
        let mut gz: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        let mut plan = plan;
        if let Some(lanes) = plan.lanes.as_deref_mut() {
            self.stats.jvp += 2;
            lanes.run(&self.regs);
            let StateLanes {
                x: lx,
                z: lz,
                x_buf: bx,
                z_buf: bz,
            } = lanes;
            let Step::Implicit { residuals, .. } = &self.prog.steps[big] else {
                return false;
            };
            let at = |l: &LaneTangent, b: &[f64], r: usize, lane: usize| {
                l.index(r as u32, lane).map_or(0.0, |k| b[k])
            };
            self.res_tan.clear();
            self.res_tan.resize(residuals.len(), 0.0);
            for &(i, j) in plan.res_x_by_color.iter().flatten() {
                dr[j].push((i, at(lx, bx, residuals[i] as usize, j)));
            }
            for &(row, j) in plan.der_x_by_color.iter().flatten() {
                out[row * n + j] = at(lx, bx, ders[row], j);
            }
            for &(row, m) in plan.der_z_by_color.iter().flatten() {
                gz[row].push((m, at(lz, bz, ders[row], m)));
            }
        }
        let ncolors = if plan.lanes.is_some() {
            0
        } else {
            plan.x_colors.len()
        };
        for (c, cols) in plan.x_colors.iter().enumerate().take(ncolors) {
            self.stats.jvp += 1;
            for &(s, _) in &self.prog.states {
                self.tan[s] = 0.0;
            }
            for &j in cols {
                self.tan[self.prog.states[j].0] = 1.0;
            }
            self.tangent_steps(big, LargestBlockSeed::Zero);
            for &(i, j) in &plan.res_x_by_color[c] {
                dr[j].push((i, self.res_tan[i]));
            }
            for &(row, j) in &plan.der_x_by_color[c] {
                out[row * n + j] = self.tan[ders[row]];
            }
        }
        let nz = if plan.lanes.is_some() {
            0
        } else {
            plan.z_colors.len()
        };
        self.state_jac = Some(plan);
        for c in 0..nz {
            self.stats.jvp += 1;
            for &(s, _) in &self.prog.states {
                self.tan[s] = 0.0;
            }
            self.tangent_steps(big, LargestBlockSeed::Unknowns(c));
            let Some(plan) = &self.state_jac else {
                return false;
            };
            for &(row, m) in &plan.der_z_by_color[c] {
                gz[row].push((m, self.tan[ders[row]]));
            }
        }
        let k = self.res_tan.len();
        let b = &mut self.blocks[big];
        if let (Some(lu), true) = (&mut b.sparse, b.use_sparse) {
            // All states at once: one multi-column solve instead of one solve per state; or,
            // when fewer derivatives depend on the unknowns than states on the residuals (the
            // accelerations of a multibody system), the rows of `G A⁻¹` by one transposed solve.
            let cols: Vec<usize> = (0..n).filter(|&j| !dr[j].is_empty()).collect();
            let rows: Vec<usize> = (0..n).filter(|&r| !gz[r].is_empty()).collect();
            if rows.len() < cols.len() {
                let m = rows.len();
                self.many.clear();
                self.many.resize(k * m, 0.0);
                for (c, &row) in rows.iter().enumerate() {
                    for &(mm, v) in &gz[row] {
                        self.many[mm * m + c] += v;
                    }
                }
                lu.solve_transpose_many(&mut self.many, m, &mut self.tmp);
                let mut acc = vec![0.0; m];
                for &j in &cols {
                    acc.iter_mut().for_each(|a| *a = 0.0);
                    for &(i, v) in &dr[j] {
                        for (a, &y) in acc.iter_mut().zip(&self.many[i * m..(i + 1) * m]) {
                            *a += v * y;
                        }
                    }
                    for (c, &row) in rows.iter().enumerate() {
                        out[row * n + j] -= acc[c];
                    }
                }
                return true;
            }
            let m = cols.len();
            self.many.clear();
            self.many.resize(k * m, 0.0);
            for (c, &j) in cols.iter().enumerate() {
                for &(i, v) in &dr[j] {
                    self.many[i * m + c] = -v;
                }
            }
            lu.solve_many(&mut self.many, m, &mut self.tmp);
            let mut acc = vec![0.0; m];
            for (row, g) in gz.iter().enumerate() {
                acc.iter_mut().for_each(|a| *a = 0.0);
                for &(mm, v) in g {
                    for (a, &z) in acc.iter_mut().zip(&self.many[mm * m..(mm + 1) * m]) {
                        *a += v * z;
                    }
                }
                for (c, &j) in cols.iter().enumerate() {
                    out[row * n + j] += acc[c];
                }
            }
            return true;
        }
        for (j, col) in dr.iter().enumerate() {
            if col.is_empty() {
                continue;
            }
            self.rhs_buf.clear();
            self.rhs_buf.resize(k, 0.0);
            for &(i, v) in col {
                self.rhs_buf[i] = -v;
            }
            self.block_solve(big);
            for (row, g) in gz.iter().enumerate() {
                let s: f64 = g.iter().map(|&(m, v)| v * self.rhs_buf[m]).sum();
                out[row * n + j] += s;
            }
        }
        true
    }
}

/// How the unknowns of the largest block (the one the state Jacobian goes through) are seeded in
/// [`Engine::tangent_steps`].
#[derive(Clone, Copy, Debug)]
pub(super) enum LargestBlockSeed {
    /// Held fixed (tangent zero).
    Zero,
    /// The unknowns of this colour of [`StateJacPlan::z_colors`] get tangent one.
    Unknowns(usize),
}

/// The structure of the state Jacobian through the largest sparse block (step `big`), found once
/// by dependency propagation (both branches of every `if`).
#[derive(Debug)]
pub(super) struct StateJacPlan {
    pub(super) big: usize,
    pub(super) x_colors: Vec<Vec<usize>>,
    pub(super) z_colors: Vec<Vec<usize>>,
    /// For each state colour, the entries its pass fills: (block residual, state) where the
    /// residual depends on the state with the block's unknowns held fixed, and (derivative,
    /// state) likewise; for each colour of the unknowns, (derivative, unknown) where the
    /// derivative depends on the unknown with the states held fixed. Listed once here, so a pass
    /// does not scan every dependency for its colour.
    pub(super) res_x_by_color: Vec<Vec<(usize, usize)>>,
    pub(super) der_x_by_color: Vec<Vec<(usize, usize)>>,
    pub(super) der_z_by_color: Vec<Vec<(usize, usize)>>,
    /// The tangents of the whole main pass in lanes, when they apply ([`StateLanes`]).
    pub(super) lanes: Option<Box<StateLanes>>,
}

/// The entries `(i, j)` of `deps` (`deps[i]` lists the `j`) grouped by the colour of `j`.
pub(super) fn by_color(
    deps: &[Vec<usize>],
    color_of: &[usize],
    ncolors: usize,
) -> Vec<Vec<(usize, usize)>> {
    let mut out = vec![Vec::new(); ncolors];
    for (i, row) in deps.iter().enumerate() {
        for &j in row {
            out[color_of[j]].push((i, j));
        }
    }
    out
}

impl StateJacPlan {
    pub(super) fn new(prog: &Program, blocks: &[BlockJac]) -> Option<StateJacPlan> {
        let (big, k) = prog
            .steps
            .iter()
            .enumerate()
            .filter(|(si, _)| blocks[*si].sparse.is_some())
            .filter_map(|(si, s)| match s {
                Step::Implicit { vars, .. } => Some((si, vars.len())),
                Step::Explicit { .. } => None,
            })
            .max_by_key(|&(si, k)| (k, std::cmp::Reverse(si)))?;
        let n = prog.states.len();
        let as_usize = |d: &[u32]| d.iter().map(|&j| j as usize).collect::<Vec<_>>();
        // States held fixed -> seeds on the states; unknowns held fixed -> seeds on the unknowns.
        let mut res_x = Vec::new();
        let der_x = {
            let mut deps: Vec<Vec<u32>> = vec![Vec::new(); prog.nregs()];
            for (i, &(x, _)) in prog.states.iter().enumerate() {
                deps[x] = vec![i as u32];
            }
            propagate_fixing(prog, big, &mut deps, |deps, residuals| {
                res_x = residuals
                    .iter()
                    .map(|&r| as_usize(&deps[r as usize]))
                    .collect();
            });
            prog.states
                .iter()
                .map(|&(_, d)| as_usize(&deps[d]))
                .collect::<Vec<_>>()
        };
        let der_z = {
            let mut deps: Vec<Vec<u32>> = vec![Vec::new(); prog.nregs()];
            let Step::Implicit { vars, .. } = &prog.steps[big] else {
                return None;
            };
            for (m, &z) in vars.iter().enumerate() {
                deps[z] = vec![m as u32];
            }
            propagate_from(prog, big, &mut deps);
            prog.states
                .iter()
                .map(|&(_, d)| as_usize(&deps[d]))
                .collect::<Vec<_>>()
        };
        let groups: Vec<Vec<usize>> = res_x.iter().chain(&der_x).cloned().collect();
        let (x_colors, x_color_of) = color_columns(n, &groups);
        let (z_colors, z_color_of) = color_columns(k, &der_z);
        Some(StateJacPlan {
            lanes: StateLanes::new(prog, big).map(Box::new),
            big,
            res_x_by_color: by_color(&res_x, &x_color_of, x_colors.len()),
            der_x_by_color: by_color(&der_x, &x_color_of, x_colors.len()),
            der_z_by_color: by_color(&der_z, &z_color_of, z_colors.len()),
            x_colors,
            z_colors,
        })
    }
}

/// Propagates dependency sets through the main pass (as `jacobian::propagate`), except that the
/// unknowns of block `big` keep no dependencies; `at_big` sees the sets just after its code.
pub(super) fn propagate_fixing(
    prog: &Program,
    big: usize,
    deps: &mut [Vec<u32>],
    mut at_big: impl FnMut(&[Vec<u32>], &[u32]),
) {
    for (si, step) in prog.steps.iter().enumerate() {
        match step {
            Step::Explicit { code, .. } => run_deps(&prog.code[code.clone()], deps),
            Step::Implicit {
                code,
                vars,
                residuals,
                ..
            } => {
                for &z in vars {
                    deps[z] = Vec::new();
                }
                run_deps(&prog.code[code.clone()], deps);
                if si == big {
                    at_big(deps, residuals);
                } else {
                    block_deps(prog, step, deps);
                }
            }
        }
    }
}

/// Propagates dependency sets from block `big` on, its unknowns' sets as given (not derived
/// from its residuals).
pub(super) fn propagate_from(prog: &Program, big: usize, deps: &mut [Vec<u32>]) {
    for (si, step) in prog.steps.iter().enumerate().skip(big) {
        match step {
            Step::Explicit { code, .. } => run_deps(&prog.code[code.clone()], deps),
            Step::Implicit { code, vars, .. } => {
                if si != big {
                    for &z in vars {
                        deps[z] = Vec::new();
                    }
                }
                run_deps(&prog.code[code.clone()], deps);
                if si != big {
                    block_deps(prog, step, deps);
                }
            }
        }
    }
}
