//! Calls of user functions (`Expr::UserCall`) at simulation time.
//!
//! A function body is an algorithm (loops, `while`, early `return`), so it is not compiled to the
//! straight-line tape: the tape gets one `Op::Call` instruction per used output element, and that
//! instruction runs the flattening stage's interpreter (`flatten::call_function`) on the argument
//! registers. Calls whose arguments are all known at compile time are evaluated once, here.
//!
//! Encoding (every field a valid register, so the generic parts of the evaluator never index out
//! of range): the arguments are copied into consecutive registers `a..=b` (scalars and the
//! elements of array arguments in row-major order, in input order); `c` is a constant register
//! holding the index of the [`CallSite`] in a process-wide, append-only table. The table keeps
//! the instruction format and the evaluator's signature unchanged (a tape is plain data); it
//! grows by the number of distinct call sites of each compiled program.
//!
//! Derivatives: the interpreter works on values, so the tangent of a call is the sum over the
//! arguments of a central difference times the argument's tangent, with
//! `h = 6.1e-6 * max(|x|, 1)` (about the cube root of the machine epsilon: relative error near
//! 1e-10 for smooth functions), the same rule structure uses for the partial derivatives of
//! user functions in index reduction. Integer and Boolean inputs have no tangent.

use crate::dae::{Expr, Function, ScalarType};
use crate::flatten::tensor::Tensor;
use crate::flatten::{Val, call_function};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// One function as called from one program, with the result of its last evaluation: the outputs
/// of a call are used element by element (`w[1]`, `w[2]`, `w[3]` of `w = rot(v, phi)`), so the
/// elements after the first reuse the run instead of interpreting the body again.
struct Callee {
    functions: Arc<BTreeMap<String, Function>>,
    name: String,
    /// How each input is passed.
    inputs: Vec<Input>,
    last: Mutex<Option<LastCall>>,
    /// Whether a run of the function used the impure random generator: then the last
    /// result is reused only within the event instant it was drawn at (see [`new_instant`]).
    impure: std::sync::atomic::AtomicBool,
    /// The instant of the last evaluation.
    instant: std::sync::atomic::AtomicU64,
    /// The function compiled for these inputs, when it fits the subset of `fncode`, with the
    /// defaults of the inputs the call leaves out.
    code: Option<(Arc<super::fncode::Code>, Vec<f64>)>,
}

/// One input of a call as passed: in argument registers (`dims` and `ty` tell how many and how
/// to read them), or, for a String (or an array of them), as the literals the flat model gives
/// it (a record's name field, e.g. the `data.name` of an ideal gas, or a medium's
/// `substanceNames`: registers hold numbers only).
struct Input {
    dims: Vec<usize>,
    ty: ScalarType,
    text: Option<Vec<String>>,
}

impl Input {
    /// How many argument registers this input takes.
    fn registers(&self) -> usize {
        if self.text.is_some() {
            0
        } else {
            self.dims.iter().product()
        }
    }
}

/// Arguments and outputs (flattened; the message when the function failed) of the last
/// evaluation.
type LastCall = (Vec<f64>, Result<Vec<Vec<f64>>, String>);

/// One output element of one call in the tape, or one `delay` (`delay.rs`).
enum CallSite {
    Function {
        callee: Arc<Callee>,
        output: usize,
        element: usize,
    },
    Delay(Arc<super::delay::DelayLine>),
}

thread_local! {
    /// The current event instant on this thread (see [`new_instant`]).
    static INSTANT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// The message of the last failed call on this thread (a simulation runs on one thread):
    /// the call itself can only return NaN, so the NaN report adds this message.
    static FAILURE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The message of the last failed call for its effect (see [`Callee::pick`]).
    static EFFECT_FAILURE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Calls for their effect skipped since the last [`take_effect_warnings`].
    static EFFECT_WARNINGS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Starts a new event instant. An impure call (`impureRandom`) is made once per instant: the
/// equations are evaluated many times while an event (or the initialization) is iterated,
/// and each evaluation must see the number drawn for that instant, not draw again; the next
/// instant draws the next number.
pub fn new_instant() {
    INSTANT.with(|i| i.set(i.get() + 1));
}

/// The message of the last function call that failed since the program was compiled.
pub fn take_failure() -> Option<String> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// The message of the last call for its effect that failed.
pub fn take_effect_failure() -> Option<String> {
    EFFECT_FAILURE.with(|f| f.borrow_mut().take())
}

/// The calls for their effect skipped because they reach C code minimo cannot link.
pub fn take_effect_warnings() -> Vec<String> {
    EFFECT_WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

fn table() -> &'static RwLock<Vec<Arc<CallSite>>> {
    static TABLE: OnceLock<RwLock<Vec<Arc<CallSite>>>> = OnceLock::new();
    TABLE.get_or_init(|| RwLock::new(Vec::new()))
}

fn site(index: f64) -> Option<Arc<CallSite>> {
    let t = table().read().ok()?;
    t.get(index as usize).cloned()
}

impl Callee {
    /// A call site of `name` with inputs passed as `inputs`, not yet evaluated.
    fn new(
        functions: Arc<BTreeMap<String, Function>>,
        name: &str,
        inputs: Vec<Input>,
        compiler: Option<&mut super::fncode::Compiler>,
    ) -> Callee {
        // Inputs given as numbers (a String input keeps the interpreter); those left out
        // must have literal defaults.
        let code = match compiler {
            Some(c) if inputs.iter().all(|i| i.text.is_none()) => {
                let dims: Vec<Vec<usize>> = inputs.iter().map(|i| i.dims.clone()).collect();
                c.compile_call(name, &dims)
            }
            _ => None,
        };
        Callee {
            functions,
            name: name.to_string(),
            inputs,
            last: Mutex::new(None),
            impure: std::sync::atomic::AtomicBool::new(false),
            instant: std::sync::atomic::AtomicU64::new(0),
            code,
        }
    }

    /// Element `element` of output `output` for these argument values (NaN when the function
    /// fails: the evaluator reports it with the variable and equation). The outputs of the
    /// last evaluation are kept, so the other elements of one call reuse its run.
    fn output(&self, args: &[f64], output: usize, element: usize) -> f64 {
        let Ok(mut guard) = self.last.lock() else {
            return f64::NAN;
        };
        use std::sync::atomic::Ordering::Relaxed;
        let instant = INSTANT.with(std::cell::Cell::get);
        if let Some((a, out)) = guard.as_ref()
            && a.as_slice() == args
            && (!self.impure.load(Relaxed) || self.instant.load(Relaxed) == instant)
        {
            return self.pick(out, output, element);
        }
        let before = crate::flatten::impure_calls();
        crate::flatten::take_unlinked();
        let mut result = self.try_run(args);
        if let Err(m) = &result
            && crate::flatten::take_unlinked()
            && let Some(name) = self.name.strip_suffix(crate::flatten::EFFECT_CALL_SUFFIX)
        {
            // Its effect cannot be had (a file written through C): skipped, with a warning.
            let w = format!("the call of `{name}` for its effect was skipped: {m}");
            EFFECT_WARNINGS.with(|ws| ws.borrow_mut().push(w));
            result = Ok(vec![vec![1.0]]);
        }
        if crate::flatten::impure_calls() != before {
            self.impure.store(true, Relaxed);
        }
        self.instant.store(instant, Relaxed);
        let out = result.map_err(|m| {
            // A wrapper of a call for its effect is named as the function it wraps.
            let name = self.name.strip_suffix(crate::flatten::EFFECT_CALL_SUFFIX);
            format!("`{}`: {m}", name.unwrap_or(&self.name))
        });
        let x = self.pick(&out, output, element);
        match guard.as_mut() {
            // The argument buffer is reused (no allocation per new argument set).
            Some((a, o)) => {
                a.clear();
                a.extend_from_slice(args);
                *o = out;
            }
            None => *guard = Some((args.to_vec(), out)),
        }
        x
    }

    /// Element `element` of output `output` of a result. A failure is NaN, with its message
    /// kept for the report; the wrapper of a call for its effect (`flatten/effect_call.rs`)
    /// gives false instead, since its assert may sit inside `not c or ...` (an if-equation's
    /// branch), where NaN would read as true.
    fn pick(&self, out: &Result<Vec<Vec<f64>>, String>, output: usize, element: usize) -> f64 {
        match out {
            Ok(o) => o
                .get(output)
                .and_then(|o| o.get(element).copied())
                .unwrap_or(f64::NAN),
            Err(m) if self.name.ends_with(crate::flatten::EFFECT_CALL_SUFFIX) => {
                EFFECT_FAILURE.with(|f| *f.borrow_mut() = Some(m.clone()));
                0.0
            }
            Err(m) => {
                FAILURE.with(|f| *f.borrow_mut() = Some(m.clone()));
                f64::NAN
            }
        }
    }

    fn run(&self, args: &[f64]) -> Option<Vec<Vec<f64>>> {
        self.try_run(args).ok()
    }

    fn try_run(&self, args: &[f64]) -> Result<Vec<Vec<f64>>, String> {
        if let Some(out) = self
            .code
            .as_ref()
            .and_then(|(c, defaults)| c.run(args, defaults))
        {
            return Ok(out);
        }
        self.interpret(args)
    }

    fn interpret(&self, args: &[f64]) -> Result<Vec<Vec<f64>>, String> {
        let mut values = Vec::with_capacity(self.inputs.len());
        let mut k = 0;
        for input in &self.inputs {
            if let Some(text) = &input.text {
                let elems = text.iter().map(|t| Val::Str(t.clone())).collect();
                values.push(Tensor::new(input.dims.clone(), elems));
                continue;
            }
            let (dims, ty) = (&input.dims, input.ty);
            let n = input.registers();
            let data = args
                .get(k..k + n)
                .ok_or("internal: too few argument registers")?;
            k += n;
            let elems = data
                .iter()
                .map(|&x| match ty {
                    ScalarType::Integer => Val::Int(x.round() as i64),
                    ScalarType::Boolean => Val::Bool(x != 0.0),
                    _ => Val::Real(x),
                })
                .collect();
            values.push(Tensor::new(dims.clone(), elems));
        }
        let outs = call_function(&self.functions, &self.name, &values)?;
        outs.iter()
            .map(|o| o.to_f64s().ok_or_else(|| "a String output".to_string()))
            .collect()
    }
}

/// The functions called at run time so far in this process, by name: those running as
/// compiled code and those the interpreter runs (for `--stats`).
pub fn compiled_and_interpreted() -> (Vec<String>, Vec<String>) {
    let mut compiled = std::collections::BTreeSet::new();
    let mut interpreted = std::collections::BTreeSet::new();
    if let Ok(t) = table().read() {
        for site in t.iter() {
            if let CallSite::Function { callee, .. } = site.as_ref() {
                let set = if callee.code.is_some() {
                    &mut compiled
                } else {
                    &mut interpreted
                };
                set.insert(callee.name.clone());
            }
        }
    }
    // A function compiled for one call site and interpreted for another is both.
    (
        compiled.into_iter().collect(),
        interpreted.into_iter().collect(),
    )
}

/// The value of call site `index` (a register value) for the argument registers `args`.
pub fn value(index: f64, args: &[f64]) -> f64 {
    match site(index).as_deref() {
        Some(CallSite::Function {
            callee,
            output,
            element,
        }) => callee.output(args, *output, *element),
        Some(CallSite::Delay(line)) => line.value(args).unwrap_or_else(|m| {
            FAILURE.with(|f| *f.borrow_mut() = Some(m));
            f64::NAN
        }),
        None => f64::NAN,
    }
}

/// Registers a delay line as a call site; its index.
pub fn delay_site(line: Arc<super::delay::DelayLine>) -> Result<f64, String> {
    let mut t = table()
        .write()
        .map_err(|_| "internal: the table of call sites is unavailable".to_string())?;
    t.push(Arc::new(CallSite::Delay(line)));
    Ok((t.len() - 1) as f64)
}

/// The tangent of call site `index`: central differences in each argument with a nonzero
/// tangent (see the module comment for the step).
pub fn tangent(index: f64, args: &[f64], targs: &[f64]) -> f64 {
    let (callee, output, element) = match site(index).as_deref() {
        Some(CallSite::Function {
            callee,
            output,
            element,
        }) => (callee.clone(), *output, *element),
        Some(CallSite::Delay(line)) => return line.tangent(args, targs),
        None => return f64::NAN,
    };
    let mut real = Vec::with_capacity(args.len());
    for input in &callee.inputs {
        real.extend(std::iter::repeat_n(
            input.ty == ScalarType::Real,
            input.registers(),
        ));
    }
    let at = |x: &[f64]| -> f64 {
        callee
            .run(x)
            .and_then(|o| o.get(output)?.get(element).copied())
            .unwrap_or(f64::NAN)
    };
    let mut d = 0.0;
    let mut x = args.to_vec();
    for k in 0..args.len() {
        if targs[k] == 0.0 || !real.get(k).copied().unwrap_or(false) {
            continue;
        }
        let h = 6.1e-6 * args[k].abs().max(1.0);
        x[k] = args[k] + h;
        let up = at(&x);
        x[k] = args[k] - h;
        let down = at(&x);
        x[k] = args[k];
        // An input the output does not depend on contributes nothing, even when its own
        // tangent is not finite: a medium's `density(p, T)` of constant properties ignores a `T`
        // that is still NaN at the first pass of initialization (mass 0), and `0 * NaN` would
        // make the whole block Jacobian NaN.
        if up != down {
            d += (up - down) / (2.0 * h) * targs[k];
        }
    }
    d
}

/// A function, its argument registers and the String literals passed (one list per input).
type CalleeKey = (String, Vec<u32>, Vec<Vec<String>>);

/// What compilation needs to lower `Expr::UserCall`: the program's functions, shared by its
/// call sites, and one [`Callee`] per function and argument registers (so the output elements
/// of one call share its evaluation).
pub struct Calls {
    functions: Option<Arc<BTreeMap<String, Function>>>,
    /// Compiles the functions called (made with `functions`).
    compiler: Option<super::fncode::Compiler>,
    /// Keyed by function, argument registers and String literals passed.
    callees: HashMap<CalleeKey, Arc<Callee>>,
    /// The first of the consecutive registers holding a copy of these argument registers:
    /// every output element of one call reads the same copies (`RealFFT` calls a function
    /// of a 4000-element buffer once per each of its 804 outputs), with the order in which
    /// they were made (a private section forgets the copies it made, `when_bodies.rs`).
    copies: HashMap<Vec<u32>, u32>,
    copy_log: Vec<Vec<u32>>,
}

impl Default for Calls {
    /// A new program starts without a reported failure.
    fn default() -> Calls {
        FAILURE.with(|f| f.borrow_mut().take());
        Calls {
            functions: None,
            compiler: None,
            callees: HashMap::new(),
            copies: HashMap::new(),
            copy_log: Vec::new(),
        }
    }
}

/// How the compiler lowers one call.
pub enum Lowered {
    /// Every argument is known at compile time: the value.
    Constant(f64),
    /// Emit `Op::Call` with the packed arguments and a constant register holding this index.
    Site(f64),
    Error(String),
}

impl Calls {
    /// The first register of an earlier copy of the argument registers `regs`, if any.
    pub fn copied_args(&self, regs: &[u32]) -> Option<u32> {
        self.copies.get(regs).copied()
    }

    /// Notes that registers `first..` hold a copy of `regs`.
    pub fn note_copied_args(&mut self, regs: Vec<u32>, first: u32) {
        self.copy_log.push(regs.clone());
        self.copies.insert(regs, first);
    }

    /// How many copies were noted so far (see [`Self::forget_copies_since`]).
    pub fn copies_mark(&self) -> usize {
        self.copy_log.len()
    }

    /// Forgets the copies noted after `mark`.
    pub fn forget_copies_since(&mut self, mark: usize) {
        for regs in self.copy_log.drain(mark.min(self.copy_log.len())..) {
            self.copies.remove(&regs);
        }
    }

    /// Registers the call site of output `output`, element `element` of `function`, whose
    /// (scalarized) arguments are in registers `arg_regs`; `known` gives their values when they
    /// are constants.
    #[allow(clippy::too_many_arguments)]
    pub fn lower(
        &mut self,
        model_functions: &BTreeMap<String, Function>,
        function: &str,
        args: &[Expr],
        arg_regs: &[u32],
        known: &[Option<f64>],
        output: usize,
        element: usize,
    ) -> Lowered {
        let inputs = match input_shapes(model_functions, function, args) {
            Ok(i) => i,
            Err(m) => return Lowered::Error(m),
        };
        let functions = self
            .functions
            .get_or_insert_with(|| Arc::new(model_functions.clone()))
            .clone();
        let texts = inputs.iter().filter_map(|i| i.text.clone()).collect();
        let compiler = self
            .compiler
            .get_or_insert_with(|| super::fncode::Compiler::new(functions.clone()));
        let callee = self
            .callees
            .entry((function.to_string(), arg_regs.to_vec(), texts))
            .or_insert_with(|| Arc::new(Callee::new(functions, function, inputs, Some(compiler))))
            .clone();
        if known.iter().all(Option::is_some) {
            let values: Vec<f64> = known.iter().map(|x| x.unwrap_or(f64::NAN)).collect();
            // A failing call may be in a branch that is never taken (MLS 3.3): it stays a
            // call site, which fails when, and only if, the run evaluates it.
            // An impure call (a random number) is not a constant: it stays a call site, and
            // the number drawn here is put back.
            if let Some(Ok(o)) = crate::flatten::if_pure(|| callee.try_run(&values)) {
                return match o.get(output).and_then(|v| v.get(element)) {
                    Some(&x) => Lowered::Constant(x),
                    None => Lowered::Error(format!(
                        "`{function}` has no output element {}",
                        element + 1
                    )),
                };
            }
        }
        let site = CallSite::Function {
            callee,
            output,
            element,
        };
        match table().write() {
            Ok(mut t) => {
                t.push(Arc::new(site));
                Lowered::Site((t.len() - 1) as f64)
            }
            Err(_) => Lowered::Error("internal: the table of call sites is unavailable".into()),
        }
    }
}

/// How each input of `function` is passed when called with `args`.
fn input_shapes(
    functions: &BTreeMap<String, Function>,
    function: &str,
    args: &[Expr],
) -> Result<Vec<Input>, String> {
    let Some(f) = functions.get(function) else {
        return Err(format!("unknown function `{function}`"));
    };
    if args.len() > f.inputs.len() {
        return Err(format!(
            "`{function}` takes {} input(s), got {}",
            f.inputs.len(),
            args.len()
        ));
    }
    let mut inputs = Vec::with_capacity(args.len());
    for (a, input) in args.iter().zip(&f.inputs) {
        if input.ty == ScalarType::String {
            let (dims, texts) = match a {
                Expr::String(text) => (Vec::new(), Some(vec![text.clone()])),
                Expr::Array { dims, elements } => (
                    dims.clone(),
                    elements
                        .iter()
                        .map(|e| match e {
                            Expr::String(t) => Some(t.clone()),
                            _ => None,
                        })
                        .collect(),
                ),
                _ => (Vec::new(), None),
            };
            let Some(texts) = texts else {
                return Err(format!(
                    "`{function}`: the String input `{}` cannot be passed at simulation time: only a String known before the run (a literal, a constant or parameter) can",
                    input.name
                ));
            };
            inputs.push(Input {
                dims,
                ty: input.ty,
                text: Some(texts),
            });
            continue;
        }
        let dims = match a {
            Expr::Array { dims, .. } => dims.clone(),
            _ => Vec::new(),
        };
        inputs.push(Input {
            dims,
            ty: input.ty,
            text: None,
        });
    }
    Ok(inputs)
}

/// One call evaluated once (parameter bindings): `values` are the scalarized arguments.
pub fn call_once(
    functions: &BTreeMap<String, Function>,
    function: &str,
    args: &[Expr],
    values: &[f64],
    output: usize,
    element: usize,
) -> Result<f64, String> {
    let callee = Callee::new(
        Arc::new(functions.clone()),
        function,
        input_shapes(functions, function, args)?,
        None,
    );
    // An impure call (a print, a random number) is made during the run, not ahead of it.
    let outs = crate::flatten::if_pure(|| callee.try_run(values))
        .ok_or_else(|| format!("`{function}` is impure: it is called during the run"))??;
    outs.get(output)
        .and_then(|o| o.get(element))
        .copied()
        .ok_or_else(|| format!("`{function}` has no output element {}", element + 1))
}

/// Flattens the arguments of a call into what the argument registers hold: each scalar, or the
/// elements of an array argument. String literals are not among them (see [`Input`]).
pub fn scalar_args(args: &[Expr]) -> Vec<&Expr> {
    let mut out = Vec::new();
    for a in args {
        match a {
            Expr::Array { elements, .. } => {
                out.extend(elements.iter().filter(|e| !matches!(e, Expr::String(_))))
            }
            Expr::String(_) => {}
            e => out.push(e),
        }
    }
    out
}
