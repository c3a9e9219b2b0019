//! A plain source excerpt for spans on very long lines, where miette's snippet cannot be used.
//!
//! miette pads the underline with a `{:width$}` format whose width is the column: beyond
//! column 65535 the standard library panics ("Formatting argument out of range"), and a
//! generated model can well have a line that long. Lines that wide are also useless to print
//! whole, so such a span is shown as a window of the line around it, with a caret underline.

/// Lines longer than this (in bytes) are not given to miette. Far below 65535 even when every
/// byte is a tab expanded to several columns, or a double-width character.
const MAX_LINE: usize = 4096;

/// Characters shown on each side of the span in the window.
const WINDOW: usize = 60;

/// Whether any line that a snippet of the byte ranges `spans` would show (the spanned lines and
/// one line of context on each side) is longer than miette can render.
pub fn too_wide(text: &str, spans: &[(usize, usize)]) -> bool {
    spans.iter().any(|&(start, end)| {
        let start = start.min(text.len());
        let end = end.clamp(start, text.len());
        // One line of context before the first and after the last spanned line.
        let from = line_start(text, line_start(text, start).saturating_sub(1));
        let to = line_end(text, (line_end(text, end) + 1).min(text.len()));
        text.as_bytes()[from..to]
            .split(|&b| b == b'\n')
            .any(|l| l.len() > MAX_LINE)
    })
}

/// The excerpt: `line:col`, the window of the line that holds `start`, and carets under the
/// span (up to the end of the window), then the label.
pub fn plain(text: &str, line: usize, col: usize, start: usize, end: usize, label: &str) -> String {
    let start = floor_char(text, start.min(text.len()));
    let end = floor_char(text, end.clamp(start, text.len()));
    let ls = line_start(text, start);
    let le = line_end(text, start);
    let before: Vec<char> = text[ls..start].chars().collect();
    let skip = before.len().saturating_sub(WINDOW);
    let head: String = before[skip..].iter().collect();
    let span_end = end.min(le);
    let inside: String = text[start..span_end].chars().take(2 * WINDOW).collect();
    let tail: String = text[span_end..le].chars().take(WINDOW).collect();
    let show = |s: &str| s.replace('\t', " ");
    let prefix = if skip > 0 { "…" } else { "" };
    let suffix = if le > span_end + tail.len() {
        "…"
    } else {
        ""
    };
    let mut out = format!("   ╭─[line {line}, column {col}]\n");
    out.push_str(&format!(
        "   │ {prefix}{}{}{}{suffix}\n",
        show(&head),
        show(&inside),
        show(&tail)
    ));
    let carets = inside.chars().count().max(1);
    out.push_str(&format!(
        "   │ {}{}{} {label}\n",
        " ".repeat(prefix.chars().count()),
        " ".repeat(head.chars().count()),
        "^".repeat(carets)
    ));
    out.push_str("   ╰────\n");
    out
}

fn line_start(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i)
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
