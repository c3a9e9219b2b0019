//! The round-trip check shared by the syntax tests: parse, print, parse again.

use minimo::syntax::{parse, print};
use serde_json::Value;
use std::path::Path;

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

/// Parses the file at `path`, prints and re-parses it: the two trees must be the same (spans
/// aside) and printing must be stable (print(parse(print(t))) == print(t)).
pub fn assert_round_trips(path: &Path) {
    let text = std::fs::read_to_string(path).expect("read");
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
