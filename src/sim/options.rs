//! The options of one simulation: interval, tolerance, integration method, overrides.

use serde::Serialize;

/// The integration method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Method {
    #[default]
    Bdf,
    Esdirk34,
    TrBdf2,
    Tsit45,
}

impl Method {
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "bdf" => Method::Bdf,
            "esdirk34" => Method::Esdirk34,
            "tr-bdf2" | "trbdf2" => Method::TrBdf2,
            "tsit45" => Method::Tsit45,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Method::Bdf => "bdf",
            Method::Esdirk34 => "esdirk34",
            Method::TrBdf2 => "tr-bdf2",
            Method::Tsit45 => "tsit45",
        }
    }
}

/// Options of one simulation. `None` falls back to the model's `experiment` annotation, then
/// to the defaults (0 to 1 s, 500 intervals, tolerance 1e-6).
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    pub start_time: Option<f64>,
    pub stop_time: Option<f64>,
    pub interval: Option<f64>,
    pub tolerance: Option<f64>,
    pub method: Method,
    /// `NAME=VALUE` parameter overrides.
    pub set: Vec<String>,
    /// Only record variables whose name matches this regular expression.
    pub vars: Option<regex::Regex>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Stop with an error after this many integrator steps (the fuzz targets bound each run).
    pub max_steps: Option<usize>,
}
