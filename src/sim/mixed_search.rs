//! Mixed loops at events: when the event iteration cycles, the relations of the loop that
//! cycles are searched for a combination that agrees with the values it gives.
//!
//! The event iteration (MLS 8.6) is a fixed-point iteration: solve the continuous equations
//! with the relations fixed, evaluate the relations again, repeat. A loop with more than one
//! relation can cycle without reaching the solution: a limited op-amp in positive feedback
//! (a Schmitt trigger) at its switching instant has `V0*v_in < vns` true in the saturated mode
//! and false in the linear mode, each mode giving the other, while only the other saturation
//! (`V0*v_in > vps`) is consistent. As the mixed-system solvers of Modelica tools do, the
//! relations that the cycling relation's equations read are then tried in combination, fewest
//! changes first, and the first combination that every one of them agrees with is taken.

use super::engine::{BlockError, Engine};
use super::program::Step;
use super::tape::apply;

/// At most this many relations are searched (2^10 main passes at one event at worst); a larger
/// loop is left to the event iteration, which reports the chattering.
const MAX_RELATIONS: usize = 10;

/// The values of every relation register, to recognise a cycle.
pub fn relation_values(engine: &Engine) -> Vec<bool> {
    engine
        .prog
        .relations
        .iter()
        .map(|r| engine.regs[r.reg as usize] != 0.0)
        .collect()
}

/// Searches the relations of the loop of `relation` for a consistent combination; on success
/// the registers hold it (main pass run) and `true` is returned, otherwise everything is as it
/// was.
pub fn resolve(engine: &mut Engine, relation: usize) -> Result<bool, BlockError> {
    let members = loop_relations(engine, relation);
    if members.len() > MAX_RELATIONS || members.is_empty() {
        return Ok(false);
    }
    let regs: Vec<usize> = members
        .iter()
        .map(|&i| engine.prog.relations[i].reg as usize)
        .collect();
    let start: Vec<f64> = regs.iter().map(|&r| engine.regs[r]).collect();
    let mut masks: Vec<u32> = (1..(1u32 << members.len())).collect();
    masks.sort_by_key(|m| m.count_ones());
    for mask in masks {
        for (k, &r) in regs.iter().enumerate() {
            let flip = mask & (1 << k) != 0;
            engine.regs[r] = if flip { 1.0 - start[k] } else { start[k] };
        }
        // A combination whose loop has no solution is not a candidate.
        if engine.run_main().is_err() {
            continue;
        }
        engine.run_outputs();
        let agrees = members.iter().all(|&i| {
            let r = &engine.prog.relations[i];
            apply(
                r.op,
                engine.regs[r.a as usize],
                engine.regs[r.b as usize],
                0.0,
            ) == engine.regs[r.reg as usize]
        });
        if agrees {
            return Ok(true);
        }
    }
    for (k, &r) in regs.iter().enumerate() {
        engine.regs[r] = start[k];
    }
    engine.run_main()?;
    engine.run_outputs();
    Ok(false)
}

/// The relations read by the steps that read `relation` (directly, or through the discrete
/// variables that explicit steps compute from it): the relations of its mixed loop.
fn loop_relations(engine: &Engine, relation: usize) -> Vec<usize> {
    let p = &engine.prog;
    let mut watched = vec![p.relations[relation].reg];
    let mut steps: Vec<usize> = Vec::new();
    // Bounded closure: each round adds the variables of explicit steps that read a watched
    // register; a chain longer than the step count cannot add more.
    for _ in 0..p.steps.len().min(8) {
        let mut grew = false;
        for (si, s) in p.steps.iter().enumerate() {
            if steps.contains(&si) {
                continue;
            }
            let (Step::Explicit { code, .. } | Step::Implicit { code, .. }) = s;
            if p.code[code.clone()]
                .iter()
                .any(|i| i.reads().any(|r| watched.contains(&r)))
            {
                steps.push(si);
                grew = true;
                if let Step::Explicit { var, .. } = s {
                    watched.push(*var as u32);
                }
            }
        }
        if !grew {
            break;
        }
    }
    let relation_regs: Vec<u32> = p.relations.iter().map(|r| r.reg).collect();
    let mut members: Vec<usize> = Vec::new();
    for &si in &steps {
        let (Step::Explicit { code, .. } | Step::Implicit { code, .. }) = &p.steps[si];
        for i in &p.code[code.clone()] {
            for r in i.reads() {
                if let Some(k) = relation_regs.iter().position(|&x| x == r)
                    && !members.contains(&k)
                {
                    members.push(k);
                }
            }
        }
    }
    members.sort_unstable();
    members
}
