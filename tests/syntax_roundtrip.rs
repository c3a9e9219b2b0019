//! Every corpus file parses; printing and re-parsing gives the same tree (spans aside), and
//! printing is stable (print(parse(print(t))) == print(t)).

use minimo::syntax::{parse, print};
use serde_json::Value;
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

/// The tree as JSON with every span removed.
fn without_spans(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let is_span = m.len() == 3
                && m.contains_key("file")
                && m.contains_key("start")
                && m.contains_key("end");
            if is_span {
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
fn corpus_round_trips() {
    let files = corpus();
    assert!(files.len() >= 10, "corpus too small: {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read corpus file");
        let tree = parse(&text, 0).unwrap_or_else(|d| panic!("{}: {d:#?}", path.display()));
        let printed = print(&tree);
        let again = parse(&printed, 0)
            .unwrap_or_else(|d| panic!("{} re-parse:\n{printed}\n{d:#?}", path.display()));
        let a = without_spans(serde_json::to_value(&tree).expect("json"));
        let b = without_spans(serde_json::to_value(&again).expect("json"));
        assert!(
            a == b,
            "{}: tree changed after printing:\n{printed}",
            path.display()
        );
        assert_eq!(
            print(&again),
            printed,
            "{}: printing is not stable",
            path.display()
        );
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
