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
pub use print::{print, print_expr};

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
        Ok(pair) => build::Builder::new(file, text)
            .stored_definition(pair)
            .map_err(|d| vec![*d]),
        Err(e) => Err(vec![errors::translate(text, file, &e)]),
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
