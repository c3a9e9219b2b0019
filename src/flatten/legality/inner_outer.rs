//! `inner`/`outer` (MLS 5.4, 5.5):
//!
//! - an `outer` element (that is not also `inner`) has no modifications: neither in its
//!   declaration nor from outside;
//! - the `inner` element an `outer` one stands for is a subtype of it: the same primitive type
//!   (the same literals for enumerations), the same array dimensions, and for structured
//!   types the public components of the outer's type.

use crate::diag::Diagnostic;
use crate::flatten::Flattener;
use crate::flatten::expand::{CompElem, Prim};
use crate::flatten::instance::{InstId, InstKind};
use crate::flatten::modifier::Scope;
use crate::syntax::ast;

impl Flattener<'_> {
    /// An `outer` element `e` of instance `i` carries no modification.
    pub fn check_outer_unmodified(&mut self, i: InstId, e: &CompElem) -> Result<(), Diagnostic> {
        let from_decl = e.decl().modification.as_ref().map(|m| match m {
            ast::Modification::Binding { span, .. }
            | ast::Modification::Assign { span, .. }
            | ast::Modification::Class { span, .. } => *span,
        });
        let from_outside = self.insts[i]
            .mods
            .sub(&e.name)
            .filter(|m| !m.is_empty())
            .map(|m| {
                m.span
                    .or(m.binding.as_ref().map(|b| b.expr.span))
                    .unwrap_or(self.insts[i].span)
            });
        let Some(span) = from_decl.or(from_outside) else {
            return Ok(());
        };
        Err(Diagnostic::error(
            span,
            format!("the outer element `{}` cannot be modified", e.name),
        )
        .with_label("modification of an outer element")
        .with_secondary(e.decl().name.span, "declared `outer` here")
        .with_note(
            "an outer element refers to the matching inner element, which alone is declared \
             and modified (MLS 5.5)",
        )
        .with_help("move the modification to the `inner` declaration"))
    }

    /// The inner instance `t` found for the `outer` element `e` of instance `i` must be a
    /// subtype of the outer declaration.
    pub fn check_inner_matches_outer(
        &mut self,
        i: InstId,
        e: &CompElem,
        t: InstId,
    ) -> Result<(), Diagnostic> {
        let span = e.decl().name.span;
        let outer_ty = self.lookup_class_name(&e.clause.type_name, e.lex, Some(i))?;
        let oexp = self.expanded(outer_ty)?;
        self.ready(t)?;
        let iexp = self.insts[t].exp.clone();
        let inner_span = self.insts[t].span;
        let mismatch = |f: &Self, why: String| {
            Diagnostic::error(
                span,
                format!(
                    "the inner element `{}` does not match this outer declaration: {why}",
                    f.insts[t].path
                ),
            )
            .with_label("outer declaration")
            .with_secondary(inner_span, "the inner element")
            .with_note("the inner element must be a subtype of the outer one, with the same array dimensions (MLS 5.4)")
        };
        // Primitive types.
        match (&oexp.prim, &iexp.prim) {
            (Some(op), Some(ip)) => {
                let same = match (op, ip) {
                    (Prim::Scalar(a), Prim::Scalar(b)) => a == b,
                    (Prim::Enum(a), Prim::Enum(b)) => a == b,
                    (Prim::ExternalObject, Prim::ExternalObject) => true,
                    _ => false,
                };
                if !same {
                    let (on, inn) = (
                        self.tree.get(oexp.id).full.clone(),
                        self.tree.get(iexp.id).full.clone(),
                    );
                    return Err(mismatch(
                        self,
                        format!("its type `{inn}` is not a subtype of `{on}`"),
                    ));
                }
            }
            (Some(_), None) | (None, Some(_)) => {
                let (on, inn) = (
                    self.tree.get(oexp.id).full.clone(),
                    self.tree.get(iexp.id).full.clone(),
                );
                return Err(mismatch(
                    self,
                    format!("its type `{inn}` is not a subtype of `{on}`"),
                ));
            }
            (None, None) => {
                if !oexp.is_function() {
                    self.check_plug_compatible(iexp.id, oexp.id, span, &e.name)?;
                }
            }
        }
        // Array dimensions.
        let inner_dims = match &self.insts[t].kind {
            InstKind::Prim { dims, .. } | InstKind::Array { dims, .. } => dims.clone(),
            _ => Vec::new(),
        };
        let mut outer_dims = Vec::new();
        let scope = Scope {
            inst: Some(i),
            lex: e.lex,
        };
        let subs: Vec<(ast::Subscript, Scope)> = e
            .decl()
            .dims
            .iter()
            .chain(&e.clause.type_dims)
            .map(|d| (d.clone(), scope))
            .chain(oexp.dims.iter().map(|(d, lex)| {
                (
                    d.clone(),
                    Scope {
                        inst: None,
                        lex: *lex,
                    },
                )
            }))
            .collect();
        for (d, sc) in subs {
            match d {
                ast::Subscript::Colon(_) => outer_dims.push(None),
                ast::Subscript::Expr(x) => {
                    let sc = if sc.inst.is_none() {
                        Scope {
                            inst: Some(self.package_inst(sc.lex)?),
                            lex: sc.lex,
                        }
                    } else {
                        sc
                    };
                    let v = self.eval_structural(&x, sc)?;
                    outer_dims.push(v.into_scalar().ok().and_then(|v| v.as_int()));
                }
            }
        }
        let same = outer_dims.len() == inner_dims.len()
            && outer_dims
                .iter()
                .zip(&inner_dims)
                .all(|(o, n)| o.is_none_or(|o| o == *n as i64));
        if !same {
            return Err(mismatch(
                self,
                format!(
                    "it has dimensions {} where the outer declaration has {}",
                    fmt_dims(inner_dims.iter().map(|d| Some(*d as i64))),
                    fmt_dims(outer_dims.iter().copied())
                ),
            ));
        }
        Ok(())
    }
}

fn fmt_dims(d: impl Iterator<Item = Option<i64>>) -> String {
    let parts: Vec<String> = d
        .map(|x| x.map(|n| n.to_string()).unwrap_or_else(|| ":".into()))
        .collect();
    if parts.is_empty() {
        "none (a scalar)".to_string()
    } else {
        format!("[{}]", parts.join(", "))
    }
}

impl Flattener<'_> {
    /// `name.next` reached through the `outer` element `name` of instance `inst`: the element
    /// must exist in the outer's declared type, not only in the type of the inner it stands
    /// for (MLS 5.4: the outer sees the inner through its own declaration).
    pub fn check_outer_member(
        &mut self,
        inst: InstId,
        name: &str,
        next: &ast::RefPart,
    ) -> Result<(), Diagnostic> {
        let Some(e) = self.insts[inst].exp.component(name).cloned() else {
            return Ok(());
        };
        let pre = &e.clause.element_prefixes;
        if !pre.outer || pre.inner {
            return Ok(());
        }
        let Ok(ty) = self.lookup_class_name(&e.clause.type_name, e.lex, Some(inst)) else {
            return Ok(());
        };
        let Ok(exp) = self.expanded(ty) else {
            return Ok(());
        };
        if exp.prim.is_some()
            || exp.component(&next.ident.name).is_some()
            || exp.classes.contains_key(&next.ident.name)
        {
            return Ok(());
        }
        Err(Diagnostic::error(
            next.ident.span,
            format!(
                "`{name}` is declared `outer {}`, which has no element `{}` (MLS 5.4)",
                self.tree.get(ty).full,
                next.ident.name
            ),
        )
        .with_secondary(e.decl().name.span, "the outer declaration")
        .with_help("an outer element gives access only to what its declared type has; declare it with the inner's type"))
    }
}
