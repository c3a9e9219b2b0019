//! Expression evaluation over arrays, shared by flattening (elements are symbolic flat
//! expressions, constants folded on the way) and the function interpreter (elements are
//! values). A [`Ctx`] supplies what differs: name look-up, user functions and the operators
//! that only make sense in equations (`der`, `pre`...).

use super::tensor::{self, Elem, Tensor, Val, fmt_dims};
use crate::dae::{BinOp, Builtin, StringFormat, UnOp, ValueKind};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind};

pub type EResult<T> = Result<T, Diagnostic>;

pub trait Ctx {
    type E: Elem;
    /// The value of a component reference (subscripts included).
    fn lookup(&mut self, cref: &ast::ComponentRef) -> EResult<Tensor<Self::E>>;
    /// A call the generic evaluator does not know (user functions, `der`, `pre`...): the
    /// outputs, or `None` when the name is not a function.
    fn call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Vec<Tensor<Self::E>>>>;
    /// Whether the one-word call `func`, named like a built-in, finds a function class in
    /// scope first (MLS 5.3: imports and local classes shadow the built-ins). Function bodies
    /// and flat expressions hold resolved names, so only contexts over source code look.
    fn shadows_builtin(&mut self, _func: &ast::ComponentRef) -> bool {
        false
    }
    /// Binds an iterator (`for i in ...`) until the matching `pop_local`.
    fn push_local(&mut self, name: &str, v: Tensor<Self::E>);
    fn pop_local(&mut self);
    /// Sizes of the dimensions being subscripted, for `end`.
    fn ends(&mut self) -> &mut Vec<usize>;
    /// A subscript whose value is only known at run time (`u[k]`, `k` a discrete variable) of
    /// a dimension of size `n`: the 0-based index to use for this lookup, or an error where
    /// variable subscripts cannot be used.
    fn dynamic_index(&mut self, _index: Self::E, _n: usize, span: Span) -> EResult<usize> {
        Err(err(
            span,
            "a subscript must be a constant Integer here (variable indices are not supported)",
        ))
    }
    /// The literals of `e`'s type when it is sure to be an enumeration (for `String(e)`).
    fn enum_literals(&mut self, _e: &ast::Expr) -> Option<Vec<String>> {
        None
    }
    /// Switches structural evaluation (parameters replaced by their values) on or off;
    /// returns the previous setting. Sizes, subscripts and ranges are always structural.
    fn set_structural(&mut self, on: bool) -> bool;
    /// An operator or constructor call on operator records as the call of the operator
    /// function overload resolution picks (MLS 14); `None` when no operator record is involved.
    fn overloaded(&mut self, _e: &ast::Expr) -> EResult<Option<ast::Expr>> {
        Ok(None)
    }
    /// The range of an iterator written without one (`for i loop`, `sum(x[i] for i)`), from
    /// the dimensions it subscripts (`uses`, see [`super::implicit`]).
    fn implicit_range(
        &mut self,
        name: &ast::Ident,
        _uses: &[super::implicit::Use],
    ) -> EResult<Tensor<Self::E>> {
        Err(err(
            name.span,
            format!(
                "the range of `{}` cannot be deduced here: give it (`for i in 1:n`)",
                name.name
            ),
        ))
    }
}

/// One size and kind for every dimension an implicit iterator subscripts (MLS 10.4.1.1):
/// `dims` holds `(size, Boolean dimension, where)` per use.
pub fn agree_implicit<E: tensor::Elem>(
    name: &ast::Ident,
    dims: &[(usize, bool, Span)],
) -> EResult<Tensor<E>> {
    let Some(&(n, b, _)) = dims.first() else {
        return Err(err(
            name.span,
            format!(
                "the range of `{}` cannot be deduced: it is not used as a subscript",
                name.name
            ),
        )
        .with_help("give the range (`for i in 1:n`)"));
    };
    if let Some(&(m, c, sp)) = dims.iter().find(|(m, c, _)| (*m, *c) != (n, b)) {
        let kind = |n: usize, b: bool| {
            if b {
                "Boolean".to_string()
            } else {
                format!("size {n}")
            }
        };
        return Err(err(
            sp,
            format!(
                "`{}` subscripts dimensions of different ranges ({} and {}): its range cannot be deduced",
                name.name,
                kind(n, b),
                kind(m, c)
            ),
        )
        .with_help("give the range (`for i in 1:n`)"));
    }
    Ok(Tensor::vector(if b {
        vec![E::from_val(Val::Bool(false)), E::from_val(Val::Bool(true))]
    } else {
        (1..=n as i64).map(E::int).collect()
    }))
}

/// Evaluates `e` with parameters replaced by their values.
pub fn eval_structural<C: Ctx>(ctx: &mut C, e: &ast::Expr) -> EResult<Tensor<C::E>> {
    let prev = ctx.set_structural(true);
    let r = eval(ctx, e);
    ctx.set_structural(prev);
    r
}

fn err(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(span, msg)
}

/// Name of a reference as written (`a.b[1].c` without subscripts).
pub fn cref_name(c: &ast::ComponentRef) -> String {
    c.parts
        .iter()
        .map(|p| p.ident.name.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

pub fn eval<C: Ctx>(ctx: &mut C, e: &ast::Expr) -> EResult<Tensor<C::E>> {
    let span = e.span;
    let lift = |r: Result<Tensor<C::E>, String>| r.map_err(|m| err(span, m));
    if matches!(
        e.kind,
        ExprKind::Binary { .. } | ExprKind::Unary { .. } | ExprKind::Call { .. }
    ) && let Some(call) = ctx.overloaded(e)?
    {
        return eval(ctx, &call);
    }
    match &e.kind {
        ExprKind::Integer(i) => Ok(Tensor::scalar(C::E::int(*i))),
        ExprKind::Real(x) => Ok(Tensor::scalar(C::E::real(*x))),
        ExprKind::Boolean(b) => Ok(Tensor::scalar(C::E::from_val(Val::Bool(*b)))),
        ExprKind::String(s) => Ok(Tensor::scalar(C::E::from_val(Val::Str(s.clone())))),
        ExprKind::End => match ctx.ends().last() {
            Some(n) => Ok(Tensor::scalar(C::E::int(*n as i64))),
            None => Err(err(span, "`end` can only be used inside a subscript")),
        },
        ExprKind::Ref(c) => ctx.lookup(c),
        ExprKind::Call { func, args } => {
            let mut outs = call(ctx, func, args, span)?;
            if outs.is_empty() {
                return Err(err(
                    span,
                    format!(
                        "`{}` has no output to use in an expression",
                        cref_name(func)
                    ),
                ));
            }
            Ok(outs.swap_remove(0))
        }
        ExprKind::Array(args) => {
            if !args.iterators.is_empty() {
                let mut out = comprehension(ctx, &args.positional, &args.iterators, span)?;
                return Ok(out.swap_remove(0));
            }
            let items = args
                .positional
                .iter()
                .map(|a| eval(ctx, a))
                .collect::<EResult<Vec<_>>>()?;
            lift(Tensor::stack(items))
        }
        ExprKind::Matrix(rows) => {
            let mut row_vals = Vec::new();
            for row in rows {
                let items = row
                    .iter()
                    .map(|a| eval(ctx, a).map(promote2))
                    .collect::<EResult<Vec<_>>>()?;
                row_vals.push(lift(tensor::cat(1, items))?);
            }
            lift(tensor::cat(0, row_vals))
        }
        ExprKind::Tuple(items) => match items.as_slice() {
            [Some(x)] => eval(ctx, x),
            _ => Err(err(
                span,
                "a list of expressions in parentheses is only allowed as the left side of a call",
            )),
        },
        ExprKind::Range { start, step, stop } => {
            let a = const_scalar(ctx, start)?;
            let s = match step {
                Some(s) => Some(const_scalar(ctx, s)?),
                None => None,
            };
            let b = const_scalar(ctx, stop)?;
            lift(range(&a, s.as_ref(), &b))
        }
        ExprKind::Unary { op, operand } => {
            let v = eval(ctx, operand)?;
            match op {
                ast::UnOp::Plus | ast::UnOp::ElemPlus => Ok(v),
                ast::UnOp::Neg | ast::UnOp::ElemNeg => {
                    lift(v.try_map(|x| C::E::unary(UnOp::Neg, x)))
                }
                ast::UnOp::Not => lift(v.try_map(|x| C::E::unary(UnOp::Not, x))),
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let a = eval(ctx, lhs)?;
            // `false and e`, `true or e`: e is not needed, and may not be evaluable for this
            // parameter choice (`tableOnFile and not Strings.isEmpty(fileName)` calls a C
            // function only when tables come from files).
            if matches!(op, ast::BinOp::And | ast::BinOp::Or)
                && a.is_scalar()
                && a.data[0].to_val() == Some(Val::Bool(matches!(op, ast::BinOp::Or)))
            {
                return Ok(a);
            }
            let b = eval(ctx, rhs)?;
            lift(binary(*op, a, b))
        }
        ExprKind::If { branches, else_ } => {
            // Constant conditions pick their branch without evaluating the others (they may be
            // ill-formed for this parameter choice, e.g. an index out of range).
            let mut pending: Vec<(C::E, Tensor<C::E>)> = Vec::new();
            for (c, v) in branches {
                let cv = eval(ctx, c)?.into_scalar().map_err(|m| err(c.span, m))?;
                match cv.to_val() {
                    Some(Val::Bool(false)) => continue,
                    Some(Val::Bool(true)) => {
                        let val = eval(ctx, v)?;
                        return select_chain(pending, val, span);
                    }
                    Some(_) => return Err(err(c.span, "an if-condition must be Boolean")),
                    None => pending.push((cv, eval(ctx, v)?)),
                }
            }
            let val = eval(ctx, else_)?;
            if pending.iter().all(|(_, v)| v.dims == val.dims) {
                return select_chain(pending, val, span);
            }
            // Branches of different sizes (MLS 6.7): they must have the same number of
            // dimensions, and the size of the if-expression is that of the branch selected, so
            // the conditions must be known before simulation: they are evaluated with
            // parameters replaced by their values (which thereby become structural).
            if let Some((_, v)) = pending.iter().find(|(_, v)| v.dims.len() != val.dims.len()) {
                return Err(err(
                    span,
                    format!(
                        "the branches of this if-expression have different numbers of dimensions: {} and {}",
                        fmt_dims(&v.dims),
                        fmt_dims(&val.dims)
                    ),
                ));
            }
            for (c, v) in branches {
                let cv = eval_structural(ctx, c)?
                    .into_scalar()
                    .map_err(|m| err(c.span, m))?;
                match cv.to_val() {
                    Some(Val::Bool(false)) => continue,
                    Some(Val::Bool(true)) => return eval(ctx, v),
                    _ => {
                        return Err(err(
                            c.span,
                            "the branches of this if-expression have different sizes, so its \
                             condition must be a parameter or constant expression",
                        ));
                    }
                }
            }
            Ok(val)
        }
        ExprKind::PartialFunction { .. } => {
            Err(err(span, "function partial application is not supported"))
        }
    }
}

fn select_chain<E: Elem>(
    pending: Vec<(E, Tensor<E>)>,
    mut acc: Tensor<E>,
    span: Span,
) -> EResult<Tensor<E>> {
    for (c, v) in pending.into_iter().rev() {
        if v.dims != acc.dims {
            return Err(err(
                span,
                format!(
                    "the branches of this if-expression have different sizes: {} and {}",
                    fmt_dims(&v.dims),
                    fmt_dims(&acc.dims)
                ),
            ));
        }
        let data = v
            .data
            .into_iter()
            .zip(acc.data)
            .map(|(a, b)| E::select(c.clone(), a, b))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|m| err(span, m))?;
        acc = Tensor { dims: v.dims, data };
    }
    Ok(acc)
}

fn promote2<E: Clone>(t: Tensor<E>) -> Tensor<E> {
    match t.dims.len() {
        0 => Tensor {
            dims: vec![1, 1],
            data: t.data,
        },
        1 => Tensor {
            dims: vec![t.dims[0], 1],
            data: t.data,
        },
        _ => t,
    }
}

/// The operator on elements of a (possibly element-wise) syntax operator.
pub(crate) fn flat_binop(op: ast::BinOp) -> BinOp {
    use ast::BinOp as A;
    match op {
        A::Add | A::ElemAdd => BinOp::Add,
        A::Sub | A::ElemSub => BinOp::Sub,
        A::Mul | A::ElemMul => BinOp::Mul,
        A::Div | A::ElemDiv => BinOp::Div,
        A::Pow | A::ElemPow => BinOp::Pow,
        A::And => BinOp::And,
        A::Or => BinOp::Or,
        A::Lt => BinOp::Lt,
        A::Le => BinOp::Le,
        A::Gt => BinOp::Gt,
        A::Ge => BinOp::Ge,
        A::Eq => BinOp::Eq,
        A::Ne => BinOp::Ne,
    }
}

pub fn binary<E: Elem>(op: ast::BinOp, a: Tensor<E>, b: Tensor<E>) -> Result<Tensor<E>, String> {
    use ast::BinOp as A;
    let flat = flat_binop;
    if a.is_scalar() && b.is_scalar() {
        // Two scalars: every operator is element-wise (the branches below agree); skipping
        // their size checks matters in interpreted functions, which are mostly scalar code.
        return tensor::elementwise(flat(op), a, b);
    }
    match op {
        A::Mul => tensor::multiply(a, b),
        A::Div if !b.is_scalar() => Err(
            "`/` divides by a scalar only (MLS 10.6.5): divide element-wise with `./`".to_string(),
        ),
        A::Add | A::Sub if a.dims != b.dims && !a.is_scalar() && !b.is_scalar() => Err(format!(
            "cannot add or subtract arrays of sizes {} and {}",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        )),
        A::Pow if !b.is_scalar() => Err(format!(
            "`^` needs a scalar exponent, not an array of size {} (MLS 10.6.1): raise element-wise with `.^`",
            fmt_dims(&b.dims)
        )),
        A::Pow if !a.is_scalar() => {
            // Matrix power by repeated multiplication (MLS 10.6.6).
            let n = b
                .into_scalar()?
                .to_val()
                .and_then(|v| v.as_int())
                .ok_or("a matrix power needs a constant Integer exponent")?;
            if a.dims.len() != 2 || a.dims[0] != a.dims[1] || n < 0 {
                return Err(
                    "a matrix power needs a square matrix and a non-negative exponent".into(),
                );
            }
            let mut acc = tensor::identity::<E>(a.dims[0]);
            for _ in 0..n {
                acc = tensor::multiply(acc, a.clone())?;
            }
            Ok(acc)
        }
        o => tensor::elementwise(flat(o), a, b),
    }
}

fn const_scalar<C: Ctx>(ctx: &mut C, e: &ast::Expr) -> EResult<Val> {
    let v = eval_structural(ctx, e)?
        .into_scalar()
        .map_err(|m| err(e.span, m))?;
    v.to_val().ok_or_else(|| {
        err(
            e.span,
            "this range bound must be a parameter or constant expression",
        )
    })
}

fn range<E: Elem>(a: &Val, step: Option<&Val>, b: &Val) -> Result<Tensor<E>, String> {
    if let (Val::Bool(x), Val::Bool(y)) = (a, b) {
        // `false:true` (MLS 10.4.2.1): the Booleans from a to b.
        if step.is_some() {
            return Err("a Boolean range has no step".into());
        }
        let v = [false, true]
            .into_iter()
            .filter(|v| *v >= *x && *v <= *y)
            .map(|v| E::from_val(Val::Bool(v)))
            .collect();
        return Ok(Tensor::vector(v));
    }
    let all_int = matches!(a, Val::Int(_))
        && matches!(b, Val::Int(_))
        && step.is_none_or(|s| matches!(s, Val::Int(_)));
    if all_int {
        let (a, b) = (a.as_int().unwrap_or(0), b.as_int().unwrap_or(0));
        let s = step.and_then(|s| s.as_int()).unwrap_or(1);
        if s == 0 {
            return Err("a range step cannot be zero".into());
        }
        // The count first (in i128: `a:b` over the whole i64 range does not overflow).
        let n = if (s > 0 && a <= b) || (s < 0 && a >= b) {
            (i128::from(b) - i128::from(a)) / i128::from(s) + 1
        } else {
            0
        };
        let n = super::size_limit::range_count(n as f64)?;
        let v = (0..n as i64).map(|k| E::int(a + k * s)).collect();
        return Ok(Tensor::vector(v));
    }
    let f = |v: &Val| {
        v.as_f64()
            .ok_or_else(|| "a range needs numbers".to_string())
    };
    let (a, b) = (f(a)?, f(b)?);
    let s = match step {
        Some(s) => f(s)?,
        None => 1.0,
    };
    if s == 0.0 {
        return Err("a range step cannot be zero".into());
    }
    let n = ((b - a) / s + 1e-10).floor();
    let n = if n < 0.0 {
        0
    } else {
        super::size_limit::range_count(n + 1.0)?
    };
    Ok(Tensor::vector(
        (0..n).map(|k| E::real(a + k as f64 * s)).collect(),
    ))
}

/// What indexes an array dimension (MLS 10.1): Integers `1..n`, the literals of an
/// enumeration (`Real x[E]`) or `false`, `true` (`Real x[Boolean]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimType {
    Integer,
    Boolean,
    Enumeration,
}

/// Evaluates subscripts against dimensions: 0-based indices and whether each dimension is kept.
pub fn subscripts<C: Ctx>(
    ctx: &mut C,
    subs: &[ast::Subscript],
    dims: &[usize],
) -> EResult<Vec<(Vec<usize>, bool)>> {
    subscripts_typed(ctx, subs, dims, &[])
}

/// Whether an expression is an Integer whatever its names mean (literals and their
/// arithmetic): such a subscript cannot index an enumeration dimension.
fn certainly_integer(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Integer(_) => true,
        ExprKind::Unary { operand, .. } => certainly_integer(operand),
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(op, ast::BinOp::Add | ast::BinOp::Sub | ast::BinOp::Mul)
                && certainly_integer(lhs)
                && certainly_integer(rhs)
        }
        _ => false,
    }
}

/// [`subscripts`] with the type of each dimension checked (`types` may be shorter than `dims`:
/// the rest are Integer dimensions).
pub fn subscripts_typed<C: Ctx>(
    ctx: &mut C,
    subs: &[ast::Subscript],
    dims: &[usize],
    types: &[DimType],
) -> EResult<Vec<(Vec<usize>, bool)>> {
    let mut out = Vec::with_capacity(subs.len());
    for (k, s) in subs.iter().enumerate() {
        let ty = types.get(k).copied().unwrap_or(DimType::Integer);
        if let (DimType::Enumeration, ast::Subscript::Expr(e)) = (ty, s)
            && certainly_integer(e)
        {
            return Err(err(
                e.span,
                "this dimension is indexed by the literals of an enumeration, not by Integers",
            ));
        }
        let Some(&n) = dims.get(k) else {
            let span = match s {
                ast::Subscript::Colon(sp) => *sp,
                ast::Subscript::Expr(e) => e.span,
            };
            return Err(err(
                span,
                format!(
                    "too many subscripts: the array has {} dimension(s)",
                    dims.len()
                ),
            ));
        };
        match s {
            ast::Subscript::Colon(_) => out.push(((0..n).collect(), true)),
            ast::Subscript::Expr(e) => {
                ctx.ends().push(n);
                let v = eval_structural(ctx, e);
                ctx.ends().pop();
                let v = v?;
                if v.is_scalar() && v.data[0].to_val().is_none() {
                    let mut index = v.data[0].clone();
                    if ty == DimType::Boolean {
                        // `x[b]`: the position of `b` among `false`, `true`.
                        index = C::E::select(index, C::E::int(2), C::E::int(1))
                            .map_err(|m| err(e.span, m))?;
                    }
                    let i = ctx.dynamic_index(index, n, e.span)?;
                    out.push((vec![i], false));
                    continue;
                }
                let idx = |x: &C::E| -> EResult<usize> {
                    let v = x.to_val();
                    // A Boolean dimension (`x[Boolean]`) is indexed by `false`, `true`.
                    match (&v, ty) {
                        (Some(Val::Bool(b)), DimType::Boolean) => return Ok(usize::from(*b)),
                        (Some(Val::Bool(_)), _) => {
                            return Err(err(
                                e.span,
                                "a Boolean subscript needs a dimension declared with `Boolean`",
                            ));
                        }
                        (Some(_), DimType::Boolean) => {
                            return Err(err(
                                e.span,
                                "this dimension is indexed by `false` and `true`",
                            ));
                        }
                        _ => {}
                    }
                    match v.and_then(|v| v.as_int()) {
                        Some(i) if i >= 1 && (i as usize) <= n => Ok(i as usize - 1),
                        Some(i) => Err(err(e.span, format!("index {i} is out of bounds 1..{n}"))),
                        None => Err(err(
                            e.span,
                            "a subscript must be a constant Integer here (variable indices are not supported)",
                        )),
                    }
                };
                if v.is_scalar() {
                    out.push((vec![idx(&v.data[0])?], false));
                } else if v.dims.len() == 1 {
                    out.push((v.data.iter().map(idx).collect::<EResult<_>>()?, true));
                } else {
                    return Err(err(
                        e.span,
                        "a subscript must be a scalar or a vector of indices",
                    ));
                }
            }
        }
    }
    Ok(out)
}

fn comprehension<C: Ctx>(
    ctx: &mut C,
    body: &[ast::Expr],
    iters: &[ast::ForIndex],
    span: Span,
) -> EResult<Vec<Tensor<C::E>>> {
    let Some(expr) = body.first() else {
        return Err(err(span, "empty array constructor"));
    };
    let Some((first, rest)) = iters.split_first() else {
        return Ok(vec![eval(ctx, expr)?]);
    };
    let values = match &first.range {
        Some(r) => eval(ctx, r)?,
        None => {
            let mut uses = Vec::new();
            super::implicit::in_exprs(
                &first.name.name,
                &body.iter().collect::<Vec<_>>(),
                &mut uses,
            );
            ctx.implicit_range(&first.name, &uses)?
        }
    };
    let mut items = Vec::new();
    let at = first.range.as_ref().map_or(span, |r| r.span);
    let n = super::tensor::range_len(&values.dims).map_err(|m| err(at, &m))?;
    for k in 0..n {
        ctx.push_local(&first.name.name, values.row(k));
        let inner = comprehension(ctx, body, rest, span);
        ctx.pop_local();
        items.push(inner?.swap_remove(0));
    }
    Ok(vec![Tensor::stack(items).map_err(|m| err(span, m))?])
}

pub(crate) fn builtin_of(name: &str) -> Option<Builtin> {
    use Builtin::*;
    Some(match name {
        "sin" => Sin,
        "cos" => Cos,
        "tan" => Tan,
        "asin" => Asin,
        "acos" => Acos,
        "atan" => Atan,
        "atan2" => Atan2,
        "sinh" => Sinh,
        "cosh" => Cosh,
        "tanh" => Tanh,
        "exp" => Exp,
        "log" => Log,
        "log10" => Log10,
        "sqrt" => Sqrt,
        "abs" => Abs,
        "sign" => Sign,
        "floor" => Floor,
        "ceil" => Ceil,
        "integer" => Integer,
        "div" => Div,
        "mod" => Mod,
        "rem" => Rem,
        "semiLinear" => SemiLinear,
        _ => return None,
    })
}

/// Names the generic evaluator handles (used to avoid looking them up as classes).
pub fn is_generic_builtin(name: &str) -> bool {
    builtin_of(name).is_some()
        || matches!(
            name,
            "min"
                | "max"
                | "size"
                | "ndims"
                | "zeros"
                | "ones"
                | "fill"
                | "identity"
                | "diagonal"
                | "transpose"
                | "cross"
                | "skew"
                | "sum"
                | "product"
                | "cat"
                | "linspace"
                | "vector"
                | "scalar"
                | "matrix"
                | "outerProduct"
                | "symmetric"
                | "homotopy"
                | "Real"
                | "Integer"
                | "Boolean"
                | "String"
        )
}

/// A call: a built-in, or whatever the context resolves. Returns all outputs.
pub fn call<C: Ctx>(
    ctx: &mut C,
    func: &ast::ComponentRef,
    args: &ast::FunctionArgs,
    span: Span,
) -> EResult<Vec<Tensor<C::E>>> {
    let name = cref_name(func);
    if func.parts.len() == 1 && is_generic_builtin(&name) && !ctx.shadows_builtin(func) {
        return Ok(vec![call_builtin(ctx, &name, args, span)?]);
    }
    match ctx.call(func, args, span)? {
        Some(outs) => Ok(outs),
        None => Err(err(func.span, format!("unknown function `{name}`"))),
    }
}

fn call_builtin<C: Ctx>(
    ctx: &mut C,
    name: &str,
    args: &ast::FunctionArgs,
    span: Span,
) -> EResult<Tensor<C::E>> {
    if name == "String" {
        return string_of(ctx, args, span);
    }
    let merged;
    let args = if args.named.is_empty() {
        args
    } else {
        merged = named_to_positional(name, args)?;
        &merged
    };
    let nargs = args.positional.len();
    let c = BuiltinCall { name, nargs, span };
    // Reductions with iterators: `sum(x[i] for i in 1:n)`.
    // Arguments that give sizes or dimensions are structural.
    let structural = |k: usize| match name {
        "zeros" | "ones" | "identity" => true,
        "fill" => k >= 1,
        "cat" => k == 0,
        "linspace" => k == 2,
        "size" => k == 1,
        _ => false,
    };
    let mut vals: Vec<Tensor<C::E>> = if !args.iterators.is_empty() {
        comprehension(ctx, &args.positional, &args.iterators, span)?
    } else {
        let mut v = Vec::with_capacity(args.positional.len());
        for (k, a) in args.positional.iter().enumerate() {
            v.push(if structural(k) {
                eval_structural(ctx, a)?
            } else {
                eval(ctx, a)?
            });
        }
        v
    };
    if let Some(b) = builtin_of(name) {
        c.need(1)?;
        if vals.len() == 1 {
            let v = vals.swap_remove(0);
            return c.lift(v.try_map(|x| C::E::builtin(b, vec![x])));
        }
        // Several arguments: element-wise over those that are arrays (MLS 12.4.6).
        return c.lift(tensor::vectorized(vals, |a| C::E::builtin(b, a)));
    }
    match name {
        "min" | "max" | "sum" | "product" => reduction_builtin(&c, vals),
        "zeros" | "ones" | "fill" | "identity" | "linspace" | "cat" => {
            construction_builtin(&c, vals)
        }
        "size" | "ndims" | "vector" | "scalar" | "matrix" | "diagonal" | "transpose"
        | "symmetric" => shape_builtin(&c, vals),
        _ => algebra_conversion_builtin(&c, vals),
    }
}

/// A call of a built-in function: its name, the number of arguments given, where.
struct BuiltinCall<'a> {
    name: &'a str,
    nargs: usize,
    span: Span,
}

impl BuiltinCall<'_> {
    /// At least `n` arguments.
    fn need(&self, n: usize) -> EResult<()> {
        if self.nargs < n {
            Err(err(
                self.span,
                format!("`{}` needs {n} argument(s), got {}", self.name, self.nargs),
            ))
        } else {
            Ok(())
        }
    }

    /// An element-level error located at the call and prefixed with the function's name.
    fn lift<T>(&self, r: Result<T, String>) -> EResult<T> {
        r.map_err(|m| err(self.span, format!("{}: {m}", self.name)))
    }

    /// A size argument: a constant non-negative Integer scalar.
    fn int_arg<E: Elem>(&self, t: &Tensor<E>) -> EResult<usize> {
        t.data
            .first()
            .and_then(|x| x.to_val())
            .and_then(|v| v.as_int())
            .filter(|i| *i >= 0 && t.is_scalar())
            .map(|i| i as usize)
            .ok_or_else(|| {
                err(
                    self.span,
                    format!("`{}` needs constant non-negative Integer sizes", self.name),
                )
            })
    }
}

/// Reductions: `min`, `max` (of an array, or of two arguments element-wise), `sum`, `product`.
fn reduction_builtin<E: Elem>(c: &BuiltinCall, mut vals: Vec<Tensor<E>>) -> EResult<Tensor<E>> {
    match c.name {
        "min" | "max" => {
            let b = if c.name == "min" {
                Builtin::Min
            } else {
                Builtin::Max
            };
            c.need(1)?;
            if vals.len() == 1 {
                let v = vals.swap_remove(0);
                return c.lift(tensor::reduce_builtin(b, v).map(Tensor::scalar));
            }
            let y = vals.swap_remove(1);
            let x = vals.swap_remove(0);
            if x.is_scalar() && y.is_scalar() {
                c.lift(
                    E::builtin(b, vec![x.data[0].clone(), y.data[0].clone()]).map(Tensor::scalar),
                )
            } else if x.dims == y.dims {
                let data = x
                    .data
                    .into_iter()
                    .zip(y.data)
                    .map(|(a, c)| E::builtin(b, vec![a, c]))
                    .collect::<Result<_, _>>();
                c.lift(data.map(|d| Tensor {
                    dims: x.dims,
                    data: d,
                }))
            } else {
                Err(err(
                    c.span,
                    format!("`{}` of arrays with different sizes", c.name),
                ))
            }
        }
        "sum" | "product" => {
            c.need(1)?;
            let op = if c.name == "sum" {
                BinOp::Add
            } else {
                BinOp::Mul
            };
            c.lift(tensor::reduce(op, vals.swap_remove(0)).map(Tensor::scalar))
        }
        _ => Err(err(c.span, format!("unknown function `{}`", c.name))),
    }
}

/// Array constructors: `zeros`, `ones`, `fill`, `identity`, `linspace`, `cat`.
fn construction_builtin<E: Elem>(c: &BuiltinCall, mut vals: Vec<Tensor<E>>) -> EResult<Tensor<E>> {
    match c.name {
        "zeros" | "ones" => {
            let dims = vals
                .iter()
                .map(|t| c.int_arg(t))
                .collect::<EResult<Vec<_>>>()?;
            super::size_limit::element_count(&dims).map_err(|m| err(c.span, m))?;
            Ok(tensor::fill(E::int(i64::from(c.name == "ones")), dims))
        }
        "fill" => {
            c.need(1)?;
            let dims = vals[1..]
                .iter()
                .map(|t| c.int_arg(t))
                .collect::<EResult<Vec<_>>>()?;
            let x = vals.swap_remove(0);
            let mut full = Vec::new();
            let mut all = dims.clone();
            all.extend(&x.dims);
            super::size_limit::element_count(&all).map_err(|m| err(c.span, m))?;
            let n: usize = dims.iter().product();
            for _ in 0..n {
                full.extend(x.data.iter().cloned());
            }
            let mut d = dims;
            d.extend(x.dims);
            Ok(Tensor {
                dims: d,
                data: full,
            })
        }
        "identity" => {
            c.need(1)?;
            Ok(tensor::identity(c.int_arg(&vals[0])?))
        }
        "linspace" => {
            c.need(3)?;
            let n = c.int_arg(&vals[2])?;
            let a = vals[0].clone().into_scalar().map_err(|m| err(c.span, m))?;
            let b = vals[1].clone().into_scalar().map_err(|m| err(c.span, m))?;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                // a + (b - a) * (i / (n - 1))
                let frac = if n > 1 {
                    i as f64 / (n - 1) as f64
                } else {
                    0.0
                };
                let d = E::binary(BinOp::Sub, b.clone(), a.clone()).map_err(|m| err(c.span, m))?;
                let t = E::binary(BinOp::Mul, d, E::real(frac)).map_err(|m| err(c.span, m))?;
                out.push(E::binary(BinOp::Add, a.clone(), t).map_err(|m| err(c.span, m))?);
            }
            Ok(Tensor::vector(out))
        }
        "cat" => {
            c.need(1)?;
            let k = c.int_arg(&vals[0])?;
            if k == 0 {
                return Err(err(c.span, "cat: the dimension must be at least 1"));
            }
            let items = vals.split_off(1);
            c.lift(tensor::cat(k - 1, items))
        }
        _ => Err(err(c.span, format!("unknown function `{}`", c.name))),
    }
}

/// Dimensions and reshaping: `size`, `ndims`, `vector`, `scalar`, `matrix`, `diagonal`,
/// `transpose`, `symmetric`.
fn shape_builtin<E: Elem>(c: &BuiltinCall, mut vals: Vec<Tensor<E>>) -> EResult<Tensor<E>> {
    match c.name {
        "size" => {
            c.need(1)?;
            let dims = vals[0].dims.clone();
            if vals.len() >= 2 {
                let k = c.int_arg(&vals[1])?;
                match dims.get(k.wrapping_sub(1)) {
                    Some(d) => Ok(Tensor::scalar(E::int(*d as i64))),
                    None => Err(err(
                        c.span,
                        format!(
                            "size: dimension {k} does not exist (the array has {})",
                            dims.len()
                        ),
                    )),
                }
            } else {
                Ok(Tensor::vector(
                    dims.iter().map(|d| E::int(*d as i64)).collect(),
                ))
            }
        }
        "ndims" => {
            c.need(1)?;
            Ok(Tensor::scalar(E::int(vals[0].dims.len() as i64)))
        }
        "vector" => {
            c.need(1)?;
            let v = vals.swap_remove(0);
            Ok(Tensor::vector(v.data))
        }
        "scalar" => {
            c.need(1)?;
            let v = vals.swap_remove(0);
            if v.len() != 1 {
                return Err(err(
                    c.span,
                    "scalar: the array must have exactly one element",
                ));
            }
            Ok(Tensor::scalar(v.data[0].clone()))
        }
        "matrix" => {
            c.need(1)?;
            let v = vals.swap_remove(0);
            let rows = v.dims.first().copied().unwrap_or(1);
            let cols = if v.is_empty() || rows == 0 {
                0
            } else {
                v.len() / rows
            };
            Ok(Tensor::new(vec![rows, cols], v.data))
        }
        "diagonal" => {
            c.need(1)?;
            c.lift(tensor::diagonal(vals.swap_remove(0)))
        }
        "transpose" => {
            c.need(1)?;
            c.lift(vals[0].transpose())
        }
        "symmetric" => {
            c.need(1)?;
            let a = &vals[0];
            if a.dims.len() != 2 || a.dims[0] != a.dims[1] {
                return Err(err(c.span, "symmetric needs a square matrix"));
            }
            let n = a.dims[0];
            let mut data = a.data.clone();
            for i in 0..n {
                for j in 0..i {
                    data[i * n + j] = a.data[j * n + i].clone();
                }
            }
            Ok(Tensor::new(vec![n, n], data))
        }
        _ => Err(err(c.span, format!("unknown function `{}`", c.name))),
    }
}

/// Vector algebra (`cross`, `skew`, `outerProduct`), `homotopy`, and the conversions `Real`,
/// `Integer`, `Boolean`.
fn algebra_conversion_builtin<E: Elem>(
    c: &BuiltinCall,
    mut vals: Vec<Tensor<E>>,
) -> EResult<Tensor<E>> {
    match c.name {
        "cross" => {
            c.need(2)?;
            let b = vals.swap_remove(1);
            c.lift(tensor::cross(vals.swap_remove(0), b))
        }
        "skew" => {
            c.need(1)?;
            c.lift(tensor::skew(vals.swap_remove(0)))
        }
        "outerProduct" => {
            c.need(2)?;
            let (a, b) = (vals[0].clone(), vals[1].clone());
            let (n, m) = (a.len(), b.len());
            let mut data = Vec::with_capacity(n * m);
            for x in &a.data {
                for y in &b.data {
                    data.push(
                        E::binary(BinOp::Mul, x.clone(), y.clone()).map_err(|m| err(c.span, m))?,
                    );
                }
            }
            Ok(Tensor::new(vec![n, m], data))
        }
        "homotopy" => {
            // Both kept: initialization starts from `simplified` (MLS 3.7.4.1).
            c.need(2)?;
            let s = vals.swap_remove(1);
            let a = vals.swap_remove(0);
            if a.dims != s.dims {
                return Err(err(
                    c.span,
                    "the arguments of `homotopy` must have the same size",
                ));
            }
            let data = a
                .data
                .into_iter()
                .zip(s.data)
                .map(|(x, y)| E::builtin(Builtin::Homotopy, vec![x, y]))
                .collect::<Result<_, _>>();
            c.lift(data.map(|d| Tensor {
                dims: a.dims,
                data: d,
            }))
        }
        "Real" => {
            c.need(1)?;
            let v = vals.swap_remove(0);
            c.lift(v.try_map(|x| {
                match x.to_val() {
                    Some(v) => v
                        .as_f64()
                        .map(E::real)
                        .ok_or_else(|| "cannot convert to Real".to_string()),
                    None => Ok(x),
                }
            }))
        }
        "Integer" => {
            c.need(1)?;
            Ok(vals.swap_remove(0))
        }
        "Boolean" => {
            c.need(1)?;
            Ok(vals.swap_remove(0))
        }
        _ => Err(err(c.span, format!("unknown function `{}`", c.name))),
    }
}

/// `String(x, significantDigits=, minimumLength=, leftJustified=, format=)` (MLS 3.7.1):
/// constants are formatted now, other values become a conversion the simulator formats.
fn string_of<C: Ctx>(ctx: &mut C, args: &ast::FunctionArgs, span: Span) -> EResult<Tensor<C::E>> {
    let [x] = args.positional.as_slice() else {
        return Err(err(
            span,
            "`String` takes one positional argument; give its options by name (significantDigits, minimumLength, leftJustified, format)",
        ));
    };
    let mut fmt = StringFormat::default();
    for na in &args.named {
        let v = eval_structural(ctx, &na.value)?
            .into_scalar()
            .ok()
            .and_then(|v| v.to_val());
        let bad = |what: &str| {
            err(
                na.value.span,
                format!("`{}` of `String` must be {what}", na.name.name),
            )
        };
        match na.name.name.as_str() {
            "significantDigits" => {
                fmt.significant_digits = v
                    .and_then(|v| v.as_int())
                    .filter(|i| (1..=40).contains(i))
                    .ok_or_else(|| bad("a constant Integer between 1 and 40"))?
                    as u32
            }
            "minimumLength" => {
                fmt.min_length = v
                    .and_then(|v| v.as_int())
                    .filter(|i| (0..=10_000).contains(i))
                    .ok_or_else(|| bad("a constant non-negative Integer"))?
                    as usize
            }
            "leftJustified" => {
                fmt.left_justified = v
                    .and_then(|v| v.as_bool())
                    .ok_or_else(|| bad("a constant Boolean"))?
            }
            "format" => match v {
                Some(Val::Str(s)) => fmt.format = Some(s),
                _ => return Err(bad("a constant String")),
            },
            other => {
                return Err(err(
                    na.name.span,
                    format!("`String` has no argument named `{other}`"),
                )
                .with_help(
                    "its options are significantDigits, minimumLength, leftJustified and format",
                ));
            }
        }
    }
    if fmt.format.is_some() {
        // Checked now, so a bad format is reported at its place and not when a message shows.
        fmt.apply(0.0, ValueKind::Real)
            .map_err(|m| err(args.span, m))?;
    }
    fmt.literals = ctx.enum_literals(x);
    let v = eval(ctx, x)?;
    let x = v.into_scalar().map_err(|_| {
        err(
            x.span,
            "`String` needs a scalar argument (convert the elements one by one)",
        )
    })?;
    let text = |r: Result<String, String>| -> EResult<C::E> {
        r.map(|s| C::E::from_val(Val::Str(s)))
            .map_err(|m| err(span, m))
    };
    let out = match x.to_val() {
        Some(Val::Real(r)) => text(fmt.apply(r, ValueKind::Real))?,
        Some(Val::Int(i)) => text(fmt.apply(i as f64, ValueKind::Integer))?,
        Some(Val::Bool(b)) => text(fmt.apply(f64::from(u8::from(b)), ValueKind::Boolean))?,
        Some(Val::Str(s)) => C::E::from_val(Val::Str(s)),
        None => C::E::string_of(x, fmt).map_err(|m| err(span, m))?,
    };
    Ok(Tensor::scalar(out))
}

/// Formal parameter names of the built-ins that are called with named arguments (MLS 3.7).
fn builtin_params(name: &str) -> &'static [&'static str] {
    match name {
        "homotopy" => &["actual", "simplified"],
        "linspace" => &["x1", "x2", "n"],
        "semiLinear" => &["x", "k1", "k2"],
        "atan2" => &["u1", "u2"],
        "div" | "mod" | "rem" => &["x", "y"],
        "min" | "max" => &["x", "y"],
        _ => &[],
    }
}

/// A built-in call's arguments with the named ones moved to their positions, so the built-ins
/// below only see positional arguments.
fn named_to_positional(name: &str, args: &ast::FunctionArgs) -> EResult<ast::FunctionArgs> {
    let params = builtin_params(name);
    let names: Vec<String> = params.iter().map(|s| s.to_string()).collect();
    if params.is_empty() {
        let na = &args.named[0];
        return Err(err(
            na.name.span,
            format!(
                "`{name}` takes no named arguments (`{}` is not supported here)",
                na.name.name
            ),
        ));
    }
    let bound = bind_args(&names, args, name, args.span)?;
    let mut positional = Vec::with_capacity(bound.len());
    for (k, b) in bound.iter().enumerate() {
        match b {
            Some(e) => positional.push((*e).clone()),
            None if bound[k..].iter().all(|x| x.is_none()) => break,
            None => {
                return Err(err(
                    args.span,
                    format!("`{name}`: argument `{}` is missing", params[k]),
                ));
            }
        }
    }
    Ok(ast::FunctionArgs {
        positional,
        named: Vec::new(),
        iterators: args.iterators.clone(),
        span: args.span,
    })
}

/// Binds the arguments of a call to the named inputs of a function: positional first, then
/// named; missing ones are `None` (their defaults apply).
pub fn bind_args<'a, S: AsRef<str>>(
    inputs: &[S],
    args: &'a ast::FunctionArgs,
    fname: &str,
    span: Span,
) -> EResult<Vec<Option<&'a ast::Expr>>> {
    if args.positional.len() > inputs.len() {
        return Err(err(
            span,
            format!(
                "`{fname}` takes {} input(s) but {} were given",
                inputs.len(),
                args.positional.len()
            ),
        ));
    }
    let mut out: Vec<Option<&ast::Expr>> = vec![None; inputs.len()];
    for (i, a) in args.positional.iter().enumerate() {
        out[i] = Some(a);
    }
    for na in &args.named {
        match inputs.iter().position(|n| n.as_ref() == na.name.name) {
            Some(i) if out[i].is_none() => out[i] = Some(&na.value),
            Some(_) => {
                return Err(err(
                    na.name.span,
                    format!("input `{}` of `{fname}` is given twice", na.name.name),
                ));
            }
            None => {
                let mut d = err(
                    na.name.span,
                    format!("`{fname}` has no input named `{}`", na.name.name),
                );
                if let Some(c) =
                    crate::flatten::suggest(&na.name.name, inputs.iter().map(|s| s.as_ref()))
                {
                    d = d.with_help(format!("did you mean `{c}`?"));
                }
                return Err(d);
            }
        }
    }
    Ok(out)
}
