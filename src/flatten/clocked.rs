//! MLS 16 (synchronous language elements) at flattening. A clocked when-equation `when
//! Clock(...) then ... end when` whose clock is written as its condition becomes an ordinary
//! when-equation on the clock's ticks (a periodic clock: `sample(0, interval)`, whose first tick
//! is at time 0; an event clock: its condition), and inside its body `previous(x)` is `pre(x)`,
//! `sample(u)` is the left limit of `u` and `interval()` is the clock's interval. Elsewhere the
//! clock operators (`sample(u[, c])`, `hold`, `previous`, `subSample`, `Clock(...)`, ...) stay
//! calls of reserved names for clock inference on the flat model (`clock_inference.rs`), which
//! also resolves the variables of the built-in type `Clock` recorded here.

use super::Flattener;
use super::equations::{Ctx, EqOut};
use super::modifier::Scope;
use super::scalarize::FCtx;
use super::tensor::Tensor;
use crate::dae::{BinOp, Equation, EquationKind, Expr, VarId};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;

type EResult<T> = Result<T, Diagnostic>;

/// The clock of the clocked when-equation being flattened.
#[derive(Clone, Debug)]
pub struct ClockTick {
    /// The interval of a periodic clock (`None` for an event clock).
    pub interval: Option<Expr>,
}

/// State of the clocked when-equations of a run.
#[derive(Default)]
pub struct ClockedState {
    /// The clock of the clocked when-equation whose body is being flattened.
    pub active: Option<ClockTick>,
    /// Variables of the built-in type `Clock` (MLS 16.3), for clock inference.
    pub clock_vars: std::collections::HashSet<VarId>,
}

/// The built-in operators of MLS 16 that minimo reads here.
pub fn is_clock_operator(name: &str) -> bool {
    matches!(
        name,
        "Clock"
            | "previous"
            | "hold"
            | "interval"
            | "firstTick"
            | "subSample"
            | "superSample"
            | "shiftSample"
            | "backSample"
            | "noClock"
    )
}

const NO_INFERENCE: &str = "minimo supports synchronous language elements (MLS 16) only inside \
     a when-equation whose condition is a clock constructor (`when Clock(0.1) then`); clock \
     inference across equations (MLS 16.7) is not supported";

fn the_clock_call(c: &ast::Expr) -> Option<&ast::FunctionArgs> {
    match &c.kind {
        ast::ExprKind::Call { func, args } if !func.global && func.parts.len() == 1 => {
            (func.parts[0].ident.name == "Clock").then_some(args)
        }
        _ => None,
    }
}

impl Flattener<'_> {
    /// Flattens `when Clock(...) then body end when` (MLS 16.5.1) into `out`; `false` when the
    /// condition is not a clock constructor.
    pub(super) fn clocked_when(
        &mut self,
        eq: &ast::Equation,
        branches: &[(ast::Expr, Vec<ast::Equation>)],
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        out: &mut EqOut,
    ) -> EResult<bool> {
        let Some(args) = branches.first().and_then(|(c, _)| the_clock_call(c)) else {
            return Ok(false);
        };
        if args.positional.is_empty() && args.named.is_empty() && branches.len() == 1 {
            // `when Clock() then`: the clock is inferred (`clock_inference.rs`).
            return Ok(false);
        }
        if self
            .shadowing_function("Clock", scope.lex, scope.inst)
            .is_some()
        {
            return Ok(false);
        }
        if branches.len() > 1 {
            return Err(Diagnostic::error(
                eq.span,
                "a clocked when-equation cannot have `elsewhen` branches (MLS 16.5.1)",
            ));
        }
        let (cond, tick) = self.clock_constructor(args, scope, locals)?;
        if self.clocked.active.is_some() {
            return Err(Diagnostic::error(
                eq.span,
                "when-equations cannot be nested",
            ));
        }
        self.clocked.active = Some(tick);
        let mut sub = EqOut {
            eqs: Vec::new(),
            connects: Vec::new(),
        };
        let mut res = Ok(());
        for e in &branches[0].1 {
            res = self.equation(e, scope, locals, Ctx::When, &mut sub);
            if res.is_err() {
                break;
            }
        }
        self.clocked.active = None;
        res?;
        let body = super::when_if::assignments(sub.eqs);
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        out.eqs.push(Equation {
            kind: EquationKind::When {
                branches: vec![(cond, body)],
            },
            component,
            span: eq.span,
        });
        Ok(true)
    }

    /// The tick condition of `Clock(interval)`, `Clock(intervalCounter, resolution)` or
    /// `Clock(condition, startInterval)` (MLS 16.3).
    fn clock_constructor(
        &mut self,
        args: &ast::FunctionArgs,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
    ) -> EResult<(Expr, ClockTick)> {
        let refuse = |what: &str| {
            Err(Diagnostic::error(
                args.span,
                format!("{what} is not supported (MLS 16.3); {NO_INFERENCE}"),
            ))
        };
        if !args.named.is_empty() || !args.iterators.is_empty() {
            return refuse("a clock constructor with named arguments (`solverMethod`)");
        }
        let mut vals = Vec::new();
        for a in &args.positional {
            let v = self.eval_symbolic(a, scope, locals)?;
            vals.push(v.into_scalar().map_err(|m| Diagnostic::error(a.span, m))?);
        }
        let names: Vec<String> = locals.iter().map(|(n, _)| n.clone()).collect();
        let boolean = match args.positional.first() {
            Some(a) => self.static_type(a, scope, &names)? == super::expr_type::Ty::Boolean,
            None => false,
        };
        match vals.len() {
            0 => refuse("the inferred clock `Clock()`"),
            1 if boolean => Ok((event_clock(vals.remove(0)), ClockTick { interval: None })),
            1 => Ok(periodic(vals.remove(0), Expr::Integer(1))),
            2 if boolean => {
                // The start interval is what `interval()` gives at the first tick only.
                Ok((event_clock(vals.remove(0)), ClockTick { interval: None }))
            }
            2 => {
                let r = vals.pop().unwrap_or(Expr::Integer(1));
                Ok(periodic(vals.remove(0), r))
            }
            _ => refuse("a clock constructor with more than two arguments"),
        }
    }
}

/// The tick condition of the event clock `Clock(condition)`: the condition, marked so the
/// simulator keeps a tick the partition's outputs would undo (`dae::Builtin::EventClock`).
fn event_clock(condition: Expr) -> Expr {
    Expr::Call(crate::dae::Builtin::EventClock, vec![condition])
}

/// A periodic clock of interval `n / r`, ticking at `0, n/r, 2 n/r, ...`.
fn periodic(n: Expr, r: Expr) -> (Expr, ClockTick) {
    let interval = if r == Expr::Integer(1) {
        n
    } else {
        Expr::binary(BinOp::Div, n, r)
    };
    let cond = Expr::Sample(Box::new(Expr::Real(0.0)), Box::new(interval.clone()));
    (
        cond,
        ClockTick {
            interval: Some(interval),
        },
    )
}

/// `u` with every variable replaced by its left limit (`pre`), the value `sample(u)` takes at a
/// tick (MLS 16.5.2).
pub(super) fn left_limit(u: Expr) -> Expr {
    let b = |e: Box<Expr>| Box::new(left_limit(*e));
    match u {
        Expr::Var(v) => Expr::Pre(Box::new(Expr::Var(v))),
        Expr::Unary(op, a) => Expr::Unary(op, b(a)),
        Expr::Binary(op, a, c) => Expr::Binary(op, b(a), b(c)),
        Expr::NoEvent(a) => Expr::NoEvent(b(a)),
        Expr::Smooth(k, a) => Expr::Smooth(k, b(a)),
        Expr::ToString(a, f) => Expr::ToString(b(a), f),
        Expr::Call(f, args) => Expr::Call(f, args.into_iter().map(left_limit).collect()),
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => Expr::UserCall {
            function,
            args: args.into_iter().map(left_limit).collect(),
            output,
            element,
        },
        Expr::Array { elements, dims } => Expr::Array {
            elements: elements.into_iter().map(left_limit).collect(),
            dims,
        },
        Expr::If { branches, else_ } => Expr::If {
            branches: branches
                .into_iter()
                .map(|(c, e)| (left_limit(c), left_limit(e)))
                .collect(),
            else_: b(else_),
        },
        // Already left limits, constants, or operators that have no place in `sample(u)`.
        other => other,
    }
}

impl FCtx<'_, '_> {
    /// `previous`, `sample(u)`, `hold`, `interval` and the clock operators (MLS 16.4, 16.5),
    /// or `None` when a user function of that name shadows the built-in (or `sample(start,
    /// interval)` is the event operator of MLS 3.7.5). Outside a `when Clock(...) then` they
    /// stay calls for clock inference (`clock_inference.rs`).
    pub(super) fn clock_operator(
        &mut self,
        name: &str,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Tensor<Expr>>> {
        if self
            .f
            .shadowing_function(name, self.scope.lex, self.scope.inst)
            .is_some()
        {
            return Ok(None);
        }
        if name == "Clock" && !args.named.is_empty() {
            return Err(Diagnostic::error(
                span,
                "a clock with a `solverMethod` (a clocked continuous-time partition, MLS 16.8) \
                 is not supported",
            ));
        }
        let vals = self.positional_only(name, args)?;
        let active = self.f.clocked.active.clone();
        if name == "sample" && vals.len() == 2 {
            let clock = vals[1].data.first().is_some_and(|c| self.is_clock_value(c));
            if !clock {
                return Ok(None);
            }
            if active.is_some() {
                return Err(Diagnostic::error(
                    span,
                    "`sample(u, clock)` inside a clocked when-equation (MLS 16.5.2)",
                ));
            }
            return deferred(name, vals, span).map(Some);
        }
        let need = |n: usize| {
            if vals.len() == n {
                Ok(())
            } else {
                Err(Diagnostic::error(
                    span,
                    format!("`{name}` takes {n} argument(s), got {}", vals.len()),
                ))
            }
        };
        match (name, active) {
            ("noClock", _) | ("firstTick", Some(_)) => Err(Diagnostic::error(
                span,
                format!("`{name}` (MLS 16.5) is not supported"),
            )),
            ("previous" | "sample", Some(_)) => {
                need(1)?;
                let u = vals[0].clone();
                Ok(Some(if name == "previous" {
                    u.map(|x| match x {
                        Expr::Var(v) => Expr::Pre(Box::new(Expr::Var(v))),
                        other => other,
                    })
                } else {
                    u.map(left_limit)
                }))
            }
            ("interval", Some(t)) if vals.is_empty() => match t.interval {
                Some(i) => Ok(Some(Tensor::scalar(i))),
                None => Err(Diagnostic::error(
                    span,
                    "`interval()` of an event clock (MLS 16.5.1) is not supported",
                )),
            },
            ("hold", _) | (_, None) => {
                let n = match name {
                    "previous" | "hold" | "sample" => 1..=1,
                    "interval" | "firstTick" => 0..=1,
                    "Clock" => 0..=2,
                    "shiftSample" | "backSample" => 1..=3,
                    _ => 1..=2,
                };
                if !n.contains(&vals.len()) {
                    return Err(Diagnostic::error(
                        span,
                        format!("`{name}`: wrong number of arguments ({})", vals.len()),
                    ));
                }
                deferred(name, vals, span).map(Some)
            }
            (other, Some(_)) => Err(Diagnostic::error(
                span,
                format!(
                    "`{other}` inside a when-equation whose condition is a clock constructor is \
                     not supported (MLS 16.5)"
                ),
            )),
        }
    }

    /// Whether a flat expression is a clock: a clock variable or a kept clock operator whose
    /// first argument is a clock (or a constructor).
    fn is_clock_value(&self, e: &Expr) -> bool {
        match e {
            Expr::Var(v) => self.f.clocked.clock_vars.contains(v),
            Expr::UserCall { function, args, .. } => {
                match function.strip_prefix(super::clock_inference::PREFIX) {
                    Some("Clock") => true,
                    Some("subSample" | "superSample" | "shiftSample" | "backSample") => {
                        args.first().is_some_and(|a| self.is_clock_value(a))
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

/// The operator kept as a call for clock inference, element-wise over its first argument (the
/// others are scalars: factors, clocks).
fn deferred(name: &str, vals: Vec<Tensor<Expr>>, span: Span) -> EResult<Tensor<Expr>> {
    let mut it = vals.into_iter();
    let Some(first) = it.next() else {
        return Ok(Tensor::scalar(super::clock_inference::placeholder(
            name,
            Vec::new(),
        )));
    };
    let rest: Vec<Expr> = it
        .map(|t| t.into_scalar().map_err(|m| Diagnostic::error(span, m)))
        .collect::<EResult<_>>()?;
    Ok(first.map(|x| {
        let mut a = vec![x];
        a.extend(rest.iter().cloned());
        super::clock_inference::placeholder(name, a)
    }))
}

impl Flattener<'_> {
    /// Whether instance `i` is of the built-in type `Clock` (directly or through a short class
    /// such as `connector ClockInput = input Clock`).
    pub(super) fn is_clock_instance(&self, i: usize) -> bool {
        let Some(&clock) = self.tree.roots.get("Clock") else {
            return false;
        };
        let inst = &self.insts[i];
        inst.class == clock || inst.exp.bases.contains(&clock)
    }
}
