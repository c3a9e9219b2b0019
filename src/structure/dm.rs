//! Diagnostics of structurally singular systems by the Dulmage-Mendelsohn decomposition.
//!
//! From a maximum matching: the over-determined part is everything reachable by alternating
//! paths from an unmatched equation, the under-determined part everything reachable from an
//! unmatched variable. Both are reported with flat names, equation text and source locations,
//! with a hint when the pattern is a known one: a circuit without ground (flow balances that
//! restate each other, potentials free up to a constant) or redundant constraints.

use super::matching::Matching;
use super::print::expr_text;
use super::work::WorkingSystem;
use crate::dae::{EquationKind, FlatModel, VarId};
use crate::diag::Diagnostic;
use std::collections::{BTreeSet, VecDeque};

pub struct Parts {
    pub over_eqs: Vec<usize>,
    pub over_vars: Vec<VarId>,
    pub under_eqs: Vec<usize>,
    pub under_vars: Vec<VarId>,
    pub unmatched_eqs: Vec<usize>,
    pub unmatched_vars: Vec<VarId>,
}

/// The over- and under-determined parts, given a maximum matching over `unknowns`.
pub fn parts(adj: &[Vec<VarId>], unknowns: &[VarId], m: &Matching) -> Parts {
    let unmatched_eqs: Vec<usize> = (0..adj.len())
        .filter(|&e| m.var_of_eq[e].is_none())
        .collect();
    let unmatched_vars: Vec<VarId> = unknowns
        .iter()
        .copied()
        .filter(|&v| m.eq_of_var[v].is_none())
        .collect();
    // Over-determined: eq -> any var -> its matched eq.
    let mut over_eqs = BTreeSet::new();
    let mut over_vars = BTreeSet::new();
    let mut q: VecDeque<usize> = unmatched_eqs.iter().copied().collect();
    over_eqs.extend(unmatched_eqs.iter().copied());
    while let Some(e) = q.pop_front() {
        for &v in &adj[e] {
            if over_vars.insert(v)
                && let Some(f) = m.eq_of_var[v]
                && over_eqs.insert(f)
            {
                q.push_back(f);
            }
        }
    }
    // Under-determined: var -> any eq -> its matched var.
    let mut eqs_of: std::collections::HashMap<VarId, Vec<usize>> = std::collections::HashMap::new();
    for (e, row) in adj.iter().enumerate() {
        for &v in row {
            eqs_of.entry(v).or_default().push(e);
        }
    }
    let mut under_eqs = BTreeSet::new();
    let mut under_vars: BTreeSet<VarId> = unmatched_vars.iter().copied().collect();
    let mut q: VecDeque<VarId> = unmatched_vars.iter().copied().collect();
    while let Some(v) = q.pop_front() {
        for &e in eqs_of.get(&v).map(|x| x.as_slice()).unwrap_or(&[]) {
            if under_eqs.insert(e)
                && let Some(u) = m.var_of_eq[e]
                && under_vars.insert(u)
            {
                q.push_back(u);
            }
        }
    }
    Parts {
        over_eqs: over_eqs.into_iter().collect(),
        over_vars: over_vars.into_iter().collect(),
        under_eqs: under_eqs.into_iter().collect(),
        under_vars: under_vars.into_iter().collect(),
        unmatched_eqs,
        unmatched_vars,
    }
}

/// The equation as the modeler wrote it (flat names), from the flat model.
pub fn equation_text(model: &FlatModel, origin: usize) -> String {
    match model.equations.get(origin).map(|e| &e.kind) {
        Some(EquationKind::Simple { lhs, rhs }) => {
            format!(
                "{} = {}",
                expr_text(lhs, &model.variables),
                expr_text(rhs, &model.variables)
            )
        }
        Some(EquationKind::If { .. }) => "if-equation".to_string(),
        _ => "equation".to_string(),
    }
}

const SHOW: usize = 12;

fn list(items: &[String]) -> String {
    let mut s: Vec<String> = items.iter().take(SHOW).map(|x| format!("`{x}`")).collect();
    if items.len() > SHOW {
        s.push(format!("and {} more", items.len() - SHOW));
    }
    s.join(", ")
}

/// Whether a flat name is a potential of a connector that also carries a flow variable.
fn potentials(work: &WorkingSystem, vars: &[VarId]) -> Vec<VarId> {
    let prefix = |n: &str| {
        n.rsplit_once('.')
            .map(|(p, _)| p.to_string())
            .unwrap_or_default()
    };
    let flow_prefixes: BTreeSet<String> = work
        .model
        .variables
        .iter()
        .filter(|v| v.flow)
        .map(|v| prefix(&v.name))
        .filter(|p| !p.is_empty())
        .collect();
    vars.iter()
        .copied()
        .filter(|&v| {
            let var = &work.model.variables[v];
            !var.flow && flow_prefixes.contains(&prefix(&var.name))
        })
        .collect()
}

/// Whether the equation as written only balances flow variables (a `connect` flow sum).
fn is_flow_balance(work: &WorkingSystem, origin: usize) -> bool {
    let Some(eq) = work.model.equations.get(origin) else {
        return false;
    };
    let EquationKind::Simple { lhs, rhs } = &eq.kind else {
        return false;
    };
    let mut vars = Vec::new();
    super::expr::vars_of(lhs, &mut vars);
    super::expr::vars_of(rhs, &mut vars);
    !vars.is_empty() && vars.iter().all(|&v| work.model.variables[v].flow)
}

/// Builds the diagnostics for a structurally singular system.
pub fn report(
    work: &WorkingSystem,
    adj: &[Vec<VarId>],
    unknowns: &[VarId],
    m: &Matching,
) -> Vec<Diagnostic> {
    let p = parts(adj, unknowns, m);
    let vars = &work.model.variables;
    let name = |v: VarId| vars[v].name.clone();
    let eq_text = |e: usize| {
        let eq = &work.eqs[e];
        let base = equation_text(&work.model, eq.origin);
        if eq.differentiated > 0 {
            format!("der^{}({base})", eq.differentiated)
        } else {
            base
        }
    };
    let counts = format!(
        "the system has {} equations for {} unknowns",
        adj.len(),
        unknowns.len()
    );
    let mut out = Vec::new();
    let over_flow = p
        .over_eqs
        .iter()
        .any(|&e| is_flow_balance(work, work.eqs[e].origin));
    let free_potentials = potentials(work, &p.under_vars);
    let no_ground = over_flow && !free_potentials.is_empty();
    if !p.unmatched_vars.is_empty() {
        let first = p.unmatched_vars[0];
        let names: Vec<String> = p.unmatched_vars.iter().map(|&v| name(v)).collect();
        let mut d = Diagnostic::error(
            vars[first].span,
            if names.len() == 1 {
                format!("no equation determines `{}`", names[0])
            } else {
                format!(
                    "no equation determines {} variables: {}",
                    names.len(),
                    list(&names)
                )
            },
        )
        .with_label("declared here")
        .with_note(counts.clone());
        for &v in p.unmatched_vars.iter().skip(1).take(SHOW) {
            d = d.with_secondary(
                vars[v].span,
                format!("`{}` is not determined either", name(v)),
            );
        }
        let part: Vec<String> = p.under_vars.iter().map(|&v| name(v)).collect();
        if p.under_vars.len() > p.unmatched_vars.len() {
            d = d.with_note(format!(
                "under-determined part: the variables {} share only {} equations",
                list(&part),
                p.under_eqs.len()
            ));
        }
        for &e in p.under_eqs.iter().take(SHOW) {
            d = d.with_secondary(work.eqs[e].span, format!("`{}` involves them", eq_text(e)));
        }
        d = if no_ground {
            let pot: Vec<String> = free_potentials.iter().map(|&v| name(v)).collect();
            d.with_help(format!(
                "no ground: the potential {} (and every potential equal to it) is determined only up to a constant; connect a ground (reference) component to the circuit",
                list(&pot)
            ))
        } else if !p.unmatched_eqs.is_empty() {
            d.with_help("other equations are in excess (see the next message): if these are reaction forces, the constraints that should determine them are redundant, and the reactions are not unique")
        } else {
            d.with_help("add an equation for it, give it a binding (`Real x = ...`), or make it a parameter")
        };
        out.push(d);
    }
    if !p.unmatched_eqs.is_empty() {
        let first = p.unmatched_eqs[0];
        let texts: Vec<String> = p.unmatched_eqs.iter().map(|&e| eq_text(e)).collect();
        let over_vars: Vec<String> = p.over_vars.iter().map(|&v| name(v)).collect();
        let msg = if no_ground {
            "the flow balances of this circuit restate each other (over-determined)".to_string()
        } else if p.over_vars.is_empty() {
            "this equation determines no unknown: it only restates others or fixes known values"
                .to_string()
        } else {
            format!(
                "over-determined: {} equations constrain only {} variables ({})",
                p.over_eqs.len(),
                p.over_vars.len(),
                list(&over_vars)
            )
        };
        let mut d = Diagnostic::error(work.eqs[first].span, msg)
            .with_label(format!("`{}` is redundant", texts[0]))
            .with_note(counts);
        for (&e, t) in p.unmatched_eqs.iter().zip(&texts).skip(1).take(SHOW) {
            d = d.with_secondary(work.eqs[e].span, format!("`{t}` is redundant too"));
        }
        let others: Vec<String> = p
            .over_eqs
            .iter()
            .filter(|e| !p.unmatched_eqs.contains(e))
            .map(|&e| eq_text(e))
            .collect();
        if !others.is_empty() {
            d = d.with_note(format!(
                "they are redundant together with {}",
                list(&others)
            ));
        }
        d = if no_ground {
            d.with_help("a circuit needs a ground: one node with a fixed potential (connect a ground component)")
        } else {
            d.with_help(format!(
                "{} of these constraints are redundant (a duplicated joint or connection, or a closed loop of spatial joints in a planar mechanism): remove them, or use joints that leave the loop's free directions free",
                p.unmatched_eqs.len()
            ))
        };
        out.push(d);
    }
    out
}
