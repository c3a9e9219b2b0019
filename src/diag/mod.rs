//! Source files, spans and diagnostics shared by every stage.
//!
//! Every stage reports problems as [`Diagnostic`]s that point into the [`SourceMap`];
//! rendering (file:line:col, snippet, underline) goes through miette in [`render`].

mod excerpt;
mod render;

pub use render::{render, render_all};

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Index of a file in the [`SourceMap`].
pub type FileId = u32;

/// A byte range in one source file. Every syntax-tree node and every flat variable and equation
/// carries one, so that any stage can point back at the model text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }
    /// The smallest span covering both (they must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    /// A span that points nowhere (for generated code); rendered without a snippet.
    pub const DUMMY: Span = Span {
        file: u32::MAX,
        start: 0,
        end: 0,
    };
    pub fn is_dummy(&self) -> bool {
        self.file == u32::MAX
    }
}

/// One loaded source file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (a path, or `<stdlib>/Foo.mo` for built-in files).
    pub name: String,
    pub text: Arc<str>,
    /// Byte offset of the start of each line, for line/column look-ups.
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start)
            + 1;
        (line + 1, col)
    }
}

/// All files loaded in one run. File ids index into it.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        self.files.push(SourceFile {
            name: name.into(),
            text,
            line_starts,
        });
        (self.files.len() - 1) as FileId
    }
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id as usize)
    }
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }
    /// `file:line:col` of the start of a span, or `<generated>`.
    pub fn location(&self, span: Span) -> String {
        match self.get(span.file) {
            Some(f) => {
                let (l, c) = f.line_col(span.start);
                format!("{}:{}:{}", f.name, l, c)
            }
            None => "<generated>".to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// A secondary location shown with a diagnostic ("the other connector is declared here").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// What kind of problem a diagnostic reports, for the code that recovers from some of them
/// (tries another scope after an unknown name, another parse after a cut-off file) without
/// reading its message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    #[default]
    Other,
    /// A name that lookup did not find.
    UnknownName,
    /// A `partial` class instantiated or called.
    Partial,
    /// The input ended inside a construct.
    UnexpectedEof,
}

/// A problem in the user's model or input, in the modeler's words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// What is wrong ("unknown name `rsistor`").
    pub message: String,
    /// Where; `Span::DUMMY` when no location applies.
    pub span: Span,
    /// Text shown under the primary underline (may be empty).
    pub label: String,
    /// Further locations.
    pub labels: Vec<Label>,
    /// How to fix it ("did you mean `resistor`?").
    pub help: Option<String>,
    /// Extra facts (lists of variables, equations...).
    pub notes: Vec<String>,
    /// What kind of problem this is, where code acts on it (not shown, not serialized).
    #[serde(skip)]
    pub kind: Kind,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            labels: Vec::new(),
            help: None,
            notes: Vec::new(),
            kind: Kind::Other,
        }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn with_kind(mut self, kind: Kind) -> Diagnostic {
        self.kind = kind;
        self
    }
}

/// What every fallible stage returns: one or more diagnostics.
pub type Result<T> = std::result::Result<T, Vec<Diagnostic>>;

/// The closest name to `wanted` among `candidates` (for "did you mean" hints), if any is close.
pub fn closest_name<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(wanted, c);
        let limit = (wanted.chars().count().max(c.chars().count()) / 3).max(1);
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
