//! The runs of a sweep, in parallel, in a deterministic order.
//!
//! Runs are grouped by their values of structural parameters: each group flattens its own model
//! once ([`CompiledModel::with_structural`]); the other parameters are `--set` overrides of that
//! model, so a run only compiles the register program and integrates. Threads take the next run
//! from a shared counter; results are put back in the order of the runs, so the table is the
//! same whatever the number of threads.

use super::compiled::{CompiledModel, Failure};
use crate::sim::results::push_num;
use crate::sim::{SimOptions, SimResult, VarKind};
use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stack of each worker thread (virtual memory; see `src/main.rs` for why it is large).
pub const STACK_BYTES: usize = 256 << 20;

/// A statistic of a variable over the output points of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// The value at the stop time.
    Final,
    Min,
    Max,
    /// The mean over the output points.
    Mean,
}

impl Stat {
    pub fn parse(s: &str) -> Option<Stat> {
        Some(match s.trim() {
            "final" => Stat::Final,
            "min" => Stat::Min,
            "max" => Stat::Max,
            "mean" => Stat::Mean,
            _ => return None,
        })
    }
    /// The column name: `x` for the final value, `max(x)` for the others.
    pub fn column(self, var: &str) -> String {
        match self {
            Stat::Final => var.to_string(),
            Stat::Min => format!("min({var})"),
            Stat::Max => format!("max({var})"),
            Stat::Mean => format!("mean({var})"),
        }
    }
    fn of(self, xs: impl Iterator<Item = f64>) -> f64 {
        let mut n = 0usize;
        let mut acc = match self {
            Stat::Min => f64::INFINITY,
            Stat::Max => f64::NEG_INFINITY,
            _ => 0.0,
        };
        for x in xs {
            n += 1;
            acc = match self {
                Stat::Final => x,
                Stat::Min => acc.min(x),
                Stat::Max => acc.max(x),
                Stat::Mean => acc + x,
            };
        }
        match (self, n) {
            (_, 0) => f64::NAN,
            (Stat::Mean, n) => acc / n as f64,
            _ => acc,
        }
    }
}

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct SweepSpec {
    /// The swept parameters.
    pub names: Vec<String>,
    /// One row of values (in the order of `names`) per run.
    pub runs: Vec<Vec<f64>>,
    /// Options of every run; `sim.set` holds overrides common to all runs, `sim.vars` selects
    /// the variables reported (without it, the states).
    pub sim: SimOptions,
    /// Statistics reported per variable (empty: the final value).
    pub stats: Vec<Stat>,
    /// Threads (0: one per core).
    pub jobs: usize,
}

/// The results: one row per run.
#[derive(Clone, Debug, Default)]
pub struct SweepTable {
    pub model: String,
    pub names: Vec<String>,
    pub runs: Vec<Vec<f64>>,
    /// Reported columns, in order of first appearance over the runs.
    pub columns: Vec<String>,
    /// One value per column and run; NaN where a run failed or lacks the variable.
    pub values: Vec<Vec<f64>>,
    /// The diagnostics of each failed run (`None`: it succeeded).
    pub errors: Vec<Option<String>>,
}

impl SweepTable {
    /// The number of failed runs.
    pub fn failures(&self) -> usize {
        self.errors.iter().filter(|e| e.is_some()).count()
    }
}

/// `f(0..n)` on `jobs` threads, in order; `None` where `f` panicked.
pub fn par_map<T: Send>(n: usize, jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<Option<T>> {
    let jobs = if jobs == 0 {
        std::thread::available_parallelism().map_or(1, |p| p.get())
    } else {
        jobs
    }
    .clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut out = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                break;
            }
            out.push((i, catch_unwind(AssertUnwindSafe(|| f(i))).ok()));
        }
        out
    };
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .filter_map(|k| {
                std::thread::Builder::new()
                    .name(format!("minimo-sweep-{k}"))
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(s, work)
                    .ok()
            })
            .collect();
        if handles.is_empty() {
            // No thread could be started: run here.
            for (i, x) in work() {
                slots[i] = x;
            }
        }
        for h in handles {
            for (i, x) in h.join().unwrap_or_default() {
                slots[i] = x;
            }
        }
    });
    slots
}

/// Runs `f` on a thread with a [`STACK_BYTES`] stack (flattening and the function interpreter
/// recurse along the model); `None` if `f` panicked or no thread could be started.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("minimo".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, f)
            .ok()?
            .join()
            .ok()
    })
}

fn set_text(name: &str, x: f64) -> String {
    format!("{name}={x:?}")
}

/// Final values / statistics of the reported variables of one run.
fn summarise(r: &SimResult, all_vars: bool, stats: &[Stat]) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for (i, v) in r.variables.iter().enumerate() {
        if !all_vars && v.kind != VarKind::State {
            continue;
        }
        for &s in stats {
            out.push((s.column(&v.name), s.of(r.rows.iter().map(|row| row[i]))));
        }
    }
    out
}

/// Runs every row of `spec` on `base` (and on re-flattened models for structural values).
/// `Err` only when the sweep cannot start (unknown parameter, bad override); a failed run is a
/// row with its error.
pub fn run_sweep(base: &CompiledModel, spec: &SweepSpec) -> Result<SweepTable, Failure> {
    let model = &base.analysis.system.model;
    let structural: Vec<bool> = spec
        .names
        .iter()
        .map(|n| base.is_structural(n) == Some(true))
        .collect();
    // Swept names first (a "did you mean" among the parameters), then the values and common
    // overrides with `--set`'s messages.
    let params: Vec<&str> = model
        .variables
        .iter()
        .filter(|v| v.variability == crate::dae::Variability::Parameter)
        .map(|v| v.name.as_str())
        .collect();
    let unknown: Vec<crate::diag::Diagnostic> = spec
        .names
        .iter()
        .filter(|n| base.is_structural(n).is_none())
        .map(|n| {
            let d = crate::diag::Diagnostic::error(
                crate::diag::Span::DUMMY,
                format!(
                    "cannot sweep `{n}`: `{}` has no parameter `{n}`",
                    base.name()
                ),
            );
            match crate::diag::closest_name(n, params.iter().copied()) {
                Some(c) => d.with_help(format!("did you mean `{c}`?")),
                None => d,
            }
        })
        .collect();
    if !unknown.is_empty() {
        return Err(Failure::new(&base.sources, unknown));
    }
    let mut probe = spec.sim.set.clone();
    for (k, n) in spec.names.iter().enumerate() {
        if !structural[k] {
            probe.push(set_text(n, spec.runs.first().map_or(0.0, |r| r[k])));
        }
    }
    if let Err(d) = crate::sim::params::parse_overrides(model, &probe) {
        return Err(Failure::new(&base.sources, d));
    }
    if let Some(r) = spec.runs.iter().find(|r| r.len() != spec.names.len()) {
        let d = vec![crate::diag::Diagnostic::error(
            crate::diag::Span::DUMMY,
            format!(
                "a run has {} values for {} swept parameters",
                r.len(),
                spec.names.len()
            ),
        )];
        return Err(Failure::new(&base.sources, d));
    }

    // Groups of runs sharing their structural values, in order of first appearance.
    let mut group_of_key: BTreeMap<Vec<u64>, usize> = BTreeMap::new();
    let mut group_values: Vec<Vec<(String, f64)>> = Vec::new();
    let mut group = Vec::with_capacity(spec.runs.len());
    for row in &spec.runs {
        let vals: Vec<(String, f64)> = spec
            .names
            .iter()
            .zip(row)
            .zip(&structural)
            .filter(|(_, s)| **s)
            .map(|((n, x), _)| (n.clone(), *x))
            .collect();
        let key = vals.iter().map(|(_, x)| x.to_bits()).collect();
        let next = group_values.len();
        let g = *group_of_key.entry(key).or_insert(next);
        if g == next {
            group_values.push(vals);
        }
        group.push(g);
    }
    let jobs = spec.jobs;
    let models: Vec<Option<Result<CompiledModel, Failure>>> = if structural.iter().any(|s| *s) {
        par_map(group_values.len(), jobs, |g| {
            base.with_structural(&group_values[g])
        })
    } else {
        Vec::new()
    };
    let model_of = |g: usize| -> Result<&CompiledModel, String> {
        if models.is_empty() {
            return Ok(base);
        }
        match models.get(g) {
            Some(Some(Ok(m))) => Ok(m),
            Some(Some(Err(f))) => Err(f.rendered.clone()),
            _ => Err("internal error: flattening the model panicked".to_string()),
        }
    };

    let stats: Vec<Stat> = if spec.stats.is_empty() {
        vec![Stat::Final]
    } else {
        spec.stats.clone()
    };
    let all_vars = spec.sim.vars.is_some();
    let outcomes = par_map(
        spec.runs.len(),
        jobs,
        |i| -> Result<Vec<(String, f64)>, String> {
            let m = model_of(group[i])?;
            let mut opts = spec.sim.clone();
            opts.progress = false;
            for ((n, x), s) in spec.names.iter().zip(&spec.runs[i]).zip(&structural) {
                if !s {
                    opts.set.push(set_text(n, *x));
                }
            }
            let r = m.simulate(&opts).map_err(|f| f.rendered)?;
            Ok(summarise(&r, all_vars, &stats))
        },
    );

    let mut columns: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (name, _) in outcomes.iter().flatten().flatten().flatten() {
        if !index.contains_key(name) {
            index.insert(name.clone(), columns.len());
            columns.push(name.clone());
        }
    }
    let mut values = Vec::with_capacity(outcomes.len());
    let mut errors = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        let mut row = vec![f64::NAN; columns.len()];
        match o {
            Some(Ok(cols)) => {
                for (name, x) in cols {
                    if let Some(&j) = index.get(&name) {
                        row[j] = x;
                    }
                }
                errors.push(None);
            }
            Some(Err(e)) => errors.push(Some(e)),
            None => errors.push(Some(
                "internal error: the simulation panicked (please report it with the model)"
                    .to_string(),
            )),
        }
        values.push(row);
    }
    Ok(SweepTable {
        model: base.name().to_string(),
        names: spec.names.clone(),
        runs: spec.runs.clone(),
        columns,
        values,
        errors,
    })
}

/// A number as the result files write it.
pub fn number_text(x: f64) -> String {
    let mut s = String::new();
    push_num(&mut s, x);
    s
}
