//! Helpers shared by the flattening tests.
#![allow(dead_code)]

use minimo::dae::{FlatModel, print_flat};
use minimo::flatten::flatten_source;

/// The flat text of `text` (panics with the rendered diagnostics on failure).
pub fn flat(text: &str, model: Option<&str>) -> String {
    match flatten_source("test.mo", text, model) {
        Ok(m) => print_flat(&m),
        Err(e) => panic!("flattening failed:\n{e}"),
    }
}

pub fn flat_model(text: &str, model: Option<&str>) -> FlatModel {
    match flatten_source("test.mo", text, model) {
        Ok(m) => m,
        Err(e) => panic!("flattening failed:\n{e}"),
    }
}

/// The rendered diagnostics of a model that must fail.
pub fn err(text: &str, model: Option<&str>) -> String {
    match flatten_source("test.mo", text, model) {
        Ok(m) => panic!("expected an error, got:\n{}", print_flat(&m)),
        Err(e) => e,
    }
}

/// Asserts that the error message contains every fragment.
pub fn assert_err(text: &str, model: Option<&str>, fragments: &[&str]) {
    let e = err(text, model);
    for f in fragments {
        assert!(e.contains(f), "error message lacks {f:?}:\n{e}");
    }
}

/// Flattens model `model` of `text` (file `file`), analyses it and simulates 1 s with output
/// every 0.25 s; panics with the diagnostics on any failure.
pub fn simulate_source(file: &str, text: &str, model: &str) -> minimo::sim::SimResult {
    let flat = flatten_source(file, text, Some(model)).unwrap_or_else(|e| panic!("{e}"));
    let analysis = minimo::structure::analyze(flat, &minimo::structure::AnalyzeOptions::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let opts = minimo::sim::SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.25),
        ..Default::default()
    };
    minimo::sim::simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}
