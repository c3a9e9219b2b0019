//! The engine that runs a [`Program`]: the right-hand side, its Jacobian-vector product, root functions.
//!
//! Given time and state values, the main pass runs the BLT blocks in order: explicit blocks are
//! one tape segment, algebraic loops are solved in place (linear blocks by refinement with the
//! previous LU, or one new LU; nonlinear ones by damped Newton from the previous solution). A
//! block's Jacobian is built column colour by colour from its structural pattern, and blocks of
//! `SPARSE_BLOCK` unknowns or more are factored by the sparse LU of [`super::sparse_lu`]. The
//! integrator sees only the states (ODE mode). The Jacobian-vector product is forward-mode differentiation of the same pass:
//! through explicit segments by the tangent rules of each instruction, through a loop by the
//! implicit function theorem with the LU of the loop's Jacobian (`dz = -J⁻¹ ∂r/∂known · dknown`).
//!
//! This file holds the engine's state and its passes; block Jacobians are in
//! [`super::block_jac`], loop solves in [`super::block_solve`], the state Jacobian in
//! [`super::state_jacobian`].

use super::batched::{RegRuns, Scheduler, Segment};
use super::block_code::SplitBlock;
use super::block_jac::{BlockJac, split_block};
use super::block_solve::DEFAULT_NEWTON_TOL;
use super::block_solve::NewtonFailure;
use super::dense_lu::Lu;
use super::program::{Program, Step};
use super::state_jacobian::{LargestBlockSeed, StateJacPlan};
use super::tape::{Instr, Op, run, run_tangent};

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

/// One step of the main pass: a code range of consecutive explicit steps merged (their code is
/// contiguous; index into `Engine::segments`), or an algebraic block (index of its step).
#[derive(Clone, Copy, Debug)]
pub(super) enum MainStep {
    Code(usize),
    Block(usize),
}

pub struct Engine {
    pub prog: Program,
    pub(super) main_pass: Vec<MainStep>,
    pub(super) segments: Vec<Segment>,
    /// The code of each algebraic block (`None` for explicit steps).
    pub(super) block_code: Vec<Option<Segment>>,
    /// Large blocks' code split into the part that does not depend on the unknowns and the
    /// part that does, with the all-colours tangent of the latter (`sim/block_code.rs`).
    pub(super) split: Vec<Option<SplitBlock>>,
    /// Each split block's lane buffer, and the Jacobian entries read from it:
    /// (index into the buffer or `u32::MAX` for a zero entry, value slot).
    pub(super) lane_buf: Vec<Vec<f64>>,
    pub(super) lane_entries: Vec<Vec<(u32, u32)>>,
    /// Derivative copies taken out of the main pass, eliminated variables and event code.
    pub(super) outputs: [Segment; 3],
    /// Registers of the derivatives (the state Jacobian reads them), as a compact index array.
    pub(super) der_regs: Vec<u32>,
    /// The same two lists as strided runs (contiguous in chains: plain copies).
    state_runs: RegRuns,
    der_runs: RegRuns,
    pub regs: Vec<f64>,
    pub(super) tan: Vec<f64>,
    pub(super) lus: Vec<Lu>,
    pub(super) blocks: Vec<BlockJac>,
    pub(super) jac: Vec<f64>,
    pub(super) rhs_buf: Vec<f64>,
    pub(super) tmp: Vec<f64>,
    /// LU of the regularized normal equations (singular nonlinear blocks).
    pub(super) reg_lu: Lu,
    pub(super) z0: Vec<f64>,
    /// The iterate and buffers of a nonlinear block's Newton iteration (`sim/newton.rs`).
    pub(super) newton_work: super::newton::NewtonWork,
    /// Right-hand sides of the state Jacobian's multi-column block solve.
    pub(super) many: Vec<f64>,
    /// The unknowns of the block being solved, as they were before the solve.
    pub(super) z_start: Vec<f64>,
    /// How to build the state Jacobian through the largest sparse block (if there is one).
    pub(super) state_jac: Option<StateJacPlan>,
    /// Tangents of the largest block's residuals in a state Jacobian pass.
    pub(super) res_tan: Vec<f64>,
    /// The point of the last successful main pass (time, states), to reuse it.
    pub(super) cached: CachedPoint,
    pub stats: EvalStats,
    /// The last failed block solve (reported if the integrator gives up).
    pub last_error: Option<BlockError>,
    /// Newton tolerance (relative).
    pub newton_tol: f64,
    /// The last point where a derivative was NaN or infinite.
    pub nan_at: Option<(f64, Vec<f64>)>,
    /// Per large state set, the last complete check (`sim/statesel.rs`).
    pub set_checks: Vec<Option<super::statesel::LastCheck>>,
    /// Per relation, the hysteresis added to its zero-crossing function for this phase of
    /// integration (`events::note_consistency`); empty or zero: none.
    pub root_shift: Vec<f64>,
    /// Where each nonlinear loop's Newton iteration starts (`sim/loop_anchor.rs`).
    pub(super) anchors: super::loop_anchor::Anchors,
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
        let anchors = super::loop_anchor::Anchors::new(&prog.steps);
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
        let mut main_pass: Vec<MainStep> = Vec::new();
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for (si, s) in prog.steps.iter().enumerate() {
            match s {
                Step::Explicit { code, .. } => match (main_pass.last(), ranges.last_mut()) {
                    (Some(MainStep::Code(_)), Some(r)) if r.end == code.start => r.end = code.end,
                    _ => {
                        main_pass.push(MainStep::Code(ranges.len()));
                        ranges.push(code.clone());
                    }
                },
                Step::Implicit { .. } => main_pass.push(MainStep::Block(si)),
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
            main_pass,
            segments,
            block_code,
            split,
            lane_buf,
            lane_entries,
            outputs,
            state_runs: RegRuns::new(&state_regs),
            der_runs: RegRuns::new(&der_regs),
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
            newton_work: Default::default(),
            many: Vec::new(),
            z_start: Vec::new(),
            state_jac,
            res_tan: Vec::new(),
            cached: CachedPoint::default(),
            stats: EvalStats::default(),
            last_error: None,
            newton_tol: DEFAULT_NEWTON_TOL,
            nan_at: None,
            set_checks: Vec::new(),
            root_shift: Vec::new(),
            anchors,
        }
    }

    pub fn nstates(&self) -> usize {
        self.prog.states.len()
    }

    /// Forgets the cached point (after discrete variables or relations changed).
    pub fn invalidate(&mut self) {
        self.cached.valid = false;
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
        let c = &self.cached;
        if c.valid && c.t == t && c.x.as_slice() == x {
            return Ok(());
        }
        self.regs[self.prog.time as usize] = t;
        self.state_runs.scatter(x, &mut self.regs);
        self.run_main()?;
        let c = &mut self.cached;
        c.t = t;
        c.x.clear();
        c.x.extend_from_slice(x);
        c.valid = true;
        Ok(())
    }

    /// Runs the main pass at the time and states already in the registers.
    pub fn run_main(&mut self) -> Result<(), BlockError> {
        self.cached.valid = false;
        self.stats.rhs += 1;
        for i in 0..self.main_pass.len() {
            match self.main_pass[i] {
                MainStep::Code(k) => self.segments[k].run(&mut self.regs),
                MainStep::Block(si) => self.solve_block(si)?,
            }
        }
        Ok(())
    }

    /// The main pass carried on past blocks that fail (their unknowns keep the values they had
    /// before the solve); returns the first failure. For the passes that settle the relations
    /// at initialization (`events::init_relations`), which need every relation's operands.
    pub fn run_main_continuing(&mut self) -> Option<BlockError> {
        self.cached.valid = false;
        self.stats.rhs += 1;
        let mut first = None;
        for i in 0..self.main_pass.len() {
            match self.main_pass[i] {
                MainStep::Code(k) => self.segments[k].run(&mut self.regs),
                MainStep::Block(si) => {
                    if let Err(e) = self.solve_block(si) {
                        first.get_or_insert(e);
                    }
                }
            }
        }
        first
    }

    /// The main pass with the iteration variables of mixed loops
    /// ([`Program::iteration_steps`]) held at the values in their registers: step by step, on
    /// the plain tape (the first pass of each round of the event iteration).
    pub fn run_main_holding(&mut self) -> Result<(), BlockError> {
        if self.prog.iteration_steps.is_empty() {
            return self.run_main();
        }
        self.cached.valid = false;
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
        self.der_runs.gather(&self.regs, out);
        if !all_finite(out) {
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
    /// [`root_value`]. A hysteresis band whose operands have moved well into the kept side is
    /// taken off for the rest of the phase (`relation_hysteresis::expired`), so that it never
    /// delays the relation's next real crossing.
    pub fn roots(&mut self, out: &mut [f64]) {
        for (i, r) in self.prog.relations.iter().enumerate() {
            let (a, b) = (self.regs[r.a as usize], self.regs[r.b as usize]);
            let kept = self.regs[r.reg as usize] != 0.0;
            out[i] = root_value(r.op, a, b, kept);
            let Some(shift) = self.root_shift.get_mut(i).filter(|s| **s != 0.0) else {
                continue;
            };
            if super::relation_hysteresis::expired(r.op, a, b, kept, *shift) {
                *shift = 0.0;
            } else {
                out[i] = super::relation_hysteresis::shifted_root(r.op, a, b, kept, *shift);
            }
        }
    }

    /// `J v` of the derivatives with respect to the states, at the last evaluated point.
    pub fn jvp(&mut self, v: &[f64], out: &mut [f64]) {
        self.stats.jvp += 1;
        self.refresh_factorizations();
        for (i, &(s, _)) in self.prog.states.iter().enumerate() {
            self.tan[s] = v[i];
        }
        self.tangent_steps(usize::MAX, LargestBlockSeed::Zero);
        for (o, &d) in out.iter_mut().zip(&self.der_regs) {
            *o = self.tan[d as usize];
        }
    }

    /// Factors again every linear block whose factorization is from an older point (kept for
    /// refinement): derivatives through a block use its factorization, and one from a point a
    /// step back gives the integrator a Jacobian wrong by as much as the matrix changed
    /// (rotation matrices of rollers spinning at hundreds of rad/s change by percents per
    /// step), which costs Newton failures.
    pub(super) fn refresh_factorizations(&mut self) {
        for i in 0..self.main_pass.len() {
            if let MainStep::Block(si) = self.main_pass[i]
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
    pub(super) fn tangent_steps(&mut self, big: usize, seed: LargestBlockSeed) {
        let prog = &self.prog;
        for &p in &self.main_pass {
            let si = match p {
                MainStep::Code(k) => {
                    self.segments[k].run_tangent(&self.regs, &mut self.tan);
                    continue;
                }
                MainStep::Block(si) => si,
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
                        if let (LargestBlockSeed::Unknowns(color), Some(plan)) =
                            (seed, &self.state_jac)
                        {
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
                    if !super::block_jac::least_squares_tangent(
                        &self.blocks[si],
                        &self.lus[si],
                        &mut self.rhs_buf,
                        &mut self.tmp,
                    ) {
                        let b = &mut self.blocks[si];
                        match &mut b.sparse {
                            Some(lu) if b.use_sparse => lu.solve(&mut self.rhs_buf),
                            _ => self.lus[si].solve(&mut self.rhs_buf, &mut self.tmp),
                        }
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
}

/// Whether every value is finite: `x - x` is 0 for a finite x and NaN otherwise, summed in
/// four independent lanes without early exit so the compiler vectorizes it (about 1.4x faster
/// than testing `is_finite` per value; this runs on every right-hand side).
#[allow(clippy::eq_op)] // `x - x` is the test itself, not a slip
fn all_finite(v: &[f64]) -> bool {
    let mut acc = [0.0f64; 4];
    let quads = v.chunks_exact(4);
    let rest = quads.remainder();
    for q in quads {
        for j in 0..4 {
            acc[j] += q[j] - q[j];
        }
    }
    let mut sum = acc[0] + acc[1] + acc[2] + acc[3];
    for x in rest {
        sum += x - x;
    }
    !sum.is_nan()
}

/// One tangent pass of a block's code: its batched form when there is one.
pub(super) fn block_tangent(seg: &Option<Segment>, code: &[Instr], r: &[f64], t: &mut [f64]) {
    match seg {
        Some(seg) => seg.run_tangent(r, t),
        None => run_tangent(code, r, t),
    }
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

/// The time and states of the last main pass. The buffer is kept when the point goes stale
/// (`valid = false`), so the next evaluation refills it without allocating.
#[derive(Clone, Debug, Default)]
pub(super) struct CachedPoint {
    valid: bool,
    t: f64,
    x: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::all_finite;

    #[test]
    fn all_finite_finds_any_nan_or_infinity() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for n in [1, 3, 4, 5, 9, 200] {
                for p in 0..n {
                    let mut v = vec![1e300; n];
                    v[p] = bad;
                    assert!(!all_finite(&v), "{bad} at {p} of {n}");
                }
            }
        }
        assert!(all_finite(&[]));
        assert!(all_finite(&[f64::MAX; 9]));
        assert!(all_finite(&[-0.0, 5e-324, -f64::MAX]));
    }
}
