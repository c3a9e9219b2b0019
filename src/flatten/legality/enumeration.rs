//! Enumeration literals (MLS 4.9.5): distinct, and none named like an attribute of the
//! enumeration type (`quantity`, `min`, `max`, `start`, `fixed`), since attributes and literals
//! live in the same name space.

use crate::diag::Diagnostic;
use crate::flatten::classtree::ClassNode;

/// The attributes of an enumeration type (MLS 4.9.5.1).
const ATTRIBUTES: [&str; 5] = ["quantity", "min", "max", "start", "fixed"];

pub(super) fn check(node: &ClassNode, literals: &[String]) -> Result<(), Diagnostic> {
    for (i, lit) in literals.iter().enumerate() {
        if literals[..i].contains(lit) {
            return Err(Diagnostic::error(
                node.span,
                format!(
                    "the enumeration `{}` has the literal `{lit}` twice (MLS 4.9.5)",
                    node.name
                ),
            )
            .with_help("the literals of an enumeration must be distinct"));
        }
        if ATTRIBUTES.contains(&lit.as_str()) {
            return Err(Diagnostic::error(
                node.span,
                format!(
                    "the enumeration `{}` has a literal `{lit}`, which is the name of an attribute of enumeration types (MLS 4.9.5)",
                    node.name
                ),
            )
            .with_help(format!(
                "rename the literal: `{}` cannot be used as a literal name",
                ATTRIBUTES.join("`, `")
            )));
        }
    }
    Ok(())
}
