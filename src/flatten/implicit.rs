//! Implicit iteration ranges (MLS 10.4.1.1, 11.2.2.2): `for i loop` and `sum(x[i] for i)`
//! take the range of `i` from the dimensions it subscripts. Every use of `i` as a whole
//! subscript (`x[i]`, `a[j].y[k, i]`) names one dimension; all of them must have the same
//! size and kind, and that dimension's index values (`1:n`, an enumeration's literals,
//! `false:true`) are the range.

use crate::syntax::ast::{self, ComponentRef, EquationKind, Expr, ExprKind, StatementKind};

/// One use of the iterator as a subscript: `cref.parts[part].subscripts[sub]`.
pub struct Use<'a> {
    pub cref: &'a ComponentRef,
    pub part: usize,
    pub sub: usize,
}

/// The uses of `name` as a whole subscript in `exprs`.
pub fn in_exprs<'a>(name: &str, exprs: &[&'a Expr], out: &mut Vec<Use<'a>>) {
    for e in exprs {
        expr(name, e, out);
    }
}

pub fn in_statements<'a>(name: &str, body: &'a [ast::Statement], out: &mut Vec<Use<'a>>) {
    for s in body {
        match &s.kind {
            StatementKind::Assign { target, value } => {
                cref(name, target, out);
                expr(name, value, out);
            }
            StatementKind::MultiAssign { targets, value } => {
                for t in targets.iter().flatten() {
                    cref(name, t, out);
                }
                expr(name, value, out);
            }
            StatementKind::Call { args, .. } => fargs(name, args, out),
            StatementKind::If { branches, else_ } => {
                for (c, b) in branches {
                    expr(name, c, out);
                    in_statements(name, b, out);
                }
                in_statements(name, else_, out);
            }
            StatementKind::When { branches } => {
                for (c, b) in branches {
                    expr(name, c, out);
                    in_statements(name, b, out);
                }
            }
            StatementKind::For { indices, body } => {
                for i in indices {
                    if let Some(r) = &i.range {
                        expr(name, r, out);
                    }
                }
                if !indices.iter().any(|i| i.name.name == name) {
                    in_statements(name, body, out);
                }
            }
            StatementKind::While { condition, body } => {
                expr(name, condition, out);
                in_statements(name, body, out);
            }
            _ => {}
        }
    }
}

pub fn in_equations<'a>(name: &str, body: &'a [ast::Equation], out: &mut Vec<Use<'a>>) {
    for e in body {
        match &e.kind {
            EquationKind::Simple { lhs, rhs } => {
                expr(name, lhs, out);
                expr(name, rhs, out);
            }
            EquationKind::Connect { a, b } => {
                cref(name, a, out);
                cref(name, b, out);
            }
            EquationKind::For { indices, body } => {
                for i in indices {
                    if let Some(r) = &i.range {
                        expr(name, r, out);
                    }
                }
                if !indices.iter().any(|i| i.name.name == name) {
                    in_equations(name, body, out);
                }
            }
            EquationKind::If { branches, else_ } => {
                for (c, b) in branches {
                    expr(name, c, out);
                    in_equations(name, b, out);
                }
                in_equations(name, else_, out);
            }
            EquationKind::When { branches } => {
                for (c, b) in branches {
                    expr(name, c, out);
                    in_equations(name, b, out);
                }
            }
            EquationKind::Call { args, .. } => fargs(name, args, out),
        }
    }
}

fn cref<'a>(name: &str, c: &'a ComponentRef, out: &mut Vec<Use<'a>>) {
    for (p, part) in c.parts.iter().enumerate() {
        for (k, s) in part.subscripts.iter().enumerate() {
            let ast::Subscript::Expr(e) = s else { continue };
            if let ExprKind::Ref(r) = &e.kind
                && !r.global
                && r.parts.len() == 1
                && r.parts[0].subscripts.is_empty()
                && r.parts[0].ident.name == name
            {
                out.push(Use {
                    cref: c,
                    part: p,
                    sub: k,
                });
            } else {
                expr(name, e, out);
            }
        }
    }
}

fn fargs<'a>(name: &str, a: &'a ast::FunctionArgs, out: &mut Vec<Use<'a>>) {
    for i in &a.iterators {
        if let Some(r) = &i.range {
            expr(name, r, out);
        }
    }
    if a.iterators.iter().any(|i| i.name.name == name) {
        return;
    }
    for e in &a.positional {
        expr(name, e, out);
    }
    for na in &a.named {
        expr(name, &na.value, out);
    }
}

fn expr<'a>(name: &str, e: &'a Expr, out: &mut Vec<Use<'a>>) {
    match &e.kind {
        ExprKind::Ref(c) => cref(name, c, out),
        ExprKind::Call { args, .. } | ExprKind::Array(args) => fargs(name, args, out),
        ExprKind::PartialFunction { args, .. } => fargs(name, args, out),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| expr(name, x, out)),
        ExprKind::Tuple(items) => items.iter().flatten().for_each(|x| expr(name, x, out)),
        ExprKind::Range { start, step, stop } => {
            expr(name, start, out);
            if let Some(s) = step {
                expr(name, s, out);
            }
            expr(name, stop, out);
        }
        ExprKind::Unary { operand, .. } => expr(name, operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr(name, lhs, out);
            expr(name, rhs, out);
        }
        ExprKind::If { branches, else_ } => {
            for (c, v) in branches {
                expr(name, c, out);
                expr(name, v, out);
            }
            expr(name, else_, out);
        }
        ExprKind::Integer(_)
        | ExprKind::Real(_)
        | ExprKind::String(_)
        | ExprKind::Boolean(_)
        | ExprKind::End => {}
    }
}

/// The reference `cref.parts[..=part]` without subscripts: the component whose dimension a
/// use names.
pub fn stripped(u: &Use) -> ComponentRef {
    ComponentRef {
        global: u.cref.global,
        parts: u.cref.parts[..=u.part]
            .iter()
            .map(|p| ast::RefPart {
                ident: p.ident.clone(),
                subscripts: Vec::new(),
            })
            .collect(),
        span: u.cref.span,
    }
}
