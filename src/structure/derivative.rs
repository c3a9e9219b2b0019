//! Symbolic differentiation of flat expressions (forward mode, chain rule).
//!
//! One routine serves both uses: the time derivative of an equation (Pantelides) and the partial
//! derivative with respect to one variable (explicit solving, Jacobian patterns). What differs is
//! the tangent of each leaf, supplied by a [`Tangent`].

use super::expr::{add, call, div, is_zero, lit, mul, neg, pow, sub};
use crate::dae::{BinOp, Builtin, Expr, UnOp, VarId};

/// The derivative of each leaf of an expression.
pub trait Tangent {
    /// Tangent of variable `v` (for the time derivative, `der(v)` or 0 for a parameter).
    fn var(&mut self, v: VarId) -> Expr;
    /// Tangent of `time`.
    fn time(&self) -> Expr;
    /// The partial derivative of a user-function call with respect to its argument `k`.
    fn user_partial(
        &mut self,
        function: &str,
        args: &[Expr],
        output: usize,
        element: usize,
        k: usize,
    ) -> Result<Expr, String>;
    /// The partial derivative of a user-function call with respect to element `j` of its
    /// vector argument `k`; by default not available.
    fn user_partial_element(
        &mut self,
        function: &str,
        _args: &[Expr],
        _output: (usize, usize),
        k: usize,
        _j: usize,
    ) -> Result<Expr, String> {
        Err(format!(
            "cannot differentiate the call of `{function}`: its array argument {} changes with time",
            k + 1
        ))
    }
    /// The derivative function a user function declares (`derivative` annotation, MLS
    /// 12.7.1), with the arguments whose derivatives it takes and those whose derivative must
    /// be zero.
    fn declared_derivative(&self, _function: &str) -> Option<DeclaredDerivative> {
        None
    }
    /// The call as an expression of its arguments, when the function is that simple.
    fn inline(&self, _function: &str, _args: &[Expr], _output: usize) -> Option<Expr> {
        None
    }
}

/// See [`Tangent::declared_derivative`].
pub struct DeclaredDerivative {
    pub name: String,
    /// Arguments whose derivatives are appended, in order, to the call's arguments.
    pub differentiated: Vec<usize>,
    pub zero: Vec<usize>,
}

/// Which arguments the declared derivative of `f` takes derivatives of: for `order = 1` the
/// Real inputs not listed as `noDerivative`/`zeroDerivative`; for a higher order (declared on
/// the previous derivative) the last inputs, as many as the derivative function has more
/// inputs than `f`. `None` when the signatures do not fit that rule.
pub fn declared_derivative(
    functions: &std::collections::BTreeMap<String, crate::dae::Function>,
    function: &str,
) -> Option<DeclaredDerivative> {
    let f = functions.get(function)?;
    let d = f.derivative.as_ref()?;
    let df = functions.get(&d.name)?;
    let extra = df.inputs.len().checked_sub(f.inputs.len())?;
    let pos = |n: &String| f.inputs.iter().position(|i| &i.name == n);
    let zero: Vec<usize> = d.zero_derivative.iter().filter_map(pos).collect();
    let differentiated: Vec<usize> = if d.order <= 1 {
        (0..f.inputs.len())
            .filter(|&k| {
                let i = &f.inputs[k];
                i.ty == crate::dae::ScalarType::Real
                    && !d.no_derivative.contains(&i.name)
                    && !d.zero_derivative.contains(&i.name)
            })
            .collect()
    } else {
        (f.inputs.len() - extra..f.inputs.len()).collect()
    };
    (differentiated.len() == extra).then(|| DeclaredDerivative {
        name: d.name.clone(),
        differentiated,
        zero,
    })
}

/// The derivative of `e`; `Err` carries a message in the modeler's words.
pub fn diff(e: &Expr, t: &mut dyn Tangent) -> Result<Expr, String> {
    Ok(match e {
        Expr::Real(_)
        | Expr::Integer(_)
        | Expr::Boolean(_)
        | Expr::String(_)
        | Expr::ToString(..) => lit(0.0),
        Expr::Var(v) => t.var(*v),
        Expr::Time => t.time(),
        // Discrete-valued operators are piecewise constant.
        Expr::Pre(_)
        | Expr::Edge(_)
        | Expr::Change(_)
        | Expr::Initial
        | Expr::Terminal
        | Expr::Sample(..) => lit(0.0),
        Expr::Der(_) => {
            return Err(
                "a derivative `der(...)` was left inside an expression to differentiate".into(),
            );
        }
        Expr::Unary(UnOp::Neg, a) => neg(diff(a, t)?),
        Expr::Unary(UnOp::Not, _) => lit(0.0),
        Expr::NoEvent(a) => {
            let d = diff(a, t)?;
            if is_zero(&d) {
                d
            } else {
                Expr::NoEvent(Box::new(d))
            }
        }
        Expr::Smooth(p, a) => {
            let d = diff(a, t)?;
            if is_zero(&d) {
                d
            } else {
                Expr::Smooth(p.saturating_sub(1), Box::new(d))
            }
        }
        Expr::Binary(op, a, b) => binary(*op, a, b, t)?,
        Expr::Call(f, args) => builtin(*f, args, t)?,
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => {
            if let Some(d) = t.declared_derivative(function) {
                let mut zero_ok = true;
                for &k in &d.zero {
                    zero_ok &= is_zero(&diff(&args[k], t)?);
                }
                if zero_ok {
                    let mut dargs = args.clone();
                    for &k in &d.differentiated {
                        let da = diff(&args[k], t)?;
                        // An array argument whose derivative vanished is still an array.
                        dargs.push(match (&args[k], da) {
                            (Expr::Array { dims, elements }, da)
                                if !matches!(da, Expr::Array { .. }) =>
                            {
                                Expr::Array {
                                    dims: dims.clone(),
                                    elements: vec![lit(0.0); elements.len()],
                                }
                            }
                            (_, da) => da,
                        });
                    }
                    return Ok(Expr::UserCall {
                        function: d.name,
                        args: dargs,
                        output: *output,
                        element: *element,
                    });
                }
            }
            if *element == 0
                && let Some(e) = t.inline(function, args, *output)
            {
                return diff(&e, t);
            }
            let mut sum = lit(0.0);
            for (k, a) in args.iter().enumerate() {
                let da = diff(a, t)?;
                if is_zero(&da) {
                    continue;
                }
                if let Expr::Array { dims, .. } = a {
                    // A vector argument: the chain rule element by element.
                    let Expr::Array { elements: des, .. } = &da else {
                        return Err(format!(
                            "cannot differentiate the call of `{function}`: its array argument {} changes with time",
                            k + 1
                        ));
                    };
                    if dims.len() != 1 {
                        return Err(format!(
                            "cannot differentiate the call of `{function}`: its matrix argument {} changes with time",
                            k + 1
                        ));
                    }
                    for (j, de) in des.iter().enumerate() {
                        if is_zero(de) {
                            continue;
                        }
                        let p =
                            t.user_partial_element(function, args, (*output, *element), k, j)?;
                        sum = add(sum, mul(p, de.clone()));
                    }
                    continue;
                }
                let p = t.user_partial(function, args, *output, *element, k)?;
                sum = add(sum, mul(p, da));
            }
            sum
        }
        Expr::Array { dims, elements } => {
            let mut out = Vec::with_capacity(elements.len());
            let mut all_zero = true;
            for el in elements {
                let d = diff(el, t)?;
                all_zero &= is_zero(&d);
                out.push(d);
            }
            if all_zero {
                lit(0.0)
            } else {
                Expr::Array {
                    dims: dims.clone(),
                    elements: out,
                }
            }
        }
        Expr::If { branches, else_ } => {
            // Branch by branch: the derivative uses the same conditions.
            let mut bs = Vec::with_capacity(branches.len());
            let mut all_zero = true;
            for (c, v) in branches {
                let d = diff(v, t)?;
                all_zero &= is_zero(&d);
                bs.push((c.clone(), d));
            }
            let de = diff(else_, t)?;
            all_zero &= is_zero(&de);
            if all_zero {
                lit(0.0)
            } else {
                Expr::If {
                    branches: bs,
                    else_: Box::new(de),
                }
            }
        }
    })
}

fn binary(op: BinOp, a: &Expr, b: &Expr, t: &mut dyn Tangent) -> Result<Expr, String> {
    Ok(match op {
        BinOp::Add => add(diff(a, t)?, diff(b, t)?),
        BinOp::Sub => sub(diff(a, t)?, diff(b, t)?),
        BinOp::Mul => {
            let (da, db) = (diff(a, t)?, diff(b, t)?);
            add(mul(da, b.clone()), mul(a.clone(), db))
        }
        BinOp::Div => {
            let (da, db) = (diff(a, t)?, diff(b, t)?);
            // (a/b)' = a'/b - a*b'/b^2
            sub(
                div(da, b.clone()),
                div(mul(a.clone(), db), pow(b.clone(), lit(2.0))),
            )
        }
        BinOp::Pow => {
            let (da, db) = (diff(a, t)?, diff(b, t)?);
            if is_zero(&db) {
                // (a^n)' = n*a^(n-1)*a'
                let n1 = sub(b.clone(), lit(1.0));
                mul(mul(b.clone(), pow(a.clone(), n1)), da)
            } else {
                // (a^b)' = a^b * (b'*log(a) + b*a'/a)
                let inner = add(
                    mul(db, call(Builtin::Log, vec![a.clone()])),
                    div(mul(b.clone(), da), a.clone()),
                );
                mul(pow(a.clone(), b.clone()), inner)
            }
        }
        // Relations and logic are piecewise constant.
        BinOp::And
        | BinOp::Or
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::Eq
        | BinOp::Ne => lit(0.0),
    })
}

fn sq(a: &Expr) -> Expr {
    pow(a.clone(), lit(2.0))
}

fn builtin(f: Builtin, args: &[Expr], t: &mut dyn Tangent) -> Result<Expr, String> {
    let arg = |i: usize| -> Result<&Expr, String> {
        args.get(i).ok_or_else(|| {
            format!(
                "`{}` called with too few arguments",
                super::print::builtin_name(f)
            )
        })
    };
    let a = arg(0)?;
    let da = diff(a, t)?;
    let one = || lit(1.0);
    Ok(match f {
        Builtin::Sin => mul(call(Builtin::Cos, vec![a.clone()]), da),
        Builtin::Cos => neg(mul(call(Builtin::Sin, vec![a.clone()]), da)),
        Builtin::Tan => div(da, sq(&call(Builtin::Cos, vec![a.clone()]))),
        Builtin::Asin => div(da, call(Builtin::Sqrt, vec![sub(one(), sq(a))])),
        Builtin::Acos => neg(div(da, call(Builtin::Sqrt, vec![sub(one(), sq(a))]))),
        Builtin::Atan => div(da, add(one(), sq(a))),
        Builtin::Atan2 => {
            // atan2(y, x)' = (x*y' - y*x') / (x^2 + y^2)
            let x = arg(1)?;
            let dx = diff(x, t)?;
            div(
                sub(mul(x.clone(), da), mul(a.clone(), dx)),
                add(sq(x), sq(a)),
            )
        }
        Builtin::Sinh => mul(call(Builtin::Cosh, vec![a.clone()]), da),
        Builtin::Cosh => mul(call(Builtin::Sinh, vec![a.clone()]), da),
        Builtin::Tanh => mul(sub(one(), sq(&call(Builtin::Tanh, vec![a.clone()]))), da),
        Builtin::Exp => mul(call(Builtin::Exp, vec![a.clone()]), da),
        Builtin::Log => div(da, a.clone()),
        Builtin::Log10 => div(da, mul(a.clone(), call(Builtin::Log, vec![lit(10.0)]))),
        Builtin::Sqrt => div(da, mul(lit(2.0), call(Builtin::Sqrt, vec![a.clone()]))),
        Builtin::Abs => mul(call(Builtin::Sign, vec![a.clone()]), da),
        Builtin::Sign
        | Builtin::Floor
        | Builtin::Ceil
        | Builtin::Integer
        | Builtin::Div
        | Builtin::EventClock => lit(0.0),
        Builtin::Min | Builtin::Max => {
            let b = arg(1)?;
            let db = diff(b, t)?;
            if is_zero(&da) && is_zero(&db) {
                lit(0.0)
            } else {
                // The same switching condition as the function itself.
                let op = if f == Builtin::Min {
                    BinOp::Lt
                } else {
                    BinOp::Gt
                };
                Expr::If {
                    branches: vec![(Expr::binary(op, a.clone(), b.clone()), da)],
                    else_: Box::new(db),
                }
            }
        }
        Builtin::Mod => {
            // mod(a, b) = a - floor(a/b)*b
            let b = arg(1)?;
            let db = diff(b, t)?;
            let q = call(
                Builtin::Floor,
                vec![Expr::binary(BinOp::Div, a.clone(), b.clone())],
            );
            sub(da, mul(q, db))
        }
        Builtin::Rem => {
            // rem(a, b) = a - div(a, b)*b
            let b = arg(1)?;
            let db = diff(b, t)?;
            let q = call(Builtin::Div, vec![a.clone(), b.clone()]);
            sub(da, mul(q, db))
        }
        Builtin::SemiLinear => {
            // semiLinear(x, k1, k2) = if x >= 0 then k1*x else k2*x
            let (k1, k2) = (arg(1)?, arg(2)?);
            let (dk1, dk2) = (diff(k1, t)?, diff(k2, t)?);
            let pos = add(mul(dk1, a.clone()), mul(k1.clone(), da.clone()));
            let negb = add(mul(dk2, a.clone()), mul(k2.clone(), da));
            if is_zero(&pos) && is_zero(&negb) {
                lit(0.0)
            } else {
                Expr::If {
                    branches: vec![(Expr::binary(BinOp::Ge, a.clone(), lit(0.0)), pos)],
                    else_: Box::new(negb),
                }
            }
        }
        // d/dt x(t - T(t)) = x'(t - T) * (1 - T').
        Builtin::Delay => {
            let (d, dmax) = (arg(1)?, arg(2)?);
            let dd = diff(d, t)?;
            let delayed = call(Builtin::Delay, vec![da, d.clone(), dmax.clone()]);
            if is_zero(&dd) {
                delayed
            } else {
                mul(delayed, sub(one(), dd))
            }
        }
        // Linear in both arguments (for every value of the continuation parameter).
        Builtin::Homotopy => {
            let ds = diff(arg(1)?, t)?;
            call(Builtin::Homotopy, vec![da, ds])
        }
    })
}

/// Supplies the partial derivative of a user-function call: `(function, args, output, element, k)`.
pub type UserPartial<'a> =
    dyn FnMut(&str, &[Expr], usize, usize, usize) -> Result<Expr, String> + 'a;

/// Tangent for the partial derivative with respect to one variable.
pub struct Partial<'a> {
    pub var: VarId,
    /// Generates partial derivatives of user functions (see [`super::userfn`]).
    pub user: &'a mut UserPartial<'a>,
}

impl Tangent for Partial<'_> {
    fn var(&mut self, v: VarId) -> Expr {
        lit(if v == self.var { 1.0 } else { 0.0 })
    }
    fn time(&self) -> Expr {
        lit(0.0)
    }
    fn user_partial(
        &mut self,
        function: &str,
        args: &[Expr],
        output: usize,
        element: usize,
        k: usize,
    ) -> Result<Expr, String> {
        (self.user)(function, args, output, element, k)
    }
}
