//! The bodies of `when` branches, compiled apart from the event code and run only when their
//! branch fires.
//!
//! The event code runs at every right-hand side that looks at the roots and at every output
//! point, so whatever it holds costs at every integration step. A `when` body is needed only at
//! the event where its branch fires (MLS 8.3.5), and bodies can be large: MSL's `RealFFT`
//! copies a 4000-element buffer into a function call for each of its 804 outputs under
//! `when terminal()`, 3.2 million copies per evaluation when compiled with the event code.
//! So each branch gets its own code range ([`WhenClause::bodies`]), after the event code.
//!
//! Two rules keep the result unchanged:
//! - a body's registers are private: the common-subexpression table forgets every instruction
//!   a body emitted once the body is compiled, so no later code (another body, the initial
//!   code) reads a register that only a fired branch computes;
//! - relations inside a body are plain comparisons (as under `noEvent`): the body is evaluated
//!   at the event instant only, so its relations take the values of that instant and need no
//!   zero-crossing function (their operands may be private registers, stale between firings).

use super::compile::action;
use super::compiler::{Compiler, Key};
use super::engine::Engine;
use super::program::WhenClause;
use super::tape::run;
use crate::dae::EquationKind;
use crate::structure::SortedSystem;
use std::ops::Range;

/// Compiles the actions of every branch of every `when` equation of `sys` (in the order of
/// `whens`, which `event_clauses` built from the same equations with empty bodies).
pub(super) fn compile_bodies(c: &mut Compiler, sys: &SortedSystem, whens: &mut [WhenClause]) {
    let mut k = 0;
    for eq in &sys.discrete_equations {
        let EquationKind::When { branches } = &eq.kind else {
            continue;
        };
        let Some(w) = whens.get_mut(k) else { return };
        k += 1;
        for (b, (_, body)) in branches.iter().enumerate() {
            let (actions, code) =
                private(c, |c| body.iter().filter_map(|e| action(c, e)).collect());
            if let Some(slot) = w.branches.get_mut(b) {
                slot.1 = actions;
            }
            w.bodies.push(code);
        }
    }
}

/// Runs `f` as a private section: relations compare directly, and the instructions it emits
/// leave the common-subexpression table afterwards. Returns `f`'s result and the code range.
fn private<T>(c: &mut Compiler, f: impl FnOnce(&mut Compiler) -> T) -> (T, Range<usize>) {
    let start = c.code.len();
    c.section_start = start;
    c.no_event += 1;
    let copies = c.calls.copies_mark();
    let outer = std::mem::replace(&mut c.in_when_body, true);
    let out = f(c);
    c.in_when_body = outer;
    c.no_event -= 1;
    c.calls.forget_copies_since(copies);
    for i in start..c.code.len() {
        let ins = c.code[i];
        let key = Key(ins.op, ins.a, ins.b, ins.c);
        if c.cse.get(&key) == Some(&ins.dst) {
            c.cse.remove(&key);
        }
    }
    (out, start..c.code.len())
}

/// Computes the action values of branch `b` of `w` (it fires now).
pub(super) fn run_body(engine: &mut Engine, w: &WhenClause, b: usize) {
    if let Some(r) = w.bodies.get(b) {
        run(&engine.prog.code[r.clone()], &mut engine.regs);
    }
}
