//! Model files written by others for this project (the built-in library `stdlib/` and the
//! `examples/`), which the front end was not written against: every one parses, and printing
//! and re-parsing gives the same tree; printing is stable.

#[path = "syntax/roundtrip.rs"]
mod roundtrip;

use roundtrip::assert_round_trips;
use std::path::{Path, PathBuf};

fn mo_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            mo_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "mo") {
            out.push(p);
        }
    }
}

#[test]
fn library_and_example_files_parse_and_round_trip() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    mo_files(&root.join("stdlib"), &mut files);
    mo_files(&root.join("examples"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .mo files under stdlib/ or examples/");
    for path in &files {
        assert_round_trips(path);
    }
}
