//! Sparsity of the state Jacobian, from the structure of the compiled program.
//!
//! Dependencies are propagated as sets of state indices through the tape: an explicit step's
//! variable depends on the union of its operands; every unknown of an algebraic loop depends on
//! the union over the loop's residuals. Both branches of every `if` count, so the pattern holds
//! whichever branch is active (guessing it by pushing NaNs through the right-hand side would miss
//! the inactive branch).

use super::program::{Program, Step};
use super::tape::{run_deps, union};

/// Non-zero `(row, column)` entries of `d der(x_row) / d x_col`, sorted.
pub fn state_jacobian_pattern(p: &Program) -> Vec<(usize, usize)> {
    let ders: Vec<usize> = p.states.iter().map(|&(_, d)| d).collect();
    register_pattern(p, &ders)
}

/// Non-zero `(row, column)` entries of `d regs[rows[row]] / d x_col` after the main pass, sorted.
pub fn register_pattern(p: &Program, rows: &[usize]) -> Vec<(usize, usize)> {
    let deps = propagate(p);
    let mut out = Vec::new();
    for (row, &r) in rows.iter().enumerate() {
        for &col in &deps[r] {
            out.push((row, col as usize));
        }
    }
    out
}

/// The states every register depends on after the whole program (main pass, eliminated
/// variables, event code, initial residuals): what initialization needs to know which states
/// an initial equation or a `fixed` variable constrains.
/// The registers `extra` (parameters with `fixed = false`, unknowns of the initial system too)
/// count as the states `p.states.len() + k`.
pub fn initial_deps(p: &Program, extra: &[usize]) -> Vec<Vec<u32>> {
    let mut deps = propagate_from(p, extra);
    run_deps(&p.code[p.eliminated.clone()], &mut deps);
    run_deps(&p.code[p.event_code.clone()], &mut deps);
    run_deps(&p.code[p.initial_code.clone()], &mut deps);
    deps
}

/// State dependencies of every register after the main pass.
fn propagate(p: &Program) -> Vec<Vec<u32>> {
    propagate_from(p, &[])
}

fn propagate_from(p: &Program, extra: &[usize]) -> Vec<Vec<u32>> {
    let mut deps: Vec<Vec<u32>> = vec![Vec::new(); p.nregs()];
    for (i, &(x, _)) in p.states.iter().enumerate() {
        deps[x] = vec![i as u32];
    }
    for (k, &x) in extra.iter().enumerate() {
        if let Some(d) = deps.get_mut(x) {
            *d = vec![(p.states.len() + k) as u32];
        }
    }
    for step in &p.steps {
        match step {
            Step::Explicit { code, .. } => run_deps(&p.code[code.clone()], &mut deps),
            Step::Implicit {
                code,
                vars,
                residuals,
                ..
            } => {
                let c = &p.code[code.clone()];
                for &z in vars {
                    deps[z] = Vec::new();
                }
                run_deps(c, &mut deps);
                let mut all = Vec::new();
                for &r in residuals {
                    all = union(&all, &deps[r as usize]);
                }
                for &z in vars {
                    deps[z] = all.clone();
                }
                run_deps(c, &mut deps);
            }
        }
    }
    deps
}
