//! Running a [`Program`]: the right-hand side, its Jacobian-vector product, root functions.
//!
//! Given time and state values, the main pass runs the BLT blocks in order: explicit blocks are
//! one tape segment, algebraic loops are solved in place (linear blocks by refinement with the
//! previous LU, or one new LU; nonlinear ones by damped Newton from the previous solution). A
//! block's Jacobian is built column colour by colour from its structural pattern, and blocks of
//! `SPARSE_BLOCK` unknowns or more are factored by the sparse LU of [`super::sparse_lu`]. The
//! integrator sees only the states (ODE mode). The Jacobian-vector product is forward-mode differentiation of the same pass:
//! through explicit segments by the tangent rules of each instruction, through a loop by the
//! implicit function theorem with the LU of the loop's Jacobian (`dz = -J⁻¹ ∂r/∂known · dknown`).

use std::rc::Rc;

use super::batched::{Batched, Scheduler};
use super::block_code::{LaneTangent, SplitBlock};
use super::compile::{Program, Step};
use super::newton::{Lu, NewtonFailure};
use super::sparse_lu::SparseLu;
use super::state_lanes::StateLanes;
use super::tape::{Instr, Op, run, run_deps, run_tangent, union};

/// Refinement steps with an earlier factorization before a linear block's matrix is rebuilt.
const MAX_REFINEMENTS: usize = 6;
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
const MAX_SINGULAR_STEPS: usize = 5;
/// Largest block solved with the dense regularized step (it forms `JᵀJ`).
const MAX_REGULARIZED: usize = 200;

/// Smallest step fraction of the line search in a nonlinear block's Newton iteration.
const MIN_DAMPING: f64 = 1e-10;

/// A line search that accepts less than this fraction of the Newton step has stopped at a kink.
const STALLED_DAMPING: f64 = 1.0 / 1024.0;
/// Bisections that locate such a kink along the Newton direction.
const KINK_BISECTIONS: usize = 50;

/// Blocks with at least this many unknowns are factored by the sparse LU.
const SPARSE_BLOCK: usize = 40;

/// What is known once about an algebraic block: the pattern of its Jacobian, a column colouring
/// (columns that share no row get their tangents in one pass of the block code), and the sparse
/// LU with its symbolic factorization for large blocks.
#[derive(Debug, Default)]
struct BlockJac {
    /// The block's unknowns and residual registers, shared (a solve needs them while it
    /// mutates the engine; cloning the step's vectors cost an allocation per solve).
    vars: Rc<[usize]>,
    residuals: Rc<[u32]>,
    /// `rows[i]`: the unknowns residual `i` depends on (both branches of every `if`).
    rows: Vec<Vec<usize>>,
    /// Columns of each colour, and the colour of each column.
    colors: Vec<Vec<usize>>,
    color_of: Vec<usize>,
    /// For the sparse LU: `slots[i][p]` is the value slot of entry `(i, rows[i][p])`.
    slots: Vec<Vec<usize>>,
    /// For each colour, the entries its tangent pass fills: (residual register, value slot in
    /// the sparse LU, or `i * k + j` in the dense matrix).
    color_entries: Vec<Vec<(u32, u32)>>,
    sparse: Option<SparseLu>,
    /// The sparse factorization is the current one (else the dense `Lu`).
    use_sparse: bool,
    /// A factorization exists (possibly from an earlier point: see [`Engine::linear_solve`]).
    factored: bool,
    /// The factorization is of the matrix at the last evaluated point (not an older one kept
    /// for refinement): derivatives through the block are then exact.
    current: bool,
    /// Later steps or the derivatives read temporaries of the block code: the Jacobian-vector
    /// product must then run the block's tangents a second time, with the unknowns' tangents.
    temporaries_read_later: bool,
}

impl BlockJac {
    fn new(prog: &Program, step: &Step, deps: &mut [Vec<u32>]) -> BlockJac {
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
        }
    }
}

/// Counters reported by `--stats`.
#[derive(Clone, Debug, Default)]
pub struct EvalStats {
    pub rhs: usize,
    pub jvp: usize,
    /// Iterations inside algebraic blocks (Newton steps, refinement steps of linear blocks).
    pub newton_iterations: usize,
    pub block_solves: usize,
    /// Block Jacobians built and factored.
    pub block_factorizations: usize,
}

/// A failed block solve, with the data to name it.
#[derive(Clone, Debug)]
pub struct BlockError {
    pub step: usize,
    pub time: f64,
    pub failure: NewtonFailure,
    /// Values of the block unknowns and residuals at the failure.
    pub values: Vec<f64>,
    pub residuals: Vec<f64>,
}

/// The main pass with consecutive explicit steps merged into one code range (their code is
/// contiguous), evaluated in batches (index into `Engine::batched`).
#[derive(Clone, Copy, Debug)]
enum Plan {
    Code(usize),
    Block(usize),
}

/// Straight-line code in batches, or as a plain tape if batching refused it.
#[derive(Clone, Debug)]
pub(super) enum Segment {
    Batched(Batched),
    Plain(Vec<Instr>),
}

impl Segment {
    pub(super) fn new(s: &mut Scheduler, code: Vec<Instr>) -> Segment {
        match s.batch(&code) {
            Some(b) => Segment::Batched(b),
            None => Segment::Plain(code),
        }
    }

    pub(super) fn run(&self, r: &mut [f64]) {
        match self {
            Segment::Batched(b) => b.run(r),
            Segment::Plain(code) => run(code, r),
        }
    }

    fn run_tangent(&self, r: &[f64], t: &mut [f64]) {
        match self {
            Segment::Batched(b) => b.run_tangent(r, t),
            Segment::Plain(code) => run_tangent(code, r, t),
        }
    }
}

pub struct Engine {
    pub prog: Program,
    plan: Vec<Plan>,
    segments: Vec<Segment>,
    /// The code of each algebraic block (`None` for explicit steps).
    block_code: Vec<Option<Segment>>,
    /// Large blocks' code split into the part that does not depend on the unknowns and the
    /// part that does, with the all-colours tangent of the latter (`sim/block_code.rs`).
    split: Vec<Option<SplitBlock>>,
    /// Each split block's lane buffer, and the Jacobian entries read from it:
    /// (index into the buffer or `u32::MAX` for a zero entry, value slot).
    lane_buf: Vec<Vec<f64>>,
    lane_entries: Vec<Vec<(u32, u32)>>,
    /// Derivative copies taken out of the main pass, eliminated variables and event code.
    outputs: [Segment; 3],
    /// Registers of the states and of their derivatives, as compact index arrays.
    state_regs: Vec<u32>,
    der_regs: Vec<u32>,
    pub regs: Vec<f64>,
    tan: Vec<f64>,
    lus: Vec<Lu>,
    blocks: Vec<BlockJac>,
    jac: Vec<f64>,
    rhs_buf: Vec<f64>,
    tmp: Vec<f64>,
    /// LU of the regularized normal equations (singular nonlinear blocks).
    reg_lu: super::newton::Lu,
    z0: Vec<f64>,
    /// Right-hand sides of the state Jacobian's multi-column block solve.
    many: Vec<f64>,
    /// The unknowns of the block being solved, as they were before the solve.
    z_start: Vec<f64>,
    /// How to build the state Jacobian through the largest sparse block (if there is one).
    state_jac: Option<StateJacPlan>,
    /// Tangents of the largest block's residuals in a state Jacobian pass.
    res_tan: Vec<f64>,
    /// The point of the last successful main pass (time, states), to reuse it.
    cached: Option<(f64, Vec<f64>)>,
    pub stats: EvalStats,
    /// The last failed block solve (reported if the integrator gives up).
    pub last_error: Option<BlockError>,
    /// Newton tolerance (relative).
    pub newton_tol: f64,
    /// The last point where a derivative was NaN or infinite.
    pub nan_at: Option<(f64, Vec<f64>)>,
    /// Per large state set, the last complete check (`sim/statesel.rs`).
    pub set_checks: Vec<Option<super::statesel::LastCheck>>,
}

impl Engine {
    pub fn new(prog: Program) -> Engine {
        let n = prog.nregs();
        let mut sched = Scheduler::new(n);
        // Block code in batches too: a large linear block runs its code once per refinement
        // step and once per Jacobian colour.
        let block_code = prog
            .steps
            .iter()
            .map(|s| match s {
                Step::Implicit { code, .. } => {
                    Some(Segment::new(&mut sched, prog.code[code.clone()].to_vec()))
                }
                Step::Explicit { .. } => None,
            })
            .collect();
        let regs = prog.init_regs.clone();
        let lus = vec![Lu::default(); prog.steps.len()];
        let mut deps: Vec<Vec<u32>> = vec![Vec::new(); n];
        let blocks: Vec<BlockJac> = prog
            .steps
            .iter()
            .map(|s| BlockJac::new(&prog, s, &mut deps))
            .collect();
        let state_jac = StateJacPlan::new(&prog, &blocks);
        let (split, lane_entries): (Vec<_>, Vec<_>) = prog
            .steps
            .iter()
            .zip(&blocks)
            .map(|(s, b)| split_block(&mut sched, &prog, s, b))
            .unzip();
        let lane_buf = vec![Vec::new(); split.len()];
        let mut plan: Vec<Plan> = Vec::new();
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for (si, s) in prog.steps.iter().enumerate() {
            match s {
                Step::Explicit { code, .. } => match (plan.last(), ranges.last_mut()) {
                    (Some(Plan::Code(_)), Some(r)) if r.end == code.start => r.end = code.end,
                    _ => {
                        plan.push(Plan::Code(ranges.len()));
                        ranges.push(code.clone());
                    }
                },
                Step::Implicit { .. } => plan.push(Plan::Block(si)),
            }
        }
        // A derivative that is a plain copy (`der(x) = v`) which nothing in the main pass reads:
        // the derivative vector reads the source register, and the copy moves to the outputs
        // (everything that looks at variables runs `run_outputs` first).
        let mut read = vec![false; n];
        for s in &prog.steps {
            let (Step::Explicit { code, .. } | Step::Implicit { code, .. }) = s;
            for i in &prog.code[code.clone()] {
                for o in i.reads() {
                    read[o as usize] = true;
                }
            }
        }
        let mut deferred = vec![false; prog.code.len()];
        let mut state_regs = Vec::with_capacity(prog.states.len());
        let mut der_regs = Vec::with_capacity(prog.states.len());
        for &(x, d) in &prog.states {
            let mut src = d as u32;
            if let Some(Some(si)) = prog.computed_by.get(d)
                && let Some(Step::Explicit { code, .. }) = prog.steps.get(*si)
                && code.len() == 1
                && prog.code[code.start].op == Op::Copy
                && prog.code[code.start].dst as usize == d
                && !read[d]
            {
                deferred[code.start] = true;
                src = prog.code[code.start].a;
            }
            state_regs.push(x as u32);
            der_regs.push(src);
        }
        let pick = |r: std::ops::Range<usize>, moved: bool| -> Vec<Instr> {
            r.filter(|&k| deferred[k] == moved)
                .map(|k| prog.code[k])
                .collect()
        };
        let segments = ranges
            .into_iter()
            .map(|r| Segment::new(&mut sched, pick(r, false)))
            .collect();
        let outputs = [
            Segment::new(&mut sched, pick(0..prog.code.len(), true)),
            Segment::new(&mut sched, prog.code[prog.eliminated.clone()].to_vec()),
            Segment::new(&mut sched, prog.code[prog.event_code.clone()].to_vec()),
        ];
        Engine {
            prog,
            plan,
            segments,
            block_code,
            split,
            lane_buf,
            lane_entries,
            outputs,
            state_regs,
            der_regs,
            regs,
            tan: vec![0.0; n],
            lus,
            blocks,
            jac: Vec::new(),
            rhs_buf: Vec::new(),
            tmp: Vec::new(),
            reg_lu: Default::default(),
            z0: Vec::new(),
            many: Vec::new(),
            z_start: Vec::new(),
            state_jac,
            res_tan: Vec::new(),
            cached: None,
            stats: EvalStats::default(),
            last_error: None,
            newton_tol: DEFAULT_NEWTON_TOL,
            nan_at: None,
            set_checks: Vec::new(),
        }
    }

    pub fn nstates(&self) -> usize {
        self.prog.states.len()
    }

    /// Forgets the cached point (after discrete variables or relations changed).
    pub fn invalidate(&mut self) {
        self.cached = None;
    }

    pub fn states(&self) -> Vec<f64> {
        self.prog
            .states
            .iter()
            .map(|&(x, _)| self.regs[x])
            .collect()
    }

    /// Sets time and states and runs the main pass, unless that point was just evaluated.
    pub fn eval_at(&mut self, t: f64, x: &[f64]) -> Result<(), BlockError> {
        if let Some((ct, cx)) = &self.cached
            && *ct == t
            && cx.as_slice() == x
        {
            return Ok(());
        }
        self.regs[self.prog.time as usize] = t;
        for (&s, &xi) in self.state_regs.iter().zip(x) {
            self.regs[s as usize] = xi;
        }
        self.run_main()?;
        match &mut self.cached {
            Some((ct, cx)) => {
                *ct = t;
                cx.clear();
                cx.extend_from_slice(x);
            }
            None => self.cached = Some((t, x.to_vec())),
        }
        Ok(())
    }

    /// Runs the main pass at the time and states already in the registers.
    pub fn run_main(&mut self) -> Result<(), BlockError> {
        self.cached = None;
        self.stats.rhs += 1;
        for i in 0..self.plan.len() {
            match self.plan[i] {
                Plan::Code(k) => self.segments[k].run(&mut self.regs),
                Plan::Block(si) => self.solve_block(si)?,
            }
        }
        Ok(())
    }

    /// The main pass with the iteration variables of mixed loops
    /// ([`Program::iteration_steps`]) held at the values in their registers: step by step, on
    /// the plain tape (the first pass of each round of the event iteration).
    pub fn run_main_holding(&mut self) -> Result<(), BlockError> {
        if self.prog.iteration_steps.is_empty() {
            return self.run_main();
        }
        self.cached = None;
        self.stats.rhs += 1;
        for si in 0..self.prog.steps.len() {
            match &self.prog.steps[si] {
                Step::Explicit { code, .. } => {
                    if self.prog.iteration_steps.binary_search(&si).is_err() {
                        run(&self.prog.code[code.clone()], &mut self.regs);
                    }
                }
                Step::Implicit { .. } => self.solve_block(si)?,
            }
        }
        Ok(())
    }

    /// Runs a prefix of the main pass, step by step, and returns the first step that produced a
    /// non-finite variable (for error messages).
    pub fn first_non_finite(&mut self) -> Option<(usize, usize)> {
        for si in 0..self.prog.steps.len() {
            match &self.prog.steps[si] {
                Step::Explicit { code, var, .. } => {
                    let var = *var;
                    run(&self.prog.code[code.clone()], &mut self.regs);
                    if !self.regs[var].is_finite() {
                        return Some((si, var));
                    }
                }
                Step::Implicit { vars, .. } => {
                    let vars = vars.clone();
                    if self.solve_block(si).is_err() {
                        return Some((si, vars[0]));
                    }
                    if let Some(&v) = vars.iter().find(|&&v| !self.regs[v].is_finite()) {
                        return Some((si, v));
                    }
                }
            }
        }
        None
    }

    pub fn derivatives(&mut self, out: &mut [f64]) {
        for (o, &d) in out.iter_mut().zip(&self.der_regs) {
            *o = self.regs[d as usize];
        }
        // A separate pass without early exit: the compiler vectorizes it.
        if out.iter().fold(false, |bad, x| bad | !x.is_finite()) {
            // Remember where, to name the variable if the integrator gives up.
            let t = self.regs[self.prog.time as usize];
            self.nan_at = Some((t, self.states()));
        }
    }

    /// Eliminated variables and event code (conditions, assignment values).
    pub fn run_outputs(&mut self) {
        for s in &self.outputs {
            s.run(&mut self.regs);
        }
    }

    /// Zero-crossing functions of the event relations (after [`Self::run_outputs`]): see
    /// [`root_value`].
    pub fn roots(&self, out: &mut [f64]) {
        for (i, r) in self.prog.relations.iter().enumerate() {
            out[i] = root_value(
                r.op,
                self.regs[r.a as usize],
                self.regs[r.b as usize],
                self.regs[r.reg as usize] != 0.0,
            );
        }
    }

    /// `J v` of the derivatives with respect to the states, at the last evaluated point.
    pub fn jvp(&mut self, v: &[f64], out: &mut [f64]) {
        self.stats.jvp += 1;
        self.refresh_factorizations();
        for (i, &(s, _)) in self.prog.states.iter().enumerate() {
            self.tan[s] = v[i];
        }
        self.tangent_steps(usize::MAX, BigSeed::Zero);
        for (o, &d) in out.iter_mut().zip(&self.der_regs) {
            *o = self.tan[d as usize];
        }
    }

    /// Factors again every linear block whose factorization is from an older point (kept for
    /// refinement): derivatives through a block use its factorization, and one from a point a
    /// step back gives the integrator a Jacobian wrong by as much as the matrix changed
    /// (rotation matrices of rollers spinning at hundreds of rad/s change by percents per
    /// step), which costs Newton failures.
    fn refresh_factorizations(&mut self) {
        for i in 0..self.plan.len() {
            if let Plan::Block(si) = self.plan[i]
                && !self.blocks[si].current
            {
                // A singular matrix leaves the block without a factorization: the derivatives
                // through it come out NaN, which the integrator treats as a failed step.
                let _ = self.factor_block(si);
            }
        }
    }

    /// One forward tangent pass of the main pass from the state tangents already in `tan`.
    /// Every block is differentiated by the implicit function theorem except block `big`, whose
    /// unknowns get the tangents `seed` says (its residuals' tangents are left in `res_tan`).
    fn tangent_steps(&mut self, big: usize, seed: BigSeed) {
        let prog = &self.prog;
        for &p in &self.plan {
            let si = match p {
                Plan::Code(k) => {
                    self.segments[k].run_tangent(&self.regs, &mut self.tan);
                    continue;
                }
                Plan::Block(si) => si,
            };
            match &prog.steps[si] {
                Step::Explicit { .. } => {}
                Step::Implicit {
                    code,
                    vars,
                    residuals,
                    ..
                } => {
                    let c = &prog.code[code.clone()];
                    for &z in vars {
                        self.tan[z] = 0.0;
                    }
                    if si == big {
                        if let (BigSeed::Unknowns(color), Some(plan)) = (seed, &self.state_jac) {
                            for &m in &plan.z_colors[color] {
                                self.tan[vars[m]] = 1.0;
                            }
                        }
                        block_tangent(&self.block_code[si], c, &self.regs, &mut self.tan);
                        self.res_tan.clear();
                        self.res_tan
                            .extend(residuals.iter().map(|&r| self.tan[r as usize]));
                        continue;
                    }
                    block_tangent(&self.block_code[si], c, &self.regs, &mut self.tan);
                    self.rhs_buf.clear();
                    self.rhs_buf
                        .extend(residuals.iter().map(|&r| -self.tan[r as usize]));
                    let b = &mut self.blocks[si];
                    match &mut b.sparse {
                        Some(lu) if b.use_sparse => lu.solve(&mut self.rhs_buf),
                        _ => self.lus[si].solve(&mut self.rhs_buf, &mut self.tmp),
                    }
                    for (k, &z) in vars.iter().enumerate() {
                        self.tan[z] = self.rhs_buf[k];
                    }
                    // Again, so that temporaries inside the block carry the right tangents.
                    if self.blocks[si].temporaries_read_later {
                        block_tangent(&self.block_code[si], c, &self.regs, &mut self.tan);
                    }
                }
            }
        }
    }

    /// The register that holds variable `v` after a main pass, if the main pass computes it: a
    /// state derivative whose copy was moved to the outputs is read from the copy's source.
    pub fn value_reg(&self, v: usize) -> Option<u32> {
        if let Some(i) = self.prog.states.iter().position(|&(_, d)| d == v) {
            return Some(self.der_regs[i]);
        }
        self.prog.computed_by.get(v)?.map(|_| v as u32)
    }

    /// The tangent of register `r` after the last [`Self::jvp`].
    pub fn tangent(&self, r: u32) -> f64 {
        self.tan[r as usize]
    }

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
            self.tangent_steps(big, BigSeed::Zero);
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
            self.tangent_steps(big, BigSeed::Unknowns(c));
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
        r
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
    fn block_solve(&mut self, si: usize) {
        let b = &mut self.blocks[si];
        match &mut b.sparse {
            Some(lu) if b.use_sparse => lu.solve(&mut self.rhs_buf),
            _ => self.lus[si].solve(&mut self.rhs_buf, &mut self.tmp),
        }
    }

    /// Solves one algebraic block in place, from the values currently in its registers.
    ///
    /// On failure the unknowns are put back to their values before the solve: a diverged
    /// iterate or NaN left in the registers would be the next evaluation's warm start, and every
    /// later attempt of the integrator (with a smaller step) would fail from there.
    fn solve_block(&mut self, si: usize) -> Result<(), BlockError> {
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
        self.z_start = z_start;
        Ok(())
    }

    /// Values for the unknowns marked in `derive` (those whose guess is 0: no start value) by
    /// tearing at run time: the others (a temperature starting at 288.15 K) are held, and
    /// repeatedly an equation whose residual is finite and that, among the unknowns still to
    /// derive, depends on exactly one (numeric tangents) gives that one by a scalar Newton step
    /// (exact when it enters linearly: `vt_t = k*T/q`, then `aux` from `vt_t`, ...). Returns
    /// whether every residual ends finite, so that Newton may restart from there.
    fn derive_guesses(
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
    fn linear_solve(
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

    /// Damped Newton on one block (one LU step for a linear block).
    fn newton(
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
        self.block_run(si);
        let mut norm = max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
        let mut singular_steps = 0;
        let mut probe: Option<Vec<f64>> = None;
        let mut prev_step = f64::INFINITY;
        for _ in 0..max_iter {
            if let Some(e) = residuals
                .iter()
                .position(|&r| !self.regs[r as usize].is_finite())
            {
                return Err(NewtonFailure::NotFinite { equation: e });
            }
            let factored = match probe.take() {
                // The Jacobian of the piece past the kink where the last line search stopped
                // (with the residual here): a semismooth Newton step.
                Some(p) => {
                    self.z0.clear();
                    self.z0.extend(vars.iter().map(|&v| self.regs[v]));
                    for (i, &z) in vars.iter().enumerate() {
                        self.regs[z] = p[i];
                    }
                    self.block_rerun(si);
                    let f = self.factor_block(si);
                    for (i, &z) in vars.iter().enumerate() {
                        self.regs[z] = self.z0[i];
                    }
                    self.block_rerun(si);
                    f
                }
                None => self.factor_block(si),
            };
            self.stats.newton_iterations += 1;
            self.rhs_buf.clear();
            self.rhs_buf
                .extend(residuals.iter().map(|&r| self.regs[r as usize]));
            match factored {
                Ok(()) => self.block_solve(si),
                // Singular at this iterate (often the start values, not the solution): a
                // regularized step, at most a few times in a row. `jac` holds the dense matrix
                // whenever the factorization failed.
                Err(column) => {
                    singular_steps += 1;
                    let k = vars.len();
                    if singular_steps > MAX_SINGULAR_STEPS
                        || k > MAX_REGULARIZED
                        || self.jac.len() != k * k
                        || !super::newton::regularized_step(
                            &self.jac,
                            k,
                            &mut self.rhs_buf,
                            &mut self.reg_lu,
                            &mut self.tmp,
                        )
                    {
                        return Err(NewtonFailure::Singular { column });
                    }
                    self.blocks[si].factored = false;
                }
            }
            if factored.is_ok() {
                singular_steps = 0;
            }
            self.z0.clear();
            self.z0.extend(vars.iter().map(|&v| self.regs[v]));
            // Converged when the full Newton step is negligible: it is taken without a line
            // search (at round-off no step decreases the residual).
            let step = max_abs(
                self.rhs_buf
                    .iter()
                    .zip(&self.z0)
                    .map(|(d, z)| d / (1.0 + z.abs())),
            );
            if step <= self.newton_tol {
                for (i, &z) in vars.iter().enumerate() {
                    self.regs[z] = self.z0[i] - self.rhs_buf[i];
                }
                self.block_rerun(si);
                return Ok(());
            }
            // Line search: the step is halved until the residual decreases (Armijo, a small
            // fraction of the predicted decrease). An equal residual is no progress: on a
            // piecewise-linear loop (an op-amp clamp under `noEvent`) the full step lands on
            // the other saturated side with the same residual, and accepting it cycles. When
            // no step length decreases the residual (a kink, a wrong slope), the best one
            // tried is taken so that the iteration still moves.
            let mut lambda = 1.0;
            let mut best = (f64::INFINITY, 1.0);
            let mut new_norm;
            loop {
                for (i, &z) in vars.iter().enumerate() {
                    self.regs[z] = self.z0[i] - lambda * self.rhs_buf[i];
                }
                self.block_rerun(si);
                new_norm = max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
                if new_norm.is_finite() && new_norm < best.0 {
                    best = (new_norm, lambda);
                }
                if new_norm.is_finite() && new_norm <= (1.0 - 1e-4 * lambda) * norm {
                    if lambda < STALLED_DAMPING {
                        // A tiny step: the residual decreases up to a kink just ahead and
                        // grows past it (a saturation limit under `noEvent`), and the next
                        // direction, from the same piece, would stop there again. The kink is
                        // located between this step and the rejected double, and the next
                        // Jacobian is taken just past it.
                        let (mut lo, mut hi) = (lambda, 2.0 * lambda);
                        for _ in 0..KINK_BISECTIONS {
                            let mid = 0.5 * (lo + hi);
                            for (i, &z) in vars.iter().enumerate() {
                                self.regs[z] = self.z0[i] - mid * self.rhs_buf[i];
                            }
                            self.block_rerun(si);
                            let m = max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
                            if m.is_finite() && m <= (1.0 - 1e-4 * mid) * norm {
                                lo = mid;
                            } else {
                                hi = mid;
                            }
                        }
                        probe = Some(
                            (0..vars.len())
                                .map(|i| self.z0[i] - hi * self.rhs_buf[i])
                                .collect(),
                        );
                        lambda = lo;
                        for (i, &z) in vars.iter().enumerate() {
                            self.regs[z] = self.z0[i] - lambda * self.rhs_buf[i];
                        }
                        self.block_rerun(si);
                        new_norm = max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
                    }
                    break;
                }
                if lambda < MIN_DAMPING {
                    if best.0.is_finite() && best.1 != lambda {
                        lambda = best.1;
                        for (i, &z) in vars.iter().enumerate() {
                            self.regs[z] = self.z0[i] - lambda * self.rhs_buf[i];
                        }
                        self.block_rerun(si);
                        new_norm = best.0;
                    }
                    break;
                }
                lambda *= 0.5;
            }
            if debug_newton() {
                eprintln!(
                    "newton block {si} t={}: |r| {norm:e} -> {new_norm:e} (lambda {lambda}, step {step:e})",
                    self.regs[self.prog.time as usize]
                );
            }
            norm = new_norm;
            if norm == 0.0 {
                return Ok(());
            }
            // A tolerance tied to a tight integrator tolerance can lie below what rounding
            // allows for this block: once the steps stop shrinking at the default accuracy,
            // the iterate is as good as it gets.
            if step <= DEFAULT_NEWTON_TOL && step > 0.25 * prev_step {
                return Ok(());
            }
            prev_step = step;
        }
        Err(NewtonFailure::NoConvergence {
            residual: norm,
            iterations: max_iter,
        })
    }
}

/// How a block's unknowns are seeded in [`Engine::tangent_steps`].
#[derive(Clone, Copy, Debug)]
enum BigSeed {
    /// Held fixed (tangent zero).
    Zero,
    /// The unknowns of this colour of [`StateJacPlan::z_colors`] get tangent one.
    Unknowns(usize),
}

/// The structure of the state Jacobian through the largest sparse block (step `big`), found once
/// by dependency propagation (both branches of every `if`).
#[derive(Debug)]
struct StateJacPlan {
    big: usize,
    x_colors: Vec<Vec<usize>>,
    z_colors: Vec<Vec<usize>>,
    /// For each state colour, the entries its pass fills: (block residual, state) where the
    /// residual depends on the state with the block's unknowns held fixed, and (derivative,
    /// state) likewise; for each colour of the unknowns, (derivative, unknown) where the
    /// derivative depends on the unknown with the states held fixed. Listed once here, so a pass
    /// does not scan every dependency for its colour.
    res_x_by_color: Vec<Vec<(usize, usize)>>,
    der_x_by_color: Vec<Vec<(usize, usize)>>,
    der_z_by_color: Vec<Vec<(usize, usize)>>,
    /// The tangents of the whole main pass in lanes, when they apply ([`StateLanes`]).
    lanes: Option<Box<StateLanes>>,
}

/// The entries `(i, j)` of `deps` (`deps[i]` lists the `j`) grouped by the colour of `j`.
fn by_color(deps: &[Vec<usize>], color_of: &[usize], ncolors: usize) -> Vec<Vec<(usize, usize)>> {
    let mut out = vec![Vec::new(); ncolors];
    for (i, row) in deps.iter().enumerate() {
        for &j in row {
            out[color_of[j]].push((i, j));
        }
    }
    out
}

impl StateJacPlan {
    fn new(prog: &Program, blocks: &[BlockJac]) -> Option<StateJacPlan> {
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
fn propagate_fixing(
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
fn propagate_from(prog: &Program, big: usize, deps: &mut [Vec<u32>]) {
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

/// After a first run of a block's code: every unknown depends on the union over the residuals,
/// and the code runs again so that its temporaries do too.
fn block_deps(prog: &Program, step: &Step, deps: &mut [Vec<u32>]) {
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
fn color_columns(ncols: usize, groups: &[Vec<usize>]) -> (Vec<Vec<usize>>, Vec<usize>) {
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
fn temporaries_read_later(prog: &Program, code: std::ops::Range<usize>, vars: &[usize]) -> bool {
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
fn split_block(
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

/// One tangent pass of a block's code: its batched form when there is one.
fn block_tangent(seg: &Option<Segment>, code: &[Instr], r: &[f64], t: &mut [f64]) {
    match seg {
        Some(seg) => seg.run_tangent(r, t),
        None => run_tangent(code, r, t),
    }
}

/// `MINIMO_DEBUG_NEWTON` set: each Newton iteration of a nonlinear block is printed.
fn debug_newton() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MINIMO_DEBUG_NEWTON").is_some())
}

fn max_abs(it: impl Iterator<Item = f64>) -> f64 {
    let mut m = 0.0f64;
    for x in it {
        if x.is_nan() {
            return f64::NAN;
        }
        m = m.max(x.abs());
    }
    m
}

/// The zero-crossing function of relation `a op b` whose register holds `kept`: positive while
/// the relation, evaluated now, still gives `kept`, negative once it gives the other value, and
/// never zero. Its size is the distance `|a - b|` (so the root finder's secant steps work),
/// with the boundary itself on the side the comparison puts it: `x > 0` kept false at `x = 0`
/// is `+1e-150`, and becomes negative as soon as `x` is positive. A plain `a - b` is zero on the
/// boundary, which the root finder reports as a root at every step while a relation sits
/// there (a brake with no normal force: `fn <= 0` with `fn = 0`), and misses a crossing that
/// starts from the boundary (`when x > 0` with `x(0) = 0` rising).
pub fn root_value(op: Op, a: f64, b: f64, kept: bool) -> f64 {
    let d = a - b;
    if d.is_nan() {
        return f64::NAN;
    }
    let now = super::tape::apply(op, a, b, 0.0) != 0.0;
    // `s * d > 0` inside the region where the relation is true.
    let s = match op {
        Op::Lt | Op::Le => -1.0,
        Op::Gt | Op::Ge => 1.0,
        // Equality tests have no distance to a boundary: only a sign.
        _ => return if now == kept { 1.0 } else { -1.0 },
    };
    // Magnitudes within [1e-150, 1e150]: the root finder detects a sign change by the product
    // `g0 * g1 < 0`, which underflows to -0 for two values near 1e-170 (a vehicle at rest has
    // velocities of that size) and then reports no change while the signs differ.
    let toward_kept = (if kept { s * d } else { -s * d })
        .abs()
        .clamp(1e-150, 1e150);
    if now == kept {
        toward_kept
    } else {
        -toward_kept
    }
}
