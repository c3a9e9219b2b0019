//! The contents of the specialized classes (MLS 4.7): records and connectors have only public
//! components and no equations or algorithms, record elements carry no `input`, `output`,
//! `inner`, `outer`, `flow` or `stream`, connector elements no `inner` or `outer`, packages
//! hold only classes and constants, and every public connector of a block is directed.

use super::kind_name;
use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::expand::{CompElem, Expanded};
use crate::syntax::ast::{Causality, ClassKind, Connection, Variability};

/// How deep a block's connector is searched for an undirected variable.
const MAX_CONNECTOR_DEPTH: usize = 16;

impl Flattener<'_> {
    pub(super) fn check_contents(&mut self, e: &Expanded) -> Result<(), Diagnostic> {
        match e.kind {
            ClassKind::Record | ClassKind::OperatorRecord => {
                self.only_public_components(e)?;
                for c in &e.components {
                    let p = &c.clause.prefix;
                    let ep = &c.clause.element_prefixes;
                    let bad = match (p.causality, p.connection) {
                        (Causality::Input, _) => Some("input"),
                        (Causality::Output, _) => Some("output"),
                        (_, Connection::Flow) => Some("flow"),
                        (_, Connection::Stream) => Some("stream"),
                        _ if ep.inner => Some("inner"),
                        _ if ep.outer => Some("outer"),
                        _ => None,
                    };
                    if let Some(word) = bad {
                        return Err(self.element_error(
                            e,
                            c,
                            format!(
                                "an element of a {} cannot be `{word}` (MLS 4.7)",
                                kind_name(e.kind)
                            ),
                            format!("remove `{word}`"),
                        ));
                    }
                }
            }
            ClassKind::Connector | ClassKind::ExpandableConnector => {
                self.only_public_components(e)?;
                for c in &e.components {
                    let ep = &c.clause.element_prefixes;
                    if ep.inner || ep.outer {
                        let word = if ep.inner { "inner" } else { "outer" };
                        return Err(self.element_error(
                            e,
                            c,
                            format!("an element of a connector cannot be `{word}` (MLS 4.7)"),
                            format!("remove `{word}`"),
                        ));
                    }
                }
            }
            ClassKind::Package => {
                if let Some(c) = e
                    .components
                    .iter()
                    .find(|c| c.clause.prefix.variability != Variability::Constant)
                {
                    return Err(self.element_error(
                        e,
                        c,
                        "a package may only contain classes and constants (MLS 4.7)".to_string(),
                        "declare it `constant`, or move it into a model".to_string(),
                    ));
                }
            }
            ClassKind::Operator => {
                if let Some(c) = e.components.first() {
                    return Err(self.element_error(
                        e,
                        c,
                        "an operator may only contain functions (MLS 4.7)".to_string(),
                        "move the component out of the operator".to_string(),
                    ));
                }
                let mut nested: Vec<_> = e.classes.values().map(|c| c.id).collect();
                nested.sort_unstable();
                if let Some(&c) = nested.iter().find(|&&c| {
                    !matches!(
                        self.tree.get(c).kind,
                        ClassKind::Function
                            | ClassKind::PureFunction
                            | ClassKind::ImpureFunction
                            | ClassKind::OperatorFunction
                    )
                }) {
                    let n = self.tree.get(c);
                    return Err(Diagnostic::error(
                        n.span,
                        format!(
                            "`{}` is a {}: an operator may only contain functions (MLS 4.7)",
                            n.name,
                            kind_name(n.kind)
                        ),
                    )
                    .with_help("move the class out of the operator"));
                }
            }
            ClassKind::Block => self.check_block_connectors(e)?,
            _ => {}
        }
        Ok(())
    }

    /// Records and connectors: no protected components, equations or algorithms.
    fn only_public_components(&self, e: &Expanded) -> Result<(), Diagnostic> {
        let kind = kind_name(e.kind);
        if let Some(c) = e.components.iter().find(|c| c.protected) {
            return Err(self.element_error(
                e,
                c,
                format!("a {kind} cannot have protected elements (MLS 4.7)"),
                "make the element public, or remove it".to_string(),
            ));
        }
        let section = if let Some((_, eq)) = e.equations.first() {
            Some((eq.span, "equations"))
        } else if let Some((_, eq)) = e.initial_equations.first() {
            Some((eq.span, "initial equations or initial algorithms"))
        } else {
            e.algorithms
                .first()
                .map(|(_, a)| (a.first().map(|s| s.span).unwrap_or(e.span), "algorithms"))
        };
        if let Some((span, what)) = section {
            let name = self.tree.get(e.id).full.clone();
            return Err(Diagnostic::error(
                span,
                format!("a {kind} cannot have {what} (MLS 4.7)"),
            )
            .with_secondary(e.span, format!("`{name}` is a {kind}"))
            .with_help(format!(
                "a {kind} only declares variables; put the equations into the model that uses it"
            )));
        }
        Ok(())
    }

    /// MLS 4.7: each public connector component of a block must have `input` or `output` for
    /// all its variables that are neither parameters nor constants.
    fn check_block_connectors(&mut self, e: &Expanded) -> Result<(), Diagnostic> {
        for c in e.components.iter().filter(|c| !c.protected) {
            if directed(c) {
                continue;
            }
            let Ok(ty) = self.lookup_class_name(&c.clause.type_name, c.lex, None) else {
                continue;
            };
            let Ok(te) = self.expanded(ty) else { continue };
            // Expandable connectors get their variables from connections (MLS 9.1.3).
            if te.kind != ClassKind::Connector {
                continue;
            }
            if let Some(var) = self.undirected_variable(&te, 0) {
                let what = if var.is_empty() {
                    format!("`{}`", c.name)
                } else {
                    format!("`{}.{var}`", c.name)
                };
                return Err(self.element_error(
                    e,
                    c,
                    format!(
                        "the connector {what} of a block has neither `input` nor `output` (MLS 4.7)"
                    ),
                    "declare the connector (or its variables) `input` or `output`, or use a model"
                        .to_string(),
                ));
            }
        }
        Ok(())
    }

    /// A variable of connector (or record) `t` without direction, relative to `t` (empty: `t`
    /// itself, a simple type).
    fn undirected_variable(&mut self, t: &Expanded, depth: usize) -> Option<String> {
        if t.type_prefix.causality != Causality::None
            || matches!(
                t.type_prefix.variability,
                Variability::Parameter | Variability::Constant
            )
        {
            return None;
        }
        if t.prim.is_some() {
            return Some(String::new());
        }
        if depth > MAX_CONNECTOR_DEPTH {
            return None;
        }
        for c in &t.components {
            if directed(c) {
                continue;
            }
            let Ok(ty) = self.lookup_class_name(&c.clause.type_name, c.lex, None) else {
                continue;
            };
            let Ok(ce) = self.expanded(ty) else { continue };
            if let Some(v) = self.undirected_variable(&ce, depth + 1) {
                return Some(if v.is_empty() {
                    c.name.clone()
                } else {
                    format!("{}.{v}", c.name)
                });
            }
        }
        None
    }

    fn element_error(&self, e: &Expanded, c: &CompElem, msg: String, help: String) -> Diagnostic {
        let name = self.tree.get(e.id).full.clone();
        let span: Span = c.decl().name.span;
        Diagnostic::error(span, msg)
            .with_secondary(e.span, format!("`{name}` is a {}", kind_name(e.kind)))
            .with_help(help)
    }
}

/// Whether a declaration has a direction or is a parameter or constant.
fn directed(c: &CompElem) -> bool {
    let p = &c.clause.prefix;
    p.causality != Causality::None
        || matches!(
            p.variability,
            Variability::Parameter | Variability::Constant
        )
}
