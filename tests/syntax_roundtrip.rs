//! Every corpus file parses; printing and re-parsing gives the same tree (spans aside), and
//! printing is stable (print(parse(print(t))) == print(t)).

#[path = "syntax/roundtrip.rs"]
mod roundtrip;

use minimo::syntax::{parse, print};
use roundtrip::assert_round_trips;
use std::path::PathBuf;

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/syntax/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mo"))
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_round_trips() {
    let files = corpus();
    assert!(files.len() >= 10, "corpus too small: {files:?}");
    for path in files {
        assert_round_trips(&path);
    }
}

#[test]
fn printer_adds_parentheses_by_precedence() {
    let text = "model M equation x = (a + b) * c - (d - e) + (-h) ^ 2 + (i ^ j) ^ k; v = -(f ^ g) - (-h) * 2; \
                y = not (a and b) or (c or d) and e; z = (1:3) * 2; w = (if a then b else c) + 1; end M;";
    let printed = print(&parse(text, 0).expect("parses"));
    assert!(
        printed.contains("x = (a + b) * c - (d - e) + (-h) ^ 2 + (i ^ j) ^ k;"),
        "{printed}"
    );
    assert!(printed.contains("v = -f ^ g - (-h) * 2;"), "{printed}");
    assert!(
        printed.contains("y = not (a and b) or (c or d) and e;"),
        "{printed}"
    );
    assert!(printed.contains("z = (1:3) * 2;"), "{printed}");
    assert!(
        printed.contains("w = (if a then b else c) + 1;"),
        "{printed}"
    );
}
