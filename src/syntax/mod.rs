//! Front end: the pest grammar, the typed syntax tree, the parser and the pretty-printer.
//!
//! [`parse`] runs the pest grammar (`grammar/modelica.pest`) and converts the pairs into the
//! typed tree of [`ast`] ([`build`] for declarations, [`expr`] for expressions). Syntax errors
//! are translated from pest's "expected rules" into the modeler's words by [`errors`].
//! [`print`] writes a tree back as Modelica text.

pub mod ast;
mod build;
mod errors;
mod expr;
mod parser;
mod prefixes;
mod print;
mod recover;
pub mod skeleton;
pub(crate) use print::real;
pub use print::{kind_text, print, print_expr, print_statement};

use crate::diag::{self, Diagnostic, FileId, Span};

/// Deepest bracket nesting accepted. The parser and the tree builder are recursive; this
/// bound keeps them far from the thread's stack limit on adversarial input.
const MAX_NESTING: usize = 200;

/// Parse one Modelica file. `file` is the id under which the text was added to the
/// [`diag::SourceMap`]; every span in the tree and in the diagnostics refers to it.
pub fn parse(text: &str, file: FileId) -> diag::Result<ast::StoredDefinition> {
    if let Some(d) = check_nesting(text, file) {
        return Err(vec![d]);
    }
    match parser::parse_pairs(text) {
        Ok(pair) => build::Builder::new(file, 0)
            .stored_definition(pair)
            .map_err(|d| vec![*d]),
        Err(e) => {
            let mut diags = vec![errors::translate(text, file, &e)];
            further_errors(text, file, &mut diags);
            Err(diags)
        }
    }
}

/// Parse `text[region]` (one class definition of a file, found by [`skeleton`]) as a file of
/// its own; spans refer to the whole `text`. Diagnostics come from parsing `text` with
/// everything outside `region` blanked, so their positions and excerpts are the file's.
pub fn parse_region(
    text: &str,
    file: FileId,
    region: std::ops::Range<usize>,
) -> diag::Result<ast::StoredDefinition> {
    let part = &text[region.clone()];
    if check_nesting(part, file).is_none()
        && let Ok(pair) = parser::parse_pairs(part)
        && let Ok(def) = build::Builder::new(file, region.start).stored_definition(pair)
    {
        return Ok(def);
    }
    let outside = [0..region.start, region.end..text.len()];
    parse(&skeleton::blank(text, &outside), file)
}

/// At most this many syntax errors are reported per file.
const MAX_ERRORS: usize = 10;

/// Appends the syntax errors after the first ones, while the element holding the last error
/// can be skipped safely (see `recover.rs`).
fn further_errors(text: &str, file: FileId, diags: &mut Vec<Diagnostic>) {
    let mut current = text.to_string();
    let mut done = 0;
    while diags.len() < MAX_ERRORS {
        let Some(last) = diags.last() else { return };
        let pos = last.span.start as usize;
        if last.span == Span::DUMMY || pos < done {
            return;
        }
        // A wrong section (an equation among declarations) or a misspelled keyword affects
        // everything after it: what follows would only repeat the same mistake.
        if last
            .help
            .as_deref()
            .is_some_and(|h| h.contains("keyword") || h.contains("did you mean"))
        {
            return;
        }
        let Some(range) = recover::element_around(&current, pos) else {
            return;
        };
        current = recover::blank(&current, range);
        done = range.1;
        match parser::parse_pairs(&current) {
            Ok(_) => return,
            Err(e) => {
                let d = errors::translate(&current, file, &e);
                // An error at or before the blanked text comes from the blanking itself.
                if (d.span.start as usize) < done {
                    return;
                }
                diags.push(d);
            }
        }
    }
}

/// Rejects absurdly deep nesting of `(`, `[` and `{` before the recursive parser sees it.
fn check_nesting(text: &str, file: FileId) -> Option<Diagnostic> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(
                        Diagnostic::error(Span::new(file, i, i + 1), "expression nested too deeply")
                            .with_help(format!(
                                "minimo accepts at most {MAX_NESTING} nested brackets; split the expression"
                            )),
                    );
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}
