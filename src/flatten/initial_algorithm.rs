//! `initial algorithm` sections (MLS 8.6, 11.1) as initial equations.
//!
//! An initial algorithm takes part in the initial system. When every assigned variable is
//! assigned before anything reads it, the statements and the equations `target = value` have
//! the same solution, so the section is converted (assignments, tuple assignments, `for` loops,
//! `assert`, calls of functions for their effect). Anything where the order of execution matters (a variable read before its
//! assignment, assigned twice, `if`/`while`/`when` statements) is reported instead of being
//! given a different meaning.

use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, Equation, EquationKind, ExprKind, Statement, StatementKind};
use std::collections::BTreeMap;

/// The initial equations equivalent to `statements`.
pub fn to_equations(statements: &[Statement]) -> Result<Vec<Equation>, Diagnostic> {
    // First the statement that first assigns each name, then the reads against all of them.
    let mut order = Order::default();
    for checking in [false, true] {
        order.checking = checking;
        let mut k = 0;
        for s in statements {
            order.scan(s, &mut k)?;
        }
    }
    statements.iter().map(convert).collect()
}

/// First statement (in execution order) that assigns each name, and the names read.
#[derive(Default)]
struct Order {
    assigned: BTreeMap<String, (usize, Span, bool)>,
    /// Second pass: check reads (the first pass records assignments).
    checking: bool,
}

fn ref_name(c: &ast::ComponentRef) -> String {
    c.parts
        .iter()
        .map(|p| p.ident.name.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

fn unsupported(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("{what} is not supported in an `initial algorithm`"),
    )
    .with_help("write the initial conditions as an `initial equation` section")
}

impl Order {
    fn scan(&mut self, s: &Statement, k: &mut usize) -> Result<(), Diagnostic> {
        *k += 1;
        match &s.kind {
            StatementKind::Assign { target, value } => {
                self.reads(value, *k)?;
                self.reads_subscripts(target, *k)?;
                self.assign(target, *k)
            }
            StatementKind::MultiAssign { targets, value } => {
                self.reads(value, *k)?;
                for t in targets.iter().flatten() {
                    self.reads_subscripts(t, *k)?;
                    self.assign(t, *k)?;
                }
                Ok(())
            }
            StatementKind::For { indices, body } => {
                for i in indices {
                    if let Some(r) = &i.range {
                        self.reads(r, *k)?;
                    }
                }
                for b in body {
                    self.scan(b, k)?;
                }
                Ok(())
            }
            // `assert(...)` and calls of functions for their effect (`isValidTable(table);`).
            StatementKind::Call { func, args } if ref_name(func) != "reinit" => args
                .positional
                .iter()
                .chain(args.named.iter().map(|n| &n.value))
                .try_for_each(|a| self.reads(a, *k)),
            StatementKind::Call { .. } => Err(unsupported(s.span, "`reinit`")),
            StatementKind::If { .. } => Err(unsupported(s.span, "an `if` statement")),
            StatementKind::While { .. } => Err(unsupported(s.span, "a `while` loop")),
            StatementKind::When { .. } => Err(unsupported(s.span, "a `when` statement")),
            StatementKind::Return | StatementKind::Break => {
                Err(unsupported(s.span, "`return`/`break`"))
            }
        }
    }

    fn assign(&mut self, target: &ast::ComponentRef, k: usize) -> Result<(), Diagnostic> {
        if self.checking {
            return Ok(());
        }
        let name = ref_name(target);
        let whole = target.parts.iter().all(|p| p.subscripts.is_empty());
        match self.assigned.get(&name) {
            // Element-wise assignments of one array (`x[i] := ...` in a loop) are fine; the
            // same whole variable twice is an order-dependent overwrite.
            Some(&(_, first, was_whole)) if whole || was_whole => Err(Diagnostic::error(
                target.span,
                format!("`{name}` is assigned twice in this `initial algorithm`"),
            )
            .with_secondary(first, "first assigned here")
            .with_help("write the initial conditions as an `initial equation` section")),
            Some(_) => Ok(()),
            None => {
                self.assigned.insert(name, (k, target.span, whole));
                Ok(())
            }
        }
    }

    fn reads_subscripts(&self, target: &ast::ComponentRef, k: usize) -> Result<(), Diagnostic> {
        for p in &target.parts {
            for s in &p.subscripts {
                if let ast::Subscript::Expr(e) = s {
                    self.reads(e, k)?;
                }
            }
        }
        Ok(())
    }

    /// A variable read in statement `k` must have been assigned by an earlier statement or not
    /// at all (then its value comes from the rest of the initial system).
    fn reads(&self, e: &ast::Expr, k: usize) -> Result<(), Diagnostic> {
        if !self.checking {
            return Ok(());
        }
        let mut result = Ok(());
        visit_refs(e, &mut |c| {
            if result.is_err() {
                return;
            }
            let name = ref_name(c);
            let later = self
                .assigned
                .iter()
                .find(|(n, _)| name == **n || name.starts_with(&format!("{n}.")));
            if let Some((n, &(first, _, _))) = later
                && first >= k
            {
                result = Err(Diagnostic::error(
                    c.span,
                    format!("`{n}` is read here before this `initial algorithm` assigns it"),
                )
                .with_help("write the initial conditions as an `initial equation` section"));
            }
        });
        result
    }
}

/// Calls `f` on every component reference read in `e`.
pub(super) fn visit_refs(e: &ast::Expr, f: &mut dyn FnMut(&ast::ComponentRef)) {
    let args = |a: &ast::FunctionArgs, f: &mut dyn FnMut(&ast::ComponentRef)| {
        for x in a.positional.iter().chain(a.named.iter().map(|n| &n.value)) {
            visit_refs(x, f);
        }
    };
    match &e.kind {
        ExprKind::Ref(c) => {
            f(c);
            for p in &c.parts {
                for s in &p.subscripts {
                    if let ast::Subscript::Expr(x) = s {
                        visit_refs(x, f);
                    }
                }
            }
        }
        ExprKind::Call { args: a, .. } | ExprKind::Array(a) => args(a, f),
        ExprKind::PartialFunction { args: a, .. } => args(a, f),
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| visit_refs(x, f)),
        ExprKind::Tuple(items) => items.iter().flatten().for_each(|x| visit_refs(x, f)),
        ExprKind::Range { start, step, stop } => {
            visit_refs(start, f);
            if let Some(s) = step {
                visit_refs(s, f);
            }
            visit_refs(stop, f);
        }
        ExprKind::Unary { operand, .. } => visit_refs(operand, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            visit_refs(lhs, f);
            visit_refs(rhs, f);
        }
        ExprKind::If { branches, else_ } => {
            for (c, x) in branches {
                visit_refs(c, f);
                visit_refs(x, f);
            }
            visit_refs(else_, f);
        }
        ExprKind::Integer(_)
        | ExprKind::Real(_)
        | ExprKind::String(_)
        | ExprKind::Boolean(_)
        | ExprKind::End => {}
    }
}

fn convert(s: &Statement) -> Result<Equation, Diagnostic> {
    let kind = match &s.kind {
        StatementKind::Assign { target, value } => EquationKind::Simple {
            lhs: ast::Expr {
                kind: ExprKind::Ref(target.clone()),
                span: target.span,
            },
            rhs: value.clone(),
        },
        StatementKind::MultiAssign { targets, value } => EquationKind::Simple {
            lhs: ast::Expr {
                kind: ExprKind::Tuple(
                    targets
                        .iter()
                        .map(|t| {
                            t.as_ref().map(|c| ast::Expr {
                                kind: ExprKind::Ref(c.clone()),
                                span: c.span,
                            })
                        })
                        .collect(),
                ),
                span: s.span,
            },
            rhs: value.clone(),
        },
        StatementKind::For { indices, body } => EquationKind::For {
            indices: indices.clone(),
            body: body.iter().map(convert).collect::<Result<_, _>>()?,
        },
        StatementKind::Call { func, args } => EquationKind::Call {
            func: func.clone(),
            args: args.clone(),
        },
        // `to_equations` rejected the rest before converting.
        _ => return Err(unsupported(s.span, "this statement")),
    };
    Ok(Equation {
        kind,
        comment: s.comment.clone(),
        span: s.span,
    })
}
