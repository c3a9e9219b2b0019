//! Inlining of user functions (MLS 18.3, annotations `Inline`, `LateInline` and
//! `InlineAfterIndexReduction`): a call with arguments that change with time is replaced by the
//! scalar expressions its algorithm computes, found by executing the rewritten body (see
//! `functions.rs`) on symbolic arguments. The result is exact: the same arithmetic the
//! interpreter would do at run time, written out. What the simulator and index reduction gain
//! is that every element of an array or record result is an ordinary expression of the
//! model's variables, so it can be differentiated (MultiBody's `Frames.resolve2(R, v)` with the
//! orientation `R` a record of 12 variables) and sorted like any equation.
//!
//! Inlining is an optimisation, never a requirement: when the body does something that has no
//! expression form (a `while` loop or an `if` whose condition changes with time and that
//! returns early, an `assert` on a value known only at run time, a variable subscript) or the
//! expressions grow beyond [`MAX_NODES`], the call is kept as a call, exactly as before.
//! Relations written in the function keep the semantics of a function body (MLS 8.5: they do
//! not generate events): they are wrapped in `noEvent`.

use super::Flattener;
use super::classtree::ClassId;
use super::eval::{self, Ctx, EResult, cref_name};
use super::func_eval;
use super::scalarize::FCtx;
use super::tensor::{Elem, Tensor, Val};
use crate::dae::{BinOp, Expr, Function};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, StatementKind};

/// Expression nodes one inlined call may produce in all (beyond it, the call stays a call).
const MAX_NODES: usize = 20_000;
/// Statements executed for one inlined call (loops unrolled).
const MAX_STEPS: usize = 5_000;
/// Inlined calls nested inside one another.
const MAX_DEPTH: usize = 16;

impl Flattener<'_> {
    /// Whether the function class asks to be inlined (`Inline = true`, `LateInline = true` or
    /// `InlineAfterIndexReduction = true`).
    pub(super) fn wants_inline(&self, class: ClassId) -> bool {
        ["Inline", "LateInline", "InlineAfterIndexReduction"]
            .iter()
            .any(|flag| self.annotation_flag(class, flag))
    }

    /// Whether a call of function `f` (class `class`) is inlined while flattening, that is
    /// before index reduction. `InlineAfterIndexReduction = true` (MLS 18.3) asks for the
    /// inlining only after the function was differentiated, so a function that also declares
    /// its derivative (MLS 12.7.1) is differentiated by that declaration, which need not be
    /// the derivative of its body: `Rotational.Sources.Move` returns `u[1]` and declares the
    /// derivative `u[2]`, then `u[3]`. minimo's index reduction applies a declared derivative
    /// to a call with one scalar output, so such a call is kept as a call, and structural
    /// analysis replaces it by its body once index reduction is over
    /// (`structure::userfn::inline_late`); a function with an
    /// array or record result (MultiBody's `Frames.resolve2`) is still inlined early, which is
    /// exact when its declared derivative is the derivative of its body.
    pub(super) fn inline_before_index_reduction(&self, class: ClassId, f: &Function) -> bool {
        if !self.wants_inline(class) {
            return false;
        }
        let scalar_result =
            f.outputs.len() == 1 && f.outputs[0].dims.is_empty() && f.output_groups.len() <= 1;
        !(f.derivative.is_some()
            && scalar_result
            && self.annotation_flag(class, "InlineAfterIndexReduction"))
    }

    /// Whether the function class's annotation sets the Boolean `flag` to `true`.
    pub(super) fn annotation_flag(&self, class: ClassId, flag: &str) -> bool {
        let Some(ann) = self
            .tree
            .get(class)
            .long()
            .and_then(|b| b.annotation.as_ref())
        else {
            return false;
        };
        ann.modification.args.iter().any(|a| {
            let ast::Argument::Modify {
                name,
                modification: Some(ast::Modification::Binding { expr, .. }),
                ..
            } = a
            else {
                return false;
            };
            name.parts.len() == 1
                && name.parts[0].name == flag
                && matches!(expr.kind, ast::ExprKind::Boolean(true))
        })
    }
}

/// Why an inlining attempt stopped: the call is then kept.
struct Abort;

/// The outputs of `fname` (one tensor per entry of `Function::outputs`, records field by
/// field) for the given inputs (one per entry of `Function::inputs`, `None` for a default), or
/// `None` when the call cannot be inlined.
pub(super) fn inline_call(
    fc: &mut FCtx<'_, '_>,
    fname: &str,
    args: Vec<Option<Tensor<Expr>>>,
) -> Option<Vec<Tensor<Expr>>> {
    let mut st = State {
        steps: 0,
        stack: Vec::new(),
    };
    let outs = run(fc, &mut st, fname, args).ok()?;
    let nodes: usize = outs.iter().flat_map(|t| &t.data).map(count_nodes).sum();
    (nodes <= MAX_NODES).then_some(outs)
}

struct State {
    steps: usize,
    /// The functions being inlined (a recursive function is not inlined).
    stack: Vec<String>,
}

fn run(
    fc: &mut FCtx<'_, '_>,
    st: &mut State,
    fname: &str,
    args: Vec<Option<Tensor<Expr>>>,
) -> Result<Vec<Tensor<Expr>>, Abort> {
    if st.stack.len() >= MAX_DEPTH || st.stack.iter().any(|n| n == fname) {
        return Err(Abort);
    }
    let f = fc.f.functions.get(fname).cloned().ok_or(Abort)?;
    if f.native.is_some() || args.len() > f.inputs.len() {
        return Err(Abort);
    }
    st.stack.push(fname.to_string());
    let r = execute(fc, st, &f, args);
    st.stack.pop();
    r
}

fn execute(
    fc: &mut FCtx<'_, '_>,
    st: &mut State,
    f: &Function,
    mut args: Vec<Option<Tensor<Expr>>>,
) -> Result<Vec<Tensor<Expr>>, Abort> {
    args.resize(f.inputs.len(), None);
    let mut sym = Sym {
        fc,
        st,
        vars: Vec::new(),
        ends: Vec::new(),
    };
    for (v, a) in f.inputs.iter().zip(args) {
        let val = match a {
            Some(a) => a,
            None => {
                let d = v.default.as_ref().ok_or(Abort)?;
                eval::eval(&mut sym, d).map_err(|_| Abort)?
            }
        };
        sym.vars.push((v.name.clone(), val));
    }
    for v in f.outputs.iter().chain(&f.locals) {
        let mut dims = Vec::new();
        for d in &v.dims {
            // `:` sizes come from the first assignment.
            let n = match d {
                Some(e) => {
                    let n = eval::eval(&mut sym, e).map_err(|_| Abort)?;
                    let n = n.data.first().and_then(|x| x.to_val()).ok_or(Abort)?;
                    let n = n.as_f64().filter(|x| *x >= 0.0).ok_or(Abort)?;
                    n as usize
                }
                None => 0,
            };
            dims.push(n);
        }
        let n = dims.iter().product();
        let zero = match v.ty {
            crate::dae::ScalarType::Real => Expr::Real(0.0),
            crate::dae::ScalarType::Boolean => Expr::Boolean(false),
            crate::dae::ScalarType::String => Expr::String(String::new()),
            _ => Expr::Integer(0),
        };
        sym.vars.push((
            v.name.clone(),
            Tensor {
                dims,
                data: vec![zero; n],
            },
        ));
    }
    for v in f.outputs.iter().chain(&f.locals) {
        if let Some(d) = &v.default {
            let val = eval::eval(&mut sym, d).map_err(|_| Abort)?;
            sym.set(&v.name, val)?;
        }
    }
    match sym.block(&f.body)? {
        Flow::Normal | Flow::Return => {}
        Flow::Break => return Err(Abort),
    }
    let mut outs = Vec::with_capacity(f.outputs.len());
    for v in &f.outputs {
        let t = sym.get(&v.name).cloned().ok_or(Abort)?;
        outs.push(t.map(|x| no_events(x, false)));
    }
    Ok(outs)
}

enum Flow {
    Normal,
    Break,
    Return,
}

/// The symbolic interpreter: the function's variables hold flat expressions.
struct Sym<'x, 'a, 'b> {
    fc: &'x mut FCtx<'a, 'b>,
    st: &'x mut State,
    vars: Vec<(String, Tensor<Expr>)>,
    ends: Vec<usize>,
}

impl Sym<'_, '_, '_> {
    fn get(&self, name: &str) -> Option<&Tensor<Expr>> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    fn slot(&mut self, name: &str) -> Result<&mut Tensor<Expr>, Abort> {
        self.vars
            .iter_mut()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .ok_or(Abort)
    }

    fn set(&mut self, name: &str, val: Tensor<Expr>) -> Result<(), Abort> {
        let slot = self.slot(name)?;
        let real = matches!(slot.data.first(), Some(Expr::Real(_)));
        // A declared size must match; `:` (size 0 before the first assignment) takes it.
        if slot.dims != val.dims && (!slot.data.is_empty() || slot.dims.len() != val.dims.len()) {
            return Err(Abort);
        }
        *slot = val.map(|x| coerce(x, real));
        Ok(())
    }

    fn tick(&mut self) -> Result<(), Abort> {
        self.st.steps += 1;
        if self.st.steps > MAX_STEPS {
            return Err(Abort);
        }
        Ok(())
    }

    fn block(&mut self, body: &[ast::Statement]) -> Result<Flow, Abort> {
        for s in body {
            match self.stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn eval(&mut self, e: &ast::Expr) -> Result<Tensor<Expr>, Abort> {
        let t = eval::eval(self, e).map_err(|_| Abort)?;
        if t.data.iter().map(count_nodes).sum::<usize>() > MAX_NODES {
            return Err(Abort);
        }
        Ok(t)
    }

    /// A condition's value: `Some` when it is known now.
    fn condition(&mut self, c: &ast::Expr) -> Result<Result<bool, Expr>, Abort> {
        let v = self.eval(c)?;
        let [x] = v.data.as_slice() else {
            return Err(Abort);
        };
        Ok(match x.to_val() {
            Some(Val::Bool(b)) => Ok(b),
            Some(_) => return Err(Abort),
            None => Err(x.clone()),
        })
    }

    fn stmt(&mut self, s: &ast::Statement) -> Result<Flow, Abort> {
        self.tick()?;
        match &s.kind {
            StatementKind::Assign { target, value } => {
                let v = self.eval(value)?;
                self.assign(target, v)?;
            }
            StatementKind::MultiAssign { targets, value } => {
                let ast::ExprKind::Call { func, args } = &value.kind else {
                    return Err(Abort);
                };
                let outs = eval::call(self, func, args, value.span).map_err(|_| Abort)?;
                if targets.len() > outs.len() {
                    return Err(Abort);
                }
                for (t, v) in targets.iter().zip(outs) {
                    if let Some(t) = t {
                        self.assign(t, v)?;
                    }
                }
            }
            StatementKind::Call { func, args } => {
                if cref_name(func) != "assert" {
                    return Err(Abort);
                }
                // A condition known to hold is checked; any other stays with the call.
                let c = args.positional.first().ok_or(Abort)?;
                if self.condition(c)? != Ok(true) {
                    return Err(Abort);
                }
            }
            StatementKind::If { branches, else_ } => return self.if_chain(branches, else_),
            StatementKind::For { indices, body } => return self.for_loop(indices, body),
            StatementKind::While { condition, body } => loop {
                self.tick()?;
                if !self.condition(condition)?.map_err(|_| Abort)? {
                    break;
                }
                match self.block(body)? {
                    Flow::Normal => {}
                    Flow::Break => break,
                    Flow::Return => return Ok(Flow::Return),
                }
            },
            StatementKind::When { .. } => return Err(Abort),
            StatementKind::Return => return Ok(Flow::Return),
            StatementKind::Break => return Ok(Flow::Break),
        }
        Ok(Flow::Normal)
    }

    /// `if c1 then .. elseif c2 then .. else .. end if`: a condition known now picks its
    /// branch; one that changes with time runs both sides and joins every variable they
    /// leave different with `if noEvent(c) then a else b`.
    fn if_chain(
        &mut self,
        branches: &[(ast::Expr, Vec<ast::Statement>)],
        else_: &[ast::Statement],
    ) -> Result<Flow, Abort> {
        let Some(((c, body), rest)) = branches.split_first() else {
            return self.block(else_);
        };
        match self.condition(c)? {
            Ok(true) => self.block(body),
            Ok(false) => self.if_chain(rest, else_),
            Err(cond) => {
                let before = self.vars.clone();
                let f1 = self.block(body)?;
                let taken = std::mem::replace(&mut self.vars, before);
                let f2 = self.if_chain(rest, else_)?;
                if !matches!((f1, f2), (Flow::Normal, Flow::Normal)) {
                    return Err(Abort);
                }
                if taken.len() != self.vars.len() {
                    return Err(Abort);
                }
                let cond = Expr::NoEvent(Box::new(no_events(cond, true)));
                for ((n1, a), (n2, b)) in taken.into_iter().zip(self.vars.iter_mut()) {
                    if n1 != *n2 || a.dims != b.dims {
                        return Err(Abort);
                    }
                    if a.data == b.data {
                        continue;
                    }
                    let data = a
                        .data
                        .into_iter()
                        .zip(std::mem::take(&mut b.data))
                        .map(|(x, y)| Expr::select(cond.clone(), x, y))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|_| Abort)?;
                    b.data = data;
                }
                Ok(Flow::Normal)
            }
        }
    }

    fn for_loop(
        &mut self,
        indices: &[ast::ForIndex],
        body: &[ast::Statement],
    ) -> Result<Flow, Abort> {
        let Some((first, rest)) = indices.split_first() else {
            return self.block(body);
        };
        let values = match &first.range {
            Some(r) => self.eval(r)?,
            None => {
                let mut uses = Vec::new();
                super::implicit::in_statements(&first.name.name, body, &mut uses);
                self.implicit_range(&first.name, &uses).map_err(|_| Abort)?
            }
        };
        if values.data.iter().any(|x| x.to_val().is_none()) {
            return Err(Abort);
        }
        let n = super::tensor::range_len(&values.dims).map_err(|_| Abort)?;
        for k in 0..n {
            self.vars.push((first.name.name.clone(), values.row(k)));
            let flow = self.for_loop(rest, body);
            self.vars.pop();
            match flow? {
                Flow::Normal => {}
                Flow::Break => break,
                Flow::Return => return Ok(Flow::Return),
            }
        }
        Ok(Flow::Normal)
    }

    fn assign(&mut self, target: &ast::ComponentRef, v: Tensor<Expr>) -> Result<(), Abort> {
        let [part] = target.parts.as_slice() else {
            return Err(Abort);
        };
        let name = &part.ident.name;
        if part.subscripts.is_empty() {
            return self.set(name, v);
        }
        let dims = self.slot(name)?.dims.clone();
        let subs = eval::subscripts(self, &part.subscripts, &dims).map_err(|_| Abort)?;
        let slot = self.slot(name)?;
        let real = matches!(slot.data.first(), Some(Expr::Real(_)));
        let inner: usize = dims[subs.len()..].iter().product();
        let sel: usize = subs.iter().map(|(i, _)| i.len()).product();
        let values: Vec<Expr> = if v.data.len() == 1 {
            vec![v.data[0].clone(); sel * inner]
        } else {
            v.data
        };
        if values.len() != sel * inner {
            return Err(Abort);
        }
        let mut pos = vec![0usize; subs.len()];
        let mut it = values.into_iter();
        for _ in 0..sel {
            let mut off = 0;
            for (k, (idx, _)) in subs.iter().enumerate() {
                off = off * dims[k] + idx[pos[k]];
            }
            for j in 0..inner {
                let x = it.next().ok_or(Abort)?;
                *slot.data.get_mut(off * inner + j).ok_or(Abort)? = coerce(x, real);
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

    /// A call of another user function inside the body (its arguments field by field, as the
    /// body was rewritten): evaluated when constant, inlined when it asks to be, else kept.
    fn user_call(
        &mut self,
        name: &str,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Vec<Tensor<Expr>>>> {
        let abort = || Diagnostic::error(span, "not inlined");
        let Some(f) = self.fc.f.functions.get(name).cloned() else {
            return Ok(None);
        };
        let inputs: Vec<String> = f.inputs.iter().map(|v| v.name.clone()).collect();
        let bound = eval::bind_args(&inputs, args, name, span)?;
        let mut vals = Vec::with_capacity(bound.len());
        for b in bound {
            vals.push(match b {
                Some(e) => Some(eval::eval(self, e)?),
                None => None,
            });
        }
        if let Some(vd) =
            func_eval::vectorized_dims(&f, &vals).map_err(|m| Diagnostic::error(span, m))?
        {
            return func_eval::vectorized_call(
                &f,
                &vals,
                vd,
                |vi| self.call_values(name, &f, vi, span),
                abort,
            )
            .map(|t| Some(vec![t]));
        }
        self.call_values(name, &f, vals, span).map(Some)
    }

    fn call_values(
        &mut self,
        name: &str,
        f: &Function,
        vals: Vec<Option<Tensor<Expr>>>,
        span: Span,
    ) -> EResult<Vec<Tensor<Expr>>> {
        let abort = || Diagnostic::error(span, "not inlined");
        if let Some(c) = super::scalarize::constant_values(&vals)
            && f.native.is_none()
            && let Ok(outs) = func_eval::call_with_defaults(&self.fc.f.functions, name, c)
        {
            return Ok(outs.into_iter().map(|o| o.map(Expr::from_val)).collect());
        }
        let parts: Vec<&str> = name.split('.').collect();
        let class = self.fc.f.resolve_global(&parts);
        if class.is_some_and(|c| self.fc.f.inline_before_index_reduction(c, f)) {
            return run(self.fc, self.st, name, vals).map_err(|Abort| abort());
        }
        // Kept as a call: one element per output scalar.
        let last_given = vals.iter().rposition(|v| v.is_some()).map_or(0, |p| p + 1);
        if vals[..last_given].iter().any(|v| v.is_none()) {
            return Err(abort());
        }
        let dims_args: Vec<Option<func_eval::Value>> = vals
            .iter()
            .map(|v| {
                v.as_ref().map(|t| {
                    let data = t
                        .data
                        .iter()
                        .map(|x| x.to_val().unwrap_or(Val::Real(0.0)))
                        .collect();
                    Tensor::new(t.dims.clone(), data)
                })
            })
            .collect();
        // Sizes that depend on values known only at run time cannot be written out.
        let sized_by_value = f.outputs.iter().any(|o| {
            o.dims
                .iter()
                .any(|d| d.as_ref().is_none_or(|e| !is_literal(e)))
        });
        if sized_by_value {
            return Err(abort());
        }
        let out_dims =
            func_eval::output_dims(&self.fc.f.functions, name, dims_args).map_err(|_| abort())?;
        Ok(super::scalarize::user_call_outputs(
            name,
            &vals[..last_given],
            out_dims,
        ))
    }
}

fn is_literal(e: &ast::Expr) -> bool {
    matches!(e.kind, ast::ExprKind::Integer(_))
}

impl Ctx for Sym<'_, '_, '_> {
    type E = Expr;
    fn lookup(&mut self, cref: &ast::ComponentRef) -> EResult<Tensor<Expr>> {
        let unknown = || {
            Diagnostic::error(
                cref.span,
                format!("unknown name `{}` in function", cref_name(cref)),
            )
            .with_kind(crate::diag::Kind::UnknownName)
        };
        let [part] = cref.parts.as_slice() else {
            return Err(unknown());
        };
        let v = self.get(&part.ident.name).cloned().ok_or_else(unknown)?;
        if part.subscripts.is_empty() {
            return Ok(v);
        }
        let subs = eval::subscripts(self, &part.subscripts, &v.dims)?;
        v.index(&subs).map_err(|m| Diagnostic::error(cref.span, m))
    }

    fn call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Vec<Tensor<Expr>>>> {
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
        self.user_call(&name, args, span)
    }

    fn push_local(&mut self, name: &str, v: Tensor<Expr>) {
        self.vars.push((name.to_string(), v));
    }
    fn pop_local(&mut self) {
        self.vars.pop();
    }
    fn ends(&mut self) -> &mut Vec<usize> {
        &mut self.ends
    }
    fn set_structural(&mut self, _on: bool) -> bool {
        false
    }
    fn implicit_range(
        &mut self,
        name: &ast::Ident,
        uses: &[super::implicit::Use],
    ) -> EResult<Tensor<Expr>> {
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

/// A Real variable stays Real when an Integer is assigned to it.
fn coerce(x: Expr, real: bool) -> Expr {
    match x {
        Expr::Integer(i) if real => Expr::Real(i as f64),
        x => x,
    }
}

/// The relations of `e` wrapped in `noEvent` (a function body generates no events).
fn no_events(e: Expr, inside: bool) -> Expr {
    let rec = |x: Box<Expr>, inside: bool| Box::new(no_events(*x, inside));
    match e {
        Expr::NoEvent(a) => Expr::NoEvent(rec(a, true)),
        Expr::Binary(op, a, b) => {
            let relation = matches!(
                op,
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
            );
            let inner = Expr::Binary(op, rec(a, inside || relation), rec(b, inside || relation));
            if relation && !inside {
                Expr::NoEvent(Box::new(inner))
            } else {
                inner
            }
        }
        Expr::Unary(op, a) => Expr::Unary(op, rec(a, inside)),
        Expr::Call(f, args) => {
            Expr::Call(f, args.into_iter().map(|x| no_events(x, inside)).collect())
        }
        Expr::If { branches, else_ } => Expr::If {
            branches: branches
                .into_iter()
                .map(|(c, v)| (no_events(c, inside), no_events(v, inside)))
                .collect(),
            else_: rec(else_, inside),
        },
        Expr::Smooth(p, a) => Expr::Smooth(p, rec(a, inside)),
        other => other,
    }
}

/// The number of nodes of an expression tree.
fn count_nodes(e: &Expr) -> usize {
    let mut n = 0;
    e.visit(&mut |_| n += 1);
    n
}
