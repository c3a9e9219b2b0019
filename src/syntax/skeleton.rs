//! A lexical scan that finds the nested class definitions of a library file without parsing it.
//!
//! Library packages keep most of their classes in one file (`Modelica/Math/package.mo` holds
//! 420 kB of functions), and a model usually needs a few of them. The scan finds each long class
//! definition written directly inside a top-level class, with its byte range, so the loader can
//! parse the file with those ranges blanked out and parse each range only when lookup first asks
//! for its name (MLS 13.2.2 allows a tool to load classes on demand).
//!
//! The scan only needs tokens: comments, strings and quoted identifiers are skipped whole, and
//! everything inside brackets is ignored (short class definitions in modifiers, function partial
//! application). Whenever the text does not have the expected shape (an `end` whose name does not
//! match, an unterminated string), the scan answers `None` and the file is parsed whole.

use super::errors::CLASS_KINDS as KINDS;
use std::ops::Range;

/// A long class definition directly inside a top-level class of the scanned text.
#[derive(Clone, Debug, PartialEq)]
pub struct NestedClass {
    /// The class's name.
    pub name: String,
    /// The name of the top-level class it is written in.
    pub owner: String,
    /// From its first prefix word to just after the `;` that follows `end name`.
    pub range: Range<usize>,
    /// Written in a `protected` section of the owner.
    pub protected: bool,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Tok {
    Word,
    Quoted,
    Semi,
    Equals,
    Other,
}

/// The tokens outside brackets (`(`, `[`, `{` and their contents are dropped).
fn tokens(text: &str, region: Range<usize>) -> Option<Vec<(Tok, Range<usize>)>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = region.start;
    let end = region.end.min(b.len());
    while i < end {
        let start = i;
        let c = b[i];
        let tok = match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'/' if i + 1 < end && b[i + 1] == b'/' => {
                while i < end && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if i + 1 < end && b[i + 1] == b'*' => {
                let close = text[i + 2..end].find("*/")?;
                i += 2 + close + 2;
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < end && b[i] != c {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= end {
                    return None;
                }
                i += 1;
                if c == b'"' { Tok::Other } else { Tok::Quoted }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
                continue;
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                i += 1;
                continue;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                Tok::Word
            }
            _ if c.is_ascii_digit() => {
                while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                Tok::Other
            }
            b';' => {
                i += 1;
                Tok::Semi
            }
            b'=' => {
                i += 1;
                if b.get(i) == Some(&b'=') {
                    i += 1;
                    Tok::Other
                } else {
                    Tok::Equals
                }
            }
            _ => {
                // Multi-byte characters only occur in strings and comments of valid Modelica;
                // step over the whole character so ranges stay on character boundaries.
                i += text[i..].chars().next().map_or(1, char::len_utf8);
                Tok::Other
            }
        };
        if depth == 0 {
            out.push((tok, start..i));
        }
    }
    (depth == 0).then_some(out)
}

/// Words that may precede a class keyword in an element.
const PREFIXES: &[&str] = &[
    "encapsulated",
    "partial",
    "final",
    "replaceable",
    "redeclare",
    "inner",
    "outer",
    "expandable",
    "pure",
    "impure",
    "operator",
];
/// Prefixes after which the class is not deferred: its element prefixes matter to the owner.
const KEEP: &[&str] = &["final", "replaceable", "redeclare", "inner", "outer"];

/// One long class being scanned.
struct Frame {
    name: String,
    start: usize,
    deferrable: bool,
    protected: bool,
}

/// The long class definitions directly inside each top-level class of `text[region]`, or `None`
/// when the text does not have the shape the scan understands.
pub fn nested_classes(text: &str, region: Range<usize>) -> Option<Vec<NestedClass>> {
    let toks = tokens(text, region)?;
    let word = |k: usize| -> Option<&str> {
        match toks.get(k) {
            Some((Tok::Word, r)) => Some(&text[r.clone()]),
            _ => None,
        }
    };
    let mut stack: Vec<Frame> = Vec::new();
    // The owner's current visibility.
    let mut protected = false;
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let w = word(k);
        let after_end = k > 0 && word(k - 1) == Some("end");
        match w {
            Some("end") => {
                let name = match toks.get(k + 1) {
                    Some((Tok::Word | Tok::Quoted, r)) => &text[r.clone()],
                    _ => return None,
                };
                k += 2;
                if matches!(name, "if" | "for" | "when" | "while") {
                    continue;
                }
                let frame = stack.pop()?;
                if frame.name != name {
                    return None;
                }
                if stack.len() == 1
                    && frame.deferrable
                    && toks.get(k).map(|t| t.0) == Some(Tok::Semi)
                {
                    out.push(NestedClass {
                        name: frame.name,
                        owner: stack[0].name.clone(),
                        range: frame.start..toks[k].1.end,
                        protected: frame.protected,
                    });
                }
                if stack.is_empty() {
                    protected = false;
                }
                continue;
            }
            Some(p @ ("public" | "protected")) if stack.len() == 1 => protected = p == "protected",
            Some(kind) if KINDS.contains(&kind) && !after_end => {
                // `operator record`, `operator function`: the kind is the second word.
                if kind == "operator" && matches!(word(k + 1), Some("record" | "function")) {
                    k += 1;
                    continue;
                }
                let mut first = k;
                while first > 0 && word(first - 1).is_some_and(|p| PREFIXES.contains(&p)) {
                    first -= 1;
                }
                let keep = (first..k).any(|j| word(j).is_some_and(|p| KEEP.contains(&p)));
                let mut n = k + 1;
                if word(n) == Some("extends") {
                    n += 1;
                }
                let (name, quoted) = match toks.get(n) {
                    Some((Tok::Word, r)) => (&text[r.clone()], false),
                    Some((Tok::Quoted, r)) => (&text[r.clone()], true),
                    _ => return None,
                };
                k = n + 1;
                // A short class definition (`type T = Real`) has no `end`.
                if toks.get(k).map(|t| t.0) == Some(Tok::Equals) {
                    continue;
                }
                stack.push(Frame {
                    name: name.to_string(),
                    start: toks[first].1.start,
                    deferrable: stack.len() == 1 && !keep && !quoted,
                    protected,
                });
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    stack.is_empty().then_some(out)
}

/// `text` with every byte of `ranges` replaced by a space: byte offsets (and so every span the
/// parser makes) stay those of the original text.
pub fn blank(text: &str, ranges: &[Range<usize>]) -> String {
    let mut b = text.as_bytes().to_vec();
    for r in ranges {
        for x in &mut b[r.clone()] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
    }
    // Whole characters were replaced byte by byte by ASCII spaces.
    String::from_utf8(b).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, String, bool)> {
        nested_classes(text, 0..text.len())
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                assert!(text[c.range.clone()].ends_with(';'));
                (c.owner, c.name, c.protected)
            })
            .collect()
    }

    #[test]
    fn finds_long_classes_directly_inside_the_top_class() {
        let t = r#"within;
package P "desc"
  import SI = Modelica.Units.SI;
  type T = Real(unit = "m");
  partial model A "an A; end B;"
    parameter Real k(start = 1) = 2;
    model Inner end Inner;
  equation
    if k > 1 then k = 2; end if;
    annotation(Documentation(info = "<html>end X;</html>"));
  end A;
  replaceable model R end R;
  encapsulated operator record C
    operator '+' end '+';
  end C;
protected
  function f input Real x; algorithm for i in 1:2 loop end for; end f;
end P;
"#;
        assert_eq!(
            names(t),
            vec![
                ("P".into(), "A".into(), false),
                ("P".into(), "C".into(), false),
                ("P".into(), "f".into(), true),
            ]
        );
    }

    #[test]
    fn gives_up_on_a_shape_it_does_not_understand() {
        // A region that ends inside a comment opener or a string never reads past its end.
        assert_eq!(nested_classes("package P end P; /*", 0..18), Some(vec![]));
        assert_eq!(nested_classes("package P end P; \"é", 0..19), None);
        assert_eq!(
            nested_classes("package P model A end B; end P;", 0..31),
            None
        );
        assert_eq!(nested_classes("package P \"open", 0..16), None);
    }

    #[test]
    fn blanking_keeps_offsets_and_newlines() {
        let t = "package P\n model A\n end A;\nend P;";
        let r = nested_classes(t, 0..t.len()).unwrap();
        let b = blank(t, &[r[0].range.clone()]);
        assert_eq!(b.len(), t.len());
        assert_eq!(b, "package P\n        \n       \nend P;");
    }
}
