//! Small algebra on flat expressions: simplifying constructors, variable collection and
//! substitution. Differentiation and explicit solving build expressions through these
//! constructors so that `1*x + 0` never reaches the simulator or the teaching view.

use crate::dae::{BinOp, Builtin, Expr, UnOp, VarId};

/// The numeric value of a literal.
pub fn num(e: &Expr) -> Option<f64> {
    match e {
        Expr::Real(r) => Some(*r),
        Expr::Integer(i) => Some(*i as f64),
        Expr::Unary(UnOp::Neg, a) => num(a).map(|v| -v),
        _ => None,
    }
}

pub fn is_zero(e: &Expr) -> bool {
    num(e) == Some(0.0)
}

/// A literal, as an Integer when integral (so printed text stays clean).
pub fn lit(v: f64) -> Expr {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        Expr::Integer(v as i64)
    } else {
        Expr::Real(v)
    }
}

pub fn add(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) => lit(x + y),
        (Some(0.0), _) => b,
        (_, Some(0.0)) => a,
        _ => match b {
            Expr::Unary(UnOp::Neg, nb) => Expr::binary(BinOp::Sub, a, *nb),
            b => Expr::binary(BinOp::Add, a, b),
        },
    }
}

pub fn sub(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) => lit(x - y),
        (Some(0.0), _) => neg(b),
        (_, Some(0.0)) => a,
        _ => match b {
            Expr::Unary(UnOp::Neg, nb) => Expr::binary(BinOp::Add, a, *nb),
            b => Expr::binary(BinOp::Sub, a, b),
        },
    }
}

pub fn neg(a: Expr) -> Expr {
    match a {
        Expr::Unary(UnOp::Neg, x) => *x,
        Expr::Integer(i) => Expr::Integer(-i),
        Expr::Real(r) => Expr::Real(-r),
        Expr::Binary(BinOp::Sub, x, y) => Expr::Binary(BinOp::Sub, y, x),
        a => Expr::neg(a),
    }
}

pub fn mul(a: Expr, b: Expr) -> Expr {
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) => lit(x * y),
        (Some(0.0), _) => lit(0.0),
        (_, Some(0.0)) => lit(0.0),
        (Some(1.0), _) => b,
        (_, Some(1.0)) => a,
        (Some(-1.0), _) => neg(b),
        (_, Some(-1.0)) => neg(a),
        _ => Expr::binary(BinOp::Mul, a, b),
    }
}

pub fn div(a: Expr, b: Expr) -> Expr {
    if let (Expr::Unary(UnOp::Neg, x), Expr::Unary(UnOp::Neg, y)) = (&a, &b) {
        return div((**x).clone(), (**y).clone());
    }
    if let Expr::Unary(UnOp::Neg, y) = &b
        && num(y).is_none()
    {
        return div(neg(a), (**y).clone());
    }
    match (num(&a), num(&b)) {
        (Some(x), Some(y)) if y != 0.0 && (x / y).fract() == 0.0 => lit(x / y),
        (Some(0.0), _) => lit(0.0),
        (_, Some(1.0)) => a,
        (_, Some(-1.0)) => neg(a),
        _ => Expr::binary(BinOp::Div, a, b),
    }
}

pub fn pow(a: Expr, b: Expr) -> Expr {
    match num(&b) {
        Some(1.0) => a,
        Some(0.0) => lit(1.0),
        _ => Expr::binary(BinOp::Pow, a, b),
    }
}

pub fn call(f: Builtin, args: Vec<Expr>) -> Expr {
    Expr::Call(f, args)
}

/// Every variable the expression refers to (with repetitions), in visiting order.
pub fn vars_of(e: &Expr, out: &mut Vec<VarId>) {
    e.visit(&mut |x| {
        if let Expr::Var(v) = x {
            out.push(*v);
        }
    });
}

/// Whether `pred` holds for some variable in `e`.
pub fn any_var(e: &Expr, pred: &impl Fn(VarId) -> bool) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        if let Expr::Var(v) = x {
            found |= pred(*v);
        }
    });
    found
}

/// Rebuilds `e` bottom-up, letting `f` replace any node (it sees the rebuilt children).
pub fn rewrite(e: &Expr, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
    rewrite_dyn(e, f)
}

fn rewrite_dyn(e: &Expr, f: &mut dyn FnMut(Expr) -> Expr) -> Expr {
    let bx = |x: &Expr, f: &mut dyn FnMut(Expr) -> Expr| Box::new(rewrite_dyn(x, f));
    let rebuilt = match e {
        Expr::Der(a) => Expr::Der(bx(a, f)),
        Expr::Pre(a) => Expr::Pre(bx(a, f)),
        Expr::Edge(a) => Expr::Edge(bx(a, f)),
        Expr::Change(a) => Expr::Change(bx(a, f)),
        Expr::Unary(op, a) => Expr::Unary(*op, bx(a, f)),
        Expr::NoEvent(a) => Expr::NoEvent(bx(a, f)),
        Expr::Smooth(p, a) => Expr::Smooth(*p, bx(a, f)),
        Expr::ToString(a, fm) => Expr::ToString(bx(a, f), fm.clone()),
        Expr::Binary(op, a, b) => {
            let a = bx(a, f);
            Expr::Binary(*op, a, bx(b, f))
        }
        Expr::Sample(a, b) => {
            let a = bx(a, f);
            Expr::Sample(a, bx(b, f))
        }
        Expr::Call(g, args) => Expr::Call(*g, args.iter().map(|a| rewrite_dyn(a, f)).collect()),
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => Expr::UserCall {
            function: function.clone(),
            args: args.iter().map(|a| rewrite_dyn(a, f)).collect(),
            output: *output,
            element: *element,
        },
        Expr::Array { dims, elements } => Expr::Array {
            dims: dims.clone(),
            elements: elements.iter().map(|a| rewrite_dyn(a, f)).collect(),
        },
        Expr::If { branches, else_ } => Expr::If {
            branches: branches
                .iter()
                .map(|(c, v)| (rewrite_dyn(c, f), rewrite_dyn(v, f)))
                .collect(),
            else_: bx(else_, f),
        },
        leaf => leaf.clone(),
    };
    f(rebuilt)
}

/// Replaces variables: `f(v)` returns the replacement or `None` to keep `Var(v)`.
pub fn subst(e: &Expr, f: &impl Fn(VarId) -> Option<Expr>) -> Expr {
    if !any_var(e, &|v| f(v).is_some()) {
        return e.clone();
    }
    rewrite(e, &mut |x| match x {
        Expr::Var(v) => f(v).unwrap_or(Expr::Var(v)),
        other => other,
    })
}

/// Constant folding and removal of neutral elements, bottom-up.
pub fn simplify(e: &Expr) -> Expr {
    rewrite(e, &mut |x| match x {
        Expr::Binary(BinOp::Add, a, b) => add(*a, *b),
        Expr::Binary(BinOp::Sub, a, b) => sub(*a, *b),
        Expr::Binary(BinOp::Mul, a, b) => mul(*a, *b),
        Expr::Binary(BinOp::Div, a, b) => div(*a, *b),
        Expr::Binary(BinOp::Pow, a, b) => pow(*a, *b),
        Expr::Unary(UnOp::Neg, a) => neg(*a),
        other => other,
    })
}

/// Number of nodes (used to keep alias substitution from blowing expressions up).
pub fn size(e: &Expr) -> usize {
    let mut n = 0;
    e.visit(&mut |_| n += 1);
    n
}

/// [`simplify`], and beyond it what values known at translation decide: a branch of an
/// if-expression whose condition is a literal, relations and logic of literals, `smooth`,
/// `noEvent` and `der` of a literal. Used where parameters were replaced by their values
/// (`annotation(Evaluate = true)`, or a variable found constant), so that a term such as
/// `0*der(v)` is gone before matching.
pub fn fold(e: &Expr) -> Expr {
    rewrite(e, &mut |x| match x {
        Expr::Binary(op, a, b) => fold_binary(op, *a, *b),
        Expr::Unary(UnOp::Neg, a) => neg(*a),
        Expr::Unary(UnOp::Not, a) => match *a {
            Expr::Boolean(b) => Expr::Boolean(!b),
            a => Expr::Unary(UnOp::Not, Box::new(a)),
        },
        Expr::Smooth(_, a) | Expr::NoEvent(a) if num(&a).is_some() => *a,
        Expr::Der(a) if num(&a).is_some() => lit(0.0),
        Expr::If { branches, else_ } => fold_if(branches, *else_),
        other => other,
    })
}

fn fold_binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let boolean = |e: &Expr| match e {
        Expr::Boolean(v) => Some(*v),
        _ => None,
    };
    match op {
        BinOp::Add => add(a, b),
        BinOp::Sub => sub(a, b),
        BinOp::Mul => mul(a, b),
        BinOp::Div => div(a, b),
        BinOp::Pow => pow(a, b),
        BinOp::And | BinOp::Or => {
            let absorbing = op == BinOp::Or;
            match (boolean(&a), boolean(&b)) {
                (Some(x), _) if x == absorbing => Expr::Boolean(absorbing),
                (_, Some(y)) if y == absorbing => Expr::Boolean(absorbing),
                (Some(_), _) => b,
                (_, Some(_)) => a,
                _ => Expr::binary(op, a, b),
            }
        }
        _ => match (
            num(&a).or(boolean(&a).map(f64::from)),
            num(&b).or(boolean(&b).map(f64::from)),
        ) {
            (Some(x), Some(y)) => Expr::Boolean(match op {
                BinOp::Lt => x < y,
                BinOp::Le => x <= y,
                BinOp::Gt => x > y,
                BinOp::Ge => x >= y,
                BinOp::Eq => x == y,
                _ => x != y,
            }),
            _ => Expr::binary(op, a, b),
        },
    }
}

/// Branches whose condition is `false` dropped; the first whose condition is `true` ends the
/// choice.
fn fold_if(branches: Vec<(Expr, Expr)>, else_: Expr) -> Expr {
    let mut kept = Vec::with_capacity(branches.len());
    for (c, v) in branches {
        match c {
            Expr::Boolean(false) => {}
            Expr::Boolean(true) if kept.is_empty() => return v,
            Expr::Boolean(true) => {
                return Expr::If {
                    branches: kept,
                    else_: Box::new(v),
                };
            }
            c => kept.push((c, v)),
        }
    }
    if kept.is_empty() {
        else_
    } else {
        Expr::If {
            branches: kept,
            else_: Box::new(else_),
        }
    }
}
