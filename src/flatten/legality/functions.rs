//! The restrictions of functions (MLS 12.2): public components are inputs or outputs, no
//! `inner`/`outer` elements, no equations, at most one algorithm section, and inputs are
//! read-only in the body.

use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::expand::{CompElem, Expanded};
use crate::syntax::ast::{Causality, ComponentRef, Statement, StatementKind, Variability};
use std::collections::HashSet;

impl Flattener<'_> {
    pub(super) fn check_function(&mut self, e: &Expanded) -> Result<(), Diagnostic> {
        let name = self.tree.get(e.id).full.clone();
        let err = |span: Span, msg: String, help: &str| {
            Diagnostic::error(span, msg)
                .with_secondary(e.span, format!("in function `{name}`"))
                .with_help(help.to_string())
        };
        for c in &e.components {
            let ep = &c.clause.element_prefixes;
            if ep.inner || ep.outer {
                let word = if ep.inner { "inner" } else { "outer" };
                return Err(err(
                    c.decl().name.span,
                    format!("an element of a function cannot be `{word}` (MLS 12.2)"),
                    "pass the value as an input instead",
                ));
            }
            // Public constants are tolerated: older libraries declare them without `protected`.
            if !c.protected
                && c.clause.prefix.causality == Causality::None
                && c.clause.prefix.variability != Variability::Constant
                && self.type_causality(c) == Causality::None
            {
                return Err(err(
                    c.decl().name.span,
                    format!(
                        "the public component `{}` of a function must be an `input` or an `output` (MLS 12.2)",
                        c.name
                    ),
                    "declare it `input` or `output`, or move it into a `protected` section",
                ));
            }
        }
        if let Some((_, eq)) = e.equations.first() {
            return Err(err(
                eq.span,
                "a function cannot have equations (MLS 12.2)".to_string(),
                "compute the outputs in an algorithm section",
            ));
        }
        if let Some((_, eq)) = e.initial_equations.first() {
            return Err(err(
                eq.span,
                "a function cannot have initial equations or initial algorithms (MLS 12.2)"
                    .to_string(),
                "compute the outputs in the algorithm section",
            ));
        }
        if let Some((_, second)) = e.algorithms.get(1) {
            let span = second.first().map(|s| s.span).unwrap_or(e.span);
            return Err(err(
                span,
                "a function can have at most one algorithm section (MLS 12.2)".to_string(),
                "merge the algorithm sections into one",
            ));
        }
        let inputs: HashSet<&str> = e
            .components
            .iter()
            .filter(|c| c.clause.prefix.causality == Causality::Input)
            .map(|c: &CompElem| c.name.as_str())
            .collect();
        for (_, body) in &e.algorithms {
            if let Some(target) = assigned_input(body, &inputs, &mut Vec::new()) {
                let input = target.parts[0].ident.name.clone();
                return Err(err(
                    target.span,
                    format!("the input `{input}` of a function cannot be assigned (MLS 12.2)"),
                    "inputs are read-only: copy the value into a protected variable and change that",
                ));
            }
        }
        Ok(())
    }
}

/// The first assignment in `body` whose target is one of `inputs` (not hidden by a `for`
/// iterator of the same name, kept in `iters`).
fn assigned_input<'a>(
    body: &'a [Statement],
    inputs: &HashSet<&str>,
    iters: &mut Vec<String>,
) -> Option<&'a ComponentRef> {
    let is_input = |r: &ComponentRef, iters: &Vec<String>| {
        let first = r.parts.first().map(|p| p.ident.name.as_str()).unwrap_or("");
        !r.global && inputs.contains(first) && !iters.iter().any(|i| i == first)
    };
    for s in body {
        let found = match &s.kind {
            StatementKind::Assign { target, .. } => is_input(target, iters).then_some(target),
            StatementKind::MultiAssign { targets, .. } => {
                targets.iter().flatten().find(|t| is_input(t, iters))
            }
            StatementKind::If { branches, else_ } => branches
                .iter()
                .find_map(|(_, b)| assigned_input(b, inputs, iters))
                .or_else(|| assigned_input(else_, inputs, iters)),
            StatementKind::When { branches } => branches
                .iter()
                .find_map(|(_, b)| assigned_input(b, inputs, iters)),
            StatementKind::While { body, .. } => assigned_input(body, inputs, iters),
            StatementKind::For { indices, body } => {
                let n = iters.len();
                iters.extend(indices.iter().map(|i| i.name.name.clone()));
                let r = assigned_input(body, inputs, iters);
                iters.truncate(n);
                r
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

impl Flattener<'_> {
    /// The causality a component's type gives it (`type InArg = input Real`, MLS 4.5.2);
    /// `None` when the type has none or cannot be found here.
    fn type_causality(&mut self, c: &CompElem) -> Causality {
        match self.lookup_class_name(&c.clause.type_name, c.lex, None) {
            Ok(t) => self
                .expanded(t)
                .map(|e| e.type_prefix.causality)
                .unwrap_or(Causality::None),
            Err(_) => Causality::None,
        }
    }
}
