//! Dead-code elimination on a compiled program: instructions whose result nobody reads
//! (products fused into `MulAdd`, branches of folded selects) removed, code ranges renumbered.

use super::program::{Action, Program, Step};
use super::tape::Op;
use std::ops::Range;

/// Removes instructions whose result nobody reads (products fused into `MulAdd`, branches of
/// folded selects...), and renumbers the code ranges.
pub(super) fn eliminate_dead_code(p: &mut Program, nvars: usize) {
    let mut needed = vec![false; p.init_regs.len()];
    needed[..nvars].iter_mut().for_each(|x| *x = true);
    for s in &p.steps {
        if let Step::Implicit { residuals, .. } = s {
            residuals.iter().for_each(|&r| needed[r as usize] = true);
        }
    }
    for r in &p.relations {
        needed[r.a as usize] = true;
        needed[r.b as usize] = true;
    }
    let mark_action = |a: &Action, needed: &mut Vec<bool>| match a {
        Action::Assign { value, .. } | Action::Reinit { value, .. } => {
            needed[*value as usize] = true
        }
        Action::Assert {
            condition, message, ..
        } => {
            needed[*condition as usize] = true;
            message
                .iter()
                .for_each(|m| m.regs(&mut |r| needed[r as usize] = true));
        }
        Action::Terminate { message } => message
            .iter()
            .for_each(|m| m.regs(&mut |r| needed[r as usize] = true)),
    };
    for w in &p.whens {
        for (c, actions) in &w.branches {
            needed[*c as usize] = true;
            actions.iter().for_each(|a| mark_action(a, &mut needed));
        }
        for &r in w.elements.iter().flatten() {
            needed[r as usize] = true;
        }
    }
    p.always.iter().for_each(|a| mark_action(a, &mut needed));
    p.initial_asserts
        .iter()
        .for_each(|a| mark_action(a, &mut needed));
    p.initial_residuals
        .iter()
        .for_each(|(r, _)| needed[*r as usize] = true);
    p.initial_assigns
        .iter()
        .for_each(|a| needed[a.value as usize] = true);
    // Read by initialization (the sweeps of `v := e`) and by the state-set monitor after each
    // accepted step: without these, the Jacobian entries that are not plain variables or
    // constants (ActuatorWithNoise's `-RotationMatrix[1,2]`) lost their code and read 0, so
    // no choice of states ever looked regular and a singular one was never left.
    p.initial_explicit
        .iter()
        .flatten()
        .for_each(|&(_, e)| needed[e as usize] = true);
    for set in &p.state_sets {
        set.entries
            .iter()
            .for_each(|&(_, _, r)| needed[r as usize] = true);
    }
    let mut keep = vec![false; p.code.len()];
    for (i, ins) in p.code.iter().enumerate().rev() {
        if needed[ins.dst as usize] {
            keep[i] = true;
            let ops = [ins.a, ins.b, ins.c];
            ops[..ins.op.arity()]
                .iter()
                .for_each(|&o| needed[o as usize] = true);
            if ins.op == Op::Call {
                (ins.a..=ins.b).for_each(|o| needed[o as usize] = true);
                needed[ins.c as usize] = true;
            }
        }
    }
    let mut new_index = Vec::with_capacity(p.code.len() + 1);
    let mut n = 0;
    for &k in &keep {
        new_index.push(n);
        n += usize::from(k);
    }
    new_index.push(n);
    let remap = |r: &Range<usize>| new_index[r.start]..new_index[r.end];
    for s in &mut p.steps {
        match s {
            Step::Explicit { code, .. } | Step::Implicit { code, .. } => *code = remap(code),
        }
    }
    p.eliminated = remap(&p.eliminated);
    p.event_code = remap(&p.event_code);
    p.initial_code = remap(&p.initial_code);
    p.state_set_code = remap(&p.state_set_code);
    for w in &mut p.whens {
        w.bodies.iter_mut().for_each(|b| *b = remap(b));
    }
    let mut i = 0;
    p.code.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
