//! `minimo check`: parse every file and report every problem found.

use super::ModelArgs;
use crate::diag::{self, Diagnostic, SourceMap, Span};
use crate::syntax::{self, ast};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
#[command(
    mut_arg("files", |a| a.help("Model files to check")),
    mut_arg("model", |a| a.help(
        "Flatten only this model (default: every non-partial model and block of the files)"
    ))
)]
pub struct CheckArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Only parse the files (do not flatten their models).
    #[arg(long)]
    pub syntax_only: bool,
}

/// Checks each file independently (one broken file does not hide problems in the others);
/// exit code 1 when any file has an error.
pub fn run(args: CheckArgs) -> i32 {
    let mut sources = SourceMap::new();
    let mut failed = false;
    for path in args.model.files.iter().flat_map(|p| model_files(p)) {
        match check_file(&path, &mut sources) {
            Ok(_) => {}
            Err(ds) => {
                failed = true;
                eprint!("{}", diag::render_all(&sources, &ds));
            }
        }
    }
    if !failed && !args.syntax_only {
        failed = !flatten_models(&args);
    }
    if failed {
        1
    } else {
        println!("ok: {} file(s) checked", args.model.files.len());
        0
    }
}

/// The `.mo` files of a package folder (recursively, in name order), or the path itself.
fn model_files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    entries
        .into_iter()
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "mo"))
        .flat_map(|p| model_files(&p))
        .collect()
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

/// Flattens the selected model, or every non-partial model of the files; reports problems.
/// Returns whether all flattened cleanly.
fn flatten_models(args: &CheckArgs) -> bool {
    use crate::flatten::{LoadOptions, load_and_flatten, models_in_files};
    let base = LoadOptions {
        files: args.model.files.clone(),
        libs: args.model.libs.clone(),
        model: args.model.model.clone(),
    };
    let models = match &args.model.model {
        Some(m) => vec![m.clone()],
        None => {
            let mut sources = SourceMap::new();
            match models_in_files(&base, &mut sources) {
                Ok(m) => m,
                Err(ds) => {
                    eprint!("{}", diag::render_all(&sources, &ds));
                    return false;
                }
            }
        }
    };
    let mut ok = true;
    for m in models {
        let mut sources = SourceMap::new();
        let opts = LoadOptions {
            model: Some(m.clone()),
            ..base.clone()
        };
        if let Err(ds) = load_and_flatten(&opts, &mut sources) {
            ok = false;
            eprintln!("in model `{m}`:");
            eprint!("{}", diag::render_all(&sources, &ds));
        }
    }
    ok
}
