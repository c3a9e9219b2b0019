//! Arrays of scalars and the array built-ins (MLS 10), written once for two element types:
//! symbolic flat expressions ([`dae::Expr`], used while flattening) and numeric values
//! ([`Val`], used by the function interpreter and constant evaluation).

use crate::dae::{self, BinOp, Builtin, UnOp};

/// A numeric scalar value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Real(f64),
    Int(i64),
    Bool(bool),
    Str(String),
}

impl Val {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Real(x) => Some(*x),
            Val::Int(i) => Some(*i as f64),
            Val::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Val::Str(_) => None,
        }
    }
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Real(x) if x.fract() == 0.0 && x.abs() < 9e15 => Some(*x as i64),
            Val::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Val::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn type_name(&self) -> &'static str {
        match self {
            Val::Real(_) => "Real",
            Val::Int(_) => "Integer",
            Val::Bool(_) => "Boolean",
            Val::Str(_) => "String",
        }
    }
}

/// Applies a binary operator to two scalar values (Integer arithmetic stays Integer except `/`
/// and `^`, as in MLS 10.6).
pub fn val_binary(op: BinOp, a: &Val, b: &Val) -> Result<Val, String> {
    use Val::*;
    match op {
        BinOp::And | BinOp::Or => match (a, b) {
            (Bool(x), Bool(y)) => Ok(Bool(if op == BinOp::And { *x && *y } else { *x || *y })),
            _ => Err(format!(
                "`and`/`or` need Boolean operands, got {} and {}",
                a.type_name(),
                b.type_name()
            )),
        },
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
            let ord = match (a, b) {
                (Str(x), Str(y)) => x.partial_cmp(y),
                (Bool(x), Bool(y)) => x.partial_cmp(y),
                _ => {
                    let (x, y) = (num(a)?, num(b)?);
                    x.partial_cmp(&y)
                }
            };
            let Some(o) = ord else { return Ok(Bool(false)) };
            use std::cmp::Ordering::*;
            Ok(Bool(match op {
                BinOp::Lt => o == Less,
                BinOp::Le => o != Greater,
                BinOp::Gt => o == Greater,
                BinOp::Ge => o != Less,
                BinOp::Eq => o == Equal,
                _ => o != Equal,
            }))
        }
        BinOp::Add if matches!((a, b), (Str(_), Str(_))) => match (a, b) {
            (Str(x), Str(y)) => Ok(Str(format!("{x}{y}"))),
            _ => unreachable!(),
        },
        _ => {
            if let (Int(x), Int(y)) = (a, b) {
                let r = match op {
                    BinOp::Add => x.checked_add(*y),
                    BinOp::Sub => x.checked_sub(*y),
                    BinOp::Mul => x.checked_mul(*y),
                    _ => None,
                };
                if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) {
                    return int_in_range(r, || format!("{x} {} {y}", op_text(op))).map(Int);
                }
            }
            let (x, y) = (num(a)?, num(b)?);
            Ok(Real(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => pow(x, y),
            }))
        }
    }
}

/// Integer arithmetic stays within 32 bits (MLS 4.9.2 asks for at least 32; the MSL's
/// `Integer_inf` is 2147483647): a result outside is an error naming the operation, never a
/// silent switch to Real or a wrapped value.
fn int_in_range(r: Option<i64>, what: impl Fn() -> String) -> Result<i64, String> {
    match r {
        Some(r) if i32::try_from(r).is_ok() => Ok(r),
        _ => Err(format!(
            "Integer overflow: `{}` is outside the 32-bit Integer range [{}, {}]",
            what(),
            i32::MIN,
            i32::MAX
        )),
    }
}

fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        _ => "^",
    }
}

pub(crate) fn pow(x: f64, y: f64) -> f64 {
    if y.fract() == 0.0 && y.abs() < 64.0 {
        x.powi(y as i32)
    } else {
        x.powf(y)
    }
}

fn num(v: &Val) -> Result<f64, String> {
    match v {
        Val::Real(x) => Ok(*x),
        Val::Int(i) => Ok(*i as f64),
        _ => Err(format!("expected a number, got a {}", v.type_name())),
    }
}

pub fn val_unary(op: UnOp, a: &Val) -> Result<Val, String> {
    match (op, a) {
        (UnOp::Neg, Val::Int(i)) => int_in_range(i.checked_neg(), || format!("-{i}")).map(Val::Int),
        (UnOp::Neg, Val::Real(x)) => Ok(Val::Real(-x)),
        (UnOp::Not, Val::Bool(b)) => Ok(Val::Bool(!b)),
        (UnOp::Neg, v) => Err(format!("cannot negate a {}", v.type_name())),
        (UnOp::Not, v) => Err(format!("`not` needs a Boolean, got a {}", v.type_name())),
    }
}

pub fn val_builtin(f: Builtin, args: &[Val]) -> Result<Val, String> {
    let x = |i: usize| -> Result<f64, String> {
        args.get(i)
            .ok_or_else(|| "missing argument".to_string())
            .and_then(num)
    };
    use Builtin::*;
    let all_int = args.iter().all(|a| matches!(a, Val::Int(_)));
    // Integer in, Integer out (Modelica's min, max, div, mod and rem keep the argument type).
    let like_args = |r: f64| {
        if all_int {
            Val::Int(r as i64)
        } else {
            Val::Real(r)
        }
    };
    Ok(match f {
        Sin => Val::Real(x(0)?.sin()),
        Cos => Val::Real(x(0)?.cos()),
        Tan => Val::Real(x(0)?.tan()),
        Asin => Val::Real(x(0)?.asin()),
        Acos => Val::Real(x(0)?.acos()),
        Atan => Val::Real(x(0)?.atan()),
        Atan2 => Val::Real(x(0)?.atan2(x(1)?)),
        Sinh => Val::Real(x(0)?.sinh()),
        Cosh => Val::Real(x(0)?.cosh()),
        Tanh => Val::Real(x(0)?.tanh()),
        Exp => Val::Real(x(0)?.exp()),
        Log => Val::Real(x(0)?.ln()),
        Log10 => Val::Real(x(0)?.log10()),
        Sqrt => Val::Real(x(0)?.sqrt()),
        Abs => match args.first() {
            Some(Val::Int(i)) => Val::Int(i.abs()),
            _ => Val::Real(x(0)?.abs()),
        },
        Sign => {
            let v = x(0)?;
            Val::Int(if v > 0.0 {
                1
            } else if v < 0.0 {
                -1
            } else {
                0
            })
        }
        Min | Max if matches!(args, [Val::Bool(_), Val::Bool(_)]) => {
            // Booleans are ordered false < true (MLS 10.3.4): `min` is `and`, `max` is `or`.
            let (Val::Bool(a), Val::Bool(b)) = (&args[0], &args[1]) else {
                unreachable!()
            };
            Val::Bool(if f == Min { *a && *b } else { *a || *b })
        }
        Min | Max => {
            let (a, b) = (x(0)?, x(1)?);
            let r = if f == Min { a.min(b) } else { a.max(b) };
            like_args(r)
        }
        Floor => Val::Real(x(0)?.floor()),
        Ceil => Val::Real(x(0)?.ceil()),
        Integer => Val::Int(x(0)?.floor() as i64),
        Div => like_args((x(0)? / x(1)?).trunc()),
        Mod => {
            let (a, b) = (x(0)?, x(1)?);
            let r = a - (a / b).floor() * b;
            like_args(r)
        }
        Rem => {
            let (a, b) = (x(0)?, x(1)?);
            let r = a - (a / b).trunc() * b;
            like_args(r)
        }
        SemiLinear => {
            let (v, k1, k2) = (x(0)?, x(1)?, x(2)?);
            Val::Real(if v >= 0.0 { v * k1 } else { v * k2 })
        }
        // A constant delayed is the constant.
        Delay => args.first().cloned().ok_or("delay needs an argument")?,
        // A value outside initialization: the actual one.
        Homotopy => args
            .first()
            .cloned()
            .ok_or("homotopy needs two arguments")?,
        // A constant clock condition: the condition (it never rises).
        EventClock => args.first().cloned().ok_or("Clock needs an argument")?,
    })
}

/// The scalar element of a [`Tensor`]: either a symbolic expression or a value.
pub trait Elem: Clone + std::fmt::Debug {
    fn from_val(v: Val) -> Self;
    /// The value when the element is a constant.
    fn to_val(&self) -> Option<Val>;
    fn binary(op: BinOp, a: Self, b: Self) -> Result<Self, String>;
    fn unary(op: UnOp, a: Self) -> Result<Self, String>;
    fn builtin(f: Builtin, args: Vec<Self>) -> Result<Self, String>;
    /// `if c then a else b`.
    fn select(c: Self, a: Self, b: Self) -> Result<Self, String>;
    /// `String(x, ...)` of an element that is not a constant (constants are formatted by the
    /// caller).
    fn string_of(_x: Self, _f: dae::StringFormat) -> Result<Self, String> {
        Err("String(x) needs a value here".into())
    }
    /// Whether the element is known to be an Integer (for result types of `+`, `sum`...).
    fn is_int(&self) -> bool {
        matches!(self.to_val(), Some(Val::Int(_)))
    }
    fn real(x: f64) -> Self {
        Self::from_val(Val::Real(x))
    }
    fn int(i: i64) -> Self {
        Self::from_val(Val::Int(i))
    }
}

impl Elem for Val {
    fn from_val(v: Val) -> Self {
        v
    }
    fn to_val(&self) -> Option<Val> {
        Some(self.clone())
    }
    fn binary(op: BinOp, a: Self, b: Self) -> Result<Self, String> {
        val_binary(op, &a, &b)
    }
    fn unary(op: UnOp, a: Self) -> Result<Self, String> {
        val_unary(op, &a)
    }
    fn builtin(f: Builtin, args: Vec<Self>) -> Result<Self, String> {
        val_builtin(f, &args)
    }
    fn select(c: Self, a: Self, b: Self) -> Result<Self, String> {
        match c {
            Val::Bool(true) => Ok(a),
            Val::Bool(false) => Ok(b),
            v => Err(format!(
                "an if-condition must be Boolean, got a {}",
                v.type_name()
            )),
        }
    }
}

fn val_to_expr(v: Val) -> dae::Expr {
    match v {
        Val::Real(x) => dae::Expr::Real(x),
        Val::Int(i) => dae::Expr::Integer(i),
        Val::Bool(b) => dae::Expr::Boolean(b),
        Val::Str(s) => dae::Expr::String(s),
    }
}

fn is_zero(e: &dae::Expr) -> bool {
    matches!(e, dae::Expr::Real(x) if *x == 0.0) || matches!(e, dae::Expr::Integer(0))
}
fn is_one(e: &dae::Expr) -> bool {
    matches!(e, dae::Expr::Real(x) if *x == 1.0) || matches!(e, dae::Expr::Integer(1))
}

impl Elem for dae::Expr {
    fn from_val(v: Val) -> Self {
        val_to_expr(v)
    }
    fn string_of(x: Self, f: dae::StringFormat) -> Result<Self, String> {
        Ok(dae::Expr::ToString(Box::new(x), f))
    }
    fn to_val(&self) -> Option<Val> {
        match self {
            dae::Expr::Real(x) => Some(Val::Real(*x)),
            dae::Expr::Integer(i) => Some(Val::Int(*i)),
            dae::Expr::Boolean(b) => Some(Val::Bool(*b)),
            dae::Expr::String(s) => Some(Val::Str(s.clone())),
            _ => None,
        }
    }
    fn binary(op: BinOp, a: Self, b: Self) -> Result<Self, String> {
        if let (Some(x), Some(y)) = (a.to_val(), b.to_val()) {
            return val_binary(op, &x, &y).map(val_to_expr);
        }
        // Light simplification keeps expanded matrix products readable (zeros of `skew`,
        // ones of `identity`); it never changes the value of a finite expression.
        match op {
            BinOp::Add if is_zero(&a) => return Ok(b),
            BinOp::Add | BinOp::Sub if is_zero(&b) => return Ok(a),
            BinOp::Sub if is_zero(&a) => return Ok(dae::Expr::neg(b)),
            BinOp::Mul if is_zero(&a) || is_zero(&b) => {
                let int = a.is_int() && b.is_int();
                return Ok(if int {
                    dae::Expr::Integer(0)
                } else {
                    dae::Expr::Real(0.0)
                });
            }
            BinOp::Mul if is_one(&a) => return Ok(b),
            BinOp::Mul | BinOp::Div if is_one(&b) => return Ok(a),
            _ => {}
        }
        Ok(dae::Expr::binary(op, a, b))
    }
    fn unary(op: UnOp, a: Self) -> Result<Self, String> {
        if let Some(x) = a.to_val() {
            return val_unary(op, &x).map(val_to_expr);
        }
        if let (UnOp::Neg, dae::Expr::Unary(UnOp::Neg, inner)) = (op, &a) {
            return Ok((**inner).clone());
        }
        Ok(dae::Expr::Unary(op, Box::new(a)))
    }
    fn builtin(f: Builtin, args: Vec<Self>) -> Result<Self, String> {
        let vals: Option<Vec<Val>> = args.iter().map(|a| a.to_val()).collect();
        if let Some(vals) = vals {
            return val_builtin(f, &vals).map(val_to_expr);
        }
        Ok(dae::Expr::Call(f, args))
    }
    fn select(c: Self, a: Self, b: Self) -> Result<Self, String> {
        match c.to_val() {
            Some(Val::Bool(true)) => Ok(a),
            Some(Val::Bool(false)) => Ok(b),
            Some(v) => Err(format!(
                "an if-condition must be Boolean, got a {}",
                v.type_name()
            )),
            None => {
                if a == b {
                    return Ok(a);
                }
                // Merge nested ifs so `if a then x elseif b then y else z` stays flat.
                match b {
                    dae::Expr::If {
                        mut branches,
                        else_,
                    } => {
                        branches.insert(0, (c, a));
                        Ok(dae::Expr::If { branches, else_ })
                    }
                    b => Ok(dae::Expr::If {
                        branches: vec![(c, a)],
                        else_: Box::new(b),
                    }),
                }
            }
        }
    }
    fn is_int(&self) -> bool {
        match self {
            dae::Expr::Integer(_) => true,
            dae::Expr::Binary(op, a, b) => {
                matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) && a.is_int() && b.is_int()
            }
            dae::Expr::Unary(UnOp::Neg, a) => a.is_int(),
            _ => false,
        }
    }
}

/// A row-major array of scalars with its dimensions (`dims` empty for a scalar).
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor<T> {
    pub dims: Vec<usize>,
    pub data: Vec<T>,
}

impl<T: Clone> Tensor<T> {
    pub fn scalar(x: T) -> Tensor<T> {
        Tensor {
            dims: vec![],
            data: vec![x],
        }
    }
    pub fn vector(v: Vec<T>) -> Tensor<T> {
        Tensor {
            dims: vec![v.len()],
            data: v,
        }
    }
    pub fn new(dims: Vec<usize>, data: Vec<T>) -> Tensor<T> {
        debug_assert_eq!(dims.iter().product::<usize>(), data.len());
        Tensor { dims, data }
    }
    pub fn is_scalar(&self) -> bool {
        self.dims.is_empty()
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// The scalar, or an error naming the dimensions.
    pub fn into_scalar(self) -> Result<T, String> {
        if self.dims.is_empty() || (self.data.len() == 1 && self.dims.iter().all(|d| *d == 1)) {
            self.data
                .into_iter()
                .next()
                .ok_or_else(|| "empty value".to_string())
        } else {
            Err(format!(
                "expected a scalar, got an array of size {}",
                fmt_dims(&self.dims)
            ))
        }
    }
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Tensor<U> {
        Tensor {
            dims: self.dims,
            data: self.data.into_iter().map(f).collect(),
        }
    }
    pub fn try_map<U>(self, f: impl FnMut(T) -> Result<U, String>) -> Result<Tensor<U>, String> {
        Ok(Tensor {
            dims: self.dims,
            data: self.data.into_iter().map(f).collect::<Result<_, _>>()?,
        })
    }
    /// The sub-array at index `i` (0-based) of the first dimension.
    pub fn row(&self, i: usize) -> Tensor<T> {
        let inner: usize = self.dims[1..].iter().product();
        Tensor {
            dims: self.dims[1..].to_vec(),
            data: self.data[i * inner..(i + 1) * inner].to_vec(),
        }
    }
    /// Subscripts the leading dimensions; each entry is the list of 0-based indices taken and
    /// whether the dimension is kept (a slice) or dropped (a scalar index).
    pub fn index(&self, subs: &[(Vec<usize>, bool)]) -> Result<Tensor<T>, String> {
        if subs.len() > self.dims.len() {
            return Err(format!(
                "{} subscripts on an array with {} dimensions",
                subs.len(),
                self.dims.len()
            ));
        }
        for ((idx, _), d) in subs.iter().zip(&self.dims) {
            if let Some(bad) = idx.iter().find(|i| **i >= *d) {
                return Err(format!("index {} out of bounds 1..{}", bad + 1, d));
            }
        }
        if subs.len() == self.dims.len() && subs.iter().all(|(i, keep)| i.len() == 1 && !keep) {
            // One element (`x[i, j]`): the common case, without the general bookkeeping.
            let off = subs
                .iter()
                .zip(&self.dims)
                .fold(0, |off, ((i, _), d)| off * d + i[0]);
            return Ok(Tensor::scalar(self.data[off].clone()));
        }
        let rest: Vec<usize> = self.dims[subs.len()..].to_vec();
        let inner: usize = rest.iter().product();
        let mut dims: Vec<usize> = subs
            .iter()
            .filter(|(_, keep)| *keep)
            .map(|(i, _)| i.len())
            .collect();
        dims.extend(rest);
        let mut data = Vec::with_capacity(dims.iter().product());
        // Iterate over the selected multi-indices in row-major order.
        let mut pos = vec![0usize; subs.len()];
        let count: usize = subs.iter().map(|(i, _)| i.len()).product();
        for _ in 0..count {
            let mut off = 0;
            for (k, (idx, _)) in subs.iter().enumerate() {
                off = off * self.dims[k] + idx[pos[k]];
            }
            data.extend_from_slice(&self.data[off * inner..(off + 1) * inner]);
            for k in (0..subs.len()).rev() {
                pos[k] += 1;
                if pos[k] < subs[k].0.len() {
                    break;
                }
                pos[k] = 0;
            }
        }
        Ok(Tensor { dims, data })
    }
    /// Stacks equal-sized arrays along a new first dimension (`{a, b, c}`).
    pub fn stack(items: Vec<Tensor<T>>) -> Result<Tensor<T>, String> {
        let inner = items.first().map(|t| t.dims.clone()).unwrap_or_default();
        let mut data = Vec::new();
        for t in &items {
            if t.dims != inner {
                return Err(format!(
                    "array elements have different sizes: {} and {}",
                    fmt_dims(&inner),
                    fmt_dims(&t.dims)
                ));
            }
            data.extend(t.data.iter().cloned());
        }
        let mut dims = vec![items.len()];
        dims.extend(inner);
        Ok(Tensor { dims, data })
    }
    pub fn transpose(&self) -> Result<Tensor<T>, String> {
        if self.dims.len() < 2 {
            return Err(format!(
                "transpose needs a matrix, got size {}",
                fmt_dims(&self.dims)
            ));
        }
        let (n, m) = (self.dims[0], self.dims[1]);
        let inner: usize = self.dims[2..].iter().product();
        let mut data = Vec::with_capacity(self.data.len());
        for j in 0..m {
            for i in 0..n {
                let off = (i * m + j) * inner;
                data.extend_from_slice(&self.data[off..off + inner]);
            }
        }
        let mut dims = vec![m, n];
        dims.extend_from_slice(&self.dims[2..]);
        Ok(Tensor { dims, data })
    }
}

/// Concatenation along dimension `k` (0-based), MLS `cat`.
pub fn cat<T: Clone>(k: usize, items: Vec<Tensor<T>>) -> Result<Tensor<T>, String> {
    let Some(first) = items.first() else {
        return Err("cat needs at least one array".into());
    };
    let nd = first.dims.len();
    if k >= nd {
        return Err(format!(
            "cat dimension {} exceeds the number of dimensions {}",
            k + 1,
            nd
        ));
    }
    for t in &items {
        if t.dims.len() != nd || (0..nd).any(|d| d != k && t.dims[d] != first.dims[d]) {
            return Err(format!(
                "cat: incompatible sizes {} and {}",
                fmt_dims(&first.dims),
                fmt_dims(&t.dims)
            ));
        }
    }
    let outer: usize = first.dims[..k].iter().product();
    let mut dims = first.dims.clone();
    dims[k] = items.iter().map(|t| t.dims[k]).sum();
    let mut data = Vec::with_capacity(dims.iter().product());
    for o in 0..outer {
        for t in &items {
            let chunk: usize = t.dims[k..].iter().product();
            data.extend_from_slice(&t.data[o * chunk..(o + 1) * chunk]);
        }
    }
    Ok(Tensor { dims, data })
}

/// The number of iterations of a for-loop over a value of size `dims`: its rows. MLS 11.2.2.1
/// wants a vector; a scalar is refused rather than taken as one value.
pub fn range_len(dims: &[usize]) -> Result<usize, String> {
    match dims {
        [n] => Ok(*n),
        [] => Err(
            "the range of a for-loop must be a vector (MLS 11.2.2.1), e.g. `1:n` or `{3}`, \
             not a scalar"
                .to_string(),
        ),
        _ => Err(format!(
            "the range of a for-loop must be a vector (MLS 11.2.2.1), not an array of size {}",
            fmt_dims(dims)
        )),
    }
}

pub fn fmt_dims(d: &[usize]) -> String {
    if d.is_empty() {
        "scalar".to_string()
    } else {
        format!(
            "[{}]",
            d.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// A scalar function of several arguments called with arrays (MLS 12.4.6): every argument that
/// is an array is a foreach argument, all foreach arguments must have the same sizes, the
/// others are passed as they are, and the result has the foreach arguments' sizes (so zero-size
/// arguments give an empty result, as `semiLinear(m_flow, Xi_a, Xi_b)` of a medium without
/// independent mass fractions does). One-element arrays next to differently sized foreach
/// arguments are taken as scalars, as before this rule was followed.
pub fn vectorized<T: Elem>(
    args: Vec<Tensor<T>>,
    mut f: impl FnMut(Vec<T>) -> Result<T, String>,
) -> Result<Tensor<T>, String> {
    let foreach_dims = |lenient: bool| -> Result<Option<Vec<usize>>, String> {
        let mut dims: Option<&Vec<usize>> = None;
        for a in &args {
            if a.is_scalar() || (lenient && a.len() == 1) {
                continue;
            }
            match dims {
                Some(d) if *d != a.dims => {
                    return Err(format!(
                        "sizes of the array arguments do not match: {} and {}",
                        fmt_dims(d),
                        fmt_dims(&a.dims)
                    ));
                }
                _ => dims = Some(&a.dims),
            }
        }
        Ok(dims.cloned())
    };
    let (dims, lenient) = match foreach_dims(false) {
        Ok(d) => (d, false),
        Err(e) => (foreach_dims(true).map_err(|_| e)?, true),
    };
    let Some(dims) = dims else {
        let scalars = args
            .into_iter()
            .map(Tensor::into_scalar)
            .collect::<Result<_, _>>()?;
        return Ok(Tensor::scalar(f(scalars)?));
    };
    let n: usize = dims.iter().product();
    let foreach = |a: &Tensor<T>| !(a.is_scalar() || (lenient && a.len() == 1));
    let data = (0..n)
        .map(|k| {
            let call = args
                .iter()
                .map(|a| a.data[if foreach(a) { k } else { 0 }].clone())
                .collect();
            f(call)
        })
        .collect::<Result<_, _>>()?;
    Ok(Tensor { dims, data })
}

/// Element-wise binary operation with scalar broadcasting.
pub fn elementwise<T: Elem>(op: BinOp, a: Tensor<T>, b: Tensor<T>) -> Result<Tensor<T>, String> {
    if a.is_scalar() && b.is_scalar() && a.data.len() == 1 && b.data.len() == 1 {
        // Scalar with scalar: the result reuses `a`'s storage instead of a new allocation.
        let (mut a, mut b) = (a, b);
        let (Some(x), Some(y)) = (a.data.pop(), b.data.pop()) else {
            unreachable!("both hold one element")
        };
        a.data.push(T::binary(op, x, y)?);
        return Ok(a);
    }
    if a.is_scalar() && !b.is_scalar() {
        let x = a.data[0].clone();
        return b.try_map(|y| T::binary(op, x.clone(), y));
    }
    if b.is_scalar() {
        let y = b.data[0].clone();
        return a.try_map(|x| T::binary(op, x, y.clone()));
    }
    if a.dims != b.dims {
        return Err(format!(
            "sizes do not match: {} and {}",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        ));
    }
    let dims = a.dims;
    let data = a
        .data
        .into_iter()
        .zip(b.data)
        .map(|(x, y)| T::binary(op, x, y))
        .collect::<Result<_, _>>()?;
    Ok(Tensor { dims, data })
}

fn dot<T: Elem>(a: impl Iterator<Item = T>, b: impl Iterator<Item = T>) -> Result<T, String> {
    let mut acc: Option<T> = None;
    for (x, y) in a.zip(b) {
        let p = T::binary(BinOp::Mul, x, y)?;
        acc = Some(match acc {
            None => p,
            Some(s) => T::binary(BinOp::Add, s, p)?,
        });
    }
    Ok(acc.unwrap_or_else(|| T::real(0.0)))
}

/// `a * b` with the MLS 10.6.4 rules: scalar scaling, vector dot product, matrix-vector and
/// matrix-matrix products.
pub fn multiply<T: Elem>(a: Tensor<T>, b: Tensor<T>) -> Result<Tensor<T>, String> {
    if a.is_scalar() || b.is_scalar() {
        return elementwise(BinOp::Mul, a, b);
    }
    let mismatch = || {
        format!(
            "cannot multiply arrays of sizes {} and {}",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        )
    };
    match (a.dims.len(), b.dims.len()) {
        (1, 1) => {
            if a.dims != b.dims {
                return Err(mismatch());
            }
            Ok(Tensor::scalar(dot(
                a.data.iter().cloned(),
                b.data.iter().cloned(),
            )?))
        }
        (2, 1) => {
            let (n, m) = (a.dims[0], a.dims[1]);
            if m != b.dims[0] {
                return Err(mismatch());
            }
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(dot(
                    a.data[i * m..(i + 1) * m].iter().cloned(),
                    b.data.iter().cloned(),
                )?);
            }
            Ok(Tensor::vector(out))
        }
        (1, 2) => {
            let (n, m) = (b.dims[0], b.dims[1]);
            if a.dims[0] != n {
                return Err(mismatch());
            }
            let mut out = Vec::with_capacity(m);
            for j in 0..m {
                out.push(dot(
                    a.data.iter().cloned(),
                    (0..n).map(|i| b.data[i * m + j].clone()),
                )?);
            }
            Ok(Tensor::vector(out))
        }
        (2, 2) => {
            let (n, k, m) = (a.dims[0], a.dims[1], b.dims[1]);
            if k != b.dims[0] {
                return Err(mismatch());
            }
            let mut out = Vec::with_capacity(n * m);
            for i in 0..n {
                for j in 0..m {
                    out.push(dot(
                        a.data[i * k..(i + 1) * k].iter().cloned(),
                        (0..k).map(|l| b.data[l * m + j].clone()),
                    )?);
                }
            }
            Ok(Tensor::new(vec![n, m], out))
        }
        _ => Err(mismatch()),
    }
}

pub fn cross<T: Elem>(a: Tensor<T>, b: Tensor<T>) -> Result<Tensor<T>, String> {
    if a.dims != [3] || b.dims != [3] {
        return Err(format!(
            "cross needs two 3-vectors, got {} and {}",
            fmt_dims(&a.dims),
            fmt_dims(&b.dims)
        ));
    }
    let (x, y) = (&a.data, &b.data);
    let term = |i: usize, j: usize, k: usize, l: usize| -> Result<T, String> {
        T::binary(
            BinOp::Sub,
            T::binary(BinOp::Mul, x[i].clone(), y[j].clone())?,
            T::binary(BinOp::Mul, x[k].clone(), y[l].clone())?,
        )
    };
    Ok(Tensor::vector(vec![
        term(1, 2, 2, 1)?,
        term(2, 0, 0, 2)?,
        term(0, 1, 1, 0)?,
    ]))
}

pub fn skew<T: Elem>(a: Tensor<T>) -> Result<Tensor<T>, String> {
    if a.dims != [3] {
        return Err(format!("skew needs a 3-vector, got {}", fmt_dims(&a.dims)));
    }
    let z = T::real(0.0);
    let n = |i: usize| T::unary(UnOp::Neg, a.data[i].clone());
    let d = &a.data;
    Ok(Tensor::new(
        vec![3, 3],
        vec![
            z.clone(),
            n(2)?,
            d[1].clone(),
            d[2].clone(),
            z.clone(),
            n(0)?,
            n(1)?,
            d[0].clone(),
            z,
        ],
    ))
}

/// `sum`/`product` of all elements.
pub fn reduce<T: Elem>(op: BinOp, a: Tensor<T>) -> Result<T, String> {
    let mut it = a.data.into_iter();
    let Some(mut acc) = it.next() else {
        return Ok(if op == BinOp::Mul {
            T::int(1)
        } else {
            T::int(0)
        });
    };
    for x in it {
        acc = T::binary(op, acc, x)?;
    }
    Ok(acc)
}

pub fn reduce_builtin<T: Elem>(f: Builtin, a: Tensor<T>) -> Result<T, String> {
    let mut it = a.data.into_iter();
    let Some(mut acc) = it.next() else {
        return Err("min/max of an empty array".into());
    };
    for x in it {
        acc = T::builtin(f, vec![acc, x])?;
    }
    Ok(acc)
}

pub fn identity<T: Elem>(n: usize) -> Tensor<T> {
    let mut data = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            data.push(T::int(i64::from(i == j)));
        }
    }
    Tensor::new(vec![n, n], data)
}

pub fn diagonal<T: Elem>(v: Tensor<T>) -> Result<Tensor<T>, String> {
    if v.dims.len() != 1 {
        return Err(format!(
            "diagonal needs a vector, got {}",
            fmt_dims(&v.dims)
        ));
    }
    let n = v.dims[0];
    let zero = if v.data.iter().all(|x| x.is_int()) {
        T::int(0)
    } else {
        T::real(0.0)
    };
    let mut data = vec![zero; n * n];
    for (i, x) in v.data.into_iter().enumerate() {
        data[i * n + i] = x;
    }
    Ok(Tensor::new(vec![n, n], data))
}

pub fn fill<T: Elem>(x: T, dims: Vec<usize>) -> Tensor<T> {
    let n = dims.iter().product();
    Tensor {
        dims,
        data: vec![x; n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dims: Vec<usize>, v: &[f64]) -> Tensor<Val> {
        Tensor::new(dims, v.iter().map(|x| Val::Real(*x)).collect())
    }

    #[test]
    fn matrix_products_and_slices() {
        let a = t(vec![2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let x = t(vec![2], &[1.0, 1.0]);
        assert_eq!(multiply(a.clone(), x).unwrap(), t(vec![2], &[3.0, 7.0]));
        assert_eq!(
            multiply(a.clone(), a.clone()).unwrap(),
            t(vec![2, 2], &[7.0, 10.0, 15.0, 22.0])
        );
        assert_eq!(a.transpose().unwrap(), t(vec![2, 2], &[1.0, 3.0, 2.0, 4.0]));
        assert_eq!(
            a.index(&[(vec![0, 1], true), (vec![1], false)]).unwrap(),
            t(vec![2], &[2.0, 4.0])
        );
        let c = cross(t(vec![3], &[1.0, 0.0, 0.0]), t(vec![3], &[0.0, 1.0, 0.0])).unwrap();
        assert_eq!(c, t(vec![3], &[0.0, 0.0, 1.0]));
        let m = cat(1, vec![a.clone(), a]).unwrap();
        assert_eq!(m.dims, vec![2, 4]);
        assert_eq!(m.data[2], Val::Real(1.0));
    }
}
