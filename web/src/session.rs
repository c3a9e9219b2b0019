//! One request of the page, run on model text with the same stages and the same diagnostics
//! as `minimo check`, `minimo structure` and `minimo simulate`, answered as a serde value.

use minimo::diag::{self, Diagnostic, Severity, SourceMap};
use minimo::flatten::flatten_source_with;
use minimo::sim::{Method, SimOptions, SimResult, simulate_analysis};
use minimo::structure::{Analysis, AnalyzeOptions, analyze, html, view};
use serde::{Deserialize, Serialize};

/// The name the model text has in messages: the page's one file, as if on the command line.
pub const FILE_NAME: &str = "model.mo";

/// Where a diagnostic points, for the editor's gutter (1-based, columns in characters).
#[derive(Clone, Debug, Serialize)]
pub struct Located {
    pub severity: &'static str,
    pub message: String,
    /// `None` for a diagnostic without a place, or one in a library file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub end_line: Option<usize>,
    pub end_column: Option<usize>,
}

/// The answer to every request: whether it succeeded, the diagnostics rendered exactly as the
/// command line prints them, and where each one points.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Outcome {
    pub ok: bool,
    /// `diag::render_all` of every warning and error, in order (the command line's text).
    pub rendered: String,
    pub diagnostics: Vec<Located>,
}

/// A structural analysis: the `minimo structure` text view and its JSON report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StructureAnswer {
    #[serde(flatten)]
    pub outcome: Outcome,
    pub text: Option<String>,
    /// The report as `minimo structure --json` writes it (a JSON value, not a string).
    pub report: Option<serde_json::Value>,
    /// The self-contained page of `minimo structure --html` (incidence matrices, matching,
    /// Pantelides steps, states, blocks, graph): the page shows it in a frame.
    pub html: Option<String>,
}

/// Options of a simulation as the page sends them; absent ones come from the model's
/// `experiment` annotation, as on the command line.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimRequest {
    pub model: Option<String>,
    pub start_time: Option<f64>,
    pub stop_time: Option<f64>,
    pub interval: Option<f64>,
    pub tolerance: Option<f64>,
    pub solver: Option<String>,
    /// `NAME=VALUE` overrides, as `--set`.
    pub set: Vec<String>,
}

/// One recorded variable of a simulation (its values are asked for separately).
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    pub name: String,
    pub kind: &'static str,
    pub unit: Option<String>,
}

/// A simulation: the recorded variables, with the run's statistics.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SimAnswer {
    #[serde(flatten)]
    pub outcome: Outcome,
    pub model: Option<String>,
    /// Output points.
    pub points: usize,
    pub start_time: f64,
    pub stop_time: f64,
    pub columns: Vec<Column>,
    pub parameters: Vec<(String, f64)>,
    /// The notes `minimo simulate` prints (`note: ...`).
    pub messages: Vec<String>,
    pub states: usize,
    pub steps: usize,
    pub events: usize,
    /// Milliseconds of integration alone (the simulator's own figure).
    pub integrate_ms: f64,
}

fn locate(sources: &SourceMap, d: &Diagnostic) -> Located {
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let place = sources
        .get(d.span.file)
        .filter(|f| !d.span.is_dummy() && f.name == FILE_NAME)
        .map(|f| (f.line_col(d.span.start), f.line_col(d.span.end)));
    Located {
        severity,
        message: d.message.clone(),
        line: place.map(|p| p.0.0),
        column: place.map(|p| p.0.1),
        end_line: place.map(|p| p.1.0),
        end_column: place.map(|p| p.1.1),
    }
}

impl Outcome {
    fn add(&mut self, sources: &SourceMap, ds: &[Diagnostic]) {
        if ds.is_empty() {
            return;
        }
        if !self.rendered.is_empty() {
            self.rendered.push('\n');
        }
        self.rendered.push_str(&diag::render_all(sources, ds));
        self.diagnostics
            .extend(ds.iter().map(|d| locate(sources, d)));
    }

    /// A failed stage: its diagnostics, or a fallback sentence when it gave none (the
    /// command line's rule: never a failure without a word of explanation).
    fn fail(&mut self, sources: &SourceMap, ds: &[Diagnostic]) {
        self.ok = false;
        if ds.iter().all(|d| d.message.trim().is_empty()) {
            let d = Diagnostic::error(
                diag::Span::DUMMY,
                "the failing stage gave no explanation (an internal error of minimo; please \
                 report it with the model)",
            );
            self.add(sources, &[d]);
        } else {
            self.add(sources, ds);
        }
    }
}

/// Flattens and analyses the text; on failure the outcome holds the diagnostics.
fn analyse(
    sources: &mut SourceMap,
    text: &str,
    model: Option<&str>,
    out: &mut Outcome,
) -> Option<Analysis> {
    let flat = match flatten_source_with(sources, FILE_NAME, text, model, &[]) {
        Ok(f) => f,
        Err(ds) => {
            out.fail(sources, &ds);
            return None;
        }
    };
    out.add(sources, &flat.warnings);
    match analyze(flat, &AnalyzeOptions::default()) {
        Ok(a) => {
            out.add(sources, &a.report.warnings);
            out.ok = true;
            Some(a)
        }
        Err(ds) => {
            out.fail(sources, &ds);
            None
        }
    }
}

/// `minimo structure`: the text view and the JSON report of the model, or its diagnostics.
pub fn structure(text: &str, model: Option<&str>) -> StructureAnswer {
    let mut sources = SourceMap::new();
    let mut ans = StructureAnswer::default();
    if let Some(a) = analyse(&mut sources, text, model, &mut ans.outcome) {
        ans.text = Some(view::text(&a, &sources, false));
        ans.report = serde_json::to_value(&a.report).ok();
        ans.html = Some(html::html(&a.report));
    }
    ans
}

/// The trajectories of one simulation, kept for the page to ask for by name.
pub struct Trajectories(SimResult);

impl Trajectories {
    /// The values of a variable, or of `time`, at every output point.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        if name == "time" {
            return Some(self.0.time.clone());
        }
        self.0.column(name)
    }
}

/// [`simulate`] with the request as the page sends it (JSON); a request that does not parse
/// is answered with an error naming the problem.
pub fn simulate_json(text: &str, request: &str) -> (SimAnswer, Option<Trajectories>) {
    match serde_json::from_str::<SimRequest>(request) {
        Ok(req) => simulate(text, &req),
        Err(e) => {
            let mut ans = SimAnswer::default();
            let d = Diagnostic::error(
                diag::Span::DUMMY,
                format!("the page sent simulation options minimo cannot read: {e}"),
            );
            ans.outcome.fail(&SourceMap::new(), &[d]);
            (ans, None)
        }
    }
}

/// `minimo simulate`: the recorded variables and their trajectories, or the diagnostics of
/// the failing stage.
pub fn simulate(text: &str, req: &SimRequest) -> (SimAnswer, Option<Trajectories>) {
    let mut sources = SourceMap::new();
    let mut ans = SimAnswer::default();
    let method = match req.solver.as_deref() {
        None => Method::default(),
        Some(s) => match Method::parse(s) {
            Some(m) => m,
            None => {
                let d = Diagnostic::error(
                    diag::Span::DUMMY,
                    format!("unknown solver `{s}`; use one of bdf, esdirk34, tr-bdf2, tsit45"),
                );
                ans.outcome.fail(&sources, &[d]);
                return (ans, None);
            }
        },
    };
    let Some(a) = analyse(&mut sources, text, req.model.as_deref(), &mut ans.outcome) else {
        return (ans, None);
    };
    let opts = SimOptions {
        start_time: req.start_time,
        stop_time: req.stop_time,
        interval: req.interval,
        tolerance: req.tolerance,
        method,
        set: req.set.clone(),
        vars: None,
        progress: false,
        max_steps: None,
    };
    match simulate_analysis(&a, &opts) {
        Ok(r) => {
            fill(&mut ans, &r);
            (ans, Some(Trajectories(r)))
        }
        Err(ds) => {
            ans.outcome.fail(&sources, &ds);
            (ans, None)
        }
    }
}

fn fill(ans: &mut SimAnswer, r: &SimResult) {
    ans.columns = r
        .variables
        .iter()
        .map(|v| Column {
            name: v.name.clone(),
            kind: minimo::sim::results::kind_name(v.kind),
            unit: v.unit.clone(),
        })
        .collect();
    ans.parameters = r
        .parameters
        .iter()
        .map(|(v, x)| (v.name.clone(), *x))
        .collect();
    ans.states = r.stats.states;
    ans.steps = r.stats.steps;
    ans.events = r.stats.events;
    ans.integrate_ms = r.stats.integrate_time.as_secs_f64() * 1e3;
    ans.messages = r.messages.clone();
    ans.model = Some(r.model.clone());
    ans.points = r.time.len();
    ans.start_time = r.start_time;
    ans.stop_time = r.stop_time;
}
