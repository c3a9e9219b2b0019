//! Peak memory (VmHWM) and time after each stage of the fuzz pipeline on one file.
use minimo::diag::{SourceMap, render_all};
use minimo::flatten::flatten_source_with;
use minimo::structure::{AnalyzeOptions, analyze};
use std::time::Instant;

fn status(key: &str) -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .map(|l| l[key.len()..].trim().to_string())
        .unwrap_or_default()
}

fn report(stage: &str, t0: Instant) {
    eprintln!(
        "{stage:>10}: {:>7.2} s  rss {:>12}  peak {:>12}",
        t0.elapsed().as_secs_f64(),
        status("VmRSS:"),
        status("VmHWM:")
    );
}

fn main() {
    let path = std::env::args().nth(1).expect("file");
    let text = std::fs::read_to_string(&path).expect("read");
    let t0 = Instant::now();
    let mut sources = SourceMap::new();
    let flat = match flatten_source_with(&mut sources, "fuzz.mo", &text, None, &[]) {
        Ok(f) => f,
        Err(d) => {
            eprintln!("{}", render_all(&sources, &d));
            return;
        }
    };
    eprintln!(
        "{} variables, {} equations",
        flat.variables.len(),
        flat.equations.len()
    );
    report("flatten", t0);
    let analysis = match analyze(flat, &AnalyzeOptions::default()) {
        Ok(a) => a,
        Err(d) => {
            eprintln!("{}", render_all(&sources, &d));
            return;
        }
    };
    report("analyze", t0);
    for t in &analysis.report.timings {
        eprintln!("   {}: {:.2}", t.phase, t.seconds);
    }
    for b in &analysis.report.blocks {
        if let Some(t) = &b.torn
            && b.equations.len() > 1000
        {
            eprintln!(
                "   block of {}: {} tearing variables",
                b.equations.len(),
                t.len()
            );
        }
    }
    drop(analysis);
    report("dropped", t0);
}
