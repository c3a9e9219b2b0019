//! MLS 7.2.4: two arguments of one modification may not designate the same element or
//! attribute (`C(x = 1, x = 2)`, `x(start = 1, start = 2)`, `x(start = 1), x.start = 2`).
//! Checked on the modifications written in a class: its short definition, its `extends`
//! clauses and its own declarations.

use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::classtree::NodeBody;
use crate::flatten::expand::Expanded;
use crate::syntax::ast::{Argument, ClassModification, Modification, RedeclaredElement};
use std::collections::HashMap;

impl Flattener<'_> {
    pub(super) fn check_duplicate_modifications(&self, e: &Expanded) -> Result<(), Diagnostic> {
        let node = self.tree.get(e.id);
        match &node.body {
            NodeBody::Short(s) => {
                if let Some(m) = &s.modification {
                    check(m)?;
                }
            }
            _ => {
                if let Some(body) = node.long() {
                    for x in &body.extends {
                        if let Some(m) = &x.modification {
                            check(m)?;
                        }
                    }
                    for (c, _) in &body.components {
                        for d in &c.components {
                            if let Some(Modification::Class { args, .. }) = &d.modification {
                                check(args)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The first element or attribute modified twice in `m`.
fn check(m: &ClassModification) -> Result<(), Diagnostic> {
    let mut seen: HashMap<String, Span> = HashMap::new();
    collect(m, "", &mut seen)
}

fn collect(
    m: &ClassModification,
    prefix: &str,
    seen: &mut HashMap<String, Span>,
) -> Result<(), Diagnostic> {
    for a in &m.args {
        match a {
            Argument::Modify {
                name,
                modification,
                span,
                ..
            } => {
                let path = format!(
                    "{prefix}{}",
                    name.parts
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(".")
                );
                let (binding, sub) = match modification {
                    Some(Modification::Class { args, binding, .. }) => {
                        (binding.is_some(), Some(args))
                    }
                    Some(Modification::Binding { .. } | Modification::Assign { .. }) => {
                        (true, None)
                    }
                    None => (false, None),
                };
                if binding {
                    note(seen, path.clone(), *span)?;
                }
                if let Some(args) = sub {
                    collect(args, &format!("{path}."), seen)?;
                }
            }
            Argument::Redeclare { element, span, .. } => {
                let names: Vec<String> = match element {
                    RedeclaredElement::Class(c) => vec![c.name.name.clone()],
                    RedeclaredElement::Component(c) => {
                        c.components.iter().map(|d| d.name.name.clone()).collect()
                    }
                };
                for n in names {
                    note(seen, format!("{prefix}{n}"), *span)?;
                }
            }
        }
    }
    Ok(())
}

fn note(seen: &mut HashMap<String, Span>, path: String, span: Span) -> Result<(), Diagnostic> {
    if let Some(first) = seen.get(&path) {
        return Err(Diagnostic::error(
            span,
            format!("`{path}` is modified twice in the same modification (MLS 7.2.4)"),
        )
        .with_secondary(*first, "first modified here")
        .with_help("keep one of the two modifications"));
    }
    seen.insert(path, span);
    Ok(())
}
