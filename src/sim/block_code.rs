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
    /// Splits `code` (a block with unknowns `vars` and `residuals`, coloured by `color_of`).
    /// Returns `None` when
    /// the split would not be safe: a register written twice, read before it is written within
    /// the block, or an unknown written by the block.
    pub fn new(
        sched: &mut Scheduler,
        code: &[Instr],
        vars: &[usize],
        residuals: &[u32],
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
        let lanes = LaneTangent::new(&active_code, vars, color_of, ncolors, residuals);
        Some(SplitBlock {
            fixed: super::batched::Segment::new(sched, fixed_code),
            active: super::batched::Segment::new(sched, active_code),
            lanes,
        })
    }
}

impl LaneTangent {
    /// Lanes of `code` seeded on `vars` (lane `color_of[j]` for `vars[j]`); only the tangents
    /// of `outputs` are read afterwards ([`Self::index`]). `None` when the code calls a
    /// function or writes a seed.
    pub(super) fn new(
        code: &[Instr],
        vars: &[usize],
        color_of: &[usize],
        ncolors: usize,
        outputs: &[u32],
    ) -> Option<LaneTangent> {
        if code.iter().any(|i| i.op == Op::Call) {
            return None;
        }
        let width = ncolors.div_ceil(CHUNK).max(1) * CHUNK;
        let chunks = Chunks::new(width / CHUNK);
        let seeds: Vec<(u32, u64)> = vars
            .iter()
            .zip(color_of)
            .map(|(&z, &c)| (z as u32, chunks.bit(c)))
            .collect();
        let (kept, carriers) = kept_instructions(code, &seeds, outputs, &chunks)?;
        let last_reads = last_reads(&kept, &seeds, outputs);
        let mut lanes = assign_slots(&kept, &last_reads, &seeds, color_of, width);
        // A register whose last write had no tangent still names the slot of an earlier value.
        lanes.slot_of.retain(|r, _| carriers.contains(r));
        Some(lanes)
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
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), the only requirement of `run_avx2`.
            unsafe { self.run_avx2(r, t) };
            return;
        }
        self.run_lanes(r, t);
    }

    /// [`Self::run_lanes`] compiled for AVX2: the chunks' multiply-adds four lanes wide
    /// instead of two. Multiplies and adds stay separate instructions (no fused multiply-add),
    /// so the results are the same bits on every x86-64 CPU.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2(&self, r: &[f64], t: &mut [f64]) {
        self.run_lanes(r, t);
    }

    /// The lane pass proper (the buffer is sized and seeded).
    #[inline(always)]
    fn run_lanes(&self, r: &[f64], t: &mut [f64]) {
        let w = self.width;
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

/// The chunks of lanes a register's tangent can be nonzero in (bit `k`: lanes
/// `k * CHUNK..(k + 1) * CHUNK`): structural sparsity by chunks. A register depends on the few
/// seeds (states, unknowns) of its own part of the model (a roller's quantities on the
/// wheel's and the platform's states), so most of its lanes are zero whatever the point;
/// chunks that are zero for every operand are not computed. Beyond 64 chunks every chunk is.
struct Chunks {
    n: usize,
}

impl Chunks {
    fn new(n: usize) -> Chunks {
        Chunks { n }
    }

    fn all(&self) -> u64 {
        if self.n >= 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        }
    }

    fn bit(&self, lane: usize) -> u64 {
        if self.n > 64 {
            u64::MAX
        } else {
            1u64 << (lane / CHUNK)
        }
    }
}

/// An instruction of the lane pass before slots are assigned: its chunks and which of its
/// operands carry a tangent.
struct Kept {
    ins: Instr,
    chunks: u64,
    carries: [bool; 3],
}

/// The instructions whose result has a tangent and reaches an output, with their chunks, and
/// the registers whose final value has a tangent. `None` when the code writes a seed (its
/// lanes are set once, not computed).
fn kept_instructions(
    code: &[Instr],
    seeds: &[(u32, u64)],
    outputs: &[u32],
    chunks: &Chunks,
) -> Option<(Vec<Kept>, HashSet<u32>)> {
    let mut mask: HashMap<u32, u64> = HashMap::new();
    for &(z, bit) in seeds {
        *mask.entry(z).or_default() |= bit;
    }
    let needed = needed_for(code, outputs);
    let mut kept = Vec::new();
    for (ins, _) in code.iter().zip(&needed).filter(|(_, n)| **n) {
        if seeds.iter().any(|&(z, _)| z == ins.dst) {
            return None;
        }
        let operands = [ins.a, ins.b, ins.c];
        let m: [u64; 3] = std::array::from_fn(|k| {
            if k < ins.op.arity() {
                mask.get(&operands[k]).copied().unwrap_or(0)
            } else {
                0
            }
        });
        let c = (m[0] | m[1] | m[2]) & chunks.all();
        // A result whose tangent is zero in every lane needs no place in the pass, and the
        // instructions after it read its register as a constant.
        if c == 0 {
            mask.remove(&ins.dst);
            continue;
        }
        mask.insert(ins.dst, c);
        kept.push(Kept {
            ins: *ins,
            chunks: c,
            carries: m.map(|x| x != 0),
        });
    }
    Some((kept, mask.into_keys().collect()))
}

/// For each kept instruction, which operands it reads for the last time (the slot of that
/// value is free afterwards). Seeds and the final values of outputs are never freed.
fn last_reads(kept: &[Kept], seeds: &[(u32, u64)], outputs: &[u32]) -> Vec<[bool; 3]> {
    let mut live: HashSet<u32> = outputs.iter().copied().collect();
    live.extend(seeds.iter().map(|&(z, _)| z));
    let mut last = vec![[false; 3]; kept.len()];
    for (k, kp) in kept.iter().enumerate().rev() {
        live.remove(&kp.ins.dst);
        for (p, r) in [kp.ins.a, kp.ins.b, kp.ins.c].into_iter().enumerate() {
            if kp.carries[p] && live.insert(r) {
                last[k][p] = true;
            }
        }
    }
    last
}

/// Slots for the kept instructions: a slot whose value has been read for the last time is
/// given to a later result with the same chunks, so the tangent buffer holds the live values
/// only (for the vehicle's main pass a few hundred slots instead of 12,000, which fits the
/// caches). A reused slot is written in all the chunks it can be nonzero in and is zero in
/// the others, so readers may read any chunk of it.
fn assign_slots(
    kept: &[Kept],
    last: &[[bool; 3]],
    seeds: &[(u32, u64)],
    color_of: &[usize],
    width: usize,
) -> LaneTangent {
    let mut slot_of: HashMap<u32, u32> = HashMap::new();
    let mut slot_mask: Vec<u64> = vec![0];
    let mut free: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut seed_slots = Vec::new();
    for (&(z, bit), &c) in seeds.iter().zip(color_of) {
        let s = slot_mask.len() as u32;
        slot_mask.push(bit);
        slot_of.insert(z, s);
        seed_slots.push((s, c as u32));
    }
    let mut code = Vec::with_capacity(kept.len());
    for (kp, last) in kept.iter().zip(last) {
        let ins = kp.ins;
        let operands = [ins.a, ins.b, ins.c];
        let t: [u32; 3] = std::array::from_fn(|p| {
            if kp.carries[p] {
                slot_of.get(&operands[p]).copied().unwrap_or(0)
            } else {
                0
            }
        });
        let td = match free.get_mut(&kp.chunks).and_then(Vec::pop) {
            Some(s) => s,
            None => {
                slot_mask.push(kp.chunks);
                slot_mask.len() as u32 - 1
            }
        };
        for p in 0..3 {
            if last[p] && t[p] != 0 {
                free.entry(slot_mask[t[p] as usize]).or_default().push(t[p]);
            }
        }
        slot_of.insert(ins.dst, td);
        code.push(LaneInstr {
            ins,
            td,
            ta: t[0],
            tb: t[1],
            tc: t[2],
            chunks: kp.chunks,
        });
    }
    LaneTangent {
        code,
        width,
        nslots: slot_mask.len(),
        slot_of,
        seeds: seed_slots,
    }
}

/// Which instructions of `code` the values of `outputs` at its end depend on (backward
/// liveness; a register written twice is live only up to its last write before a read). The
/// main pass also computes every variable that is only recorded in the results: the state
/// Jacobian's lanes need none of them.
fn needed_for(code: &[Instr], outputs: &[u32]) -> Vec<bool> {
    let mut live: HashSet<u32> = outputs.iter().copied().collect();
    let mut needed = vec![false; code.len()];
    for (k, ins) in code.iter().enumerate().rev() {
        if live.remove(&ins.dst) {
            needed[k] = true;
            live.extend(ins.reads());
        }
    }
    needed
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
        let split =
            SplitBlock::new(&mut sched, &code, &vars, &[20, 21, 22], &color_of, 2).expect("splits");
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

    /// Straight-line code over 40 registers (0..6 seeds, 6..10 constants) from a fixed
    /// pseudo-random sequence: registers are rewritten, some by constants only (their
    /// tangent becomes zero again), and most values die soon, so slots are reused.
    fn random_code(seed: u64, n: usize) -> Vec<Instr> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % m) as u32
        };
        let ops = [
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::MulAdd,
            Op::SubMul,
            Op::Neg,
            Op::Sin,
            Op::Copy,
        ];
        (0..n)
            .map(|_| {
                let op = ops[next(ops.len() as u64) as usize];
                let dst = 10 + next(30);
                // One write in five reads constants only.
                let from = if next(5) == 0 { 6 } else { 0 };
                let span = if from == 6 { 4 } else { 40 };
                let (a, b, c) = (from + next(span), from + next(span), from + next(span));
                Instr::new(op, dst, a, b, c)
            })
            .collect()
    }

    #[test]
    fn lanes_with_reused_slots_match_one_tangent_pass_per_colour() {
        for seed in 0..200 {
            let code = random_code(seed, 120);
            let vars = [0usize, 1, 2, 3, 4, 5];
            let color_of = [0usize, 1, 2, 3, 4, 5];
            let outputs = [30u32, 31, 35, 39];
            let Some(lanes) = LaneTangent::new(&code, &vars, &color_of, 6, &outputs) else {
                continue;
            };
            let mut r: Vec<f64> = (0..40).map(|i| 0.3 + 0.17 * i as f64).collect();
            run(&code, &mut r);
            let mut buf = Vec::new();
            // Twice: the second pass starts from the buffer the first one left.
            lanes.run(&r, &mut buf);
            lanes.run(&r, &mut buf);
            for colour in 0..6 {
                let mut t = vec![0.0; 40];
                t[vars[colour]] = 1.0;
                run_tangent(&code, &r, &mut t);
                for &o in &outputs {
                    let lane = lanes.index(o, colour).map_or(0.0, |k| buf[k]);
                    assert!(
                        (lane - t[o as usize]).abs() <= 1e-12 * (1.0 + t[o as usize].abs()),
                        "seed {seed}, output {o}, colour {colour}: {lane} vs {}",
                        t[o as usize]
                    );
                }
            }
            assert!(lanes.nslots < 40, "seed {seed}: {} slots", lanes.nslots);
        }
    }

    #[test]
    fn a_register_written_twice_is_not_split() {
        let mut c = code();
        c.push(Instr::new(Op::Copy, 12, 3, 0, 0));
        let mut sched = Scheduler::new(32);
        assert!(
            SplitBlock::new(&mut sched, &c, &[0, 1, 2], &[20, 21, 22], &[0, 1, 2], 3).is_none()
        );
    }
}
