//! Visibility (MLS 4.1) and composite name lookup (MLS 5.3.2):
//!
//! - a protected element cannot be reached with dot notation from outside the class that
//!   declares it (`a.x`, `A.B`, `P.c`), even when it is inherited; inside that class (and the
//!   classes nested in it) it can;
//! - a protected element cannot be modified or redeclared, except in an `extends` clause;
//! - looking a name up inside a class by a composite name (`A.B`) requires `A` to satisfy the
//!   requirements of a package (only classes and constants), else only its `encapsulated`
//!   elements can be reached; a constant cannot be looked up inside a `partial` class.

use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::classtree::ClassId;
use crate::flatten::expand::{CompElem, Expanded};
use crate::flatten::instance::InstId;
use crate::flatten::modifier::{Mod, Redecl};
use crate::syntax::ast::{ClassKind, Variability};

impl Flattener<'_> {
    /// Whether class `scope` is class `outer` or lies lexically inside it.
    pub fn lexically_inside(&self, scope: ClassId, outer: ClassId) -> bool {
        let mut cur = Some(scope);
        while let Some(c) = cur {
            if c == outer {
                return true;
            }
            cur = self.tree.get(c).parent;
        }
        false
    }

    /// Whether the element `name` of `class` (a nested or inherited class, or a component) is
    /// protected.
    pub fn member_protected(&mut self, class: ClassId, name: &str) -> bool {
        if let Some(c) = self.child_class(class, name) {
            return self.tree.get(c).protected;
        }
        if self.expanding.contains(&class) {
            return false;
        }
        let Ok(e) = self.expanded(class) else {
            return false;
        };
        if let Some(ce) = e.classes.get(name) {
            return ce.protected;
        }
        e.component(name).is_some_and(|c| c.protected)
    }

    /// Whether `class` satisfies the requirements for a package (MLS 4.7: only classes and
    /// constants). Enumerations, built-in types, external objects and operator records count
    /// as such (their literals, constructor and operators are reached by composite names).
    pub fn package_like(&mut self, class: ClassId) -> bool {
        if matches!(
            self.tree.get(class).kind,
            ClassKind::Package | ClassKind::OperatorRecord | ClassKind::Operator
        ) {
            return true;
        }
        if self.expanding.contains(&class) {
            return true;
        }
        let Ok(e) = self.expanded(class) else {
            return true;
        };
        e.prim.is_some()
            || (e
                .components
                .iter()
                .all(|c| c.clause.prefix.variability == Variability::Constant)
                && e.equations.is_empty()
                && e.initial_equations.is_empty()
                && e.algorithms.is_empty())
    }

    /// Checks the composite-name step `class.name` written in class `lex`: `found` is the class
    /// element reached (`None` for a component, a constant).
    pub fn check_member_access(
        &mut self,
        class: ClassId,
        name: &str,
        found: Option<ClassId>,
        lex: ClassId,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let full = self.tree.get(class).full.clone();
        if !self.lexically_inside(lex, class) && self.member_protected(class, name) {
            return Err(Diagnostic::error(
                span,
                format!("`{name}` is a protected element of `{full}`"),
            )
            .with_label("protected")
            .with_note(
                "protected elements cannot be accessed with dot notation from outside their \
                 class, even when inherited (MLS 4.1)",
            ));
        }
        let encapsulated = found.is_some_and(|c| self.tree.get(c).prefixes.encapsulated);
        // The `equalityConstraint` function of an overdetermined type or record is the one
        // element the specification itself reaches inside such a class (MLS 9.4.1): connection
        // loops call it, and libraries call it as `T.equalityConstraint`.
        let overdetermined_fn = name == "equalityConstraint" && found.is_some();
        if !encapsulated && !overdetermined_fn && !self.package_like(class) {
            let kind = self.tree.get(class).kind;
            return Err(Diagnostic::error(
                span,
                format!("`{name}` cannot be looked up inside `{full}`: `{full}` is not a package"),
            )
            .with_label("composite name lookup")
            .with_note(format!(
                "`{full}` is a {} with elements other than classes and constants, so only its \
                 `encapsulated` elements can be reached by a composite name (MLS 5.3.2)",
                kind_word(kind)
            )));
        }
        Ok(())
    }

    /// `c.name` written in class `lex`, where `c` is the structured instance `i`: the element
    /// must be public, unless `lex` is inside the class that declares it (MLS 4.1).
    pub fn check_public_component(
        &mut self,
        i: InstId,
        name: &str,
        span: Span,
        lex: ClassId,
    ) -> Result<(), Diagnostic> {
        let exp = self.insts[i].exp.clone();
        let Some(ce) = exp.component(name) else {
            return Ok(());
        };
        if !ce.protected || self.lexically_inside(lex, ce.lex) || self.lexically_inside(lex, exp.id)
        {
            return Ok(());
        }
        let full = self.tree.get(exp.id).full.clone();
        Err(Diagnostic::error(
            span,
            format!(
                "`{name}` is a protected element of `{full}`: `{}.{name}` cannot be accessed here",
                self.insts[i].path
            ),
        )
        .with_label("protected")
        .with_secondary(ce.decl().name.span, "declared protected here")
        .with_note(
            "protected elements cannot be accessed with dot notation from outside their class \
             (MLS 4.1)",
        ))
    }

    /// `c.f(...)` written in class `lex`, where `c` is instance `i` and `f` a class element of
    /// its class: `f` must be public (MLS 4.1).
    pub fn check_public_class_of(
        &mut self,
        i: InstId,
        name: &str,
        span: Span,
        lex: ClassId,
    ) -> Result<(), Diagnostic> {
        let class = self.insts[i].exp.id;
        let protected = self.insts[i]
            .exp
            .classes
            .get(name)
            .is_some_and(|c| c.protected);
        if !protected || self.lexically_inside(lex, class) {
            return Ok(());
        }
        let full = self.tree.get(class).full.clone();
        Err(Diagnostic::error(
            span,
            format!("`{name}` is a protected element of `{full}`: it cannot be used here"),
        )
        .with_label("protected")
        .with_note(
            "protected elements cannot be accessed with dot notation from outside their class \
             (MLS 4.1)",
        ))
    }

    /// The first identifier of a declaration's type name must not name a component of the
    /// class holding the declaration (`x x;`): components and classes share one namespace, so
    /// the component would hide the class (MLS 5.3.2).
    pub fn check_type_name_not_hidden(&mut self, e: &CompElem) -> Result<(), Diagnostic> {
        let tn = &e.clause.type_name;
        if tn.global {
            return Ok(());
        }
        let Some(first) = tn.parts.first() else {
            return Ok(());
        };
        if self.expanding.contains(&e.lex) {
            return Ok(());
        }
        let Ok(scope) = self.expanded(e.lex) else {
            return Ok(());
        };
        let Some(c) = scope.component(&first.name) else {
            return Ok(());
        };
        Err(Diagnostic::error(
            first.span,
            format!(
                "the type name `{}` is hidden by the component `{}`",
                first.name, c.name
            ),
        )
        .with_label("names a component here")
        .with_secondary(c.decl().name.span, "the component")
        .with_help(format!(
            "write the type with a global name (`.{}`) or rename the component",
            cref(tn)
        ))
        .with_note(
            "components and classes share one namespace: lookup of the type name finds the \
             component (MLS 5.3.2)",
        ))
    }

    /// `time` is not available in records and connectors (MLS 3.6.7: only in models and
    /// blocks).
    pub fn check_time_allowed(&self, lex: ClassId, span: Span) -> Result<(), Diagnostic> {
        let n = self.tree.get(lex);
        let kind = match n.kind {
            ClassKind::Record | ClassKind::OperatorRecord => "record",
            ClassKind::Connector | ClassKind::ExpandableConnector => "connector",
            _ => return Ok(()),
        };
        Err(Diagnostic::error(
            span,
            format!("`time` cannot be used in the {kind} `{}`", n.full),
        )
        .with_label("not available here")
        .with_note(
            "the built-in variable `time` is only available in models and blocks (MLS 3.6.7)",
        ))
    }

    /// A function reached through a component (`c.f(...)`) is not an operator or operator
    /// function, and is not looked up inside an operator (MLS 5.3.2).
    pub fn check_not_operator(&self, class: ClassId, span: Span) -> Result<(), Diagnostic> {
        let n = self.tree.get(class);
        if matches!(n.kind, ClassKind::Operator | ClassKind::OperatorFunction) {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`{}` is an operator: it cannot be called through a component",
                    n.full
                ),
            )
            .with_label("operator")
            .with_note(
                "a function called through a component must be a non-operator function \
                 (MLS 5.3.2)",
            ));
        }
        Ok(())
    }

    /// A reference to instance `c` outside a `connect`: `c` must not be a conditional
    /// component (MLS 4.4.5).
    pub fn check_not_conditional(&self, c: InstId, span: Span) -> Result<(), Diagnostic> {
        let Some(e) = &self.insts[c].elem else {
            return Ok(());
        };
        let Some(cond) = &e.decl().condition else {
            return Ok(());
        };
        Err(Diagnostic::error(
            span,
            format!("`{}` is a conditional component", self.insts[c].path),
        )
        .with_label("used outside a connect")
        .with_secondary(cond.span, "its condition")
        .with_note(
            "a conditional component may only be modified and used in connect-equations \
             (MLS 4.4.5)",
        ))
    }

    /// A constant looked up inside a class by a composite name (`P.x`): the class must not be
    /// partial (MLS 5.3.2).
    /// A replaceable class is left alone: where it is looked up, the redeclaration that makes
    /// it complete may not be known (`Medium.nX` inside a port).
    pub fn check_not_partial_scope(
        &mut self,
        class: ClassId,
        span: Span,
    ) -> Result<(), Diagnostic> {
        if self.tree.get(class).prefixes.replaceable {
            return Ok(());
        }
        let partial = self.tree.get(class).prefixes.partial
            || (!self.expanding.contains(&class) && self.expanded(class).is_ok_and(|e| e.partial));
        if partial {
            let full = self.tree.get(class).full.clone();
            return Err(Diagnostic::error(
                span,
                format!("cannot look up an element inside `{full}`: it is declared `partial`"),
            )
            .with_kind(crate::diag::Kind::Partial)
            .with_label("inside a partial class")
            .with_note(
                "the class looked inside by a composite name shall not be partial (MLS 5.3.2)",
            ));
        }
        Ok(())
    }

    /// The modifier `m` of a component declaration (with the modifiers from outside) may not
    /// modify or redeclare a protected element of the component's class `exp` (MLS 4.1); only
    /// an `extends` clause may.
    pub fn check_no_protected_modifier(
        &mut self,
        exp: &Expanded,
        m: &Mod,
    ) -> Result<(), Diagnostic> {
        for (name, sm) in &m.subs {
            let protected_comp = exp.component(name).is_some_and(|c| c.protected);
            let protected_class = exp.classes.get(name).is_some_and(|c| c.protected);
            if !(protected_comp || protected_class) {
                continue;
            }
            let span = match &sm.redeclare {
                Some(Redecl::Class { span, .. }) | Some(Redecl::Component { span, .. }) => {
                    Some(*span)
                }
                None => None,
            }
            .or(sm.span)
            .or_else(|| sm.binding.as_ref().map(|b| b.expr.span))
            .unwrap_or(exp.span);
            let what = if sm.redeclare.is_some() {
                "redeclared"
            } else {
                "modified"
            };
            return Err(Diagnostic::error(
                span,
                format!(
                    "`{name}` is a protected element of `{}`: it cannot be {what} here",
                    self.tree.get(exp.id).full
                ),
            )
            .with_label("protected element")
            .with_note(
                "protected elements can only be modified or redeclared in an `extends` clause \
                 (MLS 4.1)",
            ));
        }
        Ok(())
    }
}

fn kind_word(k: ClassKind) -> &'static str {
    match k {
        ClassKind::Class => "class",
        ClassKind::Model => "model",
        ClassKind::Record | ClassKind::OperatorRecord => "record",
        ClassKind::Block => "block",
        ClassKind::Connector | ClassKind::ExpandableConnector => "connector",
        ClassKind::Type => "type",
        ClassKind::Package => "package",
        ClassKind::Function
        | ClassKind::PureFunction
        | ClassKind::ImpureFunction
        | ClassKind::OperatorFunction
        | ClassKind::Operator => "function",
    }
}

fn cref(n: &crate::syntax::ast::Name) -> String {
    n.parts
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(".")
}
