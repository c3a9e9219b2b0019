//! Teaching views of an [`Analysis`]: text, JSON and Graphviz.

use super::incidence::{BipartiteGraph, Lin, Node, incidence};
use super::{Analysis, BlockKind};
use crate::diag::SourceMap;
use std::fmt::Write;

/// The text view printed by `minimo structure`.
pub fn text(a: &Analysis, sources: &SourceMap, timings: bool) -> String {
    let r = &a.report;
    let s = &r.sizes;
    let mut o = String::new();
    let _ = writeln!(o, "model {}", r.model);
    let _ = writeln!(
        o,
        "  {} variables, {} unknowns, {} equations as flattened",
        s.variables, s.unknowns, s.equations
    );
    let _ = writeln!(
        o,
        "  {} eliminated as aliases, {} equations added by differentiation, {} equations in the index-1 system",
        s.eliminated, s.differentiated, s.final_equations
    );
    if !r.aliases.is_empty() {
        let _ = writeln!(o, "\nAliases eliminated ({}):", r.aliases.len());
        for al in &r.aliases {
            let _ = writeln!(o, "  {} = {}", al.variable, al.value);
        }
    }
    let _ = writeln!(o, "\nMatching (equation -> variable it determines):");
    for m in &r.matching {
        let _ = writeln!(o, "  {}   -> {}", m.equation, m.variable);
    }
    let _ = writeln!(o, "\nIndex reduction (Pantelides):");
    if r.differentiations.is_empty() {
        let _ = writeln!(o, "  no equation needed differentiation (index 1 or 0)");
    } else {
        let k = r
            .differentiations
            .iter()
            .map(|d| d.times)
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            o,
            "  structural index {}: some equation is differentiated {k} time(s)",
            k + 1
        );
    }
    for d in &r.differentiations {
        let loc = if d.span.is_dummy() {
            String::new()
        } else {
            format!("  [{}]", sources.location(d.span))
        };
        let times = if d.times == 1 {
            "once".to_string()
        } else {
            format!("{} times", d.times)
        };
        let _ = writeln!(o, "  differentiated {times}: {}{loc}", d.equation);
    }
    for (k, st) in r.pantelides_steps.iter().enumerate() {
        let _ = writeln!(o, "  step {}: {}", k + 1, st.reason);
        let _ = writeln!(
            o,
            "          differentiated: {}; new unknowns: {}",
            st.differentiated.join("; "),
            st.new_derivatives.join(", ")
        );
    }
    let _ = writeln!(o, "\nStates ({}): {}", r.states.len(), r.states.join(", "));
    let _ = writeln!(
        o,
        "Dummy derivatives ({}): {}",
        r.dummy_derivatives.len(),
        r.dummy_derivatives.join(", ")
    );
    for set in &r.state_sets {
        let _ = writeln!(
            o,
            "State set: {} of {{{}}} are dummy derivatives, decided by the Jacobian of {}; chosen now: {}",
            set.equations.len(),
            set.candidates.join(", "),
            set.equations.join("; "),
            set.dummies.join(", ")
        );
    }
    let _ = writeln!(o, "\nBlocks ({}, in evaluation order):", r.blocks.len());
    for (i, b) in r.blocks.iter().enumerate() {
        match &b.solved {
            Some(solved) => {
                let _ = writeln!(o, "  {:>3}. explicit: {solved}", i + 1);
            }
            None => {
                let _ = writeln!(
                    o,
                    "  {:>3}. {} system of {} equations for {}:",
                    i + 1,
                    b.kind,
                    b.equations.len(),
                    b.variables.join(", ")
                );
                if let Some(tears) = &b.torn {
                    let _ = writeln!(
                        o,
                        "       torn: the other unknowns follow one equation at a time from these {}: {}",
                        tears.len(),
                        tears.join(", ")
                    );
                }
                for e in &b.equations {
                    let _ = writeln!(o, "         {e}");
                }
            }
        }
    }
    o.push_str(&matrix_text(&r.incidence, false));
    o.push_str(&matrix_text(&r.incidence, true));
    if timings {
        let _ = writeln!(o, "\nTimings:");
        for t in &r.timings {
            let _ = writeln!(o, "  {:<20} {:>10.3} ms", t.phase, t.seconds * 1e3);
        }
    }
    o
}

/// Largest incidence matrix the text view draws.
pub const TEXT_MATRIX_LIMIT: usize = 60;

/// The incidence matrix as characters: `#` matched, `x` linear, `~` nonlinear; sorted: blocks
/// separated by `|` and `-`.
fn matrix_text(m: &super::IncidenceView, sorted: bool) -> String {
    let mut o = String::new();
    let (n, k) = (m.equations.len(), m.variables.len());
    if n == 0 || n > TEXT_MATRIX_LIMIT || k > TEXT_MATRIX_LIMIT {
        return o;
    }
    let rows: Vec<usize> = if sorted {
        m.sorted_rows.clone()
    } else {
        (0..n).collect()
    };
    let cols: Vec<usize> = if sorted {
        m.sorted_cols.clone()
    } else {
        (0..k).collect()
    };
    let mut cell = vec![vec!['.'; k]; n];
    for e in &m.entries {
        cell[e.row][e.col] = if e.matched {
            '#'
        } else if e.linear {
            'x'
        } else {
            '~'
        };
    }
    let _ = writeln!(
        o,
        "\nIncidence matrix{} (# matched, x linear, ~ nonlinear{}):",
        if sorted {
            " in BLT order"
        } else {
            " as stated"
        },
        if sorted { ", blocks boxed" } else { "" }
    );
    let mut ends = std::collections::BTreeSet::new();
    if sorted {
        for b in &m.blocks {
            ends.insert(b.start + b.size);
        }
    }
    for (i, c) in cols.iter().enumerate() {
        let _ = writeln!(o, "  column {:>3}: {}", i + 1, m.variables[*c]);
    }
    for (pos, &r) in rows.iter().enumerate() {
        let mut line = String::new();
        for (cp, &c) in cols.iter().enumerate() {
            line.push(cell[r][c]);
            if sorted && ends.contains(&(cp + 1)) && cp + 1 < cols.len() {
                line.push('|');
            }
        }
        let _ = writeln!(o, "  e{:<4}{line}  {}", r + 1, m.equations[r]);
        if sorted && ends.contains(&(pos + 1)) && pos + 1 < rows.len() {
            let _ = writeln!(o, "       {}", "-".repeat(cols.len() + ends.len() - 1));
        }
    }
    o
}

/// The report as JSON.
pub fn json(a: &Analysis) -> String {
    serde_json::to_string_pretty(&a.report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The bipartite graph of the final system for Graphviz: equations are boxes, variables
/// ellipses (states grey), matched edges bold, nonlinear incidences dashed, one cluster per block.
pub fn dot(a: &Analysis) -> String {
    let sys = &a.system;
    let vars = &sys.model.variables;
    let mut is_state = vec![false; vars.len()];
    for s in &sys.states {
        is_state[s.var] = true;
    }
    let rows: Vec<Vec<(usize, Lin)>> = sys
        .equations
        .iter()
        .map(|e| {
            incidence(&e.residual, &|v: usize| v < vars.len())
                .into_iter()
                .filter(|(v, _)| {
                    !matches!(
                        vars[*v].variability,
                        crate::dae::Variability::Parameter | crate::dae::Variability::Constant
                    )
                })
                .collect()
        })
        .collect();
    let g = BipartiteGraph::build(&rows);
    let mut o =
        String::from("graph structure {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
    for (i, b) in sys.blocks.iter().enumerate() {
        let kind = match b.kind {
            BlockKind::Explicit { .. } => "explicit",
            BlockKind::Linear => "linear",
            BlockKind::Nonlinear => "nonlinear",
        };
        let _ = writeln!(
            o,
            "  subgraph cluster_{i} {{\n    label=\"block {} ({kind})\";",
            i + 1
        );
        for &e in &b.equations {
            let text = super::print::residual_text(&sys.equations[e].residual, vars);
            let _ = writeln!(o, "    e{e} [shape=box, label=\"{}\"];", esc(&text));
        }
        for &v in &b.vars {
            let _ = writeln!(
                o,
                "    v{v} [shape=ellipse, label=\"{}\"];",
                esc(&vars[v].name)
            );
        }
        o.push_str("  }\n");
    }
    for (&v, _) in g.var_nodes.iter() {
        if is_state[v] {
            let _ = writeln!(
                o,
                "  v{v} [shape=ellipse, style=filled, fillcolor=lightgrey, label=\"{} (state)\"];",
                esc(&vars[v].name)
            );
        }
    }
    // Matched pairs from the block structure: one variable per equation, in block order.
    let mut pair = std::collections::BTreeMap::new();
    for b in &sys.blocks {
        for (&e, &v) in b.equations.iter().zip(&b.vars) {
            pair.insert(e, v);
        }
    }
    for edge in g.graph.edge_indices() {
        let Some((a_, b_)) = g.graph.edge_endpoints(edge) else {
            continue;
        };
        let (Node::Equation(e), Node::Variable(v)) = (&g.graph[a_], &g.graph[b_]) else {
            continue;
        };
        let lin = g.graph[edge];
        let mut attrs = Vec::new();
        if pair.get(e) == Some(v) {
            attrs.push("penwidth=3");
        }
        if lin == Lin::Nonlinear {
            attrs.push("style=dashed");
        }
        let _ = writeln!(
            o,
            "  e{e} -- v{v}{};",
            if attrs.is_empty() {
                String::new()
            } else {
                format!(" [{}]", attrs.join(", "))
            }
        );
    }
    o.push_str("}\n");
    o
}
