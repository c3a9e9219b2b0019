//! Prefix words (`final`, `parameter`, `flow`, `replaceable`...). The grammar accepts any
//! sequence of them (one cheap rule); here they are sorted into element, class and type prefixes,
//! and a word in the wrong place or given twice becomes a diagnostic.

use super::ast::*;
use super::build::{Builder, P, R, err};
use crate::diag::{Diagnostic, Span};

/// The prefix words written before a declaration, a class or a modifier argument.
#[derive(Default)]
pub(crate) struct PrefixSet {
    pub(crate) element: ElementPrefixes,
    pub(crate) each: bool,
    pub(crate) encapsulated: bool,
    pub(crate) partial: bool,
    pub(crate) type_prefix: TypePrefix,
    /// Each word with its span, in source order.
    pub(crate) words: Vec<(String, Span)>,
}

/// Where the prefixes stand; decides which words are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Before a top-level class of a file.
    TopClass,
    /// Before a class inside a class.
    Class,
    /// Before a component declaration.
    Component,
    /// After `=` in a short class definition (`type T = input Real`).
    ShortClassBase,
    /// Before a modifier argument (`each`, `final`, `redeclare`, `replaceable` and, for a
    /// redeclared component, type prefixes).
    Argument,
}

impl PrefixSet {
    /// The class prefixes of a class definition.
    pub(crate) fn class_prefixes(&self) -> ClassPrefixes {
        ClassPrefixes {
            partial: self.partial,
            encapsulated: self.encapsulated,
            final_: self.element.final_,
            redeclare: self.element.redeclare,
            replaceable: self.element.replaceable,
            inner: self.element.inner,
            outer: self.element.outer,
        }
    }

    /// The first of `words` that was given, with its span.
    pub(crate) fn first_of(&self, words: &[&str]) -> Option<(String, Span)> {
        self.words
            .iter()
            .find(|(w, _)| words.contains(&w.as_str()))
            .cloned()
    }

    /// Checks the words against the place; `is_class` distinguishes a redeclared class from a
    /// redeclared component in a modifier.
    pub(crate) fn check(&self, place: Place, is_class: bool) -> R<()> {
        for (w, span) in &self.words {
            let w = w.as_str();
            let type_word = matches!(
                w,
                "flow" | "stream" | "discrete" | "parameter" | "constant" | "input" | "output"
            );
            let class_word = matches!(w, "encapsulated" | "partial");
            let element_word =
                matches!(w, "redeclare" | "final" | "inner" | "outer" | "replaceable");
            let ok = match place {
                Place::TopClass => matches!(w, "final" | "encapsulated" | "partial"),
                Place::Class => element_word || class_word,
                Place::Component => element_word || type_word,
                Place::ShortClassBase => type_word,
                Place::Argument => {
                    matches!(w, "redeclare" | "each" | "final" | "replaceable")
                        || (type_word && !is_class)
                        || (class_word && is_class)
                }
            };
            if !ok {
                let what = match place {
                    Place::TopClass => "a top-level class",
                    Place::Class => "a class definition",
                    Place::Component => "a component declaration",
                    Place::ShortClassBase => "the base type of a short class definition",
                    Place::Argument => "a modifier",
                };
                let mut d = Diagnostic::error(*span, format!("`{w}` is not allowed on {what}"));
                if w == "each" {
                    d = d.with_help(
                        "`each` is only used inside a modification: `x(each start = 0)`",
                    );
                } else if type_word && place == Place::Class {
                    d = d.with_help(format!("`{w}` belongs on a component, e.g. `{w} Real x;`"));
                }
                return err(d);
            }
        }
        Ok(())
    }
}

impl Builder {
    /// Collect `prefix_word` pairs; a word given twice, or two words of the same group
    /// (`parameter constant`), is an error.
    pub(crate) fn prefix_set(&self, words: Vec<P>) -> R<PrefixSet> {
        let mut set = PrefixSet::default();
        for w in words {
            let span = self.span(&w);
            let text = w.as_str();
            if let Some((_, first)) = set.words.iter().find(|(x, _)| x == text) {
                return err(Diagnostic::error(span, format!("`{text}` is given twice"))
                    .with_secondary(*first, "first here"));
            }
            let group_clash = |set: &PrefixSet, group: &[&str]| {
                set.words
                    .iter()
                    .find(|(x, _)| group.contains(&x.as_str()) && group.contains(&text))
                    .cloned()
            };
            for group in [
                &["flow", "stream"][..],
                &["discrete", "parameter", "constant"][..],
                &["input", "output"][..],
            ] {
                if let Some((other, first)) = group_clash(&set, group) {
                    return err(Diagnostic::error(
                        span,
                        format!("`{text}` cannot be combined with `{other}`"),
                    )
                    .with_secondary(first, format!("`{other}` here")));
                }
            }
            match text {
                "redeclare" => set.element.redeclare = true,
                "final" => set.element.final_ = true,
                "inner" => set.element.inner = true,
                "outer" => set.element.outer = true,
                "replaceable" => set.element.replaceable = true,
                "each" => set.each = true,
                "encapsulated" => set.encapsulated = true,
                "partial" => set.partial = true,
                "flow" => set.type_prefix.connection = Connection::Flow,
                "stream" => set.type_prefix.connection = Connection::Stream,
                "discrete" => set.type_prefix.variability = Variability::Discrete,
                "parameter" => set.type_prefix.variability = Variability::Parameter,
                "constant" => set.type_prefix.variability = Variability::Constant,
                "input" => set.type_prefix.causality = Causality::Input,
                "output" => set.type_prefix.causality = Causality::Output,
                _ => {
                    return err(Diagnostic::error(
                        span,
                        format!("internal parser error: prefix `{text}`"),
                    ));
                }
            }
            set.words.push((text.to_string(), span));
        }
        Ok(set)
    }
}
