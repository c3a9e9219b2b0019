//! `minimo._minimo`: the Python bindings of minimo (PyO3). The Python package `minimo`
//! (`python/minimo/`) wraps this module; see its docstrings for the user-facing API.
//!
//! A `CompiledModel` holds one loaded, flattened and analysed model (`minimo::sweep`); every
//! simulation and sweep reuses it and releases the GIL while it runs. Work runs on threads with
//! a large stack, like the command line. Diagnostics become `ModelError(text, diagnostics)`.

use minimo::diag::{Diagnostic, Severity};
use minimo::flatten::LoadOptions;
use minimo::sim::{Method, SimOptions};
use minimo::sweep::{CompiledModel, Failure, Stat, SweepSpec, on_big_stack, run_sweep};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;

pyo3::create_exception!(
    _minimo,
    ModelError,
    PyException,
    "A problem in the model or the simulation: args[0] is the rendered text (file:line:col, \
     source line), args[1] the diagnostics as dictionaries."
);

fn diag_dict<'py>(py: Python<'py>, d: &Diagnostic, loc: &str) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    out.set_item("severity", sev)?;
    out.set_item("message", &d.message)?;
    // `file:line:col`, split from the right (a file name may hold a colon).
    let mut parts = loc.rsplitn(3, ':');
    let (col, line, file) = (parts.next(), parts.next(), parts.next());
    match (
        file,
        line.and_then(|l| l.parse::<usize>().ok()),
        col.and_then(|c| c.parse::<usize>().ok()),
    ) {
        (Some(f), Some(l), Some(c)) => {
            out.set_item("file", f)?;
            out.set_item("line", l)?;
            out.set_item("column", c)?;
        }
        _ => {
            out.set_item("file", py.None())?;
            out.set_item("line", py.None())?;
            out.set_item("column", py.None())?;
        }
    }
    out.set_item("location", loc)?;
    out.set_item("help", d.help.clone())?;
    out.set_item("notes", d.notes.clone())?;
    Ok(out)
}

fn model_error(py: Python<'_>, f: &Failure) -> PyErr {
    let list = PyList::empty(py);
    for (d, loc) in f.diagnostics.iter().zip(&f.locations) {
        match diag_dict(py, d, loc).and_then(|x| list.append(x)) {
            Ok(()) => {}
            Err(e) => return e,
        }
    }
    ModelError::new_err((f.rendered.clone(), list.unbind()))
}

fn panicked() -> PyErr {
    PyRuntimeError::new_err(
        "internal error: minimo panicked (please report it with the model)".to_string(),
    )
}

/// A loaded, flattened and analysed model.
#[pyclass(frozen, module = "minimo._minimo")]
struct CompiledModelPy {
    inner: Arc<CompiledModel>,
}

fn method(solver: &str) -> PyResult<Method> {
    Method::parse(solver).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown solver `{solver}`; use one of bdf, esdirk34, tr-bdf2, tsit45"
        ))
    })
}

#[allow(clippy::too_many_arguments)]
fn sim_options(
    start_time: Option<f64>,
    stop_time: Option<f64>,
    interval: Option<f64>,
    tolerance: Option<f64>,
    solver: &str,
    set: Vec<String>,
    vars: Option<&str>,
) -> PyResult<SimOptions> {
    let vars = match vars.map(regex::Regex::new) {
        None => None,
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => {
            return Err(PyValueError::new_err(format!(
                "vars is not a valid regular expression: {e}"
            )));
        }
    };
    Ok(SimOptions {
        start_time,
        stop_time,
        interval,
        tolerance,
        method: method(solver)?,
        set,
        vars,
        progress: false,
        max_steps: None,
    })
}

fn sets(params: Vec<(String, f64)>) -> Vec<String> {
    params
        .into_iter()
        .map(|(n, x)| format!("{n}={x:?}"))
        .collect()
}

#[pymethods]
impl CompiledModelPy {
    /// The qualified name of the model's class.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The warnings of loading, rendered.
    #[getter]
    fn warnings(&self) -> String {
        self.inner.render(&self.inner.warnings)
    }

    /// The parameters: list of (name, value, structural, type, unit, description).
    #[allow(clippy::type_complexity)]
    fn parameters(&self) -> Vec<(String, f64, bool, String, Option<String>, Option<String>)> {
        self.inner
            .parameters()
            .into_iter()
            .map(|p| {
                (
                    p.name,
                    p.value,
                    p.structural,
                    format!("{:?}", p.ty),
                    p.unit,
                    p.description,
                )
            })
            .collect()
    }

    /// The variables: list of (name, kind, unit, description).
    fn variables(&self) -> Vec<(String, String, Option<String>, Option<String>)> {
        self.inner
            .variables()
            .into_iter()
            .map(|(n, k, u, d)| (n, format!("{k:?}").to_lowercase(), u, d))
            .collect()
    }

    /// The structure report (`minimo structure`): text, or JSON text.
    fn structure(&self, json: bool) -> String {
        if json {
            minimo::structure::view::json(&self.inner.analysis)
        } else {
            minimo::structure::view::text(&self.inner.analysis, &self.inner.sources, false)
        }
    }

    /// The same model flattened again with structural parameters changed.
    fn with_structural(&self, py: Python<'_>, values: Vec<(String, f64)>) -> PyResult<Self> {
        let inner = &self.inner;
        let r = py
            .detach(|| on_big_stack(|| inner.with_structural(&values)))
            .ok_or_else(panicked)?;
        match r {
            Ok(m) => Ok(CompiledModelPy { inner: Arc::new(m) }),
            Err(f) => Err(model_error(py, &f)),
        }
    }

    /// Simulates once; returns (time, names, kinds, values [points x variables], parameters,
    /// statistics, messages).
    #[pyo3(signature = (start_time, stop_time, interval, tolerance, solver, params, vars))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        start_time: Option<f64>,
        stop_time: Option<f64>,
        interval: Option<f64>,
        tolerance: Option<f64>,
        solver: &str,
        params: Vec<(String, f64)>,
        vars: Option<&str>,
    ) -> PyResult<(
        Bound<'py, PyArray1<f64>>,
        Vec<String>,
        Vec<String>,
        Bound<'py, PyAny>,
        Vec<(String, f64)>,
        Bound<'py, PyDict>,
        Vec<String>,
    )> {
        let opts = sim_options(
            start_time,
            stop_time,
            interval,
            tolerance,
            solver,
            sets(params),
            vars,
        )?;
        let inner = &self.inner;
        let r = py
            .detach(|| on_big_stack(|| inner.simulate(&opts)))
            .ok_or_else(panicked)?;
        let r = r.map_err(|f| model_error(py, &f))?;
        let ncols = r.variables.len();
        let nrows = r.rows.len();
        let flat: Vec<f64> = r.rows.iter().flatten().copied().collect();
        let values = PyArray1::from_vec(py, flat)
            .reshape([nrows, ncols])?
            .into_any();
        let stats = PyDict::new(py);
        let s = &r.stats;
        stats.set_item("method", &s.method)?;
        stats.set_item("states", s.states)?;
        stats.set_item("steps", s.steps)?;
        stats.set_item("rejected_steps", s.rejected_steps)?;
        stats.set_item("rhs_evaluations", s.rhs_evaluations)?;
        stats.set_item("jacobian_evaluations", s.jacobian_evaluations)?;
        stats.set_item("events", s.events)?;
        stats.set_item("compile_time", s.compile_time.as_secs_f64())?;
        stats.set_item("init_time", s.init_time.as_secs_f64())?;
        stats.set_item("integrate_time", s.integrate_time.as_secs_f64())?;
        Ok((
            PyArray1::from_vec(py, r.time),
            r.variables.iter().map(|v| v.name.clone()).collect(),
            r.variables
                .iter()
                .map(|v| format!("{:?}", v.kind).to_lowercase())
                .collect(),
            values,
            r.parameters
                .iter()
                .map(|(v, x)| (v.name.clone(), *x))
                .collect(),
            stats,
            r.messages,
        ))
    }

    /// Runs a sweep on threads: returns (columns, values [runs x columns], errors).
    #[pyo3(signature = (names, runs, start_time, stop_time, interval, tolerance, solver, params, vars, stats, jobs))]
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn sweep<'py>(
        &self,
        py: Python<'py>,
        names: Vec<String>,
        runs: Vec<Vec<f64>>,
        start_time: Option<f64>,
        stop_time: Option<f64>,
        interval: Option<f64>,
        tolerance: Option<f64>,
        solver: &str,
        params: Vec<(String, f64)>,
        vars: Option<&str>,
        stats: Vec<String>,
        jobs: usize,
    ) -> PyResult<(Vec<String>, Bound<'py, PyAny>, Vec<Option<String>>)> {
        let mut st = Vec::new();
        for s in &stats {
            match Stat::parse(s) {
                Some(x) if !st.contains(&x) => st.push(x),
                Some(_) => {}
                None => {
                    return Err(PyValueError::new_err(format!(
                        "unknown statistic `{s}`; use final, min, max or mean"
                    )));
                }
            }
        }
        let spec = SweepSpec {
            names,
            runs,
            sim: sim_options(
                start_time,
                stop_time,
                interval,
                tolerance,
                solver,
                sets(params),
                vars,
            )?,
            stats: st,
            jobs,
        };
        let inner = &self.inner;
        let t = py
            .detach(|| on_big_stack(|| run_sweep(inner, &spec)))
            .ok_or_else(panicked)?;
        let t = t.map_err(|f| model_error(py, &f))?;
        let (nrows, ncols) = (t.values.len(), t.columns.len());
        let flat: Vec<f64> = t.values.iter().flatten().copied().collect();
        let values = PyArray1::from_vec(py, flat)
            .reshape([nrows, ncols])?
            .into_any();
        Ok((t.columns, values, t.errors))
    }
}

/// Loads model files and in-memory texts (`(name, text)`), flattens and analyses the model.
#[pyfunction]
#[pyo3(signature = (files, texts, model, libs))]
fn load(
    py: Python<'_>,
    files: Vec<PathBuf>,
    texts: Vec<(String, String)>,
    model: Option<String>,
    libs: Vec<PathBuf>,
) -> PyResult<CompiledModelPy> {
    let opts = LoadOptions { files, libs, model };
    let r = py
        .detach(|| on_big_stack(|| CompiledModel::load(&opts, &texts)))
        .ok_or_else(panicked)?;
    match r {
        Ok(m) => Ok(CompiledModelPy { inner: Arc::new(m) }),
        Err(f) => Err(model_error(py, &f)),
    }
}

#[pymodule]
fn _minimo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CompiledModelPy>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    Ok(())
}
