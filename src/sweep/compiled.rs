//! [`CompiledModel`]: a model loaded, flattened and analysed once and simulated many times.
//!
//! Simulating repeats only the per-run work: parameter values are evaluated, folded into the
//! register program (`sim::compile`, a fraction of a millisecond for small models) and the model
//! integrated. A structural parameter was used while flattening (array sizes, `for` ranges,
//! conditions), so [`CompiledModel::with_structural`] flattens again, through a wrapper class
//! `model W extends M(a(b = 3)); end W;` whose modifier overrides the value.

use crate::dae::{ScalarType, Variability};
use crate::diag::{Diagnostic, SourceMap, Span, render_all};
use crate::flatten::{LoadOptions, load_and_flatten_with};
use crate::sim::{SimOptions, SimResult, VarKind, simulate_analysis};
use crate::structure::{Analysis, AnalyzeOptions, analyze};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Diagnostics of a failed load or run, with the sources their spans point into.
#[derive(Debug)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
    /// `file:line:col` of each diagnostic (`<generated>` without a location).
    pub locations: Vec<String>,
    /// The diagnostics as the command line prints them.
    pub rendered: String,
}

impl Failure {
    /// The diagnostics located and rendered against `sources`.
    pub fn new(sources: &SourceMap, diagnostics: Vec<Diagnostic>) -> Failure {
        let locations = diagnostics
            .iter()
            .map(|d| sources.location(d.span))
            .collect();
        let mut rendered = render_all(sources, &diagnostics);
        if rendered.trim().is_empty() {
            rendered = "error: the model failed without an explanation (an internal error of \
                        minimo; please report it with the model)"
                .to_string();
        }
        Failure {
            diagnostics,
            locations,
            rendered,
        }
    }
}

/// A parameter of the model: its value before overrides, and whether it is structural.
#[derive(Clone, Debug)]
pub struct ParamInfo {
    pub name: String,
    pub value: f64,
    pub structural: bool,
    pub ty: ScalarType,
    pub unit: Option<String>,
    pub description: Option<String>,
}

/// A model ready to simulate: flattened and analysed once.
pub struct CompiledModel {
    pub sources: SourceMap,
    pub analysis: Analysis,
    /// Warnings of loading and flattening.
    pub warnings: Vec<Diagnostic>,
    load: LoadOptions,
    texts: Vec<(String, String)>,
    /// The class the user named (the base of structural wrappers).
    class: String,
    /// Structural values this model was flattened with.
    structural: Vec<(String, f64)>,
}

impl CompiledModel {
    /// Loads `opts` (plus model texts held in memory), flattens and analyses the model.
    pub fn load(opts: &LoadOptions, texts: &[(String, String)]) -> Result<CompiledModel, Failure> {
        let mut sources = SourceMap::new();
        let flat = match load_and_flatten_with(opts, texts, &mut sources) {
            Ok(f) => f,
            Err(d) => return Err(Failure::new(&sources, d)),
        };
        let class = flat.name.clone();
        Self::finish(
            sources,
            flat,
            opts.clone(),
            texts.to_vec(),
            class,
            Vec::new(),
        )
    }

    fn finish(
        sources: SourceMap,
        mut flat: crate::dae::FlatModel,
        load: LoadOptions,
        texts: Vec<(String, String)>,
        class: String,
        structural: Vec<(String, f64)>,
    ) -> Result<CompiledModel, Failure> {
        let warnings = std::mem::take(&mut flat.warnings);
        match analyze(flat, &AnalyzeOptions::default()) {
            Ok(analysis) => Ok(CompiledModel {
                sources,
                analysis,
                warnings,
                load,
                texts,
                class,
                structural,
            }),
            Err(d) => Err(Failure::new(&sources, d)),
        }
    }

    /// The qualified name of the model's class.
    pub fn name(&self) -> &str {
        &self.class
    }

    /// Renders diagnostics against this model's sources (`file:line:col`, snippet).
    pub fn render(&self, d: &[Diagnostic]) -> String {
        Failure::new(&self.sources, d.to_vec()).rendered
    }

    /// `file:line:col` of a span, or `<generated>`.
    pub fn location(&self, span: Span) -> String {
        self.sources.location(span)
    }

    /// Simulates once; `opts.set` holds the `NAME=VALUE` overrides of this run.
    pub fn simulate(&self, opts: &SimOptions) -> Result<SimResult, Failure> {
        simulate_analysis(&self.analysis, opts).map_err(|d| Failure::new(&self.sources, d))
    }

    /// The parameters in declaration order, with their values before overrides.
    pub fn parameters(&self) -> Vec<ParamInfo> {
        let model = &self.analysis.system.model;
        let values = crate::sim::params::evaluate(model, &BTreeMap::new())
            .map(|p| p.values)
            .unwrap_or_default();
        model
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.variability == Variability::Parameter && v.ty != ScalarType::String)
            .map(|(i, v)| ParamInfo {
                name: v.name.clone(),
                value: values.get(i).copied().unwrap_or(f64::NAN),
                structural: v.structural,
                ty: v.ty,
                unit: v.unit.clone(),
                description: v.description.clone(),
            })
            .collect()
    }

    /// The variables a simulation records (name, kind, unit, description), in model order.
    pub fn variables(&self) -> Vec<(String, VarKind, Option<String>, Option<String>)> {
        let sys = &self.analysis.system;
        let states: BTreeSet<usize> = sys.states.iter().map(|s| s.var).collect();
        let discrete: BTreeSet<usize> = sys.discrete_vars.iter().copied().collect();
        sys.model
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| {
                v.ty != ScalarType::String
                    && !matches!(
                        v.variability,
                        Variability::Parameter | Variability::Constant
                    )
            })
            .map(|(i, v)| {
                let kind = if states.contains(&i) {
                    VarKind::State
                } else if v.derivative_of.is_some() {
                    VarKind::Derivative
                } else if v.variability == Variability::Discrete || discrete.contains(&i) {
                    VarKind::Discrete
                } else {
                    VarKind::Algebraic
                };
                (v.name.clone(), kind, v.unit.clone(), v.description.clone())
            })
            .collect()
    }

    /// Whether `name` is a structural parameter of the model (`None`: no such variable).
    pub fn is_structural(&self, name: &str) -> Option<bool> {
        self.analysis
            .system
            .model
            .variables
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.structural)
    }

    /// The same model flattened again with structural parameters changed (`(name, value)`).
    pub fn with_structural(&self, values: &[(String, f64)]) -> Result<CompiledModel, Failure> {
        let mut merged: BTreeMap<String, f64> = self.structural.iter().cloned().collect();
        for (n, x) in values {
            merged.insert(n.clone(), *x);
        }
        let merged: Vec<(String, f64)> = merged.into_iter().collect();
        let model = &self.analysis.system.model;
        let mut errors = Vec::new();
        let mut tree = ModTree::default();
        for (name, x) in &merged {
            let Some(v) = model.variables.iter().find(|v| &v.name == name) else {
                errors.push(Diagnostic::error(
                    Span::DUMMY,
                    format!("`{name}` is not a parameter of `{}`", self.class),
                ));
                continue;
            };
            let text = match v.ty {
                ScalarType::Boolean => (if *x != 0.0 { "true" } else { "false" }).to_string(),
                ScalarType::Integer if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
                ScalarType::Real if x.is_finite() => format!("{x:?}"),
                _ => {
                    errors.push(Diagnostic::error(
                        Span::DUMMY,
                        format!("`{name}` ({:?}) cannot take the value {x}", v.ty),
                    ));
                    continue;
                }
            };
            if let Err(m) = tree.insert(name, text) {
                errors.push(Diagnostic::error(Span::DUMMY, m));
            }
        }
        if !errors.is_empty() {
            return Err(Failure::new(&self.sources, errors));
        }
        let wrapper = "MinimoSweepStructural";
        let text = format!(
            "model {wrapper}\n  extends {}({});\nend {wrapper};\n",
            self.class,
            tree.render()
        );
        let mut texts = self.texts.clone();
        texts.push(("<sweep wrapper>".to_string(), text));
        let mut load = self.load.clone();
        load.model = Some(wrapper.to_string());
        let mut sources = SourceMap::new();
        let flat = match load_and_flatten_with(&load, &texts, &mut sources) {
            Ok(f) => f,
            Err(d) => return Err(Failure::new(&sources, d)),
        };
        Self::finish(
            sources,
            flat,
            self.load.clone(),
            self.texts.clone(),
            self.class.clone(),
            merged,
        )
    }
}

/// Nested modifiers: `a.b = 1, a.c = 2` -> `a(b = 1, c = 2)`.
#[derive(Default)]
struct ModTree {
    children: BTreeMap<String, ModTree>,
    value: Option<String>,
}

impl ModTree {
    fn insert(&mut self, name: &str, value: String) -> Result<(), String> {
        let mut node = self;
        for part in name.split('.') {
            let plain = part
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !plain {
                return Err(format!(
                    "cannot change the structural parameter `{name}` by a modifier: `{part}` \
                     is an element of an array component (or a quoted name)"
                ));
            }
            node = node.children.entry(part.to_string()).or_default();
        }
        node.value = Some(value);
        Ok(())
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for (i, (name, child)) in self.children.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(name);
            if !child.children.is_empty() {
                let _ = write!(out, "({})", child.render());
            }
            if let Some(v) = &child.value {
                let _ = write!(out, " = {v}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::ModTree;

    #[test]
    fn modifiers_nest_by_component() {
        let mut t = ModTree::default();
        t.insert("wheel.nRollers", "3".into()).unwrap();
        t.insert("wheel.hub.n", "2".into()).unwrap();
        t.insert("k", "1.5".into()).unwrap();
        assert_eq!(t.render(), "k = 1.5, wheel(hub(n = 2), nRollers = 3)");
        assert!(t.insert("a[2].n", "1".into()).is_err());
    }
}
