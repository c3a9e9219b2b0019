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
//! Register indices are checked once when the batches are built; evaluation then indexes the
//! register file without bounds checks (see the SAFETY comments).

use super::tape::{Instr, Op, apply, run, run_tangent, tangent};

/// One operation applied to the instructions `start..end` of the operand arrays.
#[derive(Clone, Copy, Debug)]
struct Batch {
    op: Op,
    start: u32,
    end: u32,
}

/// Instructions in batches, operands as struct of arrays.
#[derive(Clone, Debug, Default)]
pub struct Batched {
    batches: Vec<Batch>,
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
            min_regs: code
                .iter()
                .flat_map(|i| std::iter::once(i.dst).chain(i.reads()))
                .map(|r| r as usize + 1)
                .max()
                .unwrap_or(0),
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
        for bt in &self.batches {
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
                match bt.op {
                    Op::Add => each!(|x, y, _z| x + y),
                    Op::Sub => each!(|x, y, _z| x - y),
                    Op::Mul => each!(|x, y, _z| x * y),
                    Op::Div => each!(|x, y, _z| x / y),
                    Op::MulAdd => each!(|x, y, z| x * y + z),
                    Op::MulSub => each!(|x, y, z| x * y - z),
                    Op::SubMul => each!(|x, y, z| (x - y) * z),
                    Op::Copy => each!(|x, _y, _z| x),
                    Op::Neg => each!(|x, _y, _z| -x),
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
                }
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

    pub(super) fn run_tangent(&self, r: &[f64], t: &mut [f64]) {
        match self {
            Segment::Batched(b) => b.run_tangent(r, t),
            Segment::Plain(code) => run_tangent(code, r, t),
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

    #[test]
    fn out_of_range_registers_are_refused() {
        assert!(Batched::new(&[Instr::new(Op::Add, 3, 1, 7, 0)], 5).is_none());
    }
}
