//! What is known once about each algebraic block (its Jacobian pattern, a column colouring, the
//! sparse LU for large blocks, the code split by dependence on the unknowns), and the engine's
//! steps that fill, factor and solve with a block's Jacobian and run its code.

use std::rc::Rc;

use super::batched::Scheduler;
use super::block_code::SplitBlock;
use super::dense_lu::Lu;
use super::engine::{Engine, block_tangent};
use super::program::{Program, Step};
use super::sparse_lu::SparseLu;
use super::tape::{run_deps, union};

/// Blocks with at least this many unknowns are factored by the sparse LU.
pub(super) const SPARSE_BLOCK: usize = 40;

/// What is known once about an algebraic block: the pattern of its Jacobian, a column colouring
/// (columns that share no row get their tangents in one pass of the block code), and the sparse
/// LU with its symbolic factorization for large blocks.
#[derive(Debug, Default)]
pub(super) struct BlockJac {
    /// The block's unknowns and residual registers, shared (a solve needs them while it
    /// mutates the engine; cloning the step's vectors cost an allocation per solve).
    pub(super) vars: Rc<[usize]>,
    pub(super) residuals: Rc<[u32]>,
    /// `rows[i]`: the unknowns residual `i` depends on (both branches of every `if`).
    pub(super) rows: Vec<Vec<usize>>,
    /// Columns of each colour, and the colour of each column.
    pub(super) colors: Vec<Vec<usize>>,
    pub(super) color_of: Vec<usize>,
    /// For the sparse LU: `slots[i][p]` is the value slot of entry `(i, rows[i][p])`.
    pub(super) slots: Vec<Vec<usize>>,
    /// For each colour, the entries its tangent pass fills: (residual register, value slot in
    /// the sparse LU, or `i * k + j` in the dense matrix).
    pub(super) color_entries: Vec<Vec<(u32, u32)>>,
    pub(super) sparse: Option<SparseLu>,
    /// The sparse factorization is the current one (else the dense `Lu`).
    pub(super) use_sparse: bool,
    /// A factorization exists (possibly from an earlier point: see [`Engine::linear_solve`]).
    pub(super) factored: bool,
    /// The factorization is of the matrix at the last evaluated point (not an older one kept
    /// for refinement): derivatives through the block are then exact.
    pub(super) current: bool,
    /// Later steps or the derivatives read temporaries of the block code: the Jacobian-vector
    /// product must then run the block's tangents a second time, with the unknowns' tangents.
    pub(super) temporaries_read_later: bool,
    /// After a factorization that failed (a singular Jacobian): `Jᵀ` (row-major), with the
    /// block's dense `Lu` holding the regularized normal matrix `JᵀJ + mu I`, so that
    /// derivatives through the block are the least-squares ones (see
    /// [`Engine::least_squares_tangent`]) rather than NaN.
    pub(super) least_squares: Option<Vec<f64>>,
}

impl BlockJac {
    pub(super) fn new(prog: &Program, step: &Step, deps: &mut [Vec<u32>]) -> BlockJac {
        let Step::Implicit {
            code,
            vars,
            residuals,
            inputs,
            torn,
            ..
        } = step
        else {
            return BlockJac::default();
        };
        let k = vars.len();
        for &r in inputs {
            deps[r as usize].clear();
        }
        for (j, &z) in vars.iter().enumerate() {
            deps[z] = vec![j as u32];
        }
        run_deps(&prog.code[code.clone()], deps);
        let rows: Vec<Vec<usize>> = residuals
            .iter()
            .map(|&r| deps[r as usize].iter().map(|&j| j as usize).collect())
            .collect();
        let (colors, color_of) = color_columns(k, &rows);
        // A torn block takes the sparse path at any size: its Jacobian then comes from one lane
        // pass, and the state Jacobian goes through it (`StateJacPlan`).
        let sparse = if k >= SPARSE_BLOCK || *torn {
            SparseLu::new(k, &rows)
        } else {
            None
        };
        let slots: Vec<Vec<usize>> = match &sparse {
            Some(lu) => rows
                .iter()
                .enumerate()
                .map(|(i, r)| r.iter().map(|&j| lu.slot(i, j).unwrap_or(0)).collect())
                .collect(),
            None => Vec::new(),
        };
        let mut color_entries = vec![Vec::new(); colors.len()];
        for (i, row) in rows.iter().enumerate() {
            for (p, &j) in row.iter().enumerate() {
                let slot = if sparse.is_some() {
                    slots[i][p]
                } else {
                    i * k + j
                };
                color_entries[color_of[j]].push((residuals[i], slot as u32));
            }
        }
        BlockJac {
            vars: vars.as_slice().into(),
            residuals: residuals.as_slice().into(),
            rows,
            colors,
            color_of,
            slots,
            color_entries,
            sparse,
            use_sparse: false,
            factored: false,
            current: false,
            temporaries_read_later: temporaries_read_later(prog, code.clone(), vars),
            least_squares: None,
        }
    }
}

impl Engine {
    /// Fills the block's Jacobian (one pass of the block code per colour) and factors it:
    /// sparse LU for large blocks, dense otherwise or when the sparse one fails (the dense LU
    /// names the singular column). Returns the singular column.
    pub(super) fn factor_block(&mut self, si: usize) -> Result<(), usize> {
        let Step::Implicit {
            code, vars, inputs, ..
        } = &self.prog.steps[si]
        else {
            return Ok(());
        };
        self.stats.block_factorizations += 1;
        let code = &self.prog.code[code.clone()];
        let k = vars.len();
        let b = &mut self.blocks[si];
        for &r in inputs {
            self.tan[r as usize] = 0.0;
        }
        let sparse = b.sparse.is_some();
        if !sparse {
            self.jac.clear();
            self.jac.resize(k * k, 0.0);
        }
        let lanes = self.split[si].as_ref().and_then(|s| s.lanes.as_ref());
        if let (Some(l), Some(lu)) = (lanes, &mut b.sparse) {
            l.run(&self.regs, &mut self.lane_buf[si]);
            let t = &self.lane_buf[si];
            for &(ti, slot) in &self.lane_entries[si] {
                lu.values[slot as usize] = if ti == u32::MAX { 0.0 } else { t[ti as usize] };
            }
        }
        let ncolors = if lanes.is_some() { 0 } else { b.colors.len() };
        for (c, cols) in b.colors.iter().enumerate().take(ncolors) {
            for &z in vars {
                self.tan[z] = 0.0;
            }
            for &j in cols {
                self.tan[vars[j]] = 1.0;
            }
            block_tangent(&self.block_code[si], code, &self.regs, &mut self.tan);
            let entries = &b.color_entries[c];
            match &mut b.sparse {
                Some(lu) => {
                    for &(r, slot) in entries {
                        lu.values[slot as usize] = self.tan[r as usize];
                    }
                }
                None => {
                    for &(r, slot) in entries {
                        self.jac[slot as usize] = self.tan[r as usize];
                    }
                }
            }
        }
        if let Some(lu) = &mut b.sparse {
            // A cheap check of the factorization: solve with a right-hand side of ones.
            b.use_sparse = lu.factor() && {
                self.tmp.clear();
                self.tmp.resize(k, 1.0);
                lu.solve(&mut self.tmp);
                self.tmp.iter().all(|x| x.is_finite())
            };
            if b.use_sparse {
                b.factored = true;
                b.current = true;
                return Ok(());
            }
            self.jac.clear();
            self.jac.resize(k * k, 0.0);
            for (i, row) in b.rows.iter().enumerate() {
                for (p, &j) in row.iter().enumerate() {
                    self.jac[i * k + j] = lu.values[b.slots[i][p]];
                }
            }
        }
        let r = self.lus[si].factor(k, &self.jac);
        self.blocks[si].factored = r.is_ok();
        self.blocks[si].current = r.is_ok();
        self.blocks[si].least_squares = None;
        if r.is_err() {
            self.prepare_least_squares(si, k);
        }
        r
    }

    /// After a failed dense factorization of block `si` (its `k x k` Jacobian in `jac`): the
    /// regularized normal matrix factored into the block's `Lu` and `Jᵀ` kept, for
    /// [`Self::least_squares_tangent`]. `jac` is left as it is (a Newton solve takes its
    /// regularized step from it).
    fn prepare_least_squares(&mut self, si: usize, k: usize) {
        let jac = &self.jac;
        let Some(m) = super::dense_lu::regularized_normal_matrix(jac, k) else {
            return;
        };
        if self.lus[si].factor(k, &m).is_ok() {
            let jt = (0..k * k).map(|p| jac[(p % k) * k + p / k]).collect();
            self.blocks[si].least_squares = Some(jt);
        }
    }

    /// The dense Jacobian of block `si` at the current registers (row-major), for blocks
    /// below the sparse size; its factorization is marked stale.
    pub(super) fn block_jacobian(&mut self, si: usize) -> Option<Vec<f64>> {
        let Step::Implicit { vars, .. } = &self.prog.steps[si] else {
            return None;
        };
        let k = vars.len();
        if k >= SPARSE_BLOCK {
            return None;
        }
        let _ = self.factor_block(si);
        self.blocks[si].factored = false;
        (self.jac.len() == k * k).then(|| self.jac.clone())
    }

    /// Runs the code of block `si` (residuals from the unknowns in the registers).
    pub(super) fn block_run(&mut self, si: usize) {
        match (&self.split[si], &self.block_code[si]) {
            (Some(split), _) => {
                split.fixed.run(&mut self.regs);
                split.active.run(&mut self.regs);
            }
            (None, Some(seg)) => seg.run(&mut self.regs),
            (None, None) => unreachable!("block_run on an explicit step"),
        }
    }

    /// Runs the part of block `si`'s code that depends on its unknowns (after [`Self::block_run`]
    /// at the same known values): the residuals for new values of the unknowns.
    pub(super) fn block_rerun(&mut self, si: usize) {
        match &self.split[si] {
            Some(split) => split.active.run(&mut self.regs),
            None => self.block_run(si),
        }
    }

    /// Solves with the block's current factorization, in place in `rhs_buf`.
    pub(super) fn block_solve(&mut self, si: usize) {
        let b = &mut self.blocks[si];
        match &mut b.sparse {
            Some(lu) if b.use_sparse => lu.solve(&mut self.rhs_buf),
            _ => self.lus[si].solve(&mut self.rhs_buf, &mut self.tmp),
        }
    }
}

/// After a first run of a block's code: every unknown depends on the union over the residuals,
/// and the code runs again so that its temporaries do too.
pub(super) fn block_deps(prog: &Program, step: &Step, deps: &mut [Vec<u32>]) {
    let Step::Implicit {
        code,
        vars,
        residuals,
        ..
    } = step
    else {
        return;
    };
    let mut all = Vec::new();
    for &r in residuals {
        all = union(&all, &deps[r as usize]);
    }
    for &z in vars {
        deps[z] = all.clone();
    }
    run_deps(&prog.code[code.clone()], deps);
}

/// Greedy column colouring: columns in one group (a row's columns) get different colours, so
/// one tangent pass per colour separates every entry. Returns the columns of each colour and the
/// colour of each column.
pub(super) fn color_columns(ncols: usize, groups: &[Vec<usize>]) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut groups_of = vec![Vec::new(); ncols];
    for (g, cols) in groups.iter().enumerate() {
        for &j in cols {
            groups_of[j].push(g);
        }
    }
    let mut color_of = vec![usize::MAX; ncols];
    let mut colors: Vec<Vec<usize>> = Vec::new();
    let mut taken: Vec<usize> = Vec::new();
    for j in 0..ncols {
        taken.clear();
        for &g in &groups_of[j] {
            taken.extend(groups[g].iter().map(|&c| color_of[c]));
        }
        let c = (0..).find(|c| !taken.contains(c)).unwrap_or(0);
        if c == colors.len() {
            colors.push(Vec::new());
        }
        colors[c].push(j);
        color_of[j] = c;
    }
    (colors, color_of)
}

/// Whether a register the block code writes, other than its unknowns, is read by the main-pass
/// code after it or is a state derivative.
pub(super) fn temporaries_read_later(
    prog: &Program,
    code: std::ops::Range<usize>,
    vars: &[usize],
) -> bool {
    let mut written: std::collections::HashSet<u32> =
        prog.code[code.clone()].iter().map(|i| i.dst).collect();
    for &v in vars {
        written.remove(&(v as u32));
    }
    let main_end = prog
        .steps
        .iter()
        .map(|s| match s {
            Step::Explicit { code, .. } | Step::Implicit { code, .. } => code.end,
        })
        .max()
        .unwrap_or(code.end);
    prog.states
        .iter()
        .any(|&(_, d)| written.contains(&(d as u32)))
        || prog.code[code.end..main_end.max(code.end)]
            .iter()
            .any(|i| i.reads().any(|o| written.contains(&o)))
}

/// The split code of a sparse (large) block and the Jacobian entries of its lane pass:
/// (index into the lane buffer or `u32::MAX` for an entry that is always zero, value slot).
pub(super) fn split_block(
    sched: &mut Scheduler,
    prog: &Program,
    step: &Step,
    b: &BlockJac,
) -> (Option<SplitBlock>, Vec<(u32, u32)>) {
    let Step::Implicit {
        code,
        vars,
        residuals,
        ..
    } = step
    else {
        return (None, Vec::new());
    };
    if b.sparse.is_none() {
        return (None, Vec::new());
    }
    let color_of = &b.color_of;
    let sb = SplitBlock::new(
        sched,
        &prog.code[code.clone()],
        vars,
        residuals,
        color_of,
        b.colors.len(),
    );
    let mut entries = Vec::new();
    if let Some(l) = sb.as_ref().and_then(|sb| sb.lanes.as_ref()) {
        for (i, row) in b.rows.iter().enumerate() {
            for (p, &j) in row.iter().enumerate() {
                let t = l.index(residuals[i], color_of[j]);
                entries.push((t.map_or(u32::MAX, |t| t as u32), b.slots[i][p] as u32));
            }
        }
    }
    (sb, entries)
}

/// Derivatives through a block whose Jacobian `J` is singular, in place in `rhs`: the
/// least-squares solution of `J d = rhs` of smallest norm (up to the regularization), the
/// derivative of the solution a Newton solve with regularized steps follows. At zero flow the
/// mixing enthalpy of a junction (`semiLinear(0, h, ...)` in every port equation) is in no
/// equation; it keeps its value (derivative 0) and the others' derivatives are exact. Through
/// the failed factorization they would be NaN, and the integrator would reject every step.
/// Returns false when the block's last factorization did not fail.
pub(super) fn least_squares_tangent(
    b: &BlockJac,
    lu: &Lu,
    rhs: &mut [f64],
    tmp: &mut Vec<f64>,
) -> bool {
    let Some(jt) = &b.least_squares else {
        return false;
    };
    let k = rhs.len();
    let atb: Vec<f64> = (0..k)
        .map(|i| (0..k).map(|r| jt[i * k + r] * rhs[r]).sum())
        .collect();
    rhs.copy_from_slice(&atb);
    lu.solve(rhs, tmp);
    true
}
