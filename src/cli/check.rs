//! `minimo check`: parse every file and report every problem found.

use crate::diag::{self, Diagnostic, SourceMap, Span};
use crate::syntax::{self, ast};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Model files to check.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Checks each file independently (one broken file does not hide problems in the others);
/// exit code 1 when any file has an error.
pub fn run(args: CheckArgs) -> i32 {
    let mut sources = SourceMap::new();
    let mut failed = false;
    for path in &args.files {
        match check_file(path, &mut sources) {
            Ok(_) => {}
            Err(ds) => {
                failed = true;
                eprint!("{}", diag::render_all(&sources, &ds));
            }
        }
    }
    if failed {
        1
    } else {
        println!("ok: {} file(s) checked", args.files.len());
        0
    }
}

/// Read and parse one file. Later stages (flattening) hook in here.
pub fn check_file(path: &Path, sources: &mut SourceMap) -> diag::Result<ast::StoredDefinition> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::InvalidData => "the file is not valid UTF-8 text".to_string(),
            _ => e.to_string(),
        };
        vec![Diagnostic::error(
            Span::DUMMY,
            format!("cannot read `{}`: {why}", path.display()),
        )]
    })?;
    let file = sources.add(path.display().to_string(), text.as_str());
    syntax::parse(&text, file)
}
