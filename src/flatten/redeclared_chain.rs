//! A component redeclared again (MLS 7.3.2): `extends D(replaceable C b constrainedby C)` in
//! one class, then `redeclare A b` in a class or modifier further out. The outer
//! redeclaration wins the merge of modifiers, but the one it replaces still matters:
//!
//! - its `constrainedby` type (or, without one, its own type) constrains the new type;
//! - a new `constrainedby` type must itself be a subtype of the constraint it replaces, and
//!   the new declaration a subtype of its own constraining type;
//! - its constraining clause's modifiers (or its own, without one) apply to the new
//!   declaration, under the new declaration's modifiers.
//!
//! A class redeclared in a modifier with its own `constrainedby` likewise passes that
//! constraint on to the redeclarations further out ([`narrowed_constraint`]), also when a
//! modifier further out overrides it ([`replaced_class_constraint`]).

use super::instance::InstId;
use super::modifier::{self, Mod, Redecl};
use super::{ClassId, Flattener};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;

impl Flattener<'_> {
    /// Checks the redeclaration `new_clause` (type `new_t`, written in `new_lex`) of component
    /// `name` of instance `p` against the constraint `old_t` of the original declaration and
    /// against the redeclaration `outer.replaced` it overrides, if any. Returns the modifiers
    /// that replaced redeclaration passes on (`None`: the original's apply).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_redeclare_chain(
        &mut self,
        outer: &Mod,
        new_clause: &ast::ComponentClause,
        new_lex: ClassId,
        new_t: ClassId,
        old_t: ClassId,
        span: Span,
        name: &str,
        p: InstId,
    ) -> Result<Option<Mod>, Diagnostic> {
        if let Some(cb) = &new_clause.constrainedby {
            let new_c = self.lookup_class_name(&cb.name, new_lex, None)?;
            self.check_plug_compatible(new_c, old_t, cb.span, name)?;
            self.check_plug_compatible(new_t, new_c, span, name)?;
        }
        let Some(replaced) = outer.replaced.as_deref() else {
            return Ok(None);
        };
        let Redecl::Component {
            clause,
            lex,
            span: rspan,
            inst,
        } = replaced
        else {
            return Ok(None);
        };
        let constraint = match &clause.constrainedby {
            Some(cb) => self.lookup_class_name(&cb.name, *lex, None)?,
            None => self.lookup_class_name(&clause.type_name, *lex, None)?,
        };
        self.check_plug_compatible(constraint, old_t, *rspan, name)?;
        self.check_plug_compatible(new_t, constraint, span, name)?;
        let kept = match &clause.constrainedby {
            Some(cb) => match &cb.modification {
                Some(cm) => modifier::convert_args(&mut self.tree, cm, *lex),
                None => Mod::default(),
            },
            None => match clause
                .components
                .first()
                .and_then(|d| d.modification.as_ref())
            {
                Some(m) => modifier::convert(&mut self.tree, m, *lex),
                None => Mod::default(),
            },
        };
        let mut kept = kept;
        kept.bind_self(inst.unwrap_or(p));
        Ok(Some(kept))
    }
}

/// The constraint a class redeclared in a modifier passes on (MLS 7.3.2): its own
/// `constrainedby` type (checked against the constraint it replaces), else the old one.
pub(super) fn narrowed_constraint(
    f: &mut Flattener,
    new: ClassId,
    prev: &super::expand::ClassElem,
    span: Span,
    name: &str,
) -> Result<(ClassId, Mod), Diagnostic> {
    let Some(cb) = f.tree.get(new).constrainedby.clone() else {
        return Ok((prev.constraint, prev.constraint_mod.clone()));
    };
    let c = f.lookup_class_name(&cb.name, new, None)?;
    f.check_plug_compatible(c, prev.constraint, span, name)?;
    let m = match &cb.modification {
        Some(cm) => modifier::convert_args(&mut f.tree, cm, new),
        None => Mod::default(),
    };
    Ok((c, m))
}

/// The class redeclaration that the outer one in `m` overrides (`extends C(replaceable model X
/// = B constrainedby B)` in a base, `redeclare model X = A` further out) still constrains it
/// (MLS 7.3.2): that inner redeclaration must fit the class's constraint, and the entry it
/// would have made, with its own constraint, is what the outer one is checked against.
/// `None` when nothing was overridden.
pub(super) fn replaced_class_constraint(
    f: &mut Flattener,
    m: &Mod,
    prev: &super::expand::ClassElem,
    name: &str,
) -> Result<Option<super::expand::ClassElem>, Diagnostic> {
    let Some(Redecl::Class { id, span }) = m.replaced.as_deref() else {
        return Ok(None);
    };
    f.check_plug_compatible(*id, prev.constraint, *span, name)?;
    let (constraint, constraint_mod) = narrowed_constraint(f, *id, prev, *span, name)?;
    Ok(Some(super::expand::ClassElem {
        constraint,
        constraint_mod,
        ..prev.clone()
    }))
}
