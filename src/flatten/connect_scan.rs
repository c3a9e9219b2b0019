//! The pre-pass over connections: every `connect` and `Connections.*` statement of the
//! instance tree with the values of its `for` variables, before any equation is generated.
//! Expandable connectors (`expandable.rs`) are augmented from it, and the virtual connection
//! graph of overdetermined connectors (`overdetermined.rs`) is built from it. `for` loops are
//! unrolled over their ranges and if-equations whose condition is known before simulation
//! reduced to their chosen branch, as equation generation does later.

use super::Flattener;
use super::eval::{EResult, cref_name};
use super::instance::InstId;
use super::modifier::Scope;
use super::tensor::{Elem, Tensor, Val};
use crate::dae::Expr;
use crate::diag::Span;
use crate::syntax::ast;

/// One `connect` or `Connections.*` statement with what it needs to be resolved.
pub struct Scanned {
    pub eq: ast::Equation,
    pub scope: Scope,
    pub locals: Vec<(String, Tensor<Expr>)>,
}

#[derive(Default)]
pub struct Scan {
    pub items: Vec<Scanned>,
    /// A `connect` under an if-condition that is not known before simulation (an error later,
    /// or a condition that needs the connection graph itself): counts are then not final.
    pub unknown: Option<Span>,
}

impl Flattener<'_> {
    /// Scans the equations of `instances` (structured instances, each once).
    pub fn scan_connections(&mut self, instances: &[InstId]) -> EResult<Scan> {
        let mut scan = Scan::default();
        let mut locals = Vec::new();
        for &i in instances {
            let exp = self.insts[i].exp.clone();
            for (lex, eq) in &exp.equations {
                if !relevant(eq) {
                    continue;
                }
                let scope = Scope {
                    inst: Some(i),
                    lex: *lex,
                };
                self.scan_equation(eq, scope, &mut locals, &mut scan)?;
            }
        }
        Ok(scan)
    }

    fn scan_equation(
        &mut self,
        eq: &ast::Equation,
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        scan: &mut Scan,
    ) -> EResult<()> {
        match &eq.kind {
            ast::EquationKind::Connect { .. } | ast::EquationKind::Call { .. } if relevant(eq) => {
                scan.items.push(Scanned {
                    eq: eq.clone(),
                    scope,
                    locals: locals.clone(),
                });
            }
            ast::EquationKind::For { indices, body } if body.iter().any(relevant) => {
                self.scan_for(indices, body, scope, locals, scan)?;
            }
            ast::EquationKind::If { branches, else_ } => {
                let all = || branches.iter().flat_map(|(_, b)| b).chain(else_);
                if !all().any(relevant) {
                    return Ok(());
                }
                for (c, body) in branches {
                    match self.eval_structural_with(c, scope, locals) {
                        Ok(v) if v.data.first() == Some(&Val::Bool(true)) => {
                            for e in body {
                                self.scan_equation(e, scope, locals, scan)?;
                            }
                            return Ok(());
                        }
                        Ok(_) => continue,
                        Err(_) => {
                            if let Some(sp) = all().filter_map(connect_span).next() {
                                scan.unknown.get_or_insert(sp);
                            }
                            return Ok(());
                        }
                    }
                }
                for e in else_ {
                    self.scan_equation(e, scope, locals, scan)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn scan_for(
        &mut self,
        indices: &[ast::ForIndex],
        body: &[ast::Equation],
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        scan: &mut Scan,
    ) -> EResult<()> {
        let Some((first, rest)) = indices.split_first() else {
            for e in body {
                self.scan_equation(e, scope, locals, scan)?;
            }
            return Ok(());
        };
        // A range that cannot be evaluated here is reported when the equations are generated.
        let Some(r) = &first.range else {
            scan.unknown.get_or_insert(first.name.span);
            return Ok(());
        };
        let Ok(values) = self.eval_structural_with(r, scope, locals) else {
            scan.unknown.get_or_insert(r.span);
            return Ok(());
        };
        let Ok(n) = super::tensor::range_len(&values.dims) else {
            return Ok(());
        };
        for k in 0..n {
            let v = values.row(k).map(Expr::from_val);
            locals.push((first.name.name.clone(), v));
            let res = self.scan_for(rest, body, scope, locals, scan);
            locals.pop();
            res?;
        }
        Ok(())
    }
}

/// The span of `e` when it is a `connect` (nested ones included).
fn connect_span(e: &ast::Equation) -> Option<Span> {
    match &e.kind {
        ast::EquationKind::Connect { .. } => Some(e.span),
        ast::EquationKind::For { body, .. } => body.iter().find_map(connect_span),
        ast::EquationKind::If { branches, else_ } => branches
            .iter()
            .flat_map(|(_, b)| b)
            .chain(else_)
            .find_map(connect_span),
        _ => None,
    }
}

/// Whether `e` holds a `connect` or a `Connections` statement (nested ones included).
fn relevant(e: &ast::Equation) -> bool {
    match &e.kind {
        ast::EquationKind::Connect { .. } => true,
        ast::EquationKind::Call { func, .. } => {
            super::overdetermined::is_graph_statement(&cref_name(func))
        }
        ast::EquationKind::For { body, .. } => body.iter().any(relevant),
        ast::EquationKind::If { branches, else_ } => branches
            .iter()
            .flat_map(|(_, b)| b)
            .chain(else_)
            .any(relevant),
        _ => false,
    }
}
