//! Model files written by others for this project (the built-in library `stdlib/` and the
//! `examples/`), which the front end was not written against: every one parses, and printing
//! and re-parsing gives the same tree.

use minimo::syntax::{parse, print};
use serde_json::Value;
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

fn without_spans(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            if m.len() == 3
                && m.contains_key("file")
                && m.contains_key("start")
                && m.contains_key("end")
            {
                return Value::Null;
            }
            Value::Object(
                m.into_iter()
                    .filter(|(k, _)| k != "span")
                    .map(|(k, v)| (k, without_spans(v)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.into_iter().map(without_spans).collect()),
        other => other,
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
        let text = std::fs::read_to_string(path).expect("read");
        let tree =
            parse(&text, 0).unwrap_or_else(|d| panic!("{}: {}", path.display(), d[0].message));
        let printed = print(&tree);
        let again = parse(&printed, 0)
            .unwrap_or_else(|d| panic!("{} re-parse: {d:?}\n{printed}", path.display()));
        assert!(
            without_spans(serde_json::to_value(&tree).expect("json"))
                == without_spans(serde_json::to_value(&again).expect("json")),
            "{}: tree changed after printing",
            path.display()
        );
    }
}
