//! A straight-line tape regrouped into batches of one operation, for fast evaluation.
//!
//! Interpreting one instruction at a time costs an unpredictable indirect jump per instruction;
//! in models written with arrays most instructions are independent copies of a few patterns
//! (`k*(x[i] - x[i-1]) + d*(v[i] - v[i-1])` for every spring of a chain). So the instructions
//! of a code range are scheduled into levels (an instruction comes one level after everything it
//! must follow), and within a level the instructions of one operation form a batch: one dispatch,
//! then a tight loop over struct-of-arrays operand indices.
//!
//! The schedule keeps every data dependency of the original order (read after write, and also
//! write after read and write after write, so a tape that reuses a register stays correct), and
//! every instruction computes exactly what it computed before: results are bitwise identical to
//! [`super::tape::run`].
//!
//! Within a batch the order is free, so the value pass regroups a batch's instructions into
//! strided runs: `dst`, `a`, `b`, `c` each advancing by a fixed stride (the springs of a chain
//! are such a run, or two interleaved ones). A run is evaluated from its first registers and
//! strides, without loading four indices per instruction; what is left stays indexed.
//!
//! Register indices are checked once when the batches are built; evaluation then indexes the
//! register file without bounds checks (see the SAFETY comments).

use std::collections::HashMap;

/// The operators both value passes (strided runs and indexed batches) evaluate inline; the
/// others go to `apply` or the caller's extra arms. `$each` is the caller's loop macro, which
/// binds `x`, `y`, `z` to the operands of each instruction and stores the expression.
macro_rules! inline_ops {
    ($op:expr, $each:ident, $($extra:tt)*) => {
        match $op {
            Op::Add => $each!(|x, y, _z| x + y),
            Op::Sub => $each!(|x, y, _z| x - y),
            Op::Mul => $each!(|x, y, _z| x * y),
            Op::Div => $each!(|x, y, _z| x / y),
            Op::MulAdd => $each!(|x, y, z| x * y + z),
            Op::MulSub => $each!(|x, y, z| x * y - z),
            Op::SubMul => $each!(|x, y, z| (x - y) * z),
            Op::Copy => $each!(|x, _y, _z| x),
            Op::Neg => $each!(|x, _y, _z| -x),
            $($extra)*
        }
    };
}

use super::tape::{Instr, Op, apply, regs_needed, run, run_tangent, tangent};
use super::tiered::Tiered;

/// One operation applied to the instructions `start..end` of the operand arrays.
#[derive(Clone, Copy, Debug)]
struct Batch {
    op: Op,
    start: u32,
    end: u32,
}

/// `len` instructions of one operation whose registers are `first[j] + k * stride[j]` for
/// `k` in `0..len` (j: dst, a, b, c).
#[derive(Clone, Copy, Debug)]
struct Strided {
    op: Op,
    len: u32,
    first: [u32; 4],
    stride: [i32; 4],
}

/// One item of the value pass.
#[derive(Clone, Copy, Debug)]
enum Item {
    Indexed(Batch),
    Strided(Strided),
}

/// Shortest run worth its own item, and how many following instructions are tried as a run's
/// second member (two or three interleaved patterns are common; more are rare).
const MIN_RUN: usize = 4;
const RUN_WINDOW: usize = 8;

/// Instructions in batches, operands as struct of arrays.
#[derive(Clone, Debug, Default)]
pub struct Batched {
    batches: Vec<Batch>,
    /// The value pass: the batches as strided runs and indexed rests.
    plan: Vec<Item>,
    dst: Vec<u32>,
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
    /// One more than the largest register index any instruction uses: the register file must be
    /// at least this long (checked once per run).
    min_regs: usize,
}

/// Scratch space for scheduling several ranges of one tape without clearing a register-sized
/// array each time (a model can have many short ranges between its algebraic loops).
pub struct Scheduler {
    /// Level of the last instruction that wrote each register, plus one (0: not written).
    written: Vec<u32>,
    /// Highest level of an instruction that read each register, plus one (0: not read).
    read: Vec<u32>,
    touched: Vec<u32>,
}

impl Scheduler {
    pub fn new(nregs: usize) -> Scheduler {
        Scheduler {
            written: vec![0; nregs],
            read: vec![0; nregs],
            touched: Vec::new(),
        }
    }

    /// Batches `code`. Returns `None` if a register index is outside `nregs` (a compiler bug;
    /// the caller then keeps the plain tape).
    pub fn batch(&mut self, code: &[Instr]) -> Option<Batched> {
        let n = self.written.len();
        let mut levels = Vec::with_capacity(code.len());
        for i in code {
            let ops: Vec<u32> = i.reads().collect();
            if i.dst as usize >= n || ops.iter().any(|&o| o as usize >= n) {
                self.reset();
                return None;
            }
            let d = i.dst as usize;
            // After the writers of its operands (they hold level + 1), after the previous writer
            // of its destination, and after every earlier reader of the destination.
            let mut level = self.written[d].max(self.read[d]);
            for &o in &ops {
                level = level.max(self.written[o as usize]);
            }
            for &o in &ops {
                let o = o as usize;
                if self.read[o] == 0 && self.written[o] == 0 {
                    self.touched.push(o as u32);
                }
                self.read[o] = self.read[o].max(level + 1);
            }
            if self.read[d] == 0 && self.written[d] == 0 {
                self.touched.push(d as u32);
            }
            self.written[d] = level + 1;
            levels.push(level);
        }
        self.reset();
        let mut order: Vec<usize> = (0..code.len()).collect();
        // Stable: within a batch the original order (and so memory locality) is kept.
        order.sort_by_key(|&k| (levels[k], code[k].op as u8));
        let mut out = Batched {
            min_regs: regs_needed(code),
            ..Batched::default()
        };
        for (pos, &k) in order.iter().enumerate() {
            let i = code[k];
            let new_batch = match out.batches.last() {
                Some(b) => b.op != i.op || levels[order[pos - 1]] != levels[k],
                None => true,
            };
            let at = out.dst.len() as u32;
            if new_batch {
                out.batches.push(Batch {
                    op: i.op,
                    start: at,
                    end: at,
                });
            }
            if let Some(b) = out.batches.last_mut() {
                b.end = at + 1;
            }
            // Unused operands point at the destination: always a valid index. A call keeps its
            // argument range `a..=b` and site `c`.
            let arity = if i.op == Op::Call { 3 } else { i.op.arity() };
            out.dst.push(i.dst);
            out.a.push(if arity >= 1 { i.a } else { i.dst });
            out.b.push(if arity >= 2 { i.b } else { i.dst });
            out.c.push(if arity >= 3 { i.c } else { i.dst });
        }
        for k in 0..out.batches.len() {
            plan_batch(&mut out, k);
        }
        Some(out)
    }

    fn reset(&mut self) {
        for &r in &self.touched {
            self.written[r as usize] = 0;
            self.read[r as usize] = 0;
        }
        self.touched.clear();
    }
}

/// The four registers of entry `k`.
fn entry(b: &Batched, k: usize) -> [u32; 4] {
    [b.dst[k], b.a[k], b.b[k], b.c[k]]
}

/// Member `i` of the run from `e0` with strides `s`, if its registers are valid indices.
fn member(e0: [u32; 4], s: [i64; 4], i: usize) -> Option<[u32; 4]> {
    let mut m = [0u32; 4];
    for j in 0..4 {
        m[j] = u32::try_from(i64::from(e0[j]) + s[j] * i as i64).ok()?;
    }
    Some(m)
}

/// How many entries, not yet used, continue the run from `e0` with strides `s`.
fn run_len(e0: [u32; 4], s: [i64; 4], pos: &HashMap<[u32; 4], usize>, used: &[bool]) -> usize {
    (0..)
        .take_while(|&i| {
            member(e0, s, i)
                .and_then(|m| pos.get(&m))
                .is_some_and(|&p| !used[p])
        })
        .count()
}

/// Regroups batch `k`'s entries (any order is valid within a batch: no entry reads or writes a
/// register another one writes) into strided runs first, then the rest in their old order, and
/// appends the value-pass items. Calls stay indexed (their operands are argument ranges).
fn plan_batch(out: &mut Batched, k: usize) {
    let bt = out.batches[k];
    let (s0, e0) = (bt.start as usize, bt.end as usize);
    if bt.op == Op::Call || e0 - s0 < MIN_RUN {
        out.plan.push(Item::Indexed(bt));
        return;
    }
    let ent: Vec<[u32; 4]> = (s0..e0).map(|i| entry(out, i)).collect();
    // Destinations are distinct within a batch, so entries are too.
    let pos: HashMap<[u32; 4], usize> = ent.iter().enumerate().map(|(i, e)| (*e, i)).collect();
    let n = ent.len();
    let mut used = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut rest = Vec::new();
    let mut runs = Vec::new();
    for i in 0..n {
        if used[i] {
            continue;
        }
        let first = ent[i];
        let mut best = (1, [0i64; 4]);
        for j in (i + 1..n).filter(|&j| !used[j]).take(RUN_WINDOW) {
            let s: [i64; 4] = std::array::from_fn(|q| i64::from(ent[j][q]) - i64::from(first[q]));
            if s.iter().any(|&x| i32::try_from(x).is_err()) {
                continue;
            }
            let len = run_len(first, s, &pos, &used);
            if len > best.0 {
                best = (len, s);
            }
        }
        if best.0 < MIN_RUN {
            used[i] = true;
            rest.push(i);
            continue;
        }
        for m in 0..best.0 {
            let p = member(first, best.1, m).and_then(|e| pos.get(&e).copied());
            if let Some(p) = p {
                used[p] = true;
                order.push(p);
            }
        }
        runs.push(Strided {
            op: bt.op,
            len: best.0 as u32,
            first,
            stride: best.1.map(|x| x as i32),
        });
    }
    let done = order.len();
    order.extend(rest);
    for (slot, &p) in order.iter().enumerate() {
        let [d, a, b, c] = ent[p];
        let at = s0 + slot;
        (out.dst[at], out.a[at], out.b[at], out.c[at]) = (d, a, b, c);
    }
    out.plan.extend(runs.into_iter().map(Item::Strided));
    if done < n {
        out.plan.push(Item::Indexed(Batch {
            op: bt.op,
            start: (s0 + done) as u32,
            end: bt.end,
        }));
    }
}

/// Evaluates one strided run.
///
/// # Safety
/// Every register of the run must be an index into `r` (the run's members are entries of the
/// batch, all below `min_regs`), and no member may write a register another member reads.
#[inline(always)]
unsafe fn run_strided(st: &Strided, r: *mut f64) {
    let [d0, a0, b0, c0] = st.first.map(|x| x as isize);
    let [sd, sa, sb, sc] = st.stride.map(|x| x as isize);
    // SAFETY: as the function's contract says.
    unsafe {
        macro_rules! each {
            (|$x:ident, $y:ident, $z:ident| $f:expr) => {
                for k in 0..st.len as isize {
                    let $x = *r.offset(a0 + k * sa);
                    let $y = *r.offset(b0 + k * sb);
                    let $z = *r.offset(c0 + k * sc);
                    let _ = (&$x, &$y, &$z);
                    *r.offset(d0 + k * sd) = $f;
                }
            };
        }
        inline_ops!(st.op, each, op => each!(|x, y, z| apply(op, x, y, z)),)
    }
}

impl Batched {
    /// Batches one code range on its own.
    pub fn new(code: &[Instr], nregs: usize) -> Option<Batched> {
        Scheduler::new(nregs).batch(code)
    }

    pub fn len(&self) -> usize {
        self.dst.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dst.is_empty()
    }

    /// Number of dispatches per run (for statistics and tests).
    pub fn batches(&self) -> usize {
        self.batches.len()
    }

    /// Evaluates the instructions, writing values into `r` (same results as `tape::run`).
    pub fn run(&self, r: &mut [f64]) {
        assert!(
            r.len() >= self.min_regs,
            "register file shorter than the tape"
        );
        let r = r.as_mut_ptr();
        for item in &self.plan {
            let bt = match item {
                Item::Indexed(bt) => bt,
                Item::Strided(st) => {
                    // SAFETY: the run's members are entries of this tape (indices below
                    // `min_regs` <= `r.len()`), and entries of one batch are independent.
                    unsafe { run_strided(st, r) };
                    continue;
                }
            };
            let (s, e) = (bt.start as usize, bt.end as usize);
            let (dst, a, b, c) = (&self.dst[s..e], &self.a[s..e], &self.b[s..e], &self.c[s..e]);
            let it = dst.iter().zip(a).zip(b).zip(c);
            // SAFETY: every index in `dst`, `a`, `b`, `c` is below `min_regs` (computed from
            // the same instructions when the batches were built; unused operands repeat `dst`),
            // and `r` has at least `min_regs` elements (asserted above). Raw pointers rather than
            // a slice because an entry's destination register may be another's operand.
            unsafe {
                macro_rules! each {
                    (|$x:ident, $y:ident, $z:ident| $f:expr) => {
                        for (((&d, &a), &b), &c) in it {
                            let ($x, $y, $z) =
                                (*r.add(a as usize), *r.add(b as usize), *r.add(c as usize));
                            let _ = (&$x, &$y, &$z);
                            *r.add(d as usize) = $f;
                        }
                    };
                }
                inline_ops!(bt.op, each,
                    Op::Call => {
                        for (((&d, &a), &b), &c) in it {
                            let (a, b) = (a as usize, b as usize);
                            // The argument registers `a..=b` were all checked (`reads`), and
                            // no instruction of this level writes them.
                            let args = std::slice::from_raw_parts(r.add(a), b + 1 - a);
                            let v = super::funcall::value(*r.add(c as usize), args);
                            *r.add(d as usize) = v;
                        }
                    }
                    op => each!(|x, y, z| apply(op, x, y, z)),
                )
            }
        }
    }

    /// Forward tangents (same results as `tape::run_tangent`): `r` holds the values of the
    /// same pass, `t` the tangents of the inputs.
    pub fn run_tangent(&self, r: &[f64], t: &mut [f64]) {
        assert!(
            r.len() >= self.min_regs && t.len() >= self.min_regs,
            "register file shorter than the tape"
        );
        let (r, t) = (r.as_ptr(), t.as_mut_ptr());
        for bt in &self.batches {
            let (s, e) = (bt.start as usize, bt.end as usize);
            let (dst, a, b, c) = (&self.dst[s..e], &self.a[s..e], &self.b[s..e], &self.c[s..e]);
            let it = dst.iter().zip(a).zip(b).zip(c);
            // SAFETY: as in `run`: all indices are below `min_regs` <= both lengths.
            unsafe {
                match bt.op {
                    Op::Add => {
                        for (((&d, &a), &b), _) in it {
                            *t.add(d as usize) = *t.add(a as usize) + *t.add(b as usize);
                        }
                    }
                    Op::Sub => {
                        for (((&d, &a), &b), _) in it {
                            *t.add(d as usize) = *t.add(a as usize) - *t.add(b as usize);
                        }
                    }
                    Op::Copy => {
                        for (((&d, &a), _), _) in it {
                            *t.add(d as usize) = *t.add(a as usize);
                        }
                    }
                    Op::Call => {
                        for (((&d, &a), &b), &c) in it {
                            let (a, b) = (a as usize, b as usize);
                            let args = std::slice::from_raw_parts(r.add(a), b + 1 - a);
                            let targs = std::slice::from_raw_parts(t.add(a), b + 1 - a);
                            let v = super::funcall::tangent(*r.add(c as usize), args, targs);
                            *t.add(d as usize) = v;
                        }
                    }
                    op => {
                        for (((&d, &a), &b), &c) in it {
                            let (d, a, b, c) = (d as usize, a as usize, b as usize, c as usize);
                            *t.add(d) = tangent(
                                op,
                                [*r.add(a), *r.add(b), *r.add(c)],
                                [*t.add(a), *t.add(b), *t.add(c)],
                                *r.add(d),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A list of registers (the states, the derivatives) as runs of positive stride, so that
/// moving values between the register file and a dense vector needs no index per element;
/// contiguous runs are plain copies.
#[derive(Clone, Debug, Default)]
pub(super) struct RegRuns {
    /// (first position in the dense vector, first register, stride, length).
    runs: Vec<(usize, usize, usize, usize)>,
}

impl RegRuns {
    pub(super) fn new(regs: &[u32]) -> RegRuns {
        let mut runs = Vec::new();
        let mut i = 0;
        while i < regs.len() {
            let r0 = regs[i] as usize;
            let stride = match regs.get(i + 1) {
                Some(&r1) if r1 as usize > r0 => r1 as usize - r0,
                _ => 1,
            };
            let mut len = 1;
            while regs
                .get(i + len)
                .is_some_and(|&r| r as usize == r0 + stride * len)
            {
                len += 1;
            }
            runs.push((i, r0, stride, len));
            i += len;
        }
        RegRuns { runs }
    }

    /// `out[k] = r[reg k]` for the first `min(out.len(), len)` registers.
    pub(super) fn gather(&self, r: &[f64], out: &mut [f64]) {
        for &(p, r0, stride, len) in &self.runs {
            let len = len.min(out.len().saturating_sub(p));
            if len == 0 {
                break;
            }
            let out = &mut out[p..p + len];
            if stride == 1 {
                out.copy_from_slice(&r[r0..r0 + len]);
            } else {
                // `chunks` rather than `step_by`: its iteration compiles to a pointer bump
                // without the per-element length arithmetic (2.5x faster on the chain).
                for (o, c) in out.iter_mut().zip(r[r0..].chunks(stride)) {
                    *o = c[0];
                }
            }
        }
    }

    /// `r[reg k] = x[k]` for the first `min(x.len(), len)` registers.
    pub(super) fn scatter(&self, x: &[f64], r: &mut [f64]) {
        for &(p, r0, stride, len) in &self.runs {
            let len = len.min(x.len().saturating_sub(p));
            if len == 0 {
                break;
            }
            let x = &x[p..p + len];
            if stride == 1 {
                r[r0..r0 + len].copy_from_slice(x);
            } else {
                for (c, &v) in r[r0..].chunks_mut(stride).zip(x) {
                    c[0] = v;
                }
            }
        }
    }
}

/// Straight-line code in batches, or as a plain tape if batching refused it; native code
/// once it has run often enough (`sim/tiered.rs`).
#[derive(Clone, Debug)]
pub(super) struct Segment {
    interpreted: Interpreted,
    native: Tiered,
}

#[derive(Clone, Debug)]
enum Interpreted {
    Batched(Batched),
    Plain(Vec<Instr>),
}

impl Segment {
    pub(super) fn new(s: &mut Scheduler, code: Vec<Instr>) -> Segment {
        let interpreted = match s.batch(&code) {
            Some(b) => Interpreted::Batched(b),
            None => Interpreted::Plain(code.clone()),
        };
        Segment {
            interpreted,
            native: Tiered::new(code),
        }
    }

    pub(super) fn run(&self, r: &mut [f64]) {
        if self.native.run(r) {
            return;
        }
        match &self.interpreted {
            Interpreted::Batched(b) => b.run(r),
            Interpreted::Plain(code) => run(code, r),
        }
    }

    pub(super) fn run_tangent(&self, r: &[f64], t: &mut [f64]) {
        match &self.interpreted {
            Interpreted::Batched(b) => b.run_tangent(r, t),
            Interpreted::Plain(code) => run_tangent(code, r, t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::tape::{run, run_tangent};

    /// A chain-like tape with a reused register (write after read) and a rewritten one.
    fn tape() -> Vec<Instr> {
        vec![
            Instr::new(Op::Sub, 10, 0, 1, 0),
            Instr::new(Op::Sub, 11, 2, 3, 0),
            Instr::new(Op::Mul, 12, 10, 4, 0),
            Instr::new(Op::MulAdd, 13, 11, 5, 12),
            Instr::new(Op::Sin, 14, 13, 0, 0),
            // Reads 10, then 10 is overwritten: the reader must stay first.
            Instr::new(Op::Mul, 15, 10, 10, 0),
            Instr::new(Op::Sub, 10, 13, 14, 0),
            Instr::new(Op::Div, 16, 10, 15, 0),
            // Writes 14 again (write after write).
            Instr::new(Op::Atan2, 14, 16, 2, 0),
            Instr::new(Op::Select, 17, 4, 14, 16),
        ]
    }

    #[test]
    fn batched_run_is_bitwise_identical_to_the_tape() {
        let code = tape();
        let mut r0: Vec<f64> = (0..18).map(|i| 0.3 + 0.17 * i as f64).collect();
        let mut r1 = r0.clone();
        run(&code, &mut r0);
        let b = Batched::new(&code, 18).expect("indices in range");
        b.run(&mut r1);
        assert_eq!(r0, r1);
        let mut t0: Vec<f64> = (0..18).map(|i| 0.01 * i as f64 - 0.05).collect();
        let mut t1 = t0.clone();
        run_tangent(&code, &r0, &mut t0);
        b.run_tangent(&r1, &mut t1);
        assert_eq!(t0, t1);
    }

    #[test]
    fn independent_instructions_share_one_batch() {
        // Four independent subtractions, then four products of their results.
        let mut code = Vec::new();
        for k in 0..4 {
            code.push(Instr::new(Op::Sub, 20 + k, k, k + 1, 0));
        }
        for k in 0..4 {
            code.push(Instr::new(Op::Mul, 30 + k, 20 + k, 9, 0));
        }
        let b = Batched::new(&code, 40).expect("indices in range");
        assert_eq!(b.batches(), 2);
        assert_eq!(b.len(), 8);
    }

    /// Two interleaved spring patterns (as a chain's batch has them), a constant operand
    /// (stride 0) and a stray entry: strided runs, and the same bits as the plain tape.
    #[test]
    fn strided_runs_are_bitwise_identical_to_the_tape() {
        let mut code = Vec::new();
        for k in 0..20 {
            code.push(Instr::new(Op::SubMul, 100 + 5 * k, 1 + k, k, 90));
            code.push(Instr::new(Op::SubMul, 102 + 5 * k, 31 + k, 30 + k, 91));
        }
        code.push(Instr::new(Op::SubMul, 99, 3, 7, 92));
        let b = Batched::new(&code, 220).expect("indices in range");
        let runs = b
            .plan
            .iter()
            .filter(|i| matches!(i, Item::Strided(_)))
            .count();
        assert_eq!(runs, 2, "{:?}", b.plan);
        let mut r0: Vec<f64> = (0..220).map(|i| (0.37 * i as f64).sin()).collect();
        let mut r1 = r0.clone();
        run(&code, &mut r0);
        b.run(&mut r1);
        assert_eq!(r0, r1);
        let mut t0: Vec<f64> = (0..220).map(|i| 0.01 * i as f64 - 0.05).collect();
        let mut t1 = t0.clone();
        run_tangent(&code, &r0, &mut t0);
        b.run_tangent(&r1, &mut t1);
        assert_eq!(t0, t1);
    }

    #[test]
    fn register_runs_gather_and_scatter_every_register() {
        let regs = [4, 5, 6, 7, 20, 22, 24, 9, 3];
        let runs = RegRuns::new(&regs);
        assert_eq!(runs.runs.len(), 4, "{:?}", runs.runs);
        let mut r: Vec<f64> = (0..30).map(|i| i as f64).collect();
        let mut out = vec![0.0; regs.len()];
        runs.gather(&r, &mut out);
        let want: Vec<f64> = regs.iter().map(|&g| g as f64).collect();
        assert_eq!(out, want);
        let x: Vec<f64> = (0..regs.len()).map(|i| -(i as f64)).collect();
        runs.scatter(&x, &mut r);
        for (k, &g) in regs.iter().enumerate() {
            assert_eq!(r[g as usize], x[k]);
        }
    }

    #[test]
    fn out_of_range_registers_are_refused() {
        assert!(Batched::new(&[Instr::new(Op::Add, 3, 1, 7, 0)], 5).is_none());
    }
}
