//! Tidiness rules of the code base that the compiler and clippy do not check: every module
//! says what it is for in a `//!` doc comment, and every `unsafe` block or function carries a
//! `SAFETY` comment that states the invariant it relies on.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn sources() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("source file");
            (p.strip_prefix(root).unwrap().to_path_buf(), text)
        })
        .collect()
}

#[test]
fn every_module_has_a_doc_comment() {
    let missing: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| {
            // The first line that is not blank and not an attribute must be a `//!` comment.
            !text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("#!["))
                .is_some_and(|l| l.starts_with("//!"))
        })
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "these modules do not start with a `//!` comment saying what they are for:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn every_unsafe_has_a_safety_comment() {
    let mut bare = Vec::new();
    for (path, text) in sources() {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if !(code.contains("unsafe {") || code.contains("unsafe fn")) {
                continue;
            }
            // The comment may sit on the lines just above, or (for an `unsafe fn`) in its
            // `# Safety` doc section.
            let above = &lines[i.saturating_sub(8)..i];
            let ok = above
                .iter()
                .any(|l| l.contains("SAFETY") || l.contains("# Safety"));
            if !ok {
                bare.push(format!("{}:{}", path.display(), i + 1));
            }
        }
    }
    assert!(
        bare.is_empty(),
        "`unsafe` without a SAFETY comment stating its invariant:\n  {}",
        bare.join("\n  ")
    );
}

/// `mod.rs` files that still define items of their own (types, functions) instead of only
/// declaring and re-exporting; new ones must not join this list (issue 16).
const MOD_FILES_WITH_ITEMS: &[&str] = &[
    "src/cli/mod.rs",
    "src/dae/mod.rs",
    "src/diag/mod.rs",
    "src/flatten/legality/mod.rs",
    "src/flatten/mod.rs",
    "src/plot/mod.rs",
    "src/structure/mod.rs",
    "src/syntax/mod.rs",
];

#[test]
fn mod_files_only_declare_and_reexport() {
    let item = |l: &str| {
        let l = l
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        [
            "fn ", "struct ", "enum ", "impl ", "impl<", "trait ", "const ", "static ", "type ",
        ]
        .iter()
        .any(|k| l.starts_with(k))
    };
    let mut offending = Vec::new();
    for (path, text) in sources() {
        let name = path.display().to_string().replace('\\', "/");
        if !name.ends_with("/mod.rs") {
            continue;
        }
        // Items at the top level only (a line that starts in column 0).
        let first = text.lines().find(|l| item(l));
        match (first, MOD_FILES_WITH_ITEMS.contains(&name.as_str())) {
            (Some(l), false) => offending.push(format!("{name}: `{l}`")),
            (None, true) => offending.push(format!("{name}: clean now, remove it from the list")),
            _ => {}
        }
    }
    assert!(
        offending.is_empty(),
        "these mod.rs files define items; move them to a module named after what they are and \
         re-export them:\n  {}",
        offending.join("\n  ")
    );
}
