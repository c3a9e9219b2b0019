//! Reporting more than the first syntax error of a file.
//!
//! pest stops at the first failure. To find the next one, the element that holds the error (the
//! text from the `;` before it to the `;` after it) is blanked out with spaces, which keeps every
//! byte offset, so later diagnostics point at the right line and column, and the file is parsed
//! again. This is only done where it cannot invent errors: the blanked text must be a plain
//! element, equation or statement (no keyword that opens or closes a block, class or section,
//! balanced brackets), and an error found again inside or before the blanked text stops the
//! search (it would be a consequence of the blanking).

/// Words that open or close a structure: blanking text that holds one of them would unbalance
/// the file, so such an error ends the report.
const STRUCTURE_WORDS: &[&str] = &[
    "end",
    "model",
    "block",
    "connector",
    "record",
    "package",
    "function",
    "type",
    "class",
    "operator",
    "equation",
    "algorithm",
    "public",
    "protected",
    "initial",
    "if",
    "for",
    "when",
    "while",
    "then",
    "loop",
    "else",
    "elseif",
    "elsewhen",
    "annotation",
    "external",
    "within",
];

/// Words after which a new element, equation or statement starts.
const OPENING_WORDS: &[&str] = &[
    "equation",
    "algorithm",
    "public",
    "protected",
    "loop",
    "then",
    "else",
];

/// Byte ranges of the text that are code (not comments or strings), as a mask.
fn code_mask(text: &[u8]) -> Vec<bool> {
    let mut mask = vec![true; text.len()];
    let mut i = 0;
    while i < text.len() {
        let start = i;
        match text[i] {
            b'"' | b'\'' => {
                let q = text[i];
                i += 1;
                while i < text.len() && text[i] != q {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(text.len());
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if text.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < text.len() && !(text[i] == b'*' && text[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(text.len());
            }
            _ => {
                i += 1;
                continue;
            }
        }
        // Quoted identifiers are code, but their content never holds `;` or keywords that
        // matter here, so masking them too is harmless.
        mask[start..i].iter_mut().for_each(|m| *m = false);
    }
    mask
}

/// The element around byte `pos`: from just after the previous top-level `;` to the next
/// top-level `;` (inclusive), when that text is a plain element; `None` otherwise.
pub fn element_around(text: &str, pos: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mask = code_mask(b);
    let pos = pos.min(b.len());
    // Backwards to the previous `;` outside brackets, or to the word that opens the section or
    // block the element is in.
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut depth = 0i32;
    let mut start = None;
    let mut i = pos;
    while i > 0 {
        i -= 1;
        if !mask[i] {
            continue;
        }
        match b[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => depth -= 1,
            b';' if depth <= 0 => {
                start = Some(i + 1);
                break;
            }
            c if ident(c) => {
                let mut j = i;
                while j > 0 && mask[j - 1] && ident(b[j - 1]) {
                    j -= 1;
                }
                if depth <= 0
                    && (OPENING_WORDS.contains(&&text[j..=i]) || class_word_before(text, &mask, j))
                {
                    // After a section word, or after the name of the class being defined (its
                    // first element).
                    start = Some(i + 1);
                    break;
                }
                i = j;
            }
            _ => {}
        }
    }
    let start = start?;
    let mut depth = 0i32;
    let mut end = None;
    for i in start..b.len() {
        if !mask[i] {
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b';' if depth == 0 && i >= pos => {
                end = Some(i + 1);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    if depth != 0 {
        return None;
    }
    // No structure word in the code of the element.
    let words = text[start..end]
        .char_indices()
        .map(|(k, c)| if mask[start + k] { c } else { ' ' })
        .collect::<String>();
    if words
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| STRUCTURE_WORDS.contains(&w))
    {
        return None;
    }
    Some((start, end))
}

/// Whether the word before byte `j` (skipping whitespace and comments) is a class kind.
fn class_word_before(text: &str, mask: &[bool], j: usize) -> bool {
    let b = text.as_bytes();
    let mut k = j;
    while k > 0 && (!mask[k - 1] || b[k - 1].is_ascii_whitespace()) {
        k -= 1;
    }
    let mut m = k;
    while m > 0 && mask[m - 1] && (b[m - 1].is_ascii_alphanumeric() || b[m - 1] == b'_') {
        m -= 1;
    }
    matches!(
        &text[m..k],
        "model" | "block" | "connector" | "record" | "package" | "function" | "type" | "class"
    )
}

/// `text` with `range` replaced by spaces (newlines kept, so lines stay where they were).
pub fn blank(text: &str, (start, end): (usize, usize)) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if i >= start && i < end && c != '\n' {
            // One space per byte keeps every later offset.
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}
