//! Rendering diagnostics with miette: file:line:col, the source line, the span underlined.

use super::{Diagnostic, Severity, SourceMap};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

/// Render one diagnostic as text (no colours, so output is deterministic and test-friendly).
pub fn render(sources: &SourceMap, d: &Diagnostic) -> String {
    let mut head = String::new();
    let location = if d.span.is_dummy() {
        None
    } else {
        Some(sources.location(d.span))
    };
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    match &location {
        Some(loc) => head.push_str(&format!("{loc}: {sev}: {}\n", d.message)),
        None => head.push_str(&format!("{sev}: {}\n", d.message)),
    }
    let mut md = MietteDiagnostic::new(d.message.clone());
    md = md.with_severity(match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Note => miette::Severity::Advice,
    });
    if let Some(h) = &d.help {
        md = md.with_help(h.clone());
    }
    // miette shows one source per report: labels in other files are listed as notes.
    let mut extra = Vec::new();
    let mut body = String::new();
    if let Some(file) = sources.get(d.span.file) {
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            (!d.label.is_empty()).then(|| d.label.clone()),
            (
                d.span.start as usize,
                d.span.end.saturating_sub(d.span.start) as usize,
            ),
        )];
        for l in &d.labels {
            if l.span.file == d.span.file {
                labels.push(LabeledSpan::new_with_span(
                    Some(l.message.clone()),
                    (
                        l.span.start as usize,
                        l.span.end.saturating_sub(l.span.start) as usize,
                    ),
                ));
            } else {
                extra.push(format!("{}: {}", sources.location(l.span), l.message));
            }
        }
        let ranges: Vec<(usize, usize)> = labels
            .iter()
            .map(|l| (l.offset(), l.offset() + l.len()))
            .collect();
        if super::excerpt::too_wide(&file.text, &ranges) {
            let (line, col) = file.line_col(d.span.start);
            body.push_str(&super::excerpt::plain(
                &file.text,
                line,
                col,
                d.span.start as usize,
                d.span.end as usize,
                &d.label,
            ));
            if let Some(h) = &d.help {
                body.push_str(&format!("  help: {h}\n"));
            }
            return finish(head, body, extra, d);
        }
        md = md.with_labels(labels);
        let report = miette::Report::new(md)
            .with_source_code(NamedSource::new(file.name.clone(), file.text.to_string()));
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
        let _ = handler.render_report(&mut body, report.as_ref());
    } else {
        for l in &d.labels {
            extra.push(format!("{}: {}", sources.location(l.span), l.message));
        }
        if let Some(h) = &d.help {
            body.push_str(&format!("  help: {h}\n"));
        }
    }
    finish(head, body, extra, d)
}

/// The heading, the body, then the labels in other files and the notes.
fn finish(head: String, body: String, extra: Vec<String>, d: &Diagnostic) -> String {
    let mut out = head;
    out.push_str(&body);
    for e in extra {
        out.push_str(&format!("  = note: {e}\n"));
    }
    for n in &d.notes {
        out.push_str(&format!("  = note: {n}\n"));
    }
    out
}

/// Render several diagnostics, separated by blank lines.
pub fn render_all(sources: &SourceMap, ds: &[Diagnostic]) -> String {
    ds.iter()
        .map(|d| render(sources, d))
        .collect::<Vec<_>>()
        .join("\n")
}
