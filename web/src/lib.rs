//! minimo in the browser: the functions the playground page calls through wasm-bindgen.
//!
//! Each takes model text and answers JSON (see [`session`]): the same stages and the same
//! rendered diagnostics as the command line. A simulation keeps its result here, and the page
//! fetches the trajectories it plots one variable at a time ([`values`]), so a model with
//! thousands of variables does not cross into JavaScript whole.

pub mod examples;
pub mod session;

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The trajectories of the last successful simulation.
    static LAST: RefCell<Option<session::Trajectories>> = const { RefCell::new(None) };
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| {
        let text = format!("error: cannot encode the answer: {e}");
        serde_json::json!({"ok": false, "rendered": text, "diagnostics": []}).to_string()
    })
}

/// The playground's version (shown in the page's status line).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The teaching examples as JSON.
#[wasm_bindgen]
pub fn examples() -> String {
    to_json(&examples::EXAMPLES)
}

/// `minimo structure` on the text: JSON with `ok`, `rendered`, `diagnostics`, `text`, `report`.
#[wasm_bindgen]
pub fn structure(text: &str, model: &str) -> String {
    let model = Some(model.trim()).filter(|m| !m.is_empty());
    to_json(&session::structure(text, model))
}

/// `minimo simulate` on the text with the options of `request` (JSON, see
/// [`session::SimRequest`]): JSON with the outcome, the variables and the statistics.
#[wasm_bindgen]
pub fn simulate(text: &str, request: &str) -> String {
    let (answer, kept) = session::simulate_json(text, request);
    // A failed run keeps the last good trajectories: the page still shows (and re-plots) them.
    if kept.is_some() {
        LAST.with(|l| *l.borrow_mut() = kept);
    }
    to_json(&answer)
}

/// The values of one variable (or `time`) of the last simulation; empty when unknown.
#[wasm_bindgen]
pub fn values(name: &str) -> Vec<f64> {
    LAST.with(|l| {
        l.borrow()
            .as_ref()
            .and_then(|t| t.column(name))
            .unwrap_or_default()
    })
}
