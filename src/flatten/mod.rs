//! Flattening (MLS 5, 7, 8, 9, 10, 12): from the classes of the loaded files and libraries to
//! one scalar [`FlatModel`].
//!
//! Modules, in pipeline order:
//! - `library`: the built-in library, `--lib` and `MODELICAPATH`, package folders;
//! - `classtree`: every class definition in one arena with its lexical parent;
//! - `lookup`: class name lookup through enclosing scopes, imports, `encapsulated`;
//! - `modifier`: modifications and their merging (outer over inner, `each`, `final`);
//! - `expand`: a class with its inherited elements (`extends`, redeclared elements), cached;
//! - `instance`: the lazily built instance tree (sizes and conditions evaluated on demand);
//! - `scalarize`, `eval`, `tensor`: expressions over arrays, built-ins, constant folding;
//! - `connect_scan`: the `connect` statements before equations (for the two next);
//! - `expandable`: augmentation of expandable connectors; `overdetermined`: the connection
//!   graph of overdetermined connectors;
//! - `equations`, `connect`, `stream`: scalar equations, connection sets, stream connectors;
//! - `functions`, `func_eval`: user functions and their interpreter;
//! - `variables`: flat variables and attributes; `balance`: the equation/unknown check.

#![allow(clippy::result_large_err)] // `Diagnostic` is the shared error type; errors are the cold path.

mod algorithm;
mod algorithm_when;
mod algorithm_while;
mod balance;
mod classtree;
mod clock_inference;
mod clocked;
mod connect;
mod connect_scan;
mod constructor_defaults;
mod derived_view;
mod discrete_time;
mod dyn_index;
mod dyn_target;
mod effect_call;
mod equations;
pub(crate) mod eval;
mod evaluate;
mod expand;
mod expandable;
mod expr_type;
mod external_object;
mod fft;
mod flexible_size;
mod fn_records;
pub mod func_eval;
mod functional_args;
mod functions;
mod identical;
mod implicit;
mod initial_algorithm;
mod inline;
mod inner_outer_split;
mod instance;
mod lapack;
mod legality;
mod library;
mod lookup;
mod modifier;
mod native;
mod operator_record;
mod overdetermined;
mod record_binding;
mod record_by_name;
mod record_field_conflict;
mod record_field_defaults;
mod redeclared;
mod redeclared_chain;
mod scalarize;
pub mod size_limit;
mod stream;
pub mod tensor;
mod variables;
mod when_if;

pub use effect_call::{
    FAILED as EFFECT_CALL_FAILED, SUFFIX as EFFECT_CALL_SUFFIX, guarded as effect_guarded,
};
pub use external_object::take_unlinked;
pub use func_eval::{Value, call_function};
pub use native::{if_pure, impure_calls, restart_impure};
pub use tensor::Val;

use crate::dae::{self, FlatModel};
use crate::diag::{self, Diagnostic, SourceMap, Span};
use crate::syntax::ast;
use classtree::{ClassId, ClassTree};
use expand::Expanded;
use instance::{Inst, InstId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

/// What to load and which model to flatten.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Model files (or package folders) given by the user.
    pub files: Vec<PathBuf>,
    /// Extra libraries (`--lib`).
    pub libs: Vec<PathBuf>,
    /// The model to flatten (`-m A.B.C`); without it, the only model of the files.
    pub model: Option<String>,
}

fn parse(text: &str, file: diag::FileId) -> diag::Result<ast::StoredDefinition> {
    crate::syntax::parse(text, file)
}

/// The state of one flattening run.
pub(crate) struct Flattener<'s> {
    pub tree: ClassTree,
    pub lib: library::Library,
    pub sources: &'s mut SourceMap,
    pub expanded: HashMap<ClassId, Rc<Expanded>>,
    pub expanding: HashSet<ClassId>,
    /// Short classes whose base an enclosing instance redeclared, by (class, base expansion).
    pub short_cache: HashMap<(ClassId, usize), (Rc<Expanded>, Rc<Expanded>)>,
    pub insts: Vec<Inst>,
    pub pkg_insts: HashMap<ClassId, InstId>,
    /// Values of constants and parameters evaluated so far.
    pub values: HashMap<InstId, Rc<tensor::Tensor<Val>>>,
    pub evaluating: Vec<InstId>,
    /// Parameters whose value was needed structurally.
    pub structural: HashSet<InstId>,
    pub functions: BTreeMap<String, dae::Function>,
    pub fn_building: HashSet<String>,
    /// Whether variables have their ids (after the instance tree is complete).
    pub numbered: bool,
    /// Primitive instances in variable order.
    pub prims: Vec<InstId>,
    pub var_names: Vec<String>,
    /// Tables of the external object instances built so far.
    pub ext_tables: HashMap<InstId, Rc<dae::tables::Table>>,
    /// Instances made for `outer` elements without an `inner`, by (name, type).
    pub default_inners: HashMap<(String, ClassId), InstId>,
    /// The inner half of each `inner outer` element, by (instance, name) (`inner_outer_split.rs`).
    pub inner_parts: HashMap<(InstId, String), InstId>,
    /// Warnings of the run (they go to `FlatModel::warnings`).
    pub warnings: Vec<Diagnostic>,
    /// Record variables of the function being built (`functions.rs`).
    pub fn_records: fn_records::FnRecords,
    /// Functions given to the functional inputs of the specialization being built
    /// (`functional_args.rs`).
    pub fn_functional: functional_args::FunctionalBindings,
    /// The virtual connection graph of overdetermined connectors (MLS 9.4).
    pub conn_graph: overdetermined::ConnGraph,
    /// Components of expandable connectors declared with a size `:` and no binding: removed
    /// until a connection gives their size (`expandable.rs`).
    pub sizeless: HashSet<InstId>,
    /// Whether an operator record was expanded: only then can an operator need overload
    /// resolution (`operator_record.rs`).
    pub op_records_seen: bool,
    /// The function class being built: its enclosing classes stand for those of the code it
    /// inherits (`lookup.rs`, `derived_scope`).
    pub building_function: Option<ClassId>,
    /// Where the algorithm being rewritten into a function body is written, when that is not
    /// the function itself (a short alias `function f = Inner.f`, an inherited body): names
    /// the function's own scope does not know are looked up there (`functions.rs`).
    pub fn_body_lex: Option<ClassId>,
    /// Classes seen through a package that inherits them, by (package, class), and the
    /// (class, package) of each such view (`derived_view.rs`).
    pub views: HashMap<(ClassId, ClassId), ClassId>,
    pub view_of: HashMap<ClassId, (ClassId, ClassId)>,
    /// Clocked when-equations (MLS 16, `clocked.rs`).
    pub clocked: clocked::ClockedState,
}

impl<'s> Flattener<'s> {
    fn new(
        sources: &'s mut SourceMap,
        libs: &[PathBuf],
        modelicapath: Option<&str>,
    ) -> Flattener<'s> {
        Flattener {
            tree: ClassTree::new(),
            lib: library::Library::new(libs, modelicapath),
            sources,
            expanded: HashMap::new(),
            expanding: HashSet::new(),
            short_cache: HashMap::new(),
            insts: Vec::new(),
            pkg_insts: HashMap::new(),
            values: HashMap::new(),
            evaluating: Vec::new(),
            structural: HashSet::new(),
            functions: BTreeMap::new(),
            fn_building: HashSet::new(),
            numbered: false,
            prims: Vec::new(),
            var_names: Vec::new(),
            ext_tables: HashMap::new(),
            default_inners: HashMap::new(),
            inner_parts: HashMap::new(),
            warnings: Vec::new(),
            fn_records: Default::default(),
            fn_functional: Default::default(),
            op_records_seen: false,
            conn_graph: Default::default(),
            sizeless: HashSet::new(),
            building_function: None,
            fn_body_lex: None,
            views: HashMap::new(),
            view_of: HashMap::new(),
            clocked: Default::default(),
        }
    }

    /// Picks the model: `-m` if given, else the only non-partial model of the user's files.
    fn select_model(&mut self, user: &[ClassId], model: Option<&str>) -> diag::Result<ClassId> {
        if let Some(m) = model {
            let parts: Vec<&str> = m.split('.').collect();
            // Relative to a user package first (`-m Test` in a file holding `package P`).
            if let Some(id) = self.resolve_global(&parts) {
                return Ok(id);
            }
            for &u in user {
                let mut cur = Some(u);
                for p in &parts {
                    cur = cur.and_then(|c| self.member_class(c, p));
                }
                if let Some(c) = cur {
                    return Ok(c);
                }
            }
            let mut cands = Vec::new();
            for &u in user {
                self.load_all_pending(u);
                self.collect_models(u, &mut cands);
            }
            let names: Vec<String> = cands
                .iter()
                .map(|c| self.tree.get(*c).full.clone())
                .collect();
            let mut d = Diagnostic::error(Span::DUMMY, format!("model `{m}` not found"));
            if let Some(c) = crate::flatten::suggest(m, names.iter().map(|s| s.as_str())) {
                d = d.with_help(format!("did you mean `{c}`?"));
            } else if !names.is_empty() {
                let more = names.len().saturating_sub(10);
                let shown = names[..names.len() - more].join(", ");
                let tail = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                d = d.with_note(format!("models in the given files: {shown}{tail}"));
            }
            return Err(vec![d]);
        }
        let top: Vec<ClassId> = user.iter().copied().filter(|c| self.is_model(*c)).collect();
        if top.len() == 1 {
            return Ok(top[0]);
        }
        let mut cands = Vec::new();
        for &u in user {
            self.collect_models(u, &mut cands);
        }
        match cands.len() {
            1 => Ok(cands[0]),
            0 => Err(vec![Diagnostic::error(
                Span::DUMMY,
                "no model to flatten: the given files define no non-partial model",
            )]),
            _ => {
                let names: Vec<String> = cands
                    .iter()
                    .map(|c| self.tree.get(*c).full.clone())
                    .collect();
                Err(vec![
                    Diagnostic::error(
                        Span::DUMMY,
                        "several models found: choose one with -m/--model",
                    )
                    .with_note(format!("candidates: {}", names.join(", "))),
                ])
            }
        }
    }

    fn is_model(&self, c: ClassId) -> bool {
        let n = self.tree.get(c);
        matches!(
            n.kind,
            ast::ClassKind::Model | ast::ClassKind::Block | ast::ClassKind::Class
        ) && !n.prefixes.partial
    }

    /// Non-partial models and blocks of `c` and of the packages inside it (classes local to a
    /// model and replaceable classes are parts, not models to simulate).
    fn collect_models(&self, c: ClassId, out: &mut Vec<ClassId>) {
        let node = self.tree.get(c);
        if node.prefixes.replaceable || node.prefixes.redeclare {
            return;
        }
        if self.is_model(c) {
            out.push(c);
            return;
        }
        if matches!(node.kind, ast::ClassKind::Package) {
            for ch in node.child_order.clone() {
                self.collect_models(ch, out);
            }
        }
    }

    /// Flattens class `class` into a flat model.
    fn flatten_class(&mut self, class: ClassId) -> diag::Result<FlatModel> {
        let root = self.instantiate_root(class).map_err(|d| vec![d])?;
        self.build_all(root)?;
        self.check_connector_balance(root)?;
        let instances = self.struct_instances(root);
        let scan = self.scan_connections(&instances).map_err(|d| vec![d])?;
        self.augment_expandable(root, &scan)?;
        self.check_stream_declarations(root).map_err(|d| vec![d])?;
        self.build_connection_graph(&scan).map_err(|d| vec![d])?;
        let mut model = FlatModel {
            name: self.tree.get(class).full.clone(),
            ..FlatModel::default()
        };
        self.number_variables(root, &mut model);
        let mut binding_eqs = Vec::new();
        self.variable_attributes(&mut model, &mut binding_eqs)?;

        let mut out = equations::EqOut {
            eqs: Vec::new(),
            connects: Vec::new(),
        };
        let mut init = equations::EqOut {
            eqs: Vec::new(),
            connects: Vec::new(),
        };
        let mut errors = Vec::new();
        for i in self.struct_instances(root) {
            if let Err(d) = self.instance_equations(i, false, &mut out) {
                errors.push(d);
            }
            if let Err(d) = self.instance_equations(i, true, &mut init) {
                errors.push(d);
            }
            if errors.len() > MAX_ERRORS {
                break;
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        if !init.connects.is_empty() {
            return Err(vec![Diagnostic::error(
                init.connects[0].span,
                "`connect` is not allowed in initial equations",
            )]);
        }
        let mut conn = self.connection_equations(&out.connects, root)?;
        model.equations = binding_eqs;
        model.equations.extend(out.eqs);
        model.equations.append(&mut conn.eqs);
        model.initial_equations = init.eqs;
        let evaluated = self.evaluate_annotated(&model);
        self.finish_parameters(&mut model)?;
        self.flag_evaluated(&evaluated, &mut model);
        self.stream_equations(&mut model, &conn)?;
        model.functions = std::mem::take(&mut self.functions);
        model.experiment = self.experiment(class);
        balance::check(&model, self, root).map_err(|d| vec![d])?;
        // After the balance check, which counts clock variables and their equations and
        // reads the instances' variable numbers that removing clock variables changes.
        clock_inference::infer(&mut model, &self.clocked.clock_vars)?;
        discrete_time::check(&model).map_err(|d| vec![d])?;
        model.warnings = std::mem::take(&mut self.warnings);
        Ok(model)
    }

    /// Structured, non-removed instances below `root`, depth first in declaration order.
    fn struct_instances(&self, root: InstId) -> Vec<InstId> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            match &self.insts[i].kind {
                instance::InstKind::Struct {
                    children: Some(c), ..
                } => {
                    out.push(i);
                    stack.extend(c.iter().rev());
                }
                instance::InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                _ => {}
            }
        }
        out
    }

    fn experiment(&mut self, class: ClassId) -> dae::Experiment {
        let mut e = dae::Experiment::default();
        let ann = self
            .tree
            .get(class)
            .long()
            .and_then(|b| b.annotation.clone());
        let Some(ann) = ann else { return e };
        for a in &ann.modification.args {
            let ast::Argument::Modify {
                name,
                modification: Some(ast::Modification::Class { args, .. }),
                ..
            } = a
            else {
                continue;
            };
            if name.parts.len() != 1 || name.parts[0].name != "experiment" {
                continue;
            }
            for x in &args.args {
                let ast::Argument::Modify {
                    name,
                    modification: Some(m),
                    ..
                } = x
                else {
                    continue;
                };
                let expr = match m {
                    ast::Modification::Binding { expr, .. } => expr,
                    ast::Modification::Class {
                        binding: Some(expr),
                        ..
                    } => expr,
                    _ => continue,
                };
                let scope = modifier::Scope {
                    inst: None,
                    lex: class,
                };
                let Ok(v) = self.eval_structural(expr, scope) else {
                    continue;
                };
                let Some(x) = v.data.first().and_then(|v| v.as_f64()) else {
                    continue;
                };
                match name.parts[0].name.as_str() {
                    "StartTime" => e.start_time = Some(x),
                    "StopTime" => e.stop_time = Some(x),
                    "Interval" => e.interval = Some(x),
                    "Tolerance" => e.tolerance = Some(x),
                    _ => {}
                }
            }
        }
        e
    }
}

/// Loads the files and libraries and flattens the selected model.
pub fn load_and_flatten(opts: &LoadOptions, sources: &mut SourceMap) -> diag::Result<FlatModel> {
    load_and_flatten_with(opts, &[], sources)
}

/// Like [`load_and_flatten`], with model texts held in memory (`(name shown in diagnostics,
/// text)`) loaded after the files: a model given as a string, or the wrapper class a sweep
/// writes to change a structural parameter.
pub fn load_and_flatten_with(
    opts: &LoadOptions,
    texts: &[(String, String)],
    sources: &mut SourceMap,
) -> diag::Result<FlatModel> {
    let mp = std::env::var("MODELICAPATH").ok();
    let mut f = Flattener::new(sources, &opts.libs, mp.as_deref());
    // A named model needs only what it uses: package folders given as files load lazily.
    let lazy = opts.model.is_some();
    let mut user = load_user_files(&mut f, &opts.files, lazy)?;
    for (name, text) in texts {
        user.extend(f.load_text(name.clone(), text.clone(), None)?);
    }
    let class = f.select_model(&user, opts.model.as_deref())?;
    let r = f.flatten_class(class);
    finish(f, r)
}

fn load_user_files(f: &mut Flattener, files: &[PathBuf], lazy: bool) -> diag::Result<Vec<ClassId>> {
    let mut user = Vec::new();
    let mut errors = Vec::new();
    for p in files {
        if p.is_dir() {
            match f.load_user_dir(p, lazy) {
                Ok(ids) => user.extend(ids),
                Err(e) => errors.extend(e),
            }
            continue;
        }
        match std::fs::read_to_string(p) {
            Ok(text) => match f.load_text(p.display().to_string(), text, None) {
                Ok(ids) => user.extend(ids),
                Err(e) => errors.extend(e),
            },
            Err(e) => errors.push(Diagnostic::error(
                Span::DUMMY,
                format!("cannot read `{}`: {e}", p.display()),
            )),
        }
    }
    ok_or_errors(user, errors)
}

/// Errors gathered over many instances or variables before a pass stops: more would mostly
/// repeat the first ones.
const MAX_ERRORS: usize = 20;

/// `value`, unless errors were gathered on the way to it.
fn ok_or_errors<T>(value: T, errors: Vec<Diagnostic>) -> diag::Result<T> {
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(errors)
    }
}

fn finish(f: Flattener, r: diag::Result<FlatModel>) -> diag::Result<FlatModel> {
    match r {
        Ok(m) if f.lib.errors.is_empty() => Ok(m),
        Ok(_) => Err(f.lib.errors),
        Err(mut e) => {
            e.extend(f.lib.errors);
            Err(e)
        }
    }
}

/// Names of the non-partial models and blocks defined in the given files (for `minimo check`).
pub fn models_in_files(opts: &LoadOptions, sources: &mut SourceMap) -> diag::Result<Vec<String>> {
    let mp = std::env::var("MODELICAPATH").ok();
    let mut f = Flattener::new(sources, &opts.libs, mp.as_deref());
    let user = load_user_files(&mut f, &opts.files, false)?;
    let mut out = Vec::new();
    for u in user {
        f.collect_models(u, &mut out);
    }
    Ok(out
        .into_iter()
        .map(|c| f.tree.get(c).full.clone())
        .collect())
}

/// Flattens model text (for tests and tools): `name` is the file name shown in messages,
/// `model` the class to flatten (else the only model). Errors come back rendered.
pub fn flatten_source(name: &str, text: &str, model: Option<&str>) -> Result<FlatModel, String> {
    let mut sources = SourceMap::new();
    flatten_source_with(&mut sources, name, text, model, &[])
        .map_err(|d| diag::render_all(&sources, &d))
}

/// Like [`flatten_source`] with extra libraries, returning the diagnostics.
pub fn flatten_source_with(
    sources: &mut SourceMap,
    name: &str,
    text: &str,
    model: Option<&str>,
    libs: &[PathBuf],
) -> diag::Result<FlatModel> {
    let mut f = Flattener::new(sources, libs, None);
    let user = f.load_text(name.to_string(), text.to_string(), None)?;
    let class = f.select_model(&user, model)?;
    let r = f.flatten_class(class);
    finish(f, r)
}

/// The closest candidate for a "did you mean" hint: `diag::closest_name`, plus swapped
/// adjacent letters (`Lwa` for `Law`), the most common typing slip in short names.
pub(crate) fn suggest<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let cands: Vec<&'a str> = candidates.into_iter().collect();
    if let Some(c) = diag::closest_name(wanted, cands.iter().copied()) {
        return Some(c);
    }
    let w: Vec<char> = wanted.chars().collect();
    let mut best: Option<&'a str> = None;
    for c in cands {
        let cc: Vec<char> = c.chars().collect();
        if cc.len() != w.len() {
            continue;
        }
        let diff: Vec<usize> = (0..w.len()).filter(|i| w[*i] != cc[*i]).collect();
        let swapped = diff.len() == 2
            && diff[1] == diff[0] + 1
            && w[diff[0]] == cc[diff[1]]
            && w[diff[1]] == cc[diff[0]];
        if swapped && best.is_none_or(|b| c < b) {
            best = Some(c);
        }
    }
    best
}
