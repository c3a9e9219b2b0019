//! What the teaching views show: sizes, aliases, matching, differentiations, states, dummy
//! derivatives, state sets and blocks, all in flat names and equation text.

use super::matching::Matching;
use super::print::{expr_text, residual_text};
use super::tearing::tear_block;
use super::work::WorkingSystem;
use crate::diag::{Diagnostic, Span};
use crate::structure::{BlockKind, SortedSystem};
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct StructureReport {
    pub model: String,
    pub sizes: Sizes,
    /// Eliminated variables with the expression that replaces them.
    pub aliases: Vec<Alias>,
    /// Which variable each equation of the final system is solved for.
    pub matching: Vec<MatchLine>,
    /// Equations differentiated by index reduction.
    pub differentiations: Vec<Differentiation>,
    /// Pantelides' algorithm step by step: each structurally singular subset and what was
    /// differentiated.
    pub pantelides_steps: Vec<PantelidesStepLine>,
    /// The incidence matrix of the index-1 system, unsorted and in BLT order.
    pub incidence: IncidenceView,
    pub states: Vec<String>,
    pub dummy_derivatives: Vec<String>,
    pub state_sets: Vec<StateSetLine>,
    pub blocks: Vec<BlockLine>,
    pub warnings: Vec<Diagnostic>,
    pub timings: Vec<Timing>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Sizes {
    /// Variables of the flat model (parameters included).
    pub variables: usize,
    /// Unknowns of the continuous system as flattened.
    pub unknowns: usize,
    /// Continuous equations as flattened (scalar).
    pub equations: usize,
    pub eliminated: usize,
    /// Equations added by differentiation.
    pub differentiated: usize,
    /// Equations of the final index-1 system.
    pub final_equations: usize,
    pub states: usize,
    pub dummy_derivatives: usize,
    pub blocks: usize,
    pub largest_block: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Alias {
    pub variable: String,
    pub value: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct MatchLine {
    pub equation: String,
    pub variable: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Differentiation {
    pub equation: String,
    pub times: u32,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct PantelidesStepLine {
    /// The equation whose matching failed.
    pub equation: String,
    /// The structurally singular subset: the equations the failed search visited.
    pub singular_equations: Vec<String>,
    /// The highest-derivative unknowns those equations involve (one fewer than equations).
    pub variables: Vec<String>,
    /// The equations differentiated in this step (as they were before differentiation).
    pub differentiated: Vec<String>,
    /// The unknowns replaced by their derivatives.
    pub new_derivatives: Vec<String>,
    /// Why, in words.
    pub reason: String,
}

/// The incidence matrix of the final (index-1) system: rows are equations, columns the unknowns
/// (states are known). `order_*` give the BLT order: position -> index.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IncidenceView {
    pub equations: Vec<String>,
    pub variables: Vec<String>,
    pub entries: Vec<IncidenceEntry>,
    pub sorted_rows: Vec<usize>,
    pub sorted_cols: Vec<usize>,
    /// Blocks in the sorted matrix: first position and size, in evaluation order.
    pub blocks: Vec<BlockSpan>,
}

#[derive(Clone, Debug, Serialize)]
pub struct IncidenceEntry {
    pub row: usize,
    pub col: usize,
    /// Enters linearly (a constant or known coefficient) or not.
    pub linear: bool,
    /// The matching pairs this equation with this unknown.
    pub matched: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct BlockSpan {
    pub start: usize,
    pub size: usize,
    pub kind: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StateSetLine {
    pub equations: Vec<String>,
    pub candidates: Vec<String>,
    pub dummies: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BlockLine {
    /// `explicit`, `linear` or `nonlinear`.
    pub kind: String,
    pub variables: Vec<String>,
    pub equations: Vec<String>,
    /// For explicit blocks: `var := expression`.
    pub solved: Option<String>,
    /// For linear blocks the simulation solves torn: the tearing variables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn: Option<Vec<String>>,
    pub spans: Vec<Span>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub phase: String,
    pub seconds: f64,
}

pub(super) fn build(
    work: &WorkingSystem,
    sys: &SortedSystem,
    m: &Matching,
    adj: &[Vec<usize>],
    warnings: Vec<Diagnostic>,
) -> StructureReport {
    let vars = &sys.model.variables;
    let name = |v: usize| vars.get(v).map(|x| x.name.clone()).unwrap_or_default();
    // Each equation printed once, shared by the matching, blocks and differentiations.
    let texts: Vec<String> = sys
        .equations
        .iter()
        .map(|e| residual_text(&e.residual, vars))
        .collect();
    let eq_text = |e: usize| texts[e].clone();
    let mut differentiations = Vec::new();
    for e in 0..work.eqs.len() {
        if work.eq_parent[e].is_none() && work.eq_deriv[e].is_some() {
            let mut times = 0;
            let mut cur = e;
            while let Some(d) = work.eq_deriv[cur] {
                times += 1;
                cur = d;
            }
            differentiations.push(Differentiation {
                equation: eq_text(e),
                times,
                span: work.eqs[e].span,
            });
        }
    }
    let pantelides_steps = work
        .pantelides_steps
        .iter()
        .map(|st| {
            let eqs: Vec<String> = st.equations.iter().map(|&e| eq_text(e)).collect();
            let vs: Vec<String> = st.variables.iter().map(|&v| name(v)).collect();
            let news: Vec<String> = st
                .variables
                .iter()
                .filter_map(|&v| work.deriv.get(v).copied().flatten().map(name))
                .collect();
            let reason = if vs.is_empty() {
                format!(
                    "`{}` cannot be matched: it involves no highest-derivative unknown (every unknown in it also appears differentiated), so it is a structurally singular set of one equation: a constraint on variables whose derivatives are already determined; it is differentiated",
                    eq_text(st.equation)
                )
            } else {
                format!(
                    "`{}` cannot be matched: with {} other equation(s) it involves only the {} highest-derivative unknown(s) {{{}}}, so these {} equations are a structurally singular subset (more equations than unknowns); they are hidden constraints, so each is differentiated and each of those unknowns is replaced by its derivative",
                    eq_text(st.equation),
                    eqs.len().saturating_sub(1),
                    vs.len(),
                    vs.join(", "),
                    eqs.len()
                )
            };
            PantelidesStepLine {
                equation: eq_text(st.equation),
                singular_equations: eqs,
                variables: vs,
                differentiated: st.differentiated.iter().map(|&(e, _)| eq_text(e)).collect(),
                new_derivatives: news,
                reason,
            }
        })
        .collect();
    let incidence = incidence_view(sys, m, adj, &texts);
    let blocks: Vec<BlockLine> = sys
        .blocks
        .iter()
        .map(|b| BlockLine {
            kind: match b.kind {
                BlockKind::Explicit { .. } => "explicit",
                BlockKind::Linear => "linear",
                BlockKind::Nonlinear => "nonlinear",
            }
            .to_string(),
            variables: b.vars.iter().map(|&v| name(v)).collect(),
            equations: b.equations.iter().map(|&e| eq_text(e)).collect(),
            solved: match &b.kind {
                BlockKind::Explicit { expr } => {
                    Some(format!("{} := {}", name(b.vars[0]), expr_text(expr, vars)))
                }
                _ => None,
            },
            torn: tear_block(&sys.equations, b).map(|t| t.tears.iter().map(|&v| name(v)).collect()),
            spans: b.equations.iter().map(|&e| sys.equations[e].span).collect(),
        })
        .collect();
    let sizes = Sizes {
        variables: 0,
        unknowns: 0,
        equations: 0,
        eliminated: sys.eliminated.len(),
        differentiated: work.eq_parent.iter().filter(|p| p.is_some()).count(),
        final_equations: sys.equations.len(),
        states: sys.states.len(),
        dummy_derivatives: sys.dummy_derivatives.len(),
        blocks: sys.blocks.len(),
        largest_block: sys
            .blocks
            .iter()
            .map(|b| b.equations.len())
            .max()
            .unwrap_or(0),
    };
    StructureReport {
        model: sys.model.name.clone(),
        sizes,
        aliases: sys
            .eliminated
            .iter()
            .map(|(v, e)| Alias {
                variable: name(*v),
                value: expr_text(e, vars),
            })
            .collect(),
        matching: (0..sys.equations.len())
            .filter_map(|e| {
                m.var_of_eq[e].map(|v| MatchLine {
                    equation: eq_text(e),
                    variable: name(v),
                })
            })
            .collect(),
        differentiations,
        pantelides_steps,
        incidence,
        states: sys.states.iter().map(|s| name(s.var)).collect(),
        dummy_derivatives: sys.dummy_derivatives.iter().map(|&v| name(v)).collect(),
        state_sets: sys
            .state_sets
            .iter()
            .map(|s| StateSetLine {
                equations: s.equations.iter().map(|&e| eq_text(e)).collect(),
                candidates: s.candidates.iter().map(|&v| name(v)).collect(),
                dummies: s.dummies.iter().map(|&v| name(v)).collect(),
            })
            .collect(),
        blocks,
        warnings,
        timings: Vec::new(),
    }
}

/// The incidence matrix of the sorted system, with the BLT order and the matching.
fn incidence_view(
    sys: &SortedSystem,
    m: &Matching,
    adj: &[Vec<usize>],
    texts: &[String],
) -> IncidenceView {
    let vars = &sys.model.variables;
    // Columns: the unknowns the rows mention, in variable order.
    let mut cols: Vec<usize> = adj.iter().flatten().copied().collect();
    cols.sort_unstable();
    cols.dedup();
    let col_of: std::collections::BTreeMap<usize, usize> =
        cols.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut entries = Vec::new();
    for (e, row) in adj.iter().enumerate() {
        let Some(eq) = sys.equations.get(e) else {
            continue;
        };
        let known = |v: usize| col_of.contains_key(&v);
        let lin = super::incidence::incidence(&eq.residual, &known);
        let mut row = row.clone();
        row.sort_unstable();
        row.dedup();
        for v in row {
            let Some(&c) = col_of.get(&v) else { continue };
            entries.push(IncidenceEntry {
                row: e,
                col: c,
                linear: !matches!(lin.get(&v), Some(super::incidence::Lin::Nonlinear)),
                matched: m.var_of_eq.get(e).copied().flatten() == Some(v),
            });
        }
    }
    let mut sorted_rows = Vec::new();
    let mut sorted_cols = Vec::new();
    let mut blocks = Vec::new();
    for b in &sys.blocks {
        blocks.push(BlockSpan {
            start: sorted_rows.len(),
            size: b.equations.len(),
            kind: match b.kind {
                BlockKind::Explicit { .. } => "explicit",
                BlockKind::Linear => "linear",
                BlockKind::Nonlinear => "nonlinear",
            }
            .to_string(),
        });
        sorted_rows.extend(b.equations.iter().copied());
        sorted_cols.extend(b.vars.iter().filter_map(|v| col_of.get(v).copied()));
    }
    IncidenceView {
        equations: texts.to_vec(),
        variables: cols.iter().map(|&v| vars[v].name.clone()).collect(),
        entries,
        sorted_rows,
        sorted_cols,
        blocks,
    }
}
