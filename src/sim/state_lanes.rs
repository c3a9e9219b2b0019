//! The state Jacobian's tangent passes in lanes.
//!
//! `Engine::state_jacobian` needs the tangents of the main pass with respect to every state
//! (the big block's unknowns held fixed) and with respect to every unknown of that block (the
//! states held fixed). Done one colour at a time, that is one interpreted pass over the whole
//! program per colour; for the omni vehicle in joint coordinates (43 states, a torn block whose
//! residuals depend on nearly every state) about 44 passes per Jacobian, half of the
//! integration time. When the big block is the program's only algebraic block, the main
//! pass is straight-line code apart from that block's solve, so both sets of tangents come from
//! one pass each with one lane per seed ([`LaneTangent`]): each instruction's partial
//! derivatives are computed once and applied to all lanes.

use super::block_code::LaneTangent;
use super::program::{Program, Step};
use std::collections::HashSet;

/// Lane passes over the whole main pass: seeded on the states (`x`) and on the big block's
/// unknowns (`z`), with their buffers.
#[derive(Clone, Debug)]
pub struct StateLanes {
    pub x: LaneTangent,
    pub z: LaneTangent,
    pub x_buf: Vec<f64>,
    pub z_buf: Vec<f64>,
}

impl StateLanes {
    /// `None` when some step other than `big` is an algebraic block (its solve cannot run in
    /// lanes) or the code calls functions.
    pub fn new(prog: &Program, big: usize) -> Option<StateLanes> {
        let mut code = Vec::new();
        for (si, s) in prog.steps.iter().enumerate() {
            let (Step::Explicit { code: c, .. } | Step::Implicit { code: c, .. }) = s;
            if matches!(s, Step::Implicit { .. }) && si != big {
                return None;
            }
            code.extend_from_slice(&prog.code[c.clone()]);
        }
        let Step::Implicit {
            vars, residuals, ..
        } = &prog.steps[big]
        else {
            return None;
        };
        // What `Engine::state_jacobian` reads: the block's residuals and the derivatives.
        let outputs: Vec<u32> = residuals
            .iter()
            .copied()
            .chain(prog.states.iter().map(|&(_, d)| d as u32))
            .collect();
        // The lane buffers keep their values between passes: a register read before the code
        // writes it would see the previous pass's tangents.
        let written: HashSet<u32> = code.iter().map(|i| i.dst).collect();
        let mut seen = HashSet::new();
        for i in &code {
            if i.reads()
                .any(|r| written.contains(&r) && !seen.contains(&r))
            {
                return None;
            }
            seen.insert(i.dst);
        }
        // One lane per seed; the registers that depend on a seed have tangent slots.
        let lanes = |seeds: &[usize]| {
            let color_of: Vec<usize> = (0..seeds.len()).collect();
            LaneTangent::new(&code, seeds, &color_of, seeds.len(), &outputs)
        };
        let xs: Vec<usize> = prog.states.iter().map(|&(x, _)| x).collect();
        Some(StateLanes {
            x: lanes(&xs)?,
            z: lanes(vars)?,
            x_buf: Vec::new(),
            z_buf: Vec::new(),
        })
    }

    /// Both passes at the values in `regs` (the last evaluated point).
    pub fn run(&mut self, regs: &[f64]) {
        self.x.run(regs, &mut self.x_buf);
        self.z.run(regs, &mut self.z_buf);
    }
}
