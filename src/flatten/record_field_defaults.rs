//! The declared values of a record's fields inside functions (MLS 12.2, 12.6): a local or
//! output of record type starts with the bindings its record class gives its fields, with the
//! modifiers of the class's `extends` clauses applied (`record Ideal extends
//! EOSIdealCoeff(nc = 5, a = {...})`, the coefficient records of the R134a medium), and a field
//! may be sized by another field (`parameter Real a[nc]`).
//!
//! Function bodies are rewritten without instances, so these values are evaluated here, in the
//! scope where each binding is written, and become literals. A field whose binding reads
//! anything that has no value before the run is refused by name rather than left at zero.

use super::Flattener;
use super::classtree::ClassId;
use super::expand::Expanded;
use super::func_eval::Value;
use super::modifier::{ModExpr, Scope};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind, StatementKind};

/// How deep a field's value may refer to other fields (`a[nc]`, `nc = n1 + 1`...).
const MAX_FIELD_CHAIN: usize = 8;

impl Flattener<'_> {
    /// The binding record class `exp` gives its field `field`: from its own `extends`
    /// modifiers first, else the field's declaration.
    pub(super) fn field_binding(exp: &Expanded, field: &str) -> Option<ModExpr> {
        exp.self_mod
            .sub(field)
            .and_then(|m| m.binding.clone())
            .or_else(|| exp.component(field)?.decl_mod.binding.clone())
    }

    /// The value of `e`, written in record class `rec` (scope `scope`): a name of one of the
    /// record's fields stands for that field's binding (a size given by another field).
    pub(super) fn record_scope_value(
        &mut self,
        rec: ClassId,
        e: &ast::Expr,
        scope: Scope,
    ) -> Result<Value, Diagnostic> {
        self.record_scope_value_at(rec, e, scope, 0)
    }

    fn record_scope_value_at(
        &mut self,
        rec: ClassId,
        e: &ast::Expr,
        scope: Scope,
        depth: usize,
    ) -> Result<Value, Diagnostic> {
        let err = match self.eval_structural(e, scope) {
            Ok(v) => return Ok(v),
            Err(d) => d,
        };
        if depth >= MAX_FIELD_CHAIN {
            return Err(err);
        }
        if let ExprKind::Ref(c) = &e.kind
            && !c.global
            && c.parts.len() == 1
            && c.parts[0].subscripts.is_empty()
        {
            let exp = self.expanded(rec)?;
            if let Some(b) = Self::field_binding(&exp, &c.parts[0].ident.name) {
                return self.record_scope_value_at(rec, &b.expr, b.scope, depth + 1);
            }
        }
        Err(err)
    }

    /// Assignments giving record variable `var` of class `rec` in a function the values its
    /// class declares for its fields (nested records field by field); fields without a
    /// binding are left to the body.
    pub(super) fn record_field_defaults(
        &mut self,
        var: &str,
        rec: ClassId,
        span: Span,
    ) -> Result<Vec<ast::Statement>, Diagnostic> {
        let exp = self.expanded(rec)?;
        let mut out = Vec::new();
        for c in &exp.components {
            if c.clause.prefix.variability == ast::Variability::Constant {
                continue;
            }
            let target = format!("{var}.{}", c.name);
            let ty = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
            let Some(b) = Self::field_binding(&exp, &c.name) else {
                if self.is_record(ty)? && c.decl().dims.is_empty() && c.clause.type_dims.is_empty()
                {
                    out.extend(self.record_field_defaults(&target, ty, span)?);
                }
                continue;
            };
            if self.is_record(ty)? {
                // A nested record bound as a whole: assigned as a record value, in the
                // function's own rewriting.
                continue;
            }
            let value = self.record_scope_value(rec, &b.expr, b.scope).map_err(|d| {
                Diagnostic::error(
                    b.expr.span,
                    format!(
                        "the value of record field `{}` for `{var}` in a function must be known before the run: {}",
                        c.name, d.message
                    ),
                )
                .with_secondary(span, "the record variable")
            })?;
            let parts: Vec<ast::RefPart> = target
                .split('.')
                .map(|n| ast::RefPart {
                    ident: ast::Ident {
                        name: n.to_string(),
                        span,
                    },
                    subscripts: vec![],
                })
                .collect();
            out.push(ast::Statement {
                kind: StatementKind::Assign {
                    target: ast::ComponentRef {
                        global: false,
                        parts,
                        span,
                    },
                    value: super::functions::literal(&value, span),
                },
                comment: ast::Comment::default(),
                span,
            });
        }
        Ok(out)
    }
}
