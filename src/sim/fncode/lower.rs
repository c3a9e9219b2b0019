//! From a flattened function's syntax to [`Code`]: names resolved to slots, sizes fixed,
//! types inferred as the interpreter's values would have them. `None` anywhere means the
//! function stays with the interpreter (see the module comment for the subset).

use super::code::{
    Call, Code, Element, Ex, ExKind, Fold, Init, Over, Place, Reduce, Sel, Slice, Src, St, Target,
    Ty,
};
use crate::dae::{BinOp, Builtin, Function, ScalarType, UnOp};
use crate::flatten::eval::{bind_args, builtin_of, cref_name, flat_binop, is_generic_builtin};
use crate::syntax::ast::{self, ExprKind, StatementKind, Subscript};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The deepest chain of nested calls compiled (the interpreter stops at 200).
const MAX_NESTING: usize = 100;

/// A function and the sizes of its inputs.
type Key = (String, Vec<Vec<usize>>);

/// Compiles the functions of one program, each once per set of input sizes.
pub struct Compiler {
    functions: Arc<BTreeMap<String, Function>>,
    done: HashMap<Key, Option<Arc<Code>>>,
    /// The functions being compiled: a recursive call stays with the interpreter.
    active: Vec<String>,
}

impl Compiler {
    pub fn new(functions: Arc<BTreeMap<String, Function>>) -> Compiler {
        Compiler {
            functions,
            done: HashMap::new(),
            active: Vec::new(),
        }
    }

    /// `name` compiled for a call giving its first inputs with these sizes; the inputs left
    /// out must have literal defaults, which are returned to be passed after the given ones.
    pub fn compile_call(
        &mut self,
        name: &str,
        given: &[Vec<usize>],
    ) -> Option<(Arc<Code>, Vec<f64>)> {
        let functions = self.functions.clone();
        let f = functions.get(name)?;
        let rest = f.inputs.get(given.len()..)?;
        let defaults: Vec<f64> = rest
            .iter()
            .map(|v| literal_default(v).map(|(x, _)| x))
            .collect::<Option<_>>()?;
        let mut dims = given.to_vec();
        dims.resize(f.inputs.len(), Vec::new());
        Some((self.compile(name, &dims)?, defaults))
    }

    /// `name` compiled for inputs of these sizes (one per input, all inputs given).
    pub fn compile(&mut self, name: &str, dims: &[Vec<usize>]) -> Option<Arc<Code>> {
        let key = (name.to_string(), dims.to_vec());
        if let Some(c) = self.done.get(&key) {
            return c.clone();
        }
        if self.active.iter().any(|a| a == name) || self.active.len() >= MAX_NESTING {
            return None;
        }
        self.active.push(name.to_string());
        let functions = self.functions.clone();
        let code = functions
            .get(name)
            .and_then(|f| Lower::function(self, f, dims))
            .map(Arc::new);
        self.active.pop();
        self.done.insert(key, code.clone());
        code
    }
}

/// A variable in scope.
#[derive(Clone)]
struct Var {
    at: u32,
    dims: Vec<usize>,
    ty: Ty,
    /// Iterators are not.
    assignable: bool,
}

struct Lower<'c> {
    compiler: &'c mut Compiler,
    /// Innermost last (iterators shadow).
    scope: Vec<(String, Var)>,
    frame: usize,
    /// Sizes of the dimensions being subscripted, for `end`.
    ends: Vec<usize>,
}

fn ty_of(t: ScalarType) -> Option<Ty> {
    match t {
        ScalarType::Real => Some(Ty::Real),
        ScalarType::Integer => Some(Ty::Int),
        ScalarType::Boolean => Some(Ty::Bool),
        ScalarType::Enumeration | ScalarType::String => None,
    }
}

/// Whether a value of type `value` may be stored in a variable of type `var` without
/// changing what the interpreter would hold (it turns an Integer into a Real, nothing else).
fn storable(var: Ty, value: Ty) -> bool {
    var == value || (var == Ty::Real && value == Ty::Int)
}

fn place(v: &Var) -> Place {
    Place {
        at: v.at,
        len: v.dims.iter().product::<usize>() as u32,
    }
}

impl<'c> Lower<'c> {
    fn function(compiler: &'c mut Compiler, f: &Function, in_dims: &[Vec<usize>]) -> Option<Code> {
        if f.native.is_some() || in_dims.len() != f.inputs.len() {
            return None;
        }
        let mut l = Lower {
            compiler,
            scope: Vec::new(),
            frame: 0,
            ends: Vec::new(),
        };
        let mut inputs = Vec::with_capacity(f.inputs.len());
        for (v, dims) in f.inputs.iter().zip(in_dims) {
            let ty = ty_of(v.ty)?;
            if v.dims.len() != dims.len() {
                return None;
            }
            for (d, &n) in v.dims.iter().zip(dims) {
                if let Some(e) = d
                    && usize::try_from(l.static_int(e)?).ok()? != n
                {
                    return None;
                }
            }
            let var = l.declare(&v.name, dims.clone(), ty);
            inputs.push((place(&var), ty));
        }
        let own: Vec<_> = f.outputs.iter().chain(&f.locals).collect();
        let mut places = Vec::with_capacity(own.len());
        for (k, v) in own.iter().enumerate() {
            let ty = ty_of(v.ty)?;
            let folded = f.folded.iter().find(|b| b.var == k);
            let mut dims = Vec::with_capacity(v.dims.len());
            for (j, d) in v.dims.iter().enumerate() {
                dims.push(match d {
                    Some(e) => usize::try_from(l.static_int(e)?).ok()?,
                    None => match (folded, &v.default) {
                        (Some(b), _) => *b.dims.get(j)?,
                        (None, Some(e)) => *l.array_dims(e)?.get(j)?,
                        (None, None) => return None,
                    },
                });
            }
            // A binding of another size would resize the variable in the interpreter.
            if let Some(b) = folded
                && b.dims != dims
            {
                return None;
            }
            let var = l.declare(&v.name, dims, ty);
            places.push((var, folded));
        }
        let mut init = Vec::new();
        for (v, (var, folded)) in own.iter().zip(&places) {
            let Some(d) = &v.default else { continue };
            init.push(match folded {
                Some(b) if var.dims.is_empty() => Init::Scalar(
                    var.at,
                    Ex {
                        ty: var.ty,
                        kind: ExKind::Const(*b.data.first()?),
                    },
                ),
                Some(b) => Init::Array(place(var), Src::Const(b.data.clone().into())),
                None if var.dims.is_empty() => {
                    let e = l.scalar(d)?;
                    if !storable(var.ty, e.ty) {
                        return None;
                    }
                    Init::Scalar(var.at, e)
                }
                None => Init::Array(place(var), l.array_value(d, var)?),
            });
        }
        let body = l.block(&f.body)?;
        let outs = &places[..f.outputs.len()];
        Some(Code {
            frame: l.frame,
            inputs,
            outputs: outs.iter().map(|(v, _)| (place(v), v.ty)).collect(),
            output_dims: outs.iter().map(|(v, _)| v.dims.clone()).collect(),
            init,
            body,
        })
    }

    fn declare(&mut self, name: &str, dims: Vec<usize>, ty: Ty) -> Var {
        let var = Var {
            at: self.frame as u32,
            dims,
            ty,
            assignable: true,
        };
        self.frame += var.dims.iter().product::<usize>();
        self.scope.push((name.to_string(), var.clone()));
        var
    }

    fn var(&self, name: &str) -> Option<&Var> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The variable a one-part reference names, with its subscripts.
    fn named<'e>(&self, c: &'e ast::ComponentRef) -> Option<(Var, &'e [Subscript])> {
        let [part] = c.parts.as_slice() else {
            return None;
        };
        if c.global {
            return None;
        }
        let v = self.var(&part.ident.name)?.clone();
        Some((v, &part.subscripts))
    }

    /// An Integer known when compiling: literals, `size` of a variable, `end`, and sums,
    /// differences and products of these.
    fn static_int(&self, e: &ast::Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Integer(i) => Some(*i),
            ExprKind::End => self.ends.last().map(|&n| n as i64),
            ExprKind::Unary {
                op: ast::UnOp::Neg,
                operand,
            } => self.static_int(operand)?.checked_neg(),
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.static_int(lhs)?, self.static_int(rhs)?);
                match op {
                    ast::BinOp::Add => a.checked_add(b),
                    ast::BinOp::Sub => a.checked_sub(b),
                    ast::BinOp::Mul => a.checked_mul(b),
                    _ => None,
                }
            }
            ExprKind::Call { func, args } => self.static_call(&cref_name(func), args),
            _ => None,
        }
    }

    /// `size(x, k)` and `scalar(size(x))` of a vector, known when compiling.
    fn static_call(&self, name: &str, args: &ast::FunctionArgs) -> Option<i64> {
        if !args.named.is_empty() {
            return None;
        }
        match (name, args.positional.as_slice()) {
            ("size", [a, k]) => {
                let dims = self.array_dims(a)?;
                let k = usize::try_from(self.static_int(k)?).ok()?;
                dims.get(k.checked_sub(1)?).map(|&n| n as i64)
            }
            ("scalar", [inner]) => match &inner.kind {
                ExprKind::Call { func, args }
                    if cref_name(func) == "size" && args.positional.len() == 1 =>
                {
                    match self.array_dims(&args.positional[0])?.as_slice() {
                        [n] => Some(*n as i64),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The sizes of a whole variable named by `e`.
    fn array_dims(&self, e: &ast::Expr) -> Option<Vec<usize>> {
        let ExprKind::Ref(c) = &e.kind else {
            return None;
        };
        let (v, subs) = self.named(c)?;
        subs.is_empty().then_some(v.dims)
    }

    fn scalar(&mut self, e: &ast::Expr) -> Option<Ex> {
        let (ty, kind) = match &e.kind {
            ExprKind::Integer(i) if i.unsigned_abs() < 1 << 53 => {
                (Ty::Int, ExKind::Const(*i as f64))
            }
            ExprKind::Real(x) => (Ty::Real, ExKind::Const(*x)),
            ExprKind::Boolean(b) => (Ty::Bool, ExKind::Const(f64::from(u8::from(*b)))),
            ExprKind::End => (Ty::Int, ExKind::Const(*self.ends.last()? as f64)),
            ExprKind::Ref(c) => {
                let (v, subs) = self.named(c)?;
                if subs.is_empty() {
                    if !v.dims.is_empty() {
                        return None;
                    }
                    (v.ty, ExKind::Var(v.at))
                } else {
                    let el = self.element(&v, subs)?;
                    (v.ty, ExKind::Elem(Box::new(el)))
                }
            }
            ExprKind::Call { func, args } => return self.call_expr(func, args, e.span),
            ExprKind::Tuple(items) => match items.as_slice() {
                [Some(x)] => return self.scalar(x),
                _ => return None,
            },
            ExprKind::Unary { op, operand } => {
                let a = self.scalar(operand)?;
                match op {
                    ast::UnOp::Plus | ast::UnOp::ElemPlus => return Some(a),
                    ast::UnOp::Neg | ast::UnOp::ElemNeg if a.ty != Ty::Bool => {
                        (a.ty, ExKind::Unary(UnOp::Neg, Box::new(a)))
                    }
                    ast::UnOp::Not if a.ty == Ty::Bool => {
                        (Ty::Bool, ExKind::Unary(UnOp::Not, Box::new(a)))
                    }
                    _ => return None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.scalar(lhs)?;
                let b = self.scalar(rhs)?;
                return binary(*op, a, b);
            }
            ExprKind::If { branches, else_ } => {
                let mut arms = Vec::with_capacity(branches.len());
                let mut ty = None;
                let mut join = |t: Ty| -> Option<()> {
                    ty = Some(match (ty, t) {
                        (None, t) => t,
                        (Some(a), b) if a == b => a,
                        (Some(Ty::Bool), _) | (Some(_), Ty::Bool) => return None,
                        _ => Ty::Real,
                    });
                    Some(())
                };
                for (c, v) in branches {
                    let c = self.scalar(c)?;
                    let v = self.scalar(v)?;
                    if c.ty != Ty::Bool {
                        return None;
                    }
                    join(v.ty)?;
                    arms.push((c, v));
                }
                let else_ = self.scalar(else_)?;
                join(else_.ty)?;
                // Branches of different numeric types: the value keeps the type of the
                // branch taken in the interpreter, which only matters for Integer overflow.
                (ty?, ExKind::If(arms, Box::new(else_)))
            }
            _ => return None,
        };
        Some(Ex { ty, kind })
    }

    /// One element of `v`: as many scalar Integer subscripts as it has dimensions.
    fn element(&mut self, v: &Var, subs: &[Subscript]) -> Option<Element> {
        if subs.len() != v.dims.len() {
            return None;
        }
        let mut out = Vec::with_capacity(subs.len());
        for (s, &n) in subs.iter().zip(&v.dims) {
            let Subscript::Expr(e) = s else { return None };
            self.ends.push(n);
            let x = self.scalar(e);
            self.ends.pop();
            let x = x?;
            if x.ty != Ty::Int {
                return None;
            }
            out.push(x);
        }
        Some(Element {
            at: v.at,
            dims: v.dims.iter().map(|&n| n as u32).collect(),
            subs: out,
        })
    }

    fn call_expr(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: crate::diag::Span,
    ) -> Option<Ex> {
        let name = cref_name(func);
        if func.parts.len() == 1 && is_generic_builtin(&name) {
            return self.builtin(&name, args);
        }
        if matches!(name.as_str(), "noEvent" | "smooth") {
            return self.scalar(args.positional.last()?);
        }
        let call = self.user_call(&name, args, span)?;
        let (_, ty) = *call.code.outputs.first()?;
        if !call.code.output_dims[0].is_empty() {
            return None;
        }
        Some(Ex {
            ty,
            kind: ExKind::Call(Box::new(call)),
        })
    }

    fn builtin(&mut self, name: &str, args: &ast::FunctionArgs) -> Option<Ex> {
        if matches!(name, "sum" | "product" | "min" | "max")
            && args.named.is_empty()
            && args.positional.len() == 1
        {
            return self.reduction(name, args);
        }
        if !args.named.is_empty() || !args.iterators.is_empty() {
            return None;
        }
        let pos = &args.positional;
        if matches!(name, "size" | "scalar") {
            let n = self.static_call(name, args)?;
            return Some(Ex {
                ty: Ty::Int,
                kind: ExKind::Const(n as f64),
            });
        }
        let (b, arity) = match name {
            "min" => (Builtin::Min, 2),
            "max" => (Builtin::Max, 2),
            _ => {
                let b = builtin_of(name)?;
                let arity = match b {
                    Builtin::Atan2 | Builtin::Div | Builtin::Mod | Builtin::Rem => 2,
                    Builtin::SemiLinear => 3,
                    _ => 1,
                };
                (b, arity)
            }
        };
        if pos.len() != arity {
            return None;
        }
        let xs = pos
            .iter()
            .map(|a| self.scalar(a))
            .collect::<Option<Vec<_>>>()?;
        let all_int = xs.iter().all(|x| x.ty == Ty::Int);
        let all_bool = xs.iter().all(|x| x.ty == Ty::Bool);
        if xs.iter().any(|x| x.ty == Ty::Bool)
            && !(all_bool && matches!(b, Builtin::Min | Builtin::Max))
        {
            return None;
        }
        let ty = match b {
            Builtin::Min | Builtin::Max if all_bool => Ty::Bool,
            Builtin::Min
            | Builtin::Max
            | Builtin::Div
            | Builtin::Mod
            | Builtin::Rem
            | Builtin::Abs
                if all_int =>
            {
                Ty::Int
            }
            Builtin::Sign | Builtin::Integer => Ty::Int,
            Builtin::Delay | Builtin::Homotopy | Builtin::EventClock => return None,
            _ => Ty::Real,
        };
        Some(Ex {
            ty,
            kind: ExKind::Builtin(b, xs),
        })
    }

    /// `sum(v)`, `max(e for i in a:b)`...
    fn reduction(&mut self, name: &str, args: &ast::FunctionArgs) -> Option<Ex> {
        let fold = match name {
            "sum" => Fold::Op(BinOp::Add),
            "product" => Fold::Op(BinOp::Mul),
            "min" => Fold::Builtin(Builtin::Min),
            _ => Fold::Builtin(Builtin::Max),
        };
        let arg = &args.positional[0];
        let (over, ty) = match args.iterators.as_slice() {
            [] => {
                let v = self.var_of(arg)?;
                (Over::Array(place(&v)), v.ty)
            }
            [it] => {
                let Some(ast::Expr {
                    kind: ExprKind::Range { start, step, stop },
                    ..
                }) = &it.range
                else {
                    return None;
                };
                let (start, step, stop) = self.int_range(start, step.as_deref(), stop)?;
                let var = self.iterator(&it.name.name);
                let body = self.scalar(arg);
                self.scope.pop();
                let body = body?;
                let ty = body.ty;
                let over = Over::Range {
                    var,
                    start,
                    step,
                    stop,
                    body,
                };
                (over, ty)
            }
            _ => return None,
        };
        if ty == Ty::Bool {
            return None;
        }
        Some(Ex {
            ty,
            kind: ExKind::Reduce(Box::new(Reduce { fold, over, ty })),
        })
    }

    /// The whole variable `e` names.
    fn var_of(&self, e: &ast::Expr) -> Option<Var> {
        let ExprKind::Ref(c) = &e.kind else {
            return None;
        };
        let (v, subs) = self.named(c)?;
        subs.is_empty().then_some(v)
    }

    /// The bounds of an Integer range.
    fn int_range(
        &mut self,
        start: &ast::Expr,
        step: Option<&ast::Expr>,
        stop: &ast::Expr,
    ) -> Option<(Ex, Option<Ex>, Ex)> {
        let start = self.scalar(start)?;
        let step = match step {
            Some(s) => Some(self.scalar(s)?),
            None => None,
        };
        let stop = self.scalar(stop)?;
        let int = |x: &Ex| x.ty == Ty::Int;
        (int(&start) && int(&stop) && step.as_ref().is_none_or(int)).then_some((start, step, stop))
    }

    /// A new Integer iterator in scope (the caller pops it); its slot.
    fn iterator(&mut self, name: &str) -> u32 {
        let var = Var {
            at: self.frame as u32,
            dims: Vec::new(),
            ty: Ty::Int,
            assignable: false,
        };
        self.frame += 1;
        self.scope.push((name.to_string(), var.clone()));
        var.at
    }

    /// A call of a user function with every input given.
    fn user_call(
        &mut self,
        name: &str,
        args: &ast::FunctionArgs,
        span: crate::diag::Span,
    ) -> Option<Call> {
        if !args.iterators.is_empty() {
            return None;
        }
        let functions = self.compiler.functions.clone();
        let f = functions.get(name)?;
        let names: Vec<&str> = f.inputs.iter().map(|v| v.name.as_str()).collect();
        let bound = bind_args(&names, args, name, span).ok()?;
        let mut srcs = Vec::with_capacity(bound.len());
        let mut dims = Vec::with_capacity(bound.len());
        for (e, input) in bound.into_iter().zip(&f.inputs) {
            let (src, d, ty) = match e {
                Some(e) => self.argument(e)?,
                None => {
                    let (x, ty) = literal_default(input)?;
                    let x = Ex {
                        ty,
                        kind: ExKind::Const(x),
                    };
                    (Src::Scalar(x), Vec::new(), ty)
                }
            };
            if !storable(ty_of(input.ty)?, ty) {
                return None;
            }
            srcs.push(src);
            dims.push(d);
        }
        let code = self.compiler.compile(name, &dims)?;
        Some(Call { code, args: srcs })
    }

    /// An argument: a scalar, a whole array, a slice or a literal vector or matrix; its
    /// sizes and element type.
    fn argument(&mut self, e: &ast::Expr) -> Option<(Src, Vec<usize>, Ty)> {
        match &e.kind {
            ExprKind::Ref(c) => {
                let (v, subs) = self.named(c)?;
                if subs.is_empty() && !v.dims.is_empty() {
                    return Some((Src::Copy(place(&v)), v.dims.clone(), v.ty));
                }
                if subs.iter().any(|s| {
                    matches!(
                        s,
                        Subscript::Colon(_)
                            | Subscript::Expr(ast::Expr {
                                kind: ExprKind::Range { .. },
                                ..
                            })
                    )
                }) {
                    return self.slice(&v, subs);
                }
            }
            ExprKind::Array(_) | ExprKind::Matrix(_) => return self.literal(e),
            _ => {}
        }
        let x = self.scalar(e)?;
        let ty = x.ty;
        Some((Src::Scalar(x), Vec::new(), ty))
    }

    fn slice(&mut self, v: &Var, subs: &[Subscript]) -> Option<(Src, Vec<usize>, Ty)> {
        if subs.len() != v.dims.len() {
            return None;
        }
        let mut sels = Vec::with_capacity(subs.len());
        let mut dims = Vec::new();
        for (s, &n) in subs.iter().zip(&v.dims) {
            self.ends.push(n);
            let sel = match s {
                Subscript::Colon(_) => Some(Sel::All),
                Subscript::Expr(ast::Expr {
                    kind:
                        ExprKind::Range {
                            start,
                            step: None,
                            stop,
                        },
                    ..
                }) => (|| {
                    let a = self.static_int(start)?;
                    let b = self.static_int(stop)?;
                    let count = u32::try_from((b - a + 1).max(0)).ok()?;
                    Some(Sel::Range(a, count))
                })(),
                Subscript::Expr(e) => self.scalar(e).filter(|x| x.ty == Ty::Int).map(Sel::One),
            };
            self.ends.pop();
            let sel = sel?;
            match &sel {
                Sel::All => dims.push(n),
                Sel::Range(_, count) => dims.push(*count as usize),
                Sel::One(_) => {}
            }
            sels.push(sel);
        }
        let slice = Slice {
            at: v.at,
            dims: v.dims.iter().map(|&n| n as u32).collect(),
            sels,
        };
        Some((Src::Slice(Box::new(slice)), dims, v.ty))
    }

    /// `{a, b, c}` or `{{a, b}, {c, d}}` (or `[a, b; c, d]`) of scalars.
    fn literal(&mut self, e: &ast::Expr) -> Option<(Src, Vec<usize>, Ty)> {
        let plain = |a: &ast::FunctionArgs| a.named.is_empty() && a.iterators.is_empty();
        let (rows, matrix): (Vec<Vec<&ast::Expr>>, bool) = match &e.kind {
            ExprKind::Array(args) if plain(args) => {
                let rows: Option<Vec<Vec<&ast::Expr>>> = args
                    .positional
                    .iter()
                    .map(|r| match &r.kind {
                        ExprKind::Array(a) if plain(a) => Some(a.positional.iter().collect()),
                        _ => None,
                    })
                    .collect();
                match rows {
                    Some(rows) if !rows.is_empty() => (rows, true),
                    _ => (vec![args.positional.iter().collect()], false),
                }
            }
            ExprKind::Matrix(rows) => (rows.iter().map(|r| r.iter().collect()).collect(), true),
            _ => return None,
        };
        let width = rows.first()?.len();
        if rows.iter().any(|r| r.len() != width) {
            return None;
        }
        let mut xs = Vec::with_capacity(rows.len() * width);
        for x in rows.iter().flatten() {
            xs.push(self.scalar(x)?);
        }
        let ty = if xs.iter().all(|x| x.ty == Ty::Int) {
            Ty::Int
        } else if xs.iter().all(|x| x.ty != Ty::Bool) {
            Ty::Real
        } else if xs.iter().all(|x| x.ty == Ty::Bool) {
            Ty::Bool
        } else {
            return None;
        };
        let dims = if matrix {
            vec![rows.len(), width]
        } else {
            vec![width]
        };
        let consts: Option<Vec<f64>> = xs
            .iter()
            .map(|x| match x.kind {
                ExKind::Const(c) => Some(c),
                _ => None,
            })
            .collect();
        let src = match consts {
            Some(c) => Src::Const(c.into()),
            None => Src::List(xs),
        };
        Some((src, dims, ty))
    }

    /// The value of a whole-array assignment to `var`.
    fn array_value(&mut self, e: &ast::Expr, var: &Var) -> Option<Src> {
        let (src, dims, ty) = self.argument(e)?;
        (dims == var.dims && storable(var.ty, ty)).then_some(src)
    }

    fn block(&mut self, body: &[ast::Statement]) -> Option<Vec<St>> {
        body.iter().map(|s| self.statement(s)).collect()
    }

    fn statement(&mut self, s: &ast::Statement) -> Option<St> {
        Some(match &s.kind {
            StatementKind::Assign { target, value } => self.assign(target, value, s.span)?,
            StatementKind::MultiAssign { targets, value } => {
                let ExprKind::Call { func, args } = &value.kind else {
                    return None;
                };
                let name = cref_name(func);
                if func.parts.len() == 1 && is_generic_builtin(&name) {
                    return None;
                }
                let call = self.user_call(&name, args, value.span)?;
                if targets.len() > call.code.outputs.len() {
                    return None;
                }
                let mut ts = Vec::with_capacity(targets.len());
                for (k, t) in targets.iter().enumerate() {
                    ts.push(match t {
                        None => None,
                        Some(t) => Some(self.target(t, &call.code, k)?),
                    });
                }
                St::Outputs(Box::new(call), ts)
            }
            StatementKind::Call { func, args } => {
                let name = cref_name(func);
                match name.as_str() {
                    // Only the condition: the message is formed by the interpreter, which
                    // makes the call again when the assert fails.
                    "assert" => match args.positional.first() {
                        Some(c) => {
                            let c = self.scalar(c)?;
                            if c.ty != Ty::Bool {
                                return None;
                            }
                            St::Assert(c)
                        }
                        // No positional condition: the interpreter checks nothing, but the
                        // statement still counts as one executed step.
                        None => St::If(Vec::new(), Vec::new()),
                    },
                    _ if func.parts.len() == 1 && is_generic_builtin(&name) => return None,
                    "terminate" | "noEvent" | "smooth" => return None,
                    // A call the code cannot make (`Streams.error` with its message, a
                    // print): reaching it hands the whole call to the interpreter, which
                    // makes it; the code has had no effect until then.
                    _ => match self.user_call(&name, args, s.span) {
                        Some(c) => St::Run(Box::new(c)),
                        None => St::GiveUp,
                    },
                }
            }
            StatementKind::If { branches, else_ } => {
                let mut arms = Vec::with_capacity(branches.len());
                for (c, body) in branches {
                    let c = self.scalar(c)?;
                    if c.ty != Ty::Bool {
                        return None;
                    }
                    arms.push((c, self.block(body)?));
                }
                St::If(arms, self.block(else_)?)
            }
            StatementKind::For { indices, body } => self.for_loop(indices, body)?,
            StatementKind::While { condition, body } => {
                let c = self.scalar(condition)?;
                if c.ty != Ty::Bool {
                    return None;
                }
                St::While(c, self.block(body)?)
            }
            StatementKind::Return => St::Return,
            StatementKind::Break => St::Break,
            StatementKind::When { .. } => return None,
        })
    }

    fn assign(
        &mut self,
        target: &ast::ComponentRef,
        value: &ast::Expr,
        span: crate::diag::Span,
    ) -> Option<St> {
        let (v, subs) = self.named(target)?;
        if !v.assignable {
            return None;
        }
        if !subs.is_empty() {
            let x = self.scalar(value)?;
            if !storable(v.ty, x.ty) {
                return None;
            }
            let el = self.element(&v, subs)?;
            return Some(St::SetElem(Box::new(el), x));
        }
        if v.dims.is_empty() {
            let x = self.scalar(value)?;
            return storable(v.ty, x.ty).then_some(St::Set(v.at, x));
        }
        if let ExprKind::Call { func, args } = &value.kind {
            let name = cref_name(func);
            if !(func.parts.len() == 1 && is_generic_builtin(&name)) {
                let call = self.user_call(&name, args, span)?;
                let t = self.target(target, &call.code, 0)?;
                return Some(St::Outputs(Box::new(call), vec![Some(t)]));
            }
        }
        Some(St::SetArray(place(&v), self.array_value(value, &v)?))
    }

    /// Where output `k` of a call is put by a multiple assignment.
    fn target(&mut self, t: &ast::ComponentRef, code: &Code, k: usize) -> Option<Target> {
        let (v, subs) = self.named(t)?;
        let (out, ty) = *code.outputs.get(k)?;
        let dims = &code.output_dims[k];
        if !v.assignable || !storable(v.ty, ty) {
            return None;
        }
        if subs.is_empty() {
            // Of the same sizes: the interpreter would resize the variable otherwise.
            return (v.dims == *dims).then_some(Target::Var(place(&v)));
        }
        if !dims.is_empty() || out.len != 1 {
            return None;
        }
        Some(Target::Elem(Box::new(self.element(&v, subs)?)))
    }

    fn for_loop(&mut self, indices: &[ast::ForIndex], body: &[ast::Statement]) -> Option<St> {
        let (first, rest) = indices.split_first()?;
        let Some(ast::Expr {
            kind: ExprKind::Range { start, step, stop },
            ..
        }) = &first.range
        else {
            return None;
        };
        let (start, step, stop) = self.int_range(start, step.as_deref(), stop)?;
        let var = self.iterator(&first.name.name);
        let inner = if rest.is_empty() {
            self.block(body)
        } else {
            self.for_loop(rest, body).map(|s| vec![s])
        };
        self.scope.pop();
        Some(St::For {
            var,
            start,
            step,
            stop,
            body: inner?,
        })
    }
}

/// The default of an input when it is a literal scalar (`input Integer phase = 0`), with its
/// type: a call that leaves the input out passes that number.
pub(super) fn literal_default(input: &crate::dae::FunctionVar) -> Option<(f64, Ty)> {
    if !input.dims.is_empty() {
        return None;
    }
    let d = input.default.as_ref()?;
    let (negate, e) = match &d.kind {
        ExprKind::Unary {
            op: ast::UnOp::Neg,
            operand,
        } => (true, operand.as_ref()),
        _ => (false, d),
    };
    let (x, ty) = match e.kind {
        ExprKind::Integer(i) if i.unsigned_abs() < 1 << 31 => (i as f64, Ty::Int),
        ExprKind::Real(x) => (x, Ty::Real),
        ExprKind::Boolean(b) if !negate => (f64::from(u8::from(b)), Ty::Bool),
        _ => return None,
    };
    let x = if negate { -x } else { x };
    storable(ty_of(input.ty)?, ty).then_some((x, ty))
}

/// A binary operator on two scalars, typed as `flatten::tensor::val_binary` types its result.
fn binary(op: ast::BinOp, a: Ex, b: Ex) -> Option<Ex> {
    let flat = flat_binop(op);
    let bools = a.ty == Ty::Bool && b.ty == Ty::Bool;
    let numbers = a.ty != Ty::Bool && b.ty != Ty::Bool;
    let (ty, logic) = match flat {
        BinOp::And | BinOp::Or if bools => (Ty::Bool, true),
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
            if bools || numbers =>
        {
            (Ty::Bool, false)
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul if numbers => (
            if a.ty == Ty::Int && b.ty == Ty::Int {
                Ty::Int
            } else {
                Ty::Real
            },
            false,
        ),
        BinOp::Div | BinOp::Pow if numbers => (Ty::Real, false),
        _ => return None,
    };
    let (a, b) = (Box::new(a), Box::new(b));
    let kind = if logic {
        ExKind::Logic(flat, a, b)
    } else {
        ExKind::Binary(flat, a, b)
    };
    Some(Ex { ty, kind })
}
