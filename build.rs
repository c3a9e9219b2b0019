//! Embeds every file under `stdlib/` into the binary (see `src/flatten/library.rs`), so the
//! built-in library works from any folder and new files are picked up without code changes.

use std::fmt::Write as _;
use std::path::Path;

fn collect(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().to_string();
        let path = e.path();
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if path.is_dir() {
            collect(&path, &r, out);
        } else if name.ends_with(".mo") || name == "package.order" {
            out.push((
                r,
                path.canonicalize()
                    .unwrap_or(path)
                    .to_string_lossy()
                    .to_string(),
            ));
        }
    }
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let root = Path::new(&manifest).join("stdlib");
    println!("cargo:rerun-if-changed=stdlib");
    println!("cargo:rerun-if-changed=build.rs");
    let mut files = Vec::new();
    collect(&root, "", &mut files);
    let mut src = String::from(
        "/// Files of `stdlib/`: (path relative to stdlib/, contents).\npub static STDLIB: &[(&str, &str)] = &[\n",
    );
    for (rel, abs) in &files {
        let _ = writeln!(src, "    ({rel:?}, include_str!({abs:?})),");
    }
    src.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("stdlib_files.rs");
    // Rewriting identical contents would needlessly recompile the crate.
    if std::fs::read_to_string(&out).ok().as_deref() != Some(src.as_str()) {
        std::fs::write(out, src).expect("write stdlib_files.rs");
    }
}
