//! The result of a run (the recorded rows, `SimResult` with its statistics) and its writers and
//! readers: CSV, JSON and MAT v4 in OpenModelica's layout.

use super::engine::Engine;
use crate::dae::VarId;
use serde::Serialize;
use std::io::{self, Write};
use std::time::Duration;

/// Kind of a result column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VarKind {
    State,
    Derivative,
    Algebraic,
    Discrete,
    Parameter,
}

#[derive(Clone, Debug, Serialize)]
pub struct ResultVar {
    pub name: String,
    pub kind: VarKind,
    pub unit: Option<String>,
    pub description: Option<String>,
    #[serde(skip)]
    pub id: VarId,
}

/// Counters and timings.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SimStats {
    pub steps: usize,
    pub rejected_steps: usize,
    pub rhs_evaluations: usize,
    pub jacobian_evaluations: usize,
    pub jacobian_vector_products: usize,
    /// The integrator's Newton iterations.
    pub newton_iterations: usize,
    /// Steps rejected by the error test, and by a failed Newton iteration.
    pub error_test_failures: usize,
    pub newton_failures: usize,
    /// Iterations inside algebraic blocks of the right-hand side, and block factorizations.
    pub block_iterations: usize,
    pub block_factorizations: usize,
    /// Linear blocks solved torn: (unknowns of the block, unknowns of the torn system).
    pub torn_blocks: Vec<(usize, usize)>,
    pub events: usize,
    pub states: usize,
    pub sparse_jacobian: bool,
    pub method: String,
    #[serde(serialize_with = "ser_secs")]
    pub compile_time: Duration,
    #[serde(serialize_with = "ser_secs")]
    pub init_time: Duration,
    #[serde(serialize_with = "ser_secs")]
    pub integrate_time: Duration,
}

fn ser_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Trajectories of the recorded variables.
#[derive(Clone, Debug, Serialize)]
pub struct SimResult {
    pub model: String,
    pub variables: Vec<ResultVar>,
    pub parameters: Vec<(ResultVar, f64)>,
    pub time: Vec<f64>,
    /// One row per output time, one value per entry of `variables`.
    pub rows: Vec<Vec<f64>>,
    pub stats: SimStats,
    /// Notes for the user (state selection, fixed start values...).
    pub messages: Vec<String>,
    pub start_time: f64,
    pub stop_time: f64,
}

impl SimResult {
    /// The trajectory of one variable by flat name.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.variables.iter().position(|v| v.name == name)?;
        Some(self.rows.iter().map(|r| r[i]).collect())
    }
    /// Linear interpolation of a variable at time `t` (for tests and comparisons).
    pub fn value_at(&self, name: &str, t: f64) -> Option<f64> {
        let i = self.variables.iter().position(|v| v.name == name)?;
        let k = self.time.partition_point(|&x| x < t);
        if k == 0 {
            return self.rows.first().map(|r| r[i]);
        }
        if k >= self.time.len() {
            return self.rows.last().map(|r| r[i]);
        }
        let (t0, t1) = (self.time[k - 1], self.time[k]);
        let (a, b) = (self.rows[k - 1][i], self.rows[k][i]);
        if t1 == t0 {
            return Some(b);
        }
        Some(a + (b - a) * (t - t0) / (t1 - t0))
    }
}

/// The output rows recorded so far: one per output point, two at each event (before, after).
pub(super) struct Recorder {
    pub(super) cols: Vec<usize>,
    pub(super) time: Vec<f64>,
    pub(super) rows: Vec<Vec<f64>>,
}

impl Recorder {
    /// A row at `t`: also a point of the history of each `delay` (`delay.rs`).
    pub(super) fn record(&mut self, t: f64, engine: &Engine) {
        super::delay::record(&engine.prog.delays, t, &engine.regs);
        self.time.push(t);
        self.rows
            .push(self.cols.iter().map(|&v| engine.regs[v]).collect());
    }
}

/// Shortest text that reads back to the same `f64` (exponent form for very small or large).
pub fn fmt_num(x: f64) -> String {
    let mut s = String::new();
    push_num(&mut s, x);
    s
}

/// Appends [`fmt_num`]'s text to `out` without allocating (CSV rows of 100k columns).
pub fn push_num(out: &mut String, x: f64) {
    use std::fmt::Write as _;
    // Writing into a `String` cannot fail.
    let _ = if x == 0.0 {
        out.write_str("0")
    } else if !x.is_finite() || (1e-4..1e15).contains(&x.abs()) {
        write!(out, "{x}")
    } else {
        write!(out, "{x:e}")
    };
}

/// CSV: `time` first, then one column per variable, one row per output time.
pub fn write_csv(r: &SimResult, out: &mut impl Write) -> io::Result<()> {
    let mut line = String::from("time");
    for v in &r.variables {
        line.push(',');
        if v.name.contains(',') || v.name.contains('"') {
            line.push('"');
            line.push_str(&v.name.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(&v.name);
        }
    }
    line.push('\n');
    out.write_all(line.as_bytes())?;
    for (t, row) in r.time.iter().zip(&r.rows) {
        line.clear();
        push_num(&mut line, *t);
        for &x in row {
            line.push(',');
            push_num(&mut line, x);
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// JSON: model, variables (name, kind, unit, description), parameters, time, values, statistics.
pub fn write_json(r: &SimResult, out: &mut impl Write) -> io::Result<()> {
    use serde_json::{Map, Value, json};
    let mut values = Map::new();
    for (i, v) in r.variables.iter().enumerate() {
        values.insert(
            v.name.clone(),
            Value::from(r.rows.iter().map(|row| row[i]).collect::<Vec<f64>>()),
        );
    }
    let params: Vec<Value> = r
        .parameters
        .iter()
        .map(|(v, x)| json!({"name": v.name, "value": x, "unit": v.unit, "description": v.description}))
        .collect();
    let doc = json!({
        "model": r.model,
        "variables": r.variables,
        "parameters": params,
        "time": r.time,
        "values": values,
        "statistics": r.stats,
        "messages": r.messages,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

fn mat_header(
    out: &mut impl Write,
    ty: u32,
    rows: usize,
    cols: usize,
    name: &str,
) -> io::Result<()> {
    out.write_all(&ty.to_le_bytes())?;
    out.write_all(&(rows as u32).to_le_bytes())?;
    out.write_all(&(cols as u32).to_le_bytes())?;
    out.write_all(&0u32.to_le_bytes())?; // no imaginary part
    out.write_all(&((name.len() + 1) as u32).to_le_bytes())?;
    out.write_all(name.as_bytes())?;
    out.write_all(&[0])
}

/// A text matrix with one string per column (OpenModelica's transposed `binTrans` layout).
fn mat_strings(out: &mut impl Write, name: &str, strings: &[String]) -> io::Result<()> {
    let len = strings.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
    mat_header(out, 51, len, strings.len(), name)?;
    for s in strings {
        let mut b = s.as_bytes().to_vec();
        b.resize(len, 0);
        out.write_all(&b)?;
    }
    Ok(())
}

/// MAT v4 as written by OpenModelica (`Aclass`, `name`, `description`, `dataInfo`, `data_1`
/// with parameters, `data_2` with trajectories), readable by tools that read OpenModelica results.
pub fn write_mat(r: &SimResult, out: &mut impl Write) -> io::Result<()> {
    let aclass = ["Atrajectory", "1.1", "", "binTrans"];
    // 4 rows x 11 columns of characters, stored column by column.
    mat_header(out, 51, 4, 11, "Aclass")?;
    for c in 0..11 {
        for row in &aclass {
            out.write_all(&[*row.as_bytes().get(c).unwrap_or(&b' ')])?;
        }
    }
    let mut names = vec!["time".to_string()];
    let mut descs = vec!["Simulation time [s]".to_string()];
    let mut info: Vec<[i32; 4]> = vec![[0, 1, 0, -1]];
    for (i, (v, _)) in r.parameters.iter().enumerate() {
        names.push(v.name.clone());
        descs.push(describe(v.description.as_deref(), v.unit.as_deref()));
        info.push([1, i as i32 + 2, 0, 0]);
    }
    for (i, v) in r.variables.iter().enumerate() {
        names.push(v.name.clone());
        descs.push(describe(v.description.as_deref(), v.unit.as_deref()));
        info.push([2, i as i32 + 2, 0, -1]);
    }
    mat_strings(out, "name", &names)?;
    mat_strings(out, "description", &descs)?;
    mat_header(out, 20, 4, info.len(), "dataInfo")?;
    for col in &info {
        for x in col {
            out.write_all(&x.to_le_bytes())?;
        }
    }
    // data_1: time and parameters at start and stop (2 columns).
    let np = r.parameters.len() + 1;
    mat_header(out, 0, np, 2, "data_1")?;
    for t in [r.start_time, r.stop_time] {
        out.write_all(&t.to_le_bytes())?;
        for (_, x) in &r.parameters {
            out.write_all(&x.to_le_bytes())?;
        }
    }
    // data_2: one column per output time: time, then the variables.
    mat_header(out, 0, r.variables.len() + 1, r.time.len(), "data_2")?;
    for (t, row) in r.time.iter().zip(&r.rows) {
        out.write_all(&t.to_le_bytes())?;
        for x in row {
            out.write_all(&x.to_le_bytes())?;
        }
    }
    Ok(())
}

fn describe(desc: Option<&str>, unit: Option<&str>) -> String {
    match (desc, unit) {
        (Some(d), Some(u)) => format!("{d} [{u}]"),
        (Some(d), None) => d.to_string(),
        (None, Some(u)) => format!("[{u}]"),
        (None, None) => String::new(),
    }
}

/// A MAT v4 matrix read back (for tests and tools).
#[derive(Debug)]
pub struct MatMatrix {
    pub name: String,
    pub rows: usize,
    pub cols: usize,
    /// Numeric data column-major (characters as their byte values).
    pub data: Vec<f64>,
}

/// Reads every matrix of a MAT v4 file (little-endian; double, int32 and char data).
pub fn read_mat(bytes: &[u8]) -> Result<Vec<MatMatrix>, String> {
    let mut pos = 0;
    let mut out = Vec::new();
    let u32_at = |p: usize| -> Result<u32, String> {
        bytes
            .get(p..p + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| "truncated MAT file".to_string())
    };
    while pos < bytes.len() {
        let ty = u32_at(pos)?;
        let rows = u32_at(pos + 4)? as usize;
        let cols = u32_at(pos + 8)? as usize;
        let namelen = u32_at(pos + 16)? as usize;
        let name_bytes = bytes
            .get(pos + 20..pos + 20 + namelen)
            .ok_or("truncated name")?;
        let name = String::from_utf8_lossy(&name_bytes[..namelen.saturating_sub(1)]).to_string();
        pos += 20 + namelen;
        let n = rows * cols;
        let (size, conv): (usize, fn(&[u8]) -> f64) = match ty {
            0 => (8, |b| {
                f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            }),
            20 => (4, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
            51 => (1, |b| b[0] as f64),
            _ => return Err(format!("unsupported MAT type {ty}")),
        };
        let data_bytes = bytes.get(pos..pos + n * size).ok_or("truncated data")?;
        let data = data_bytes.chunks(size).map(conv).collect();
        pos += n * size;
        out.push(MatMatrix {
            name,
            rows,
            cols,
            data,
        });
    }
    Ok(out)
}

/// Parses a CSV result (as written by [`write_csv`]) into names and columns.
pub fn read_csv(text: &str) -> Result<(Vec<String>, Vec<Vec<f64>>), String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("the result file is empty")?;
    let names: Vec<String> = split_csv(header);
    let mut cols = vec![Vec::new(); names.len()];
    for (ln, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let cells = split_csv(line);
        if cells.len() != names.len() {
            return Err(format!(
                "line {} has {} values, the header has {}",
                ln + 2,
                cells.len(),
                names.len()
            ));
        }
        for (i, c) in cells.iter().enumerate() {
            let x: f64 = c
                .trim()
                .parse()
                .map_err(|_| format!("line {}: `{c}` is not a number", ln + 2))?;
            cols[i].push(x);
        }
    }
    Ok((names, cols))
}

/// The cells of one CSV line; quoted cells may hold commas (`"x[1,2]"`) and `""`.
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

pub fn kind_name(k: VarKind) -> &'static str {
    match k {
        VarKind::State => "state",
        VarKind::Derivative => "derivative",
        VarKind::Algebraic => "algebraic",
        VarKind::Discrete => "discrete",
        VarKind::Parameter => "parameter",
    }
}
