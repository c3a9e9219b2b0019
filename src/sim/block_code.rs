//! The code of a large algebraic block, split by what depends on the block's unknowns.
//!
//! A block's code computes its residuals from the unknowns `z` and from values known before
//! the block (states, earlier variables). In the vehicle's linear block of accelerations and
//! forces most instructions only build coefficients from positions and velocities (rotation
//! matrices, lever arms, friction directions); they do not change while the block is solved.
//! So the code is split once, at compile time, into
//!
//! - the *fixed* part (no operand depends on `z`), run once per block solve, and
//! - the *active* part, run for every refinement step;
//!
//! and the block Jacobian, whose columns the solver gets from tangent passes with one colour
//! of columns seeded at a time, is computed by one pass of the active part over all colours
//! at once ([`LaneTangent`]): each instruction's partial derivatives are computed once and
//! applied to a row of lanes (one lane per colour), instead of one interpreted pass per colour.

use super::batched::Scheduler;
use super::tape::{Instr, Op, tangent};
use std::collections::{HashMap, HashSet};

/// Lanes are processed in chunks of this many values (the compiler vectorizes a chunk).
const CHUNK: usize = 8;

/// Fixed and active code of a block, and the all-colours tangent of its active part.
#[derive(Clone, Debug)]
pub struct SplitBlock {
    pub(super) fixed: super::batched::Segment,
    pub(super) active: super::batched::Segment,
    pub lanes: Option<LaneTangent>,
}

/// One instruction of the active part with its tangent slots (slot 0 is always zero) and the
/// chunks of lanes its result can be nonzero in (bit `k`: lanes `k * CHUNK..(k + 1) * CHUNK`).
#[derive(Clone, Copy, Debug)]
struct LaneInstr {
    ins: Instr,
    td: u32,
    ta: u32,
    tb: u32,
    tc: u32,
    chunks: u64,
}

/// Forward tangents of the active code for all colours at once: slot `s`, lane `l` is at
/// `s * width + l`.
#[derive(Clone, Debug)]
pub struct LaneTangent {
    code: Vec<LaneInstr>,
    width: usize,
    nslots: usize,
    /// Slot of each register that has one (active registers and the unknowns).
    slot_of: HashMap<u32, u32>,
    /// The unknowns' slots and their lanes (colours): set once, never written by the code.
    seeds: Vec<(u32, u32)>,
}

impl SplitBlock {
    /// Splits `code` (a block with unknowns `vars`, coloured by `color_of`). Returns `None` when
    /// the split would not be safe: a register written twice, read before it is written within
    /// the block, or an unknown written by the block.
    pub fn new(
        sched: &mut Scheduler,
        code: &[Instr],
        vars: &[usize],
        color_of: &[usize],
        ncolors: usize,
    ) -> Option<SplitBlock> {
        let mut written = HashSet::new();
        let mut active: HashSet<u32> = vars.iter().map(|&z| z as u32).collect();
        let unknowns = active.clone();
        let mut fixed_code = Vec::new();
        let mut active_code = Vec::new();
        for ins in code {
            if unknowns.contains(&ins.dst) || !written.insert(ins.dst) {
                return None;
            }
            if ins.reads().any(|r| active.contains(&r)) {
                active.insert(ins.dst);
                active_code.push(*ins);
            } else {
                fixed_code.push(*ins);
            }
        }
        // A register read by an instruction before another writes it would change meaning
        // when the fixed part runs first.
        let mut seen_write = HashSet::new();
        for ins in code {
            if ins
                .reads()
                .any(|r| written.contains(&r) && !seen_write.contains(&r))
            {
                return None;
            }
            seen_write.insert(ins.dst);
        }
        let lanes = LaneTangent::new(&active_code, vars, color_of, ncolors, &active);
        Some(SplitBlock {
            fixed: super::batched::Segment::new(sched, fixed_code),
            active: super::batched::Segment::new(sched, active_code),
            lanes,
        })
    }
}

impl LaneTangent {
    pub(super) fn new(
        code: &[Instr],
        vars: &[usize],
        color_of: &[usize],
        ncolors: usize,
        active: &HashSet<u32>,
    ) -> Option<LaneTangent> {
        if code.iter().any(|i| i.op == Op::Call) {
            return None;
        }
        let width = ncolors.div_ceil(CHUNK).max(1) * CHUNK;
        let mut slot_of = HashMap::new();
        let mut next = 1u32;
        let mut slot = |r: u32, slot_of: &mut HashMap<u32, u32>| {
            *slot_of.entry(r).or_insert_with(|| {
                next += 1;
                next - 1
            })
        };
        // Structural sparsity by chunks of lanes: a register depends on the few seeds (states,
        // unknowns) of its own part of the model (a roller's quantities on the wheel's and the
        // platform's states), so most of its lanes are zero whatever the point; chunks that
        // are zero for every operand are not computed. Beyond 64 chunks every chunk is.
        let nchunks = width / CHUNK;
        let all = if nchunks >= 64 {
            u64::MAX
        } else {
            (1u64 << nchunks) - 1
        };
        let chunk_bit = |lane: usize| {
            if nchunks > 64 {
                u64::MAX
            } else {
                1u64 << (lane / CHUNK)
            }
        };
        let mut mask: HashMap<u32, u64> = HashMap::new();
        let mut seeds = Vec::new();
        for (j, &z) in vars.iter().enumerate() {
            let s = slot(z as u32, &mut slot_of);
            seeds.push((s, color_of[j] as u32));
            *mask.entry(s).or_default() |= chunk_bit(color_of[j]);
        }
        let mut lane_code = Vec::with_capacity(code.len());
        for ins in code {
            let mut operand = |r: u32, k: usize| {
                if k < ins.op.arity() && active.contains(&r) {
                    slot(r, &mut slot_of)
                } else {
                    0
                }
            };
            let (ta, tb, tc) = (operand(ins.a, 0), operand(ins.b, 1), operand(ins.c, 2));
            let td = slot(ins.dst, &mut slot_of);
            let m = |s: u32| mask.get(&s).copied().unwrap_or(0);
            // A register written twice keeps the union: the later write then clears
            // whatever the earlier one left in the chunks it no longer reaches.
            let chunks = (m(ta) | m(tb) | m(tc) | m(td)) & all;
            mask.insert(td, chunks);
            lane_code.push(LaneInstr {
                ins: *ins,
                td,
                ta,
                tb,
                tc,
                chunks,
            });
        }
        Some(LaneTangent {
            code: lane_code,
            width,
            nslots: next as usize,
            slot_of,
            seeds,
        })
    }

    /// Index into the tangent buffer of register `r`'s lane `lane`, if `r` has a slot.
    pub fn index(&self, r: u32, lane: usize) -> Option<usize> {
        self.slot_of
            .get(&r)
            .map(|&s| s as usize * self.width + lane)
    }

    /// The tangents of every active register for all colours, from the values in `r`. `t` is
    /// this block's own buffer (sized and seeded on the first call).
    pub fn run(&self, r: &[f64], t: &mut Vec<f64>) {
        let w = self.width;
        if t.len() != self.nslots * w {
            t.clear();
            t.resize(self.nslots * w, 0.0);
            for &(s, lane) in &self.seeds {
                t[s as usize * w + lane as usize] = 1.0;
            }
        }
        for li in &self.code {
            let i = li.ins;
            let v = [r[i.a as usize], r[i.b as usize], r[i.c as usize]];
            let d = r[i.dst as usize];
            // The tangent of every operation is linear in its operands' tangents: its partial
            // derivatives at this point, applied to all lanes.
            let (ca, cb, cc) = match i.op {
                Op::Copy => (1.0, 0.0, 0.0),
                Op::Neg => (-1.0, 0.0, 0.0),
                Op::Add => (1.0, 1.0, 0.0),
                Op::Sub => (1.0, -1.0, 0.0),
                Op::Mul => (v[1], v[0], 0.0),
                Op::MulAdd => (v[1], v[0], 1.0),
                Op::MulSub => (v[1], v[0], -1.0),
                Op::SubMul => (v[2], -v[2], v[0] - v[1]),
                op => (
                    tangent(op, v, [1.0, 0.0, 0.0], d),
                    tangent(op, v, [0.0, 1.0, 0.0], d),
                    tangent(op, v, [0.0, 0.0, 1.0], d),
                ),
            };
            // An operand without a slot has a zero tangent: its partial is not used (it may be
            // infinite where the operand's value makes it so, and 0 * inf would be NaN).
            // Likewise an operand whose partial is zero (the branch a `Select` does not take):
            // its tangents may be NaN (a division by zero in that branch) and 0 * NaN is NaN.
            let ta = if ca == 0.0 { 0 } else { li.ta };
            let tb = if cb == 0.0 { 0 } else { li.tb };
            let tc = if cc == 0.0 { 0 } else { li.tc };
            let ca = if ta == 0 { 0.0 } else { ca };
            let cb = if tb == 0 { 0.0 } else { cb };
            let cc = if tc == 0 { 0.0 } else { cc };
            let (sd, sa, sb, sc) = (
                li.td as usize * w,
                ta as usize * w,
                tb as usize * w,
                tc as usize * w,
            );
            if w > 64 * CHUNK {
                for k in (0..w).step_by(CHUNK) {
                    lane_chunk(t, [sd, sa, sb, sc], k, [ca, cb, cc]);
                }
                continue;
            }
            let mut chunks = li.chunks;
            while chunks != 0 {
                let k = chunks.trailing_zeros() as usize * CHUNK;
                chunks &= chunks - 1;
                lane_chunk(t, [sd, sa, sb, sc], k, [ca, cb, cc]);
            }
        }
    }
}

/// Lanes `k..k + CHUNK` of slot `d` from those of slots `a`, `b`, `c` with the partials `p`.
#[inline(always)]
fn lane_chunk(t: &mut [f64], [sd, sa, sb, sc]: [usize; 4], k: usize, [ca, cb, cc]: [f64; 3]) {
    let mut out = [0.0; CHUNK];
    {
        let (ta, tb, tc) = (
            &t[sa + k..sa + k + CHUNK],
            &t[sb + k..sb + k + CHUNK],
            &t[sc + k..sc + k + CHUNK],
        );
        for (o, ((&x, &y), &z)) in out.iter_mut().zip(ta.iter().zip(tb).zip(tc)) {
            *o = ca * x + cb * y + cc * z;
        }
    }
    t[sd + k..sd + k + CHUNK].copy_from_slice(&out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::tape::{run, run_tangent};

    /// Unknowns in registers 0..3, known values in 3..6; residuals in 20, 21, 22.
    fn code() -> Vec<Instr> {
        vec![
            Instr::new(Op::Sin, 10, 3, 0, 0),       // fixed: sin(k0)
            Instr::new(Op::Mul, 11, 10, 4, 0),      // fixed
            Instr::new(Op::MulAdd, 12, 11, 0, 5),   // active: c * z0 + k2
            Instr::new(Op::SubMul, 13, 1, 2, 10),   // active: (z1 - z2) * s
            Instr::new(Op::Div, 14, 2, 4, 0),       // active: z2 / k1
            Instr::new(Op::Add, 20, 12, 13, 0),     // residual 0
            Instr::new(Op::MulSub, 21, 14, 11, 12), // residual 1
            Instr::new(Op::Select, 22, 5, 14, 13),  // residual 2 (both branches active)
        ]
    }

    #[test]
    fn split_parts_and_lane_tangents_match_the_whole_code() {
        let code = code();
        let vars = [0usize, 1, 2];
        // Unknowns 0 and 2 share colour 0 (a test of seeding, not a valid colouring).
        let color_of = [0usize, 1, 0];
        let mut sched = Scheduler::new(32);
        let split = SplitBlock::new(&mut sched, &code, &vars, &color_of, 2).expect("splits");
        let mut r0: Vec<f64> = (0..32).map(|i| 0.2 + 0.31 * i as f64).collect();
        let mut r1 = r0.clone();
        run(&code, &mut r0);
        split.fixed.run(&mut r1);
        split.active.run(&mut r1);
        assert_eq!(r0, r1);
        let lanes = split.lanes.as_ref().expect("no calls: lanes");
        let mut buf = Vec::new();
        lanes.run(&r1, &mut buf);
        for colour in 0..2 {
            let mut t = vec![0.0; 32];
            for (j, &z) in vars.iter().enumerate() {
                if color_of[j] == colour {
                    t[z] = 1.0;
                }
            }
            run_tangent(&code, &r0, &mut t);
            for res in [20u32, 21, 22] {
                let lane = lanes.index(res, colour).map_or(0.0, |k| buf[k]);
                assert!((lane - t[res as usize]).abs() < 1e-14, "{res} {colour}");
            }
        }
    }

    #[test]
    fn a_register_written_twice_is_not_split() {
        let mut c = code();
        c.push(Instr::new(Op::Copy, 12, 3, 0, 0));
        let mut sched = Scheduler::new(32);
        assert!(SplitBlock::new(&mut sched, &c, &[0, 1, 2], &[0, 1, 2], 3).is_none());
    }
}
