//! Defaults of a record constructor of a derived record (MLS 12.6.1).
//!
//! The inputs of a record constructor default to the bindings of its own record class, with
//! the modifiers of its `extends` clauses applied: for `record Water extends Medium(rho =
//! 995.6)`, `Water()` has `rho = 995.6`. When such a call binds a component declared with the
//! base class (`parameter Medium medium = Water()`), the fields the call leaves out take these
//! defaults, not the base class's declarations. A default that is not a literal value (one
//! computed from other fields or names) is refused with a located error rather than evaluated
//! in the wrong scope.

use super::expand::Expanded;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Expr, ExprKind};
use std::rc::Rc;

/// The default of `field` in the constructor of `cexp` when it binds a component of class
/// `target`; `None` when it is the one `target` gives the field anyway (the same declaration,
/// unmodified by either class) or the record declares none.
pub(super) fn default_of(
    cexp: &Expanded,
    target: &Expanded,
    field: &str,
    call: &Expr,
) -> Result<Option<Expr>, Diagnostic> {
    let modified = |x: &Expanded| x.self_mod.sub(field).and_then(|m| m.binding.clone());
    let b = match modified(cexp) {
        Some(b) => b,
        None => {
            let own = cexp.component(field);
            let same_decl = match (own, target.component(field)) {
                (Some(c), Some(t)) => Rc::ptr_eq(&c.clause, &t.clause),
                _ => false,
            };
            if same_decl && modified(target).is_none() {
                return Ok(None);
            }
            match own.and_then(|c| c.decl_mod.binding.clone()) {
                Some(b) => b,
                None => return Ok(None),
            }
        }
    };
    if !is_literal(&b.expr) {
        return Err(Diagnostic::error(
            call.span,
            format!(
                "this record constructor leaves field `{field}` at its default `{}`, which is computed from other names; that is not supported here",
                crate::syntax::print_expr(&b.expr)
            ),
        )
        .with_secondary(b.expr.span, "the default")
        .with_help(format!("give `{field}` in the constructor call")));
    }
    Ok(Some((*b.expr).clone()))
}

/// A value written out: literals, their arrays and arithmetic on them.
fn is_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Integer(_) | ExprKind::Real(_) | ExprKind::String(_) | ExprKind::Boolean(_) => {
            true
        }
        ExprKind::Unary { operand, .. } => is_literal(operand),
        ExprKind::Binary { lhs, rhs, .. } => is_literal(lhs) && is_literal(rhs),
        ExprKind::Array(a) => {
            a.iterators.is_empty() && a.named.is_empty() && a.positional.iter().all(is_literal)
        }
        ExprKind::Matrix(rows) => rows.iter().flatten().all(is_literal),
        _ => false,
    }
}
