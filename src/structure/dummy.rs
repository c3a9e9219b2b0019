//! State selection by dummy derivatives (Mattsson & Söderlind 1993).
//!
//! Level 1: the rows are the highest-order differentiated equations, the columns the
//! highest-order derivative variables. As many columns as rows are chosen such that the square
//! submatrix is structurally nonsingular; the chosen derivatives become dummy (algebraic).
//! Level i+1: the rows are the equations those rows were differentiated from (when they are
//! themselves differentiated), the columns the variables the chosen columns are derivatives of.
//! Stop when no differentiated equation is left.
//!
//! The choice among columns is a greedy basis of a transversal matroid: columns are tried from
//! the most to the least dummy-worthy, and a column is kept when an augmenting path makes room
//! for it. The order ranks the base variable of each derivative chain by `stateSelect`, then by
//! the simulator's preference ([`super::reselect`]), a `fixed` start, being written under
//! `der()`, and finally declaration order (earlier declared variables are preferred as states).
//! Ranking by the base variable keeps the levels consistent: when `der(x)` is dummy at one level,
//! `der(der(x))` is at the level above.

use super::derivative::{Partial, diff};
use super::expr::{is_zero, num, simplify};
use super::incidence::incidence;
use super::matching::{Augmenter, Matching};
use super::work::Work;
use crate::dae::{Expr, StateSelect, VarId};
use crate::diag::Diagnostic;
use crate::structure::StateSet;
use std::collections::BTreeSet;

pub struct Selection {
    pub dummies: Vec<VarId>,
    pub states: Vec<VarId>,
    pub state_sets: Vec<StateSet>,
    pub warnings: Vec<Diagnostic>,
}

/// State preference of a base variable (higher = rather a state).
fn state_rank(
    work: &Work,
    prefer: &BTreeSet<VarId>,
    v: VarId,
) -> (
    u8,
    bool,
    bool,
    std::cmp::Reverse<u32>,
    std::cmp::Reverse<VarId>,
) {
    let (root, order) = work.root(v);
    let var = &work.model.variables[root];
    let select = match var.state_select {
        StateSelect::Never => 0,
        StateSelect::Avoid => 1,
        StateSelect::Default => 2,
        StateSelect::Prefer => 3,
        StateSelect::Always => 5,
    };
    // The simulator's preference overrides every hint except `always`.
    let select = if prefer.contains(&root) && select < 5 {
        4
    } else {
        select
    };
    // Among equals, higher derivatives go first, so `x` and `v = der(x)` end up the states rather
    // than `x` and `der(x)`.
    (
        select,
        var.fixed == Some(true),
        work.in_der[root],
        std::cmp::Reverse(order),
        std::cmp::Reverse(root),
    )
}

pub fn select(work: &Work, prefer: &[VarId]) -> Result<Selection, Vec<Diagnostic>> {
    let prefer: BTreeSet<VarId> = prefer.iter().copied().collect();
    let n_eqs = work.eqs.len();
    let mut rows: Vec<usize> = (0..n_eqs)
        .filter(|&e| work.eq_deriv[e].is_none() && work.eq_parent[e].is_some())
        .collect();
    let mut cols: Vec<VarId> = (0..work.model.variables.len())
        .filter(|&v| {
            work.is_unknown(v)
                && work.deriv[v].is_none()
                && work.model.variables[v].derivative_of.is_some()
        })
        .collect();
    let mut dummies: Vec<VarId> = Vec::new();
    let mut state_sets = Vec::new();
    let mut warnings = Vec::new();
    let point = if rows.is_empty() {
        None
    } else {
        Some(super::redundancy::Point::generic(work))
    };
    while !rows.is_empty() {
        if let Some(point) = &point
            && let Some(dep) = super::redundancy::dependent_rows(work, point, &rows, &cols)
            && !dep.is_empty()
        {
            return Err(redundant(work, &rows, &dep));
        }
        // Columns from the most dummy-worthy (lowest state rank) to the least.
        cols.sort_by_key(|&v| state_rank(work, &prefer, v));
        let col_pos: std::collections::HashMap<VarId, usize> =
            cols.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        // Transposed incidence: column -> rows (local indices).
        let mut adj_t: Vec<Vec<usize>> = vec![Vec::new(); cols.len()];
        let mut rows_of: Vec<Vec<(usize, VarId)>> = Vec::with_capacity(rows.len());
        for (ri, &e) in rows.iter().enumerate() {
            let in_cols = |v: VarId| col_pos.contains_key(&v);
            let inc = incidence(&work.eqs[e].residual, &in_cols);
            let mut r = Vec::new();
            for v in inc.into_keys() {
                if let Some(&ci) = col_pos.get(&v) {
                    adj_t[ci].push(ri);
                    r.push((ci, v));
                }
            }
            rows_of.push(r);
        }
        let mut m = Matching::new(cols.len(), rows.len());
        let mut aug = Augmenter::default();
        let mut chosen = 0;
        for ci in 0..cols.len() {
            if chosen == rows.len() {
                break;
            }
            if aug.augment(&adj_t, &|_| true, &mut m, ci) {
                chosen += 1;
            }
        }
        if chosen < rows.len() {
            let unmatched: Vec<usize> = (0..rows.len())
                .filter(|&r| m.eq_of_var[r].is_none())
                .map(|r| rows[r])
                .collect();
            return Err(lacking_state(work, &unmatched));
        }
        let selected: Vec<VarId> = (0..cols.len())
            .filter(|&ci| m.var_of_eq[ci].is_some())
            .map(|ci| cols[ci])
            .collect();
        // A real choice with state-dependent coefficients: record it for dynamic selection.
        let involved: BTreeSet<usize> = rows_of
            .iter()
            .flat_map(|r| r.iter().map(|(ci, _)| *ci))
            .collect();
        if involved.len() > rows.len() {
            let mut cands: Vec<VarId> = involved.iter().map(|&ci| cols[ci]).collect();
            cands.sort_unstable();
            if let Some(set) = state_set(work, &rows, &cands, &selected)
                && set.jacobian.iter().any(|(_, _, e)| num(e).is_none())
            {
                state_sets.push(set);
            }
        }
        for &v in &selected {
            let (root, _) = work.root(v);
            if work.model.variables[root].state_select == StateSelect::Always {
                warnings.push(
                    Diagnostic::warning(
                        work.model.variables[root].span,
                        format!(
                            "`{}` has stateSelect = StateSelect.always but cannot be a state: its derivative is fixed by constraints",
                            work.model.variables[root].name
                        ),
                    )
                    .with_help("give stateSelect = always to fewer of the constrained variables"),
                );
            }
        }
        dummies.extend(selected.iter().copied());
        // Next level.
        rows = rows
            .iter()
            .filter_map(|&e| work.eq_parent[e])
            .filter(|&p| work.eq_parent[p].is_some())
            .collect();
        cols = selected
            .iter()
            .filter_map(|&v| work.model.variables[v].derivative_of)
            .filter(|&p| work.model.variables[p].derivative_of.is_some())
            .collect();
    }
    dummies.sort_unstable();
    let is_dummy = |v: VarId| dummies.binary_search(&v).is_ok();
    let states: Vec<VarId> = (0..work.model.variables.len())
        .filter(|&v| work.is_unknown(v) && work.deriv[v].is_some_and(|d| !is_dummy(d)))
        .collect();
    for &s in &states {
        let var = &work.model.variables[s];
        if var.state_select == StateSelect::Never {
            warnings.push(Diagnostic::warning(
                var.span,
                format!(
                    "`{}` has stateSelect = StateSelect.never but had to be chosen as a state",
                    var.name
                ),
            ));
        }
    }
    // Record the sets with the lowest level first: that is where the simulator should look.
    state_sets.reverse();
    Ok(Selection {
        dummies,
        states,
        state_sets,
        warnings,
    })
}

fn state_set(
    work: &Work,
    rows: &[usize],
    candidates: &[VarId],
    selected: &[VarId],
) -> Option<StateSet> {
    let mut jacobian = Vec::new();
    // Partials of user functions exist already: index reduction generated them.
    let mut existing =
        |f: &str, args: &[Expr], output: usize, _: usize, k: usize| -> Result<Expr, String> {
            let name = super::userfn::partial_name(f, output, k);
            if work.model.functions.contains_key(&name) {
                Ok(Expr::UserCall {
                    function: name,
                    args: args.to_vec(),
                    output: 0,
                    element: 0,
                })
            } else {
                Err(format!("no derivative of {f}"))
            }
        };
    for (ri, &e) in rows.iter().enumerate() {
        for (ci, &v) in candidates.iter().enumerate() {
            let d = diff(
                &work.eqs[e].residual,
                &mut Partial {
                    var: v,
                    user: &mut existing,
                },
            )
            .ok()?;
            let d = simplify(&d);
            if !is_zero(&d) {
                jacobian.push((ri, ci, d));
            }
        }
    }
    Some(StateSet {
        equations: rows.to_vec(),
        candidates: candidates.to_vec(),
        candidate_states: candidates
            .iter()
            .map(|&v| work.model.variables[v].derivative_of.unwrap_or(v))
            .collect(),
        dummies: selected
            .iter()
            .copied()
            .filter(|v| candidates.contains(v))
            .collect(),
        jacobian,
    })
}

fn lacking_state(work: &Work, unmatched: &[usize]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &e in unmatched {
        let eq = &work.eqs[e];
        let text = super::print::residual_text(
            &work.eqs[eq_origin_root(work, e)].residual,
            &work.model.variables,
        );
        out.push(
            Diagnostic::error(eq.span, "after index reduction this constraint has no state left to trade")
                .with_label(format!("`{text}` (differentiated {} times)", eq.differentiated))
                .with_note("each constraint on positions or velocities removes one state; here every variable it constrains is already fixed by other constraints or is not a state candidate")
                .with_help("check for a duplicated or redundant constraint, or a `stateSelect = StateSelect.never` on the constrained variables"),
        );
    }
    out
}

fn redundant(work: &Work, rows: &[usize], dep: &[usize]) -> Vec<Diagnostic> {
    let text = |e: usize| super::dm::equation_text(&work.model, work.eqs[e].origin);
    let first = rows[dep[0]];
    let others: Vec<String> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| !dep.contains(i))
        .map(|(_, &e)| format!("`{}`", text(e)))
        .take(12)
        .collect();
    let mut d = Diagnostic::error(
        work.eqs[first].span,
        format!(
            "redundant constraints: {} constraint equation(s) depend on the others",
            dep.len()
        ),
    )
    .with_label(format!(
        "`{}` is implied by the other constraints",
        text(first)
    ));
    for &i in dep.iter().skip(1).take(12) {
        let e = rows[i];
        d = d.with_secondary(work.eqs[e].span, format!("`{}` is redundant too", text(e)));
    }
    d.with_note(format!("independent constraints: {}", others.join(", ")))
        .with_note("with redundant constraints the motion can still be unique, but the reaction forces are not (Wojtyra & Frączek 2013)")
        .with_help("remove the duplicated joint or constraint, or build the closed loop from joints that leave its redundant directions free")
        .pipe_vec()
}

trait PipeVec {
    fn pipe_vec(self) -> Vec<Diagnostic>;
}

impl PipeVec for Diagnostic {
    fn pipe_vec(self) -> Vec<Diagnostic> {
        vec![self]
    }
}

fn eq_origin_root(work: &Work, mut e: usize) -> usize {
    while let Some(p) = work.eq_parent[e] {
        e = p;
    }
    e
}
