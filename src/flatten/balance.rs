//! The balance check (MLS 4.7): as many equations as unknowns. When the counts differ, a
//! maximum matching between equations and unknowns names the variables that lack an equation
//! (or the equations in excess), with the component they belong to.

use super::Flattener;
use super::equations::count_equations;
use crate::dae::{Equation, EquationKind, Expr, FlatModel, print_expr};
use crate::diag::{Diagnostic, Span};
use std::collections::BTreeMap;

const LIST: usize = 12;

fn unknowns_in(e: &Expr, is_unknown: &[bool], out: &mut Vec<usize>) {
    e.visit(&mut |x| {
        if let Expr::Var(v) = x
            && is_unknown.get(*v).copied().unwrap_or(false)
        {
            out.push(*v);
        }
    });
}

/// One row per scalar equation: the unknowns it contains, the equation it comes from.
fn rows<'a>(eqs: &'a [Equation], is_unknown: &[bool], out: &mut Vec<(Vec<usize>, &'a Equation)>) {
    for e in eqs {
        match &e.kind {
            EquationKind::Simple { lhs, rhs } => {
                let mut v = Vec::new();
                unknowns_in(lhs, is_unknown, &mut v);
                unknowns_in(rhs, is_unknown, &mut v);
                out.push((v, e));
            }
            EquationKind::If { branches, else_ } => {
                let mut v = Vec::new();
                let mut sub = Vec::new();
                for (_, b) in branches {
                    rows(b, is_unknown, &mut sub);
                }
                rows(else_, is_unknown, &mut sub);
                for (vs, _) in &sub {
                    v.extend(vs.iter().copied());
                }
                for _ in 0..count_equations(e) {
                    out.push((v.clone(), e));
                }
            }
            EquationKind::When { branches } => {
                if let Some((_, b)) = branches.first() {
                    for x in b {
                        if let EquationKind::Simple { lhs, .. } = &x.kind {
                            let mut v = Vec::new();
                            unknowns_in(lhs, is_unknown, &mut v);
                            out.push((v, x));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Maximum bipartite matching by augmenting paths (iterative, so long chains cannot overflow
/// the stack). Returns the variable matched to each row.
fn matching(
    rows: &[(Vec<usize>, &Equation)],
    nvars: usize,
) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let mut row_of: Vec<Option<usize>> = vec![None; nvars];
    let mut var_of: Vec<Option<usize>> = vec![None; rows.len()];
    // Cheap greedy pass first.
    for (r, (vs, _)) in rows.iter().enumerate() {
        if let Some(&v) = vs.iter().find(|v| row_of[**v].is_none()) {
            row_of[v] = Some(r);
            var_of[r] = Some(v);
        }
    }
    let mut seen = vec![usize::MAX; nvars];
    for r0 in 0..rows.len() {
        if var_of[r0].is_some() {
            continue;
        }
        // DFS over rows; stack of (row, next candidate index); parent links via `via`.
        let mut stack: Vec<(usize, usize)> = vec![(r0, 0)];
        let mut path_vars: Vec<usize> = Vec::new();
        let mut found = false;
        while let Some((r, k)) = stack.last_mut() {
            let vs = &rows[*r].0;
            if *k >= vs.len() {
                stack.pop();
                path_vars.pop();
                continue;
            }
            let v = vs[*k];
            *k += 1;
            if seen[v] == r0 {
                continue;
            }
            seen[v] = r0;
            path_vars.push(v);
            match row_of[v] {
                None => {
                    found = true;
                    break;
                }
                Some(next) => stack.push((next, 0)),
            }
        }
        if found {
            // Flip the path: stack rows and path vars pair up.
            for (i, (r, _)) in stack.iter().enumerate() {
                let v = path_vars[i];
                row_of[v] = Some(*r);
                var_of[*r] = Some(v);
            }
        }
    }
    (row_of, var_of)
}

pub fn check(model: &FlatModel, f: &mut Flattener, root: usize) -> Result<(), Diagnostic> {
    // Top-level inputs (also inside the model's own connectors) are given by the environment
    // (MLS 4.7), not unknowns of the model.
    let top_inputs = f.top_level_inputs(root);
    let is_unknown: Vec<bool> = model
        .variables
        .iter()
        .enumerate()
        .map(|(k, v)| v.is_unknown() && !top_inputs.contains(&k))
        .collect();
    let n_unknowns = is_unknown.iter().filter(|x| **x).count();
    let n_eqs: usize = model.equations.iter().map(count_equations).sum();
    if n_unknowns == n_eqs {
        return Ok(());
    }
    let mut rs = Vec::new();
    rows(&model.equations, &is_unknown, &mut rs);
    let (row_of, var_of) = matching(&rs, model.variables.len());
    let name = &model.name;
    if n_unknowns > n_eqs {
        let missing: Vec<usize> = (0..model.variables.len())
            .filter(|v| is_unknown[*v] && row_of[*v].is_none())
            .collect();
        let span = missing
            .first()
            .map(|v| model.variables[*v].span)
            .unwrap_or(Span::DUMMY);
        let mut d = Diagnostic::error(
            span,
            format!(
                "model `{name}` is not balanced: {n_eqs} equation(s) for {n_unknowns} unknown(s) ({} equation(s) missing)",
                n_unknowns - n_eqs
            ),
        )
        .with_label("this variable has no equation");
        let mut by_comp: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for v in missing.iter().take(LIST) {
            let var = &model.variables[*v];
            by_comp
                .entry(var.component.clone())
                .or_default()
                .push(var.name.clone());
        }
        for (c, vs) in by_comp {
            let place = if c.is_empty() {
                "at the top level".to_string()
            } else {
                format!("in `{c}`")
            };
            d = d.with_note(format!(
                "variables without an equation {place}: {}",
                vs.join(", ")
            ));
        }
        if missing.len() > LIST {
            d = d.with_note(format!("... and {} more", missing.len() - LIST));
        }
        return Err(d.with_help(
            "add the missing equations, bind the inputs, or connect the unconnected connectors",
        ));
    }
    let excess: Vec<usize> = (0..rs.len()).filter(|r| var_of[*r].is_none()).collect();
    let span = excess.first().map(|r| rs[*r].1.span).unwrap_or(Span::DUMMY);
    let mut d = Diagnostic::error(
        span,
        format!("model `{name}` is not balanced: {n_eqs} equation(s) for {n_unknowns} unknown(s) ({} too many)", n_eqs - n_unknowns),
    )
    .with_label("this equation is in excess");
    for r in excess.iter().take(LIST) {
        let e = rs[*r].1;
        let text = match &e.kind {
            EquationKind::Simple { lhs, rhs } => {
                format!(
                    "{} = {}",
                    print_expr(lhs, &model.variables),
                    print_expr(rhs, &model.variables)
                )
            }
            _ => "an if- or when-equation".to_string(),
        };
        let place = if e.component.is_empty() {
            String::new()
        } else {
            format!(" (in `{}`)", e.component)
        };
        d = d.with_note(format!("excess equation{place}: {text}"));
    }
    Err(d.with_help("remove the extra equations or declare the variable they determine"))
}

impl Flattener<'_> {
    /// Variable ids of the public inputs declared in the model itself or in its connectors.
    fn top_level_inputs(&mut self, root: usize) -> std::collections::HashSet<usize> {
        use super::instance::InstKind;
        use crate::syntax::ast::Causality;
        let mut out = std::collections::HashSet::new();
        let kids = match &self.insts[root].kind {
            InstKind::Struct {
                children: Some(c), ..
            } => c.clone(),
            _ => return out,
        };
        for c in kids {
            let protected = self.insts[c].elem.as_ref().is_some_and(|e| e.protected);
            if protected {
                continue;
            }
            let outer_input = self.insts[c].prefix.causality == Causality::Input;
            let mut stack = vec![(c, outer_input)];
            while let Some((i, input)) = stack.pop() {
                let input = input || self.insts[i].prefix.causality == Causality::Input;
                match &self.insts[i].kind {
                    // An input with a binding is computed by the model itself.
                    InstKind::Prim { dims, .. }
                        if input && self.insts[i].mods.binding.is_none() =>
                    {
                        let n: usize = dims.iter().product();
                        out.extend(self.insts[i].var0..self.insts[i].var0 + n);
                    }
                    InstKind::Struct {
                        children: Some(ch), ..
                    } if self.insts[i].is_connector() || i == c && input => {
                        stack.extend(ch.iter().map(|x| (*x, input)));
                    }
                    InstKind::Array { elems, .. } => {
                        stack.extend(elems.iter().map(|x| (*x, input)))
                    }
                    _ => {}
                }
            }
        }
        out
    }
}
