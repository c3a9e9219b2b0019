//! Restrictions on redeclarations (MLS 7.3.2, 7.3.3): a constant cannot be redeclared, a
//! redeclaration keeps the original's visibility, only a `replaceable` redeclaration may be
//! redeclared again, and a replaceable element's type must fit its constraining type.

use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::classtree::{ClassId, ClassTree};
use crate::flatten::expand::{ClassElem, CompElem, Expanded};
use crate::flatten::modifier::{Mod, Redecl};
use crate::syntax::ast::Variability;

fn visibility(protected: bool) -> &'static str {
    if protected { "protected" } else { "public" }
}

/// A redeclaration written as an element (`redeclare Real x = 2;` in a class body) of the
/// inherited `prev`.
pub(in crate::flatten) fn check_component_redeclare(
    prev: &CompElem,
    new: &CompElem,
) -> Result<(), Diagnostic> {
    let span = new.decl().name.span;
    check_modifier_redeclare(prev, span)?;
    if prev.protected != new.protected {
        return Err(Diagnostic::error(
            span,
            format!(
                "`{}` is {} and cannot be redeclared as {} (MLS 7.3.3)",
                prev.name,
                visibility(prev.protected),
                visibility(new.protected)
            ),
        )
        .with_secondary(prev.decl().name.span, "the original declaration")
        .with_help(format!(
            "move the redeclaration into a {} section",
            visibility(prev.protected)
        )));
    }
    Ok(())
}

/// Any redeclaration of the component `orig` (element or modifier).
pub(in crate::flatten) fn check_modifier_redeclare(
    orig: &CompElem,
    span: Span,
) -> Result<(), Diagnostic> {
    if orig.clause.prefix.variability == Variability::Constant {
        return Err(Diagnostic::error(
            span,
            format!(
                "`{}` is a constant and cannot be redeclared (MLS 7.3.3)",
                orig.name
            ),
        )
        .with_secondary(orig.decl().name.span, "declared constant here")
        .with_help("modify its value instead, or declare it `parameter`"));
    }
    Ok(())
}

/// A redeclaration of a class element `prev` by `new` written in a class body.
pub(in crate::flatten) fn check_class_redeclare(
    tree: &ClassTree,
    prev: &ClassElem,
    new: ClassId,
    class_extends: bool,
) -> Result<(), Diagnostic> {
    let (p, n) = (tree.get(prev.id), tree.get(new));
    // `redeclare model extends B` replaces the inherited `B`, which must be replaceable
    // (MLS 7.3.1).
    if class_extends && !prev.replaceable && !p.prefixes.replaceable {
        return Err(Diagnostic::error(
            n.span,
            format!(
                "`{}` cannot be extended with `redeclare model extends`: the inherited class is not replaceable (MLS 7.3.1)",
                p.name
            ),
        )
        .with_secondary(p.span, "declared here without `replaceable`")
        .with_help("declare the inherited class `replaceable`, or give the new class another name"));
    }
    if p.protected != n.protected {
        return Err(Diagnostic::error(
            n.span,
            format!(
                "the class `{}` is {} and cannot be redeclared as {} (MLS 7.3.3)",
                p.name,
                visibility(p.protected),
                visibility(n.protected)
            ),
        )
        .with_secondary(p.span, "the original declaration")
        .with_help(format!(
            "move the redeclaration into a {} section",
            visibility(p.protected)
        )));
    }
    Ok(())
}

/// `outer` redeclares an element that `inner` already redeclared: allowed only when that
/// earlier redeclaration was `replaceable` (MLS 7.3.3).
pub(in crate::flatten) fn check_redeclare_again(
    outer: &Mod,
    inner: &Mod,
    what: &str,
) -> Result<(), Diagnostic> {
    if let Some(Redecl::Component { clause, span, .. }) = &inner.redeclare
        && !clause.element_prefixes.replaceable
    {
        let at = outer.span.unwrap_or(*span);
        return Err(Diagnostic::error(
            at,
            format!(
                "`{what}` cannot be redeclared again: the earlier redeclaration is not `replaceable` (MLS 7.3.3)"
            ),
        )
        .with_secondary(*span, "redeclared here without `replaceable`")
        .with_help("write `redeclare replaceable` in the earlier redeclaration"));
    }
    Ok(())
}

impl Flattener<'_> {
    /// MLS 7.3.2: the type of a replaceable declaration with a `constrainedby` clause must be
    /// a subtype of the constraining type (checked for the class's own declarations).
    pub(super) fn check_constraining_types(&mut self, e: &Expanded) -> Result<(), Diagnostic> {
        let id = e.id;
        let Some(body) = self.tree.get(id).long() else {
            return Ok(());
        };
        let components: Vec<_> = body.components.iter().map(|(c, _)| c.clone()).collect();
        let children = self.tree.get(id).child_order.clone();
        for c in components {
            let Some(cb) = &c.constrainedby else { continue };
            let Ok(ty) = self.lookup_class_name(&c.type_name, id, None) else {
                continue;
            };
            let Ok(con) = self.lookup_class_name(&cb.name, id, None) else {
                continue;
            };
            let what = c
                .components
                .first()
                .map(|d| d.name.name.clone())
                .unwrap_or_default();
            let ty_dims = self.type_dims(ty) + c.type_dims.len();
            self.check_constraint_dims(ty_dims, con, c.type_name.span, &what)?;
            self.check_subtype(ty, con, c.type_name.span, &what)?;
        }
        for child in children {
            let Some(cb) = self.tree.get(child).constrainedby.clone() else {
                continue;
            };
            let Ok(con) = self.lookup_class_name(&cb.name, id, None) else {
                continue;
            };
            let (what, span) = {
                let n = self.tree.get(child);
                (n.name.clone(), n.span)
            };
            // A short definition's own dimensions (`T = Real3[2]`) are not part of the type it
            // extends: that type is what the constraint is compared with.
            let own = match &self.tree.get(child).body {
                crate::flatten::classtree::NodeBody::Short(s) => s.array_dims.len(),
                _ => 0,
            };
            let ty_dims = self.type_dims(child).saturating_sub(own);
            self.check_constraint_dims(ty_dims, con, span, &what)?;
            self.check_subtype(child, con, span, &what)?;
        }
        Ok(())
    }

    /// The number of array dimensions a type carries (`type Real3 = Real[3]`: 1).
    fn type_dims(&mut self, ty: ClassId) -> usize {
        self.expanded(ty).map_or(0, |e| e.dims.len())
    }

    /// MLS 7.3.2: the constraining type has as many dimensions as the type it constrains (the
    /// component's own dimensions aside).
    fn check_constraint_dims(
        &mut self,
        ty_dims: usize,
        con: ClassId,
        span: Span,
        what: &str,
    ) -> Result<(), Diagnostic> {
        let con_dims = self.type_dims(con);
        if ty_dims == con_dims {
            return Ok(());
        }
        Err(Diagnostic::error(
            span,
            format!(
                "the type of the replaceable `{what}` has {ty_dims} array dimension(s), its constraining type `{}` has {con_dims}",
                self.tree.get(con).full
            ),
        )
        .with_note(
            "a constraining type must have the same number of dimensions as the type it constrains (MLS 7.3.2)",
        ))
    }

    fn check_subtype(
        &mut self,
        ty: ClassId,
        con: ClassId,
        span: Span,
        what: &str,
    ) -> Result<(), Diagnostic> {
        self.check_plug_compatible(ty, con, span, what).map_err(|mut d| {
            d.message = format!(
                "the type of the replaceable `{what}` is not a subtype of its constraining type `{}` (MLS 7.3.2)",
                self.tree.get(con).full
            );
            d
        })
    }
}
