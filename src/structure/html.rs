//! The structural analysis as one self-contained HTML page for teaching (`minimo structure
//! --html`): the incidence matrix as stated and in BLT order with the blocks outlined, the
//! matching, each Pantelides step, the states and dummy derivatives, tearing, and the
//! equation-variable graph, each drawing with its legend. Inline CSS, SVG and a few lines of
//! script (highlighting a row and column on hover); nothing is loaded from the network.
//!
//! The page is generated from the [`StructureReport`] only, so a caller that has the report as
//! JSON (the browser playground) draws the same page.

use super::report::{IncidenceView, StructureReport};
use std::fmt::Write;

/// Matrices with more rows or columns than this are not drawn (the page says so).
pub const MATRIX_LIMIT: usize = 400;
/// Graphs with more equations than this are not drawn.
pub const GRAPH_LIMIT: usize = 150;

const CELL: usize = 14;

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 80em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
code, .eq { font-family: ui-monospace, monospace; font-size: 0.9em; }
table.list { border-collapse: collapse; } table.list td, table.list th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
.legend { display: flex; flex-wrap: wrap; gap: 1.2em; margin: 0.4em 0 0.8em; font-size: 0.9em; }
.legend .item { display: flex; align-items: center; gap: 0.35em; }
.swatch { width: 14px; height: 14px; display: inline-block; border: 1px solid #888; }
.sw-matched { background: #c0392b; } .sw-linear { background: #2c3e50; } .sw-nonlinear { background: #e67e22; }
.sw-block { background: transparent; border: 2px solid #2980b9; } .sw-unknown { background: #d5f5e3; border-radius: 4px; }
.sw-edge-matched { height: 4px; background: #c0392b; border: none; } .sw-edge { height: 2px; background: #7f8c8d; border: none; }
.sw-edge-nonlinear { height: 0; border: none; border-top: 2px dashed #e67e22; }
svg text { font-family: ui-monospace, monospace; font-size: 10px; }
rect.cell.matched { fill: #c0392b; } rect.cell.linear { fill: #2c3e50; } rect.cell.nonlinear { fill: #e67e22; }
rect.block { fill: none; stroke: #2980b9; stroke-width: 2; }
rect.hl { fill: #f9e79f; opacity: 0.6; }
.step { margin: 0.6em 0; padding: 0.5em 0.8em; background: #f7f9fa; border-left: 3px solid #2980b9; }
.note { color: #666; font-size: 0.9em; }
"#;

const SCRIPT: &str = r#"
document.querySelectorAll('svg.matrix').forEach(function (svg) {
  var hl = svg.querySelectorAll('rect.hl');
  svg.querySelectorAll('rect.cell').forEach(function (c) {
    c.addEventListener('mouseenter', function () {
      if (hl.length < 2) return;
      hl[0].setAttribute('y', c.getAttribute('y')); hl[0].setAttribute('height', c.getAttribute('height'));
      hl[1].setAttribute('x', c.getAttribute('x')); hl[1].setAttribute('width', c.getAttribute('width'));
    });
  });
});
// Reached only when everything above ran: the browser test checks it.
document.body.setAttribute('data-ready', 'yes');
"#;

/// The page.
pub fn html(r: &StructureReport) -> String {
    let mut o = String::new();
    let s = &r.sizes;
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Structure of {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&r.model)
    );
    let _ = writeln!(
        o,
        "<h1>Structural analysis of <code>{}</code></h1>",
        esc(&r.model)
    );
    let _ = writeln!(
        o,
        "<p id=\"summary\">{} variables, {} unknowns and {} equations as flattened; {} eliminated as aliases; {} equations added by differentiation; {} equations in the index-1 system; {} states, {} dummy derivatives, {} blocks (largest {}).</p>",
        s.variables,
        s.unknowns,
        s.equations,
        s.eliminated,
        s.differentiated,
        s.final_equations,
        s.states,
        s.dummy_derivatives,
        s.blocks,
        s.largest_block
    );

    o.push_str("<h2>Incidence matrix as stated</h2>\n");
    o.push_str("<p class=\"note\">Rows are the equations of the index-1 system, columns the unknowns (states are known); hover a cell to see its row and column.</p>\n");
    o.push_str(&matrix_legend(false));
    o.push_str(&matrix_svg(&r.incidence, false));
    o.push_str("<h2>Incidence matrix in BLT order</h2>\n");
    o.push_str("<p class=\"note\">Sorted into block lower triangular form: each outlined block is solved in turn, from the top, using only the unknowns to its left.</p>\n");
    o.push_str(&matrix_legend(true));
    o.push_str(&matrix_svg(&r.incidence, true));

    o.push_str("<h2>Matching</h2>\n<table class=\"list\" id=\"matching\"><tr><th>equation</th><th>determines</th></tr>\n");
    for m in &r.matching {
        let _ = writeln!(
            o,
            "<tr><td class=\"eq\">{}</td><td><code>{}</code></td></tr>",
            esc(&m.equation),
            esc(&m.variable)
        );
    }
    o.push_str("</table>\n");

    o.push_str("<h2>Index reduction (Pantelides)</h2>\n<div id=\"pantelides\">\n");
    if r.pantelides_steps.is_empty() {
        o.push_str("<p>Every equation could be matched to a highest-derivative unknown: no equation needed differentiation (index 0 or 1).</p>\n");
    }
    for (k, st) in r.pantelides_steps.iter().enumerate() {
        let _ = writeln!(
            o,
            "<div class=\"step\"><b>Step {}.</b> {}<br>Structurally singular set: {}<br>Differentiated: {}<br>New unknowns: {}</div>",
            k + 1,
            esc(&st.reason),
            code_list(&st.singular_equations),
            code_list(&st.differentiated),
            code_list(&st.new_derivatives)
        );
    }
    o.push_str("</div>\n");

    o.push_str("<h2>States and dummy derivatives</h2>\n");
    let _ = writeln!(
        o,
        "<p id=\"states\">States ({}): {}</p>\n<p id=\"dummies\">Dummy derivatives ({}): {}</p>",
        r.states.len(),
        code_list(&r.states),
        r.dummy_derivatives.len(),
        code_list(&r.dummy_derivatives)
    );
    o.push_str("<p class=\"note\">A dummy derivative is the derivative of a variable that index reduction did not keep as a state: it is an ordinary algebraic unknown, so the differentiated constraints are solved for it.</p>\n");
    for set in &r.state_sets {
        let _ = writeln!(
            o,
            "<p>State set: {} of {} are dummy derivatives, chosen during the run by the Jacobian of {}; now: {}</p>",
            set.equations.len(),
            code_list(&set.candidates),
            code_list(&set.equations),
            code_list(&set.dummies)
        );
    }

    o.push_str("<h2>Blocks and tearing</h2>\n<table class=\"list\" id=\"blocks\"><tr><th>#</th><th>kind</th><th>unknowns</th><th>tearing variables</th><th>equations</th></tr>\n");
    for (i, b) in r.blocks.iter().enumerate() {
        let eqs = match &b.solved {
            Some(sv) => format!("<code>{}</code>", esc(sv)),
            None => b
                .equations
                .iter()
                .map(|e| format!("<code>{}</code>", esc(e)))
                .collect::<Vec<_>>()
                .join("<br>"),
        };
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{eqs}</td></tr>",
            i + 1,
            esc(&b.kind),
            code_list(&b.variables),
            b.torn.as_ref().map(|t| code_list(t)).unwrap_or_default()
        );
    }
    o.push_str("</table>\n");

    o.push_str("<h2>Equation-variable graph</h2>\n");
    o.push_str(&graph_svg(r));
    let _ = write!(o, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    o
}

fn code_list(xs: &[String]) -> String {
    if xs.is_empty() {
        return "none".to_string();
    }
    xs.iter()
        .map(|x| format!("<code>{}</code>", esc(x)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn matrix_legend(sorted: bool) -> String {
    let mut o = String::from("<div class=\"legend\">");
    for (class, text) in [
        (
            "sw-matched",
            "matched: the equation is solved for this unknown",
        ),
        ("sw-linear", "the unknown enters linearly"),
        ("sw-nonlinear", "the unknown enters nonlinearly"),
    ] {
        let _ = write!(
            o,
            "<span class=\"item\"><span class=\"swatch {class}\"></span>{text}</span>"
        );
    }
    if sorted {
        o.push_str("<span class=\"item\"><span class=\"swatch sw-block\"></span>a block (one equation, or equations solved together)</span>");
    }
    o.push_str("</div>\n");
    o
}

fn matrix_svg(m: &IncidenceView, sorted: bool) -> String {
    let (n, k) = (m.equations.len(), m.variables.len());
    let id = if sorted {
        "matrix-sorted"
    } else {
        "matrix-stated"
    };
    if n > MATRIX_LIMIT || k > MATRIX_LIMIT {
        return format!(
            "<p class=\"note\" id=\"{id}\">The matrix has {n} rows and {k} columns: too large to draw here (limit {MATRIX_LIMIT}); `minimo structure --json` has every entry.</p>\n"
        );
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
    let mut row_pos = vec![0; n];
    for (p, &r) in rows.iter().enumerate() {
        row_pos[r] = p;
    }
    let mut col_pos = vec![0; k];
    for (p, &c) in cols.iter().enumerate() {
        col_pos[c] = p;
    }
    let label_w = 60;
    let max_name = m
        .variables
        .iter()
        .map(|v| v.len())
        .max()
        .unwrap_or(1)
        .min(40);
    let top = max_name * 6 + 10;
    let w = label_w + k * CELL + 10;
    let h = top + n * CELL + 10;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg class=\"matrix\" id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">"
    );
    let _ = writeln!(
        o,
        "<rect class=\"hl\" x=\"{label_w}\" y=\"0\" width=\"{}\" height=\"0\"/><rect class=\"hl\" x=\"0\" y=\"{top}\" width=\"0\" height=\"{}\"/>",
        k * CELL,
        n * CELL
    );
    let _ = writeln!(
        o,
        "<rect x=\"{label_w}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#bbb\"/>",
        k * CELL,
        n * CELL
    );
    for (p, &c) in cols.iter().enumerate() {
        let x = label_w + p * CELL + CELL / 2 + 3;
        let name: String = m.variables[c].chars().take(40).collect();
        let _ = writeln!(
            o,
            "<text class=\"col-label\" transform=\"translate({x},{}) rotate(-90)\">{}</text>",
            top - 4,
            esc(&name)
        );
    }
    for (p, &r) in rows.iter().enumerate() {
        let y = top + p * CELL + CELL - 3;
        let _ = writeln!(
            o,
            "<text class=\"row-label\" x=\"2\" y=\"{y}\">e{}<title>{}</title></text>",
            r + 1,
            esc(&m.equations[r])
        );
    }
    for e in &m.entries {
        let (Some(&rp), Some(&cp)) = (row_pos.get(e.row), col_pos.get(e.col)) else {
            continue;
        };
        let class = if e.matched {
            "matched"
        } else if e.linear {
            "linear"
        } else {
            "nonlinear"
        };
        let _ = writeln!(
            o,
            "<rect class=\"cell {class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" data-row=\"{}\" data-col=\"{}\"><title>{} in {}</title></rect>",
            label_w + cp * CELL + 1,
            top + rp * CELL + 1,
            CELL - 2,
            CELL - 2,
            e.row + 1,
            e.col + 1,
            esc(&m.variables[e.col]),
            esc(&m.equations[e.row])
        );
    }
    if sorted {
        for (i, b) in m.blocks.iter().enumerate() {
            let _ = writeln!(
                o,
                "<rect class=\"block {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>block {} ({}, {} equation(s))</title></rect>",
                esc(&b.kind),
                label_w + b.start * CELL,
                top + b.start * CELL,
                b.size * CELL,
                b.size * CELL,
                i + 1,
                esc(&b.kind),
                b.size
            );
        }
    }
    o.push_str("</svg>\n");
    o
}

/// Equations on the left, unknowns on the right, both in BLT order; an edge per incidence.
fn graph_svg(r: &StructureReport) -> String {
    let m = &r.incidence;
    let (n, k) = (m.equations.len(), m.variables.len());
    let mut o = String::new();
    o.push_str("<div class=\"legend\" id=\"graph-legend\">");
    for (class, text) in [
        ("sw-edge-matched", "matched pair"),
        ("sw-edge", "the unknown enters the equation linearly"),
        ("sw-edge-nonlinear", "nonlinearly"),
        ("sw-block", "equation node (box)"),
        ("sw-unknown", "unknown node (rounded)"),
    ] {
        let _ = write!(
            o,
            "<span class=\"item\"><span class=\"swatch {class}\"></span>{text}</span>"
        );
    }
    o.push_str("</div>\n");
    if n > GRAPH_LIMIT || k > GRAPH_LIMIT {
        let _ = writeln!(
            o,
            "<p class=\"note\" id=\"graph\">{n} equations: too many to draw the graph here (limit {GRAPH_LIMIT}); `minimo structure --dot FILE` writes it for Graphviz.</p>"
        );
        return o;
    }
    let dy = 22;
    let (xe, xv, wbox) = (10, 520, 300);
    let h = 20 + n.max(k) * dy;
    let _ = writeln!(
        o,
        "<svg class=\"graph\" id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{h}\" viewBox=\"0 0 {} {h}\">",
        xv + wbox + 10,
        xv + wbox + 10
    );
    let mut row_pos = vec![0; n];
    for (p, &e) in m.sorted_rows.iter().enumerate() {
        row_pos[e] = p;
    }
    let mut col_pos = vec![0; k];
    for (p, &c) in m.sorted_cols.iter().enumerate() {
        col_pos[c] = p;
    }
    let yc = |p: usize| 10 + p * dy + dy / 2;
    for e in &m.entries {
        let (Some(&rp), Some(&cp)) = (row_pos.get(e.row), col_pos.get(e.col)) else {
            continue;
        };
        let style = if e.matched {
            "stroke=\"#c0392b\" stroke-width=\"3\""
        } else if e.linear {
            "stroke=\"#7f8c8d\" stroke-width=\"1\""
        } else {
            "stroke=\"#e67e22\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\""
        };
        let _ = writeln!(
            o,
            "<line class=\"edge{}\" x1=\"{}\" y1=\"{}\" x2=\"{xv}\" y2=\"{}\" {style}/>",
            if e.matched { " matched" } else { "" },
            xe + wbox,
            yc(rp),
            yc(cp)
        );
    }
    for (p, &e) in m.sorted_rows.iter().enumerate() {
        let text: String = m.equations[e].chars().take(48).collect();
        let _ = writeln!(
            o,
            "<g class=\"node equation\"><rect x=\"{xe}\" y=\"{}\" width=\"{wbox}\" height=\"{}\" fill=\"#fff\" stroke=\"#2980b9\"/><text x=\"{}\" y=\"{}\">e{}: {}</text><title>{}</title></g>",
            yc(p) - dy / 2 + 2,
            dy - 4,
            xe + 4,
            yc(p) + 3,
            e + 1,
            esc(&text),
            esc(&m.equations[e])
        );
    }
    for (p, &c) in m.sorted_cols.iter().enumerate() {
        let _ = writeln!(
            o,
            "<g class=\"node variable\"><rect x=\"{xv}\" y=\"{}\" width=\"{wbox}\" height=\"{}\" rx=\"9\" fill=\"#d5f5e3\" stroke=\"#27ae60\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
            yc(p) - dy / 2 + 2,
            dy - 4,
            xv + 6,
            yc(p) + 3,
            esc(&m.variables[c])
        );
    }
    o.push_str("</svg>\n");
    o
}
