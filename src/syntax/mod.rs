//! Front end: the pest grammar, the typed syntax tree, the parser and the pretty-printer.

pub mod ast;
