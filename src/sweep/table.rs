//! A sweep's results as one file: CSV (one row per run) or JSON.
//!
//! CSV columns: `run` (0-based, in the order of the grid or samples), the swept parameters,
//! the reported columns (`x` the final value of `x`, `min(x)`, `max(x)`, `mean(x)`), and
//! `error`, the first line of the diagnostic of a failed run (empty when it succeeded). A value
//! a run does not have (it failed, or a structural value removed the variable) is empty.
//! JSON: `{"model", "parameters": [names], "columns": [names], "runs": [{"run", "parameters":
//! [values], "values": [values or null], "error": text or null}]}`.

use super::run::{SweepTable, number_text};
use std::io::{self, Write};

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes the CSV table.
pub fn write_csv(t: &SweepTable, out: &mut impl Write) -> io::Result<()> {
    let mut head = vec!["run".to_string()];
    head.extend(t.names.iter().map(|n| field(n)));
    head.extend(t.columns.iter().map(|n| field(n)));
    head.push("error".to_string());
    writeln!(out, "{}", head.join(","))?;
    for (i, (params, values)) in t.runs.iter().zip(&t.values).enumerate() {
        let mut line = vec![i.to_string()];
        line.extend(params.iter().map(|&x| number_text(x)));
        line.extend(values.iter().map(|&x| {
            if x.is_nan() {
                String::new()
            } else {
                number_text(x)
            }
        }));
        let err = t.errors.get(i).cloned().flatten().unwrap_or_default();
        line.push(field(
            err.lines().find(|l| !l.trim().is_empty()).unwrap_or(""),
        ));
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}

/// Writes the JSON document.
pub fn write_json(t: &SweepTable, out: &mut impl Write) -> io::Result<()> {
    use serde_json::{Value, json};
    let num = |x: f64| {
        serde_json::Number::from_f64(x)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    };
    let runs: Vec<Value> = t
        .runs
        .iter()
        .zip(&t.values)
        .enumerate()
        .map(|(i, (p, v))| {
            json!({
                "run": i,
                "parameters": p.iter().map(|&x| num(x)).collect::<Vec<_>>(),
                "values": v.iter().map(|&x| num(x)).collect::<Vec<_>>(),
                "error": t.errors.get(i).cloned().flatten(),
            })
        })
        .collect();
    let doc = json!({
        "model": t.model,
        "parameters": t.names,
        "columns": t.columns,
        "runs": runs,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
