//! Legality rules of the specification. Classes: the rules on what a class of each specialized kind may contain and
//! extend (MLS 4.5.2, 4.7, 4.8, 4.9.5, 7.1.3, 7.1.4, 12.2).
//!
//! The checks run once per class, right after the class is expanded (`Flattener::expanded`),
//! so only the classes a model actually uses are checked and library loading stays lazy. They
//! look at the class's own definition and at its expansion (which holds the inherited
//! elements), never at instances, so their verdict does not depend on where a class is used.
//!
//! - `inheritance`: which kind of class may extend which (MLS 7.1.3), extending a replaceable
//!   class (MLS 7.1.4), array or prefixed or simple-type bases combined with other contents
//!   (MLS 4.5.2), the extra rules of `operator record` (MLS 4.7);
//! - `restrictions`: the contents of records, connectors, packages, operators and blocks
//!   (MLS 4.7);
//! - `functions`: the restrictions of functions (MLS 12.2);
//! - `enumeration`: enumeration literals (MLS 4.9.5);
//! - `modification`: an element modified twice in one modification (MLS 7.2.4);
//! - `redeclare`: restrictions on redeclarations and constraining types (MLS 7.3.2, 7.3.3),
//!   also called from expansion and instantiation where redeclarations are applied.
//!
//! Rules checked on the way by the stage that has the information they need (lookup,
//! instantiation, connection sets):
//!
//! - `visibility`: protected elements (MLS 4.1) and what dot-notation may look inside (MLS 5.3.2);
//! - `imports`: import clauses (MLS 13.2.1);
//! - `prefixes`: type prefixes of components (MLS 4.4.2.2, 4.5, 9.3);
//! - `connect_rules`: what may be connected and balanced connectors (MLS 9.3), with
//!   `overdetermined_size` counting overdetermined types by their residues (MLS 9.3.1);
//! - `inner_outer`: `inner`/`outer` matching (MLS 5.4, 5.5);
//! - `when_targets`: variables assigned in when-equations are not inside model or block
//!   components (MLS 4.5).
//!
//! A name that cannot be resolved here is left alone: expansion and instantiation report it
//! with their own, better located, message.

mod connect_rules;
mod enumeration;
mod functions;
mod imports;
mod inheritance;
mod inner_outer;
mod modification;
mod overdetermined_size;
mod prefixes;
mod redeclare;
mod restrictions;
mod visibility;
mod when_targets;

pub use imports::Imported;

pub(super) use redeclare::{
    check_class_redeclare, check_component_redeclare, check_modifier_redeclare,
    check_redeclare_again,
};

use super::Flattener;
use super::classtree::NodeBody;
use super::expand::Expanded;
use crate::diag::Diagnostic;
use crate::syntax::ast::ClassKind;

impl Flattener<'_> {
    /// Checks the legality rules of the class expanded as `e`.
    pub(super) fn check_class_legality(&mut self, e: &Expanded) -> Result<(), Diagnostic> {
        let node = self.tree.get(e.id);
        if !matches!(node.body, NodeBody::Builtin(_))
            && matches!(
                node.name.as_str(),
                "Real" | "Integer" | "Boolean" | "String"
            )
        {
            return Err(Diagnostic::error(
                node.span,
                format!(
                    "`{}` is the name of a predefined type and cannot be used for a class (MLS 4.8)",
                    node.name
                ),
            )
            .with_help("choose another name"));
        }
        if let NodeBody::Enumeration(lits) = &node.body {
            enumeration::check(node, lits)?;
        }
        self.check_bases(e)?;
        self.check_duplicate_modifications(e)?;
        self.check_contents(e)?;
        self.check_constraining_types(e)?;
        if e.is_function() {
            self.check_function(e)?;
        }
        Ok(())
    }
}

/// `pure function` and `impure function` are functions as far as these rules go.
fn base_kind(k: ClassKind) -> ClassKind {
    match k {
        ClassKind::PureFunction | ClassKind::ImpureFunction => ClassKind::Function,
        k => k,
    }
}

/// The kind as written in Modelica (`operator record`).
fn kind_name(k: ClassKind) -> &'static str {
    crate::syntax::kind_text(k)
}
