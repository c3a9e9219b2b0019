//! The function interpreter: runs the algorithm of a flattened user function
//! ([`dae::Function`]) on values. Flattening uses it to evaluate constant calls; the simulator
//! calls [`call_function`] for every `Expr::UserCall` at run time.

use super::eval::{self, Ctx, EResult, cref_name};
use super::tensor::{Tensor, Val};
use crate::dae::{FoldedBinding, Function, FunctionVar, ScalarType};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, StatementKind};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A value: a scalar (`dims` empty) or a row-major array of scalars.
pub type Value = Tensor<Val>;

impl Tensor<Val> {
    pub fn real(x: f64) -> Value {
        Tensor::scalar(Val::Real(x))
    }
    pub fn reals(dims: Vec<usize>, data: &[f64]) -> Value {
        Tensor::new(dims, data.iter().map(|x| Val::Real(*x)).collect())
    }
    /// The elements as numbers (Booleans as 0/1); `None` for strings.
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        self.data.iter().map(|v| v.as_f64()).collect()
    }
    /// The value of a scalar as a number.
    pub fn as_f64(&self) -> Option<f64> {
        if self.data.len() == 1 {
            self.data[0].as_f64()
        } else {
            None
        }
    }
}

/// Limits runaway `while` loops and recursion (a modeling error, not a reason to hang).
pub(crate) const MAX_STEPS: u64 = 200_000_000;
const MAX_DEPTH: usize = 200;

/// Calls the function `name` with `args` (in input order; missing trailing inputs take their
/// defaults) and returns its outputs in order.
pub fn call_function(
    functions: &BTreeMap<String, Function>,
    name: &str,
    args: &[Value],
) -> Result<Vec<Value>, String> {
    let mut steps = 0u64;
    call_inner(
        functions,
        name,
        args.iter().cloned().map(Some).collect(),
        &mut steps,
        0,
    )
    .map_err(|d| d.message)
}

fn call_inner(
    functions: &BTreeMap<String, Function>,
    name: &str,
    args: Vec<Option<Value>>,
    steps: &mut u64,
    depth: usize,
) -> EResult<Vec<Value>> {
    let f = functions
        .get(name)
        .ok_or_else(|| Diagnostic::error(Span::DUMMY, format!("unknown function `{name}`")))?;
    call_resolved(functions, f, name, args, steps, depth)
}

/// [`call_inner`] for a function already looked up (a caller that has `f` saves the search
/// of the function map by name).
fn call_resolved(
    functions: &BTreeMap<String, Function>,
    f: &Function,
    name: &str,
    mut args: Vec<Option<Value>>,
    steps: &mut u64,
    depth: usize,
) -> EResult<Vec<Value>> {
    if depth > MAX_DEPTH {
        return Err(Diagnostic::error(
            f.span,
            format!(
                "function `{name}`: calls nested more than {MAX_DEPTH} deep (a recursion \
                 without end, or a chain of calls longer than supported)"
            ),
        ));
    }
    if args.len() > f.inputs.len() {
        return Err(Diagnostic::error(
            f.span,
            format!(
                "`{name}` takes {} input(s), got {}",
                f.inputs.len(),
                args.len()
            ),
        ));
    }
    args.resize(f.inputs.len(), None);
    let mut ctx = FuncCtx::new(functions, steps, depth);
    // Inputs first (defaults may refer to earlier inputs), then outputs and locals.
    for (v, a) in f.inputs.iter().zip(args) {
        let val = match a {
            Some(a) => a,
            None => match &v.default {
                Some(d) => eval::eval(&mut ctx, d)?,
                None => {
                    return Err(Diagnostic::error(
                        f.span,
                        format!("`{name}`: input `{}` has no value", v.name),
                    ));
                }
            },
        };
        ctx.vars.push((Cow::Borrowed(v.name.as_str()), val));
    }
    if let Some(n) = &f.native {
        if super::native::is_builtin(&n.c_name) {
            super::native::check_declaration(f).map_err(|m| Diagnostic::error(f.span, m))?;
        }
        let inputs: Vec<&Value> = ctx.vars.iter().map(|(_, v)| v).collect();
        return super::external_object::call_native(n, name, &inputs)
            .map_err(|m| Diagnostic::error(f.span, m));
    }
    for v in f.outputs.iter().chain(&f.locals) {
        let init = initial_value(&mut ctx, v)?;
        ctx.vars.push((Cow::Borrowed(v.name.as_str()), init));
    }
    // Bindings of outputs and locals act as assignments before the algorithm.
    let mut folded = f.folded.iter().peekable();
    for (k, v) in f.outputs.iter().chain(&f.locals).enumerate() {
        if let Some(d) = &v.default {
            let val = match folded.next_if(|b| b.var == k) {
                Some(b) => folded_value(b, v.ty),
                None => eval::eval(&mut ctx, d)?,
            };
            ctx.set(&v.name, val, d.span)?;
        }
    }
    match ctx.exec_block(&f.body)? {
        Flow::Normal | Flow::Return => {}
        Flow::Break => return Err(Diagnostic::error(f.span, "`break` outside a loop")),
    }
    let mut outs = Vec::with_capacity(f.outputs.len());
    for v in &f.outputs {
        outs.push(
            ctx.get(&v.name)
                .cloned()
                .unwrap_or_else(|| Value::real(0.0)),
        );
    }
    Ok(outs)
}

/// The bindings of `f`'s outputs and locals that are closed expressions, evaluated (see
/// `Function::folded`). A binding whose evaluation fails is left to fail at the call, where
/// its error is reported as before.
pub fn fold_bindings(functions: &BTreeMap<String, Function>, f: &Function) -> Vec<FoldedBinding> {
    let mut steps = 0u64;
    let mut out = Vec::new();
    for (k, v) in f.outputs.iter().chain(&f.locals).enumerate() {
        let Some(d) = &v.default else { continue };
        if !matches!(
            v.ty,
            ScalarType::Real | ScalarType::Integer | ScalarType::Boolean
        ) || !is_closed(d)
        {
            continue;
        }
        let mut ctx = FuncCtx::new(functions, &mut steps, 0);
        let Ok(val) = eval::eval(&mut ctx, d) else {
            continue;
        };
        // Only values the variable holds as they are (an ill-typed binding keeps failing
        // at the call, and an Integer beyond 2^53 is not rounded through f64).
        let exact = val.data.iter().all(|x| match (v.ty, x) {
            (ScalarType::Real, Val::Real(_) | Val::Int(_)) => true,
            (ScalarType::Integer, Val::Int(i)) => i.unsigned_abs() < 1 << 53,
            (ScalarType::Boolean, Val::Bool(_)) => true,
            _ => false,
        });
        if exact && let Some(data) = val.to_f64s() {
            out.push(FoldedBinding {
                var: k,
                dims: val.dims,
                data,
            });
        }
    }
    out
}

/// Whether an expression's value depends on nothing: literals, arrays of them and operators.
fn is_closed(e: &ast::Expr) -> bool {
    use ast::ExprKind as K;
    match &e.kind {
        K::Integer(_) | K::Real(_) | K::Boolean(_) => true,
        K::Array(args) => {
            args.named.is_empty()
                && args.iterators.is_empty()
                && args.positional.iter().all(is_closed)
        }
        K::Matrix(rows) => rows.iter().flatten().all(is_closed),
        K::Unary { operand, .. } => is_closed(operand),
        K::Binary { lhs, rhs, .. } => is_closed(lhs) && is_closed(rhs),
        _ => false,
    }
}

/// A folded binding as the value of a variable of type `ty`.
fn folded_value(b: &FoldedBinding, ty: ScalarType) -> Value {
    let data = b
        .data
        .iter()
        .map(|&x| match ty {
            ScalarType::Integer => Val::Int(x as i64),
            ScalarType::Boolean => Val::Bool(x != 0.0),
            _ => Val::Real(x),
        })
        .collect();
    Tensor::new(b.dims.clone(), data)
}

fn zero(ty: ScalarType) -> Val {
    match ty {
        ScalarType::Real => Val::Real(0.0),
        ScalarType::Integer | ScalarType::Enumeration => Val::Int(0),
        ScalarType::Boolean => Val::Bool(false),
        ScalarType::String => Val::Str(String::new()),
    }
}

fn initial_value(ctx: &mut FuncCtx, v: &FunctionVar) -> EResult<Value> {
    let mut dims = Vec::new();
    for d in &v.dims {
        match d {
            Some(e) => {
                let n = eval::eval(ctx, e)?;
                let k = n.as_f64().filter(|x| *x >= 0.0).ok_or_else(|| {
                    Diagnostic::error(e.span, "an array size must be a non-negative Integer")
                })?;
                dims.push(k as usize);
            }
            // `:` sizes come from the first assignment.
            None => dims.push(0),
        }
    }
    let n = dims.iter().product();
    Ok(Tensor {
        dims,
        data: vec![zero(v.ty); n],
    })
}

enum Flow {
    Normal,
    Break,
    Return,
}

struct FuncCtx<'a> {
    functions: &'a BTreeMap<String, Function>,
    /// The variables in scope, innermost last. Declared names borrow from the function (no
    /// copy per call); iterators bound by the evaluator are owned.
    vars: Vec<(Cow<'a, str>, Value)>,
    ends: Vec<usize>,
    steps: &'a mut u64,
    depth: usize,
}

impl<'a> FuncCtx<'a> {
    /// A context with no variables yet.
    fn new(
        functions: &'a BTreeMap<String, Function>,
        steps: &'a mut u64,
        depth: usize,
    ) -> FuncCtx<'a> {
        FuncCtx {
            functions,
            vars: Vec::new(),
            ends: Vec::new(),
            steps,
            depth,
        }
    }
    fn get(&self, name: &str) -> Option<&Value> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
    fn slot(&mut self, name: &str, span: Span) -> EResult<&mut Value> {
        match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Ok(v),
            None => Err(Diagnostic::error(
                span,
                format!("unknown variable `{name}` in function"),
            )),
        }
    }
    fn set(&mut self, name: &str, val: Value, span: Span) -> EResult<()> {
        let slot = self.slot(name, span)?;
        *slot = coerce(val, slot);
        Ok(())
    }

    fn tick(&mut self, span: Span) -> EResult<()> {
        *self.steps += 1;
        if *self.steps > MAX_STEPS {
            return Err(Diagnostic::error(
                span,
                "function evaluation did not finish (endless loop?)",
            ));
        }
        Ok(())
    }

    fn exec_block(&mut self, body: &[ast::Statement]) -> EResult<Flow> {
        for s in body {
            match self.exec(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &ast::Statement) -> EResult<Flow> {
        self.tick(s.span)?;
        match &s.kind {
            StatementKind::Assign { target, value } => {
                let v = eval::eval(self, value)?;
                self.assign(target, v)?;
            }
            StatementKind::MultiAssign { targets, value } => {
                let ast::ExprKind::Call { func, args } = &value.kind else {
                    return Err(Diagnostic::error(
                        value.span,
                        "the right side of a multiple assignment must be a call",
                    ));
                };
                let outs = eval::call(self, func, args, value.span)?;
                if targets.len() > outs.len() {
                    return Err(Diagnostic::error(
                        s.span,
                        format!("`{}` has only {} output(s)", cref_name(func), outs.len()),
                    ));
                }
                for (t, v) in targets.iter().zip(outs) {
                    if let Some(t) = t {
                        self.assign(t, v)?;
                    }
                }
            }
            StatementKind::Call { func, args } => {
                let name = cref_name(func);
                match name.as_str() {
                    "assert" => {
                        let c = args
                            .positional
                            .first()
                            .map(|e| eval::eval(self, e))
                            .transpose()?;
                        if let Some(c) = c
                            && c.data.first() == Some(&Val::Bool(false))
                        {
                            let msg = match args
                                .positional
                                .get(1)
                                .map(|e| eval::eval(self, e))
                                .transpose()?
                            {
                                Some(m) => match m.data.first() {
                                    Some(Val::Str(s)) => s.clone(),
                                    _ => "assertion failed".to_string(),
                                },
                                None => "assertion failed".to_string(),
                            };
                            return Err(Diagnostic::error(
                                s.span,
                                format!("assertion failed: {msg}"),
                            ));
                        }
                    }
                    "terminate" => {
                        return Err(Diagnostic::error(
                            s.span,
                            "terminate() called in a function",
                        ));
                    }
                    _ => {
                        eval::call(self, func, args, s.span)?;
                    }
                }
            }
            StatementKind::If { branches, else_ } => {
                for (c, body) in branches {
                    if self.condition(c)? {
                        return self.exec_block(body);
                    }
                }
                return self.exec_block(else_);
            }
            StatementKind::For { indices, body } => return self.exec_for(indices, body),
            StatementKind::While { condition, body } => {
                while self.condition(condition)? {
                    self.tick(s.span)?;
                    match self.exec_block(body)? {
                        Flow::Normal => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
            }
            StatementKind::When { .. } => {
                return Err(Diagnostic::error(
                    s.span,
                    "`when` statements are not allowed in functions",
                ));
            }
            StatementKind::Return => return Ok(Flow::Return),
            StatementKind::Break => return Ok(Flow::Break),
        }
        Ok(Flow::Normal)
    }

    fn exec_for(&mut self, indices: &[ast::ForIndex], body: &[ast::Statement]) -> EResult<Flow> {
        let Some((first, rest)) = indices.split_first() else {
            return self.exec_block(body);
        };
        let values = match &first.range {
            Some(r) => eval::eval(self, r)?,
            None => {
                let mut uses = Vec::new();
                super::implicit::in_statements(&first.name.name, body, &mut uses);
                for i in rest {
                    if let Some(r) = &i.range {
                        super::implicit::in_exprs(&first.name.name, &[r], &mut uses);
                    }
                }
                self.implicit_range(&first.name, &uses)?
            }
        };
        let n = super::tensor::range_len(&values.dims).map_err(|m| {
            let at = first.range.as_ref().map_or(first.name.span, |r| r.span);
            Diagnostic::error(at, m)
        })?;
        for k in 0..n {
            self.vars
                .push((Cow::Owned(first.name.name.clone()), values.row(k)));
            let flow = self.exec_for(rest, body);
            self.vars.pop();
            match flow? {
                Flow::Normal => {}
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
            }
        }
        Ok(Flow::Normal)
    }

    fn condition(&mut self, c: &ast::Expr) -> EResult<bool> {
        let v = eval::eval(self, c)?;
        match v.data.as_slice() {
            [Val::Bool(b)] => Ok(*b),
            _ => Err(Diagnostic::error(
                c.span,
                "a condition must be a Boolean scalar",
            )),
        }
    }

    fn assign(&mut self, target: &ast::ComponentRef, v: Value) -> EResult<()> {
        let [part] = target.parts.as_slice() else {
            return Err(Diagnostic::error(
                target.span,
                "only local variables can be assigned in a function",
            ));
        };
        let name = &part.ident.name;
        if part.subscripts.is_empty() {
            return self.set(name, v, target.span);
        }
        let slot = self.slot(name, target.span)?;
        if v.data.len() == 1
            && let Some(off) = literal_element(&part.subscripts, &slot.dims)
        {
            // `o[3] := x`: one element at a literal position, as the general path below does.
            let x = v.data.into_iter().next().expect("one element");
            slot.data[off] = coerce_scalar(x, &slot.data[off]);
            return Ok(());
        }
        let dims = slot.dims.clone();
        let subs = eval::subscripts(self, &part.subscripts, &dims)?;
        let slot = self.slot(name, target.span)?;
        // Write the selected elements in row-major order of the selection.
        let inner: usize = dims[subs.len()..].iter().product();
        let count: usize = subs.iter().map(|(i, _)| i.len()).product::<usize>() * inner;
        let values: Vec<Val> = if v.data.len() == 1 {
            vec![v.data[0].clone(); count]
        } else {
            v.data
        };
        if values.len() != count {
            return Err(Diagnostic::error(
                target.span,
                "the assigned value has the wrong size",
            ));
        }
        let mut pos = vec![0usize; subs.len()];
        let mut it = values.into_iter();
        let sel: usize = subs.iter().map(|(i, _)| i.len()).product();
        for _ in 0..sel {
            let mut off = 0;
            for (k, (idx, _)) in subs.iter().enumerate() {
                off = off * dims[k] + idx[pos[k]];
            }
            for j in 0..inner {
                if let Some(x) = it.next() {
                    slot.data[off * inner + j] = coerce_scalar(x, &slot.data[off * inner + j]);
                }
            }
            for k in (0..subs.len()).rev() {
                pos[k] += 1;
                if pos[k] < subs[k].0.len() {
                    break;
                }
                pos[k] = 0;
            }
        }
        Ok(())
    }
}

/// The row-major offset of the element that Integer literals subscript in every dimension
/// (`o[3]`, `a[1, 2]`), the common case in table-driven functions (IF97), found without
/// evaluating the subscripts; `None` for anything else, out-of-range literals included (the
/// general path reports those).
fn literal_element(subs: &[ast::Subscript], dims: &[usize]) -> Option<usize> {
    if subs.len() != dims.len() {
        return None;
    }
    let mut off = 0;
    for (s, &n) in subs.iter().zip(dims) {
        let ast::Subscript::Expr(e) = s else {
            return None;
        };
        let ast::ExprKind::Integer(i) = e.kind else {
            return None;
        };
        if i < 1 || i as usize > n {
            return None;
        }
        off = off * n + (i as usize - 1);
    }
    Some(off)
}

/// Keeps a Real variable Real when an Integer is assigned to it.
fn coerce(v: Value, slot: &Value) -> Value {
    match slot.data.first() {
        Some(Val::Real(_)) => v.map(|x| match x {
            Val::Int(i) => Val::Real(i as f64),
            o => o,
        }),
        _ => v,
    }
}
fn coerce_scalar(x: Val, slot: &Val) -> Val {
    match (x, slot) {
        (Val::Int(i), Val::Real(_)) => Val::Real(i as f64),
        (x, _) => x,
    }
}

impl Ctx for FuncCtx<'_> {
    type E = Val;
    fn lookup(&mut self, cref: &ast::ComponentRef) -> EResult<Value> {
        let [part] = cref.parts.as_slice() else {
            return Err(Diagnostic::error(
                cref.span,
                format!("unknown name `{}` in function", cref_name(cref)),
            )
            .with_kind(crate::diag::Kind::UnknownName));
        };
        let name = &part.ident.name;
        let unknown =
            || Diagnostic::error(cref.span, format!("unknown variable `{name}` in function"));
        let v = self.get(name).ok_or_else(unknown)?;
        if part.subscripts.is_empty() {
            return Ok(v.clone());
        }
        // Only the selected elements are copied, not the whole array (`o[k]` in a loop over
        // a 45-element table would copy the table at every access). Subscripts cannot change
        // the variables: iterators they bind are popped again.
        if let Some(off) = literal_element(&part.subscripts, &v.dims) {
            return Ok(Tensor::scalar(v.data[off].clone()));
        }
        let dims = v.dims.clone();
        let subs = eval::subscripts(self, &part.subscripts, &dims)?;
        let v = self.get(name).ok_or_else(unknown)?;
        v.index(&subs).map_err(|m| Diagnostic::error(cref.span, m))
    }
    fn call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Vec<Value>>> {
        let name = cref_name(func);
        match name.as_str() {
            "noEvent" | "smooth" => {
                let e = args.positional.last().ok_or_else(|| {
                    Diagnostic::error(span, format!("`{name}` needs an argument"))
                })?;
                return Ok(Some(vec![eval::eval(self, e)?]));
            }
            "der" | "pre" | "edge" | "change" | "initial" | "terminal" | "sample" | "reinit" => {
                return Err(Diagnostic::error(
                    span,
                    format!("`{name}` cannot be used inside a function"),
                ));
            }
            _ => {}
        }
        let Some(f) = self.functions.get(&name) else {
            return Ok(None);
        };
        let inputs: Vec<&str> = f.inputs.iter().map(|v| v.name.as_str()).collect();
        let bound = eval::bind_args(&inputs, args, &name, span)?;
        let mut vals = Vec::with_capacity(bound.len());
        for b in bound {
            vals.push(match b {
                Some(e) => Some(eval::eval(self, e)?),
                None => None,
            });
        }
        if let Some(vd) = vectorized_dims(f, &vals).map_err(|m| Diagnostic::error(span, m))? {
            return vectorized_call(
                f,
                &vals,
                vd,
                |vi| call_inner(self.functions, &name, vi, self.steps, self.depth + 1),
                || several_outputs(&name, span),
            )
            .map(|t| Some(vec![t]));
        }
        let outs = call_resolved(self.functions, f, &name, vals, self.steps, self.depth + 1)?;
        Ok(Some(outs))
    }
    fn push_local(&mut self, name: &str, v: Value) {
        self.vars.push((Cow::Owned(name.to_string()), v));
    }
    fn pop_local(&mut self) {
        self.vars.pop();
    }
    fn ends(&mut self) -> &mut Vec<usize> {
        &mut self.ends
    }
    fn set_structural(&mut self, _on: bool) -> bool {
        true
    }
    fn implicit_range(
        &mut self,
        name: &ast::Ident,
        uses: &[super::implicit::Use],
    ) -> EResult<Value> {
        let mut dims = Vec::new();
        for u in uses {
            let [part] = &u.cref.parts[..=u.part] else {
                continue;
            };
            if let Some(n) = self
                .get(&part.ident.name)
                .and_then(|v| v.dims.get(u.sub).copied())
            {
                dims.push((n, false, u.cref.span));
            }
        }
        eval::agree_implicit(name, &dims)
    }
}

/// The inputs of `name` by name, `None` arguments replaced by their defaults.
pub fn inputs_with_defaults(
    functions: &BTreeMap<String, Function>,
    name: &str,
    mut args: Vec<Option<Value>>,
) -> Result<Vec<(String, Value)>, String> {
    let f = functions
        .get(name)
        .ok_or_else(|| format!("unknown function `{name}`"))?;
    args.resize(f.inputs.len(), None);
    let mut steps = 0u64;
    let mut ctx = FuncCtx::new(functions, &mut steps, 0);
    for (v, a) in f.inputs.iter().zip(args) {
        let val = match a {
            Some(a) => a,
            None => match &v.default {
                Some(d) => eval::eval(&mut ctx, d).map_err(|d| d.message)?,
                None => return Err(format!("`{name}`: input `{}` has no value", v.name)),
            },
        };
        ctx.vars.push((Cow::Borrowed(v.name.as_str()), val));
    }
    Ok(ctx
        .vars
        .into_iter()
        .map(|(n, v)| (n.into_owned(), v))
        .collect())
}

/// Like [`call_function`], with `None` for inputs that take their default value.
pub fn call_with_defaults(
    functions: &BTreeMap<String, Function>,
    name: &str,
    args: Vec<Option<Value>>,
) -> Result<Vec<Value>, String> {
    let mut steps = 0u64;
    call_inner(functions, name, args, &mut steps, 0).map_err(|d| d.message)
}

/// The sizes of a function's outputs for arguments of the given sizes (and values, where the
/// sizes depend on them).
pub fn output_dims(
    functions: &BTreeMap<String, Function>,
    name: &str,
    args: Vec<Option<Value>>,
) -> Result<Vec<Vec<usize>>, String> {
    let f = functions
        .get(name)
        .ok_or_else(|| format!("unknown function `{name}`"))?;
    let vars = inputs_with_defaults(functions, name, args)?;
    let mut steps = 0u64;
    let mut ctx = FuncCtx {
        functions,
        vars: vars.into_iter().map(|(n, v)| (Cow::Owned(n), v)).collect(),
        ends: Vec::new(),
        steps: &mut steps,
        depth: 0,
    };
    let mut out = Vec::new();
    for v in &f.outputs {
        if v.dims.iter().any(|d| d.is_none()) {
            // `output Real y[:]`: run the function on the sample arguments to learn the size.
            let inputs: Vec<Option<Value>> =
                ctx.vars.iter().map(|(_, x)| Some(x.clone())).collect();
            let outs = call_inner(functions, name, inputs, ctx.steps, 1).map_err(|d| d.message)?;
            return Ok(outs.into_iter().map(|o| o.dims).collect());
        }
        let init = initial_value(&mut ctx, v).map_err(|d| d.message)?;
        out.push(init.dims);
    }
    Ok(out)
}

/// The dimensions a call is vectorized over (MLS 12.4.6): the leading dimensions of the
/// arguments that have more dimensions than their inputs declare, which must agree. `None`
/// when no argument does (and for functions with record inputs, passed field by field).
pub fn vectorized_dims<E>(
    f: &Function,
    vals: &[Option<Tensor<E>>],
) -> Result<Option<Vec<usize>>, String> {
    if !f.input_groups.is_empty() {
        return Ok(None);
    }
    vectorized_dims_of_fields(f, vals)
}

/// [`vectorized_dims`] for inputs passed field by field too: a record input given an array of
/// records has each field given as an array over the same leading dimensions.
pub fn vectorized_dims_of_fields<E>(
    f: &Function,
    vals: &[Option<Tensor<E>>],
) -> Result<Option<Vec<usize>>, String> {
    let mut found: Option<Vec<usize>> = None;
    for (v, a) in f.inputs.iter().zip(vals) {
        let Some(a) = a else { continue };
        if a.dims.len() <= v.dims.len() || v.ty == ScalarType::String {
            continue;
        }
        let lead = a.dims[..a.dims.len() - v.dims.len()].to_vec();
        match &found {
            Some(d) if *d != lead => {
                return Err(format!(
                    "`{}` is applied element by element to arguments of different sizes ({} and {})",
                    f.name,
                    super::tensor::fmt_dims(d),
                    super::tensor::fmt_dims(&lead)
                ));
            }
            _ => found = Some(lead),
        }
    }
    Ok(found)
}

/// A call applied element by element over the leading dimensions `lead` (MLS 12.4.6): `call`
/// runs on each element's arguments ([`vectorized_slice`]), and the results are stacked
/// behind `lead`. A function with more than one output cannot be vectorized: `several` gives
/// the error then.
pub fn vectorized_call<E: Clone, X>(
    f: &Function,
    vals: &[Option<Tensor<E>>],
    lead: Vec<usize>,
    mut call: impl FnMut(Vec<Option<Tensor<E>>>) -> Result<Vec<Tensor<E>>, X>,
    several: impl Fn() -> X,
) -> Result<Tensor<E>, X> {
    let n: usize = lead.iter().product();
    let mut data = Vec::new();
    let mut inner = Vec::new();
    for i in 0..n {
        let mut outs = call(vectorized_slice(f, vals, &lead, i))?;
        if outs.len() != 1 {
            return Err(several());
        }
        let o = outs.swap_remove(0);
        inner = o.dims;
        data.extend(o.data);
    }
    let mut dims = lead;
    dims.extend(inner);
    Ok(Tensor { dims, data })
}

/// The error for a function with several outputs called element by element.
pub fn several_outputs(name: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "`{name}` is applied element by element to an array argument, so it must have exactly one output"
        ),
    )
}

/// The arguments of element `i` (row-major) of a vectorized call: the vectorized arguments
/// sliced, the others as given.
pub fn vectorized_slice<E: Clone>(
    f: &Function,
    vals: &[Option<Tensor<E>>],
    lead: &[usize],
    i: usize,
) -> Vec<Option<Tensor<E>>> {
    f.inputs
        .iter()
        .zip(vals)
        .map(|(v, a)| {
            a.as_ref().map(|a| {
                if a.dims.len() == lead.len() + v.dims.len() && a.dims.len() > v.dims.len() {
                    let inner: usize = a.dims[lead.len()..].iter().product();
                    Tensor {
                        dims: a.dims[lead.len()..].to_vec(),
                        data: a.data[i * inner..(i + 1) * inner].to_vec(),
                    }
                } else {
                    a.clone()
                }
            })
        })
        .collect()
}
