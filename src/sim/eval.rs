//! Running a [`Program`]: the right-hand side, its Jacobian-vector product, root functions.
//!
//! Given time and state values, the main pass runs the BLT blocks in order: explicit blocks are
//! one tape segment, algebraic loops are solved in place (one LU for linear blocks, damped
//! Newton from the previous solution for nonlinear ones). The integrator sees only the states
//! (ODE mode). The Jacobian-vector product is forward-mode differentiation of the same pass:
//! through explicit segments by the tangent rules of each instruction, through a loop by the
//! implicit function theorem with the LU of the loop's Jacobian (`dz = -J⁻¹ ∂r/∂known · dknown`).

use super::batched::{Batched, Scheduler};
use super::compile::{Program, Step};
use super::newton::{Lu, NewtonFailure};
use super::tape::{Instr, Op, run, run_tangent};

/// Counters reported by `--stats`.
#[derive(Clone, Debug, Default)]
pub struct EvalStats {
    pub rhs: usize,
    pub jvp: usize,
    pub newton_iterations: usize,
    pub block_solves: usize,
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
enum Segment {
    Batched(Batched),
    Plain(Vec<Instr>),
}

impl Segment {
    fn new(s: &mut Scheduler, code: Vec<Instr>) -> Segment {
        match s.batch(&code) {
            Some(b) => Segment::Batched(b),
            None => Segment::Plain(code),
        }
    }

    fn run(&self, r: &mut [f64]) {
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
    /// Derivative copies taken out of the main pass, eliminated variables and event code.
    outputs: [Segment; 3],
    /// Registers of the states and of their derivatives, as compact index arrays.
    state_regs: Vec<u32>,
    der_regs: Vec<u32>,
    pub regs: Vec<f64>,
    tan: Vec<f64>,
    lus: Vec<Lu>,
    jac: Vec<f64>,
    rhs_buf: Vec<f64>,
    tmp: Vec<f64>,
    /// The point of the last successful main pass (time, states), to reuse it.
    cached: Option<(f64, Vec<f64>)>,
    pub stats: EvalStats,
    /// The last failed block solve (reported if the integrator gives up).
    pub last_error: Option<BlockError>,
    /// Newton tolerance (relative).
    pub newton_tol: f64,
    /// The last point where a derivative was NaN or infinite.
    pub nan_at: Option<(f64, Vec<f64>)>,
}

impl Engine {
    pub fn new(prog: Program) -> Engine {
        let n = prog.nregs();
        let regs = prog.init_regs.clone();
        let lus = vec![Lu::default(); prog.steps.len()];
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
        let mut sched = Scheduler::new(n);
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
            outputs,
            state_regs,
            der_regs,
            regs,
            tan: vec![0.0; n],
            lus,
            jac: Vec::new(),
            rhs_buf: Vec::new(),
            tmp: Vec::new(),
            cached: None,
            stats: EvalStats::default(),
            last_error: None,
            newton_tol: 1e-10,
            nan_at: None,
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

    /// Zero-crossing functions of the event relations (after [`Self::run_outputs`]).
    pub fn roots(&self, out: &mut [f64]) {
        for (i, r) in self.prog.relations.iter().enumerate() {
            out[i] = self.regs[r.a as usize] - self.regs[r.b as usize];
        }
    }

    /// `J v` of the derivatives with respect to the states, at the last evaluated point.
    pub fn jvp(&mut self, v: &[f64], out: &mut [f64]) {
        self.stats.jvp += 1;
        let prog = &self.prog;
        for (i, &(s, _)) in prog.states.iter().enumerate() {
            self.tan[s] = v[i];
        }
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
                    run_tangent(c, &self.regs, &mut self.tan);
                    self.rhs_buf.clear();
                    self.rhs_buf
                        .extend(residuals.iter().map(|&r| -self.tan[r as usize]));
                    self.lus[si].solve(&mut self.rhs_buf, &mut self.tmp);
                    for (k, &z) in vars.iter().enumerate() {
                        self.tan[z] = self.rhs_buf[k];
                    }
                    // Again, so that temporaries inside the block carry the right tangents.
                    run_tangent(c, &self.regs, &mut self.tan);
                }
            }
        }
        for (o, &d) in out.iter_mut().zip(&self.der_regs) {
            *o = self.tan[d as usize];
        }
    }

    /// Solves one algebraic block in place, from the values currently in its registers.
    fn solve_block(&mut self, si: usize) -> Result<(), BlockError> {
        self.stats.block_solves += 1;
        let Step::Implicit {
            code,
            vars,
            residuals,
            inputs,
            linear,
            ..
        } = &self.prog.steps[si]
        else {
            return Ok(());
        };
        let code = &self.prog.code[code.clone()];
        let k = vars.len();
        let max_iter = if *linear { 2 } else { 50 };
        let fail = |regs: &[f64], failure: NewtonFailure| BlockError {
            step: si,
            time: regs[self.prog.time as usize],
            failure,
            values: vars.iter().map(|&v| regs[v]).collect(),
            residuals: residuals.iter().map(|&r| regs[r as usize]).collect(),
        };
        run(code, &mut self.regs);
        let mut norm = max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
        for iter in 0..max_iter {
            if let Some(e) = residuals
                .iter()
                .position(|&r| !self.regs[r as usize].is_finite())
            {
                let err = fail(&self.regs, NewtonFailure::NotFinite { equation: e });
                self.last_error = Some(err.clone());
                return Err(err);
            }
            // Jacobian by forward tangents of the block code, one column per unknown.
            self.jac.clear();
            self.jac.resize(k * k, 0.0);
            for &r in inputs {
                self.tan[r as usize] = 0.0;
            }
            for j in 0..k {
                for &z in vars {
                    self.tan[z] = 0.0;
                }
                self.tan[vars[j]] = 1.0;
                run_tangent(code, &self.regs, &mut self.tan);
                for (i, &r) in residuals.iter().enumerate() {
                    self.jac[i * k + j] = self.tan[r as usize];
                }
            }
            if let Err(column) = self.lus[si].factor(k, &self.jac) {
                let err = fail(&self.regs, NewtonFailure::Singular { column });
                self.last_error = Some(err.clone());
                return Err(err);
            }
            self.stats.newton_iterations += 1;
            self.rhs_buf.clear();
            self.rhs_buf
                .extend(residuals.iter().map(|&r| self.regs[r as usize]));
            self.lus[si].solve(&mut self.rhs_buf, &mut self.tmp);
            let z0: Vec<f64> = vars.iter().map(|&v| self.regs[v]).collect();
            // Damping: halve the step while the residual grows.
            let mut lambda = 1.0;
            let mut new_norm;
            loop {
                for (i, &z) in vars.iter().enumerate() {
                    self.regs[z] = z0[i] - lambda * self.rhs_buf[i];
                }
                run(code, &mut self.regs);
                new_norm = max_abs(residuals.iter().map(|&r| self.regs[r as usize]));
                if *linear || new_norm.is_finite() && (new_norm <= norm || lambda < 1e-3) {
                    break;
                }
                lambda *= 0.5;
            }
            // Converged when the full Newton step is negligible (damping may stall at round-off).
            let step = max_abs(
                self.rhs_buf
                    .iter()
                    .zip(&z0)
                    .map(|(d, z)| d / (1.0 + z.abs())),
            );
            norm = new_norm;
            if *linear || step <= self.newton_tol || norm == 0.0 {
                let _ = iter;
                return Ok(());
            }
        }
        let err = fail(
            &self.regs,
            NewtonFailure::NoConvergence {
                residual: norm,
                iterations: max_iter,
            },
        );
        self.last_error = Some(err.clone());
        Err(err)
    }
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
