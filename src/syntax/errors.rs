//! Translation of pest's parse failures into diagnostics in the modeler's words.

use super::parser::Rule;
use crate::diag::{Diagnostic, FileId, Span};
use pest::error::{Error, InputLocation};

pub(crate) fn translate(text: &str, file: FileId, e: &Error<Rule>) -> Diagnostic {
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let end = next_char_end(text, pos);
    Diagnostic::error(
        Span::new(file, pos, end),
        format!("syntax error: {}", e.variant.message()),
    )
}

fn next_char_end(text: &str, pos: usize) -> usize {
    text.get(pos..)
        .and_then(|s| s.chars().next())
        .map(|c| pos + c.len_utf8())
        .unwrap_or(pos)
}
