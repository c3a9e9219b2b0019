//! Discrete-time expressions (MLS 3.8.3, 3.8.4): an Integer, Boolean, String or enumeration
//! variable changes only at events, so the equation that defines it outside a `when` must be a
//! discrete-time expression. A call of a user function is discrete-time only when all its
//! arguments are (a relation outside `noEvent`, `pre`, `integer`, `floor`, ... are, whatever
//! their operands): `Integer y = f(x)` with `x` continuous is refused, since `f` may change `y`
//! between events.
//!
//! Only equations whose non-discrete part comes from such a call are refused: that is the
//! case the rest of minimo cannot notice (a continuous Real on its own fails elsewhere).

use crate::dae::{BinOp, Builtin, EquationKind, Expr, FlatModel, ScalarType, Variability};
use crate::diag::Diagnostic;

/// Why an expression is not discrete-time: a user function given a continuous argument.
fn continuous_call(m: &FlatModel, e: &Expr) -> Option<String> {
    if is_discrete(m, e) {
        return None;
    }
    match e {
        // Functions minimo generates itself (an element chosen at run time,
        // `minimo.subscript_*`) only pick a value out of their arguments: what matters is a
        // user call inside those.
        Expr::UserCall { function, args, .. } if function.starts_with("minimo.") => {
            args.iter().find_map(|a| continuous_call(m, a))
        }
        Expr::UserCall { function, args, .. } => {
            if args.iter().any(|a| !is_discrete(m, a)) {
                return Some(function.clone());
            }
            None
        }
        Expr::Unary(_, a) | Expr::Smooth(_, a) => continuous_call(m, a),
        Expr::Binary(_, a, b) => continuous_call(m, a).or_else(|| continuous_call(m, b)),
        Expr::Call(_, args) => args.iter().find_map(|a| continuous_call(m, a)),
        Expr::Array { elements, .. } => elements.iter().find_map(|a| continuous_call(m, a)),
        Expr::If { branches, else_ } => branches
            .iter()
            .find_map(|(c, v)| continuous_call(m, c).or_else(|| continuous_call(m, v)))
            .or_else(|| continuous_call(m, else_)),
        _ => None,
    }
}

/// Whether `e` is a discrete-time expression (MLS 3.8.3).
fn is_discrete(m: &FlatModel, e: &Expr) -> bool {
    match e {
        Expr::Real(_) | Expr::Integer(_) | Expr::Boolean(_) | Expr::String(_) => true,
        Expr::Var(v) => m.variables.get(*v).is_none_or(|var| {
            var.variability != Variability::Continuous || var.ty != ScalarType::Real
        }),
        Expr::Time | Expr::Der(_) => false,
        // Operators whose value changes only at events.
        Expr::Pre(_)
        | Expr::Edge(_)
        | Expr::Change(_)
        | Expr::Initial
        | Expr::Terminal
        | Expr::Sample(..)
        | Expr::ToString(..) => true,
        Expr::Call(Builtin::Integer | Builtin::Floor | Builtin::Ceil | Builtin::Div, _) => true,
        Expr::Call(_, args) => args.iter().all(|a| is_discrete(m, a)),
        // A relation outside `noEvent` changes only at events.
        Expr::Binary(
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne,
            _,
            _,
        ) => true,
        Expr::Binary(_, a, b) => is_discrete(m, a) && is_discrete(m, b),
        Expr::Unary(_, a) | Expr::Smooth(_, a) => is_discrete(m, a),
        Expr::NoEvent(_) => false,
        Expr::UserCall { args, .. } => args.iter().all(|a| is_discrete(m, a)),
        Expr::Array { elements, .. } => elements.iter().all(|a| is_discrete(m, a)),
        Expr::If { branches, else_ } => {
            branches
                .iter()
                .all(|(c, v)| is_discrete(m, c) && is_discrete(m, v))
                && is_discrete(m, else_)
        }
    }
}

/// Whether `target = value` is one field of a record equation `r = f(...)`: `value` is the
/// call itself and another field of the same record takes an output of the same call. The
/// MSL's media do this with the Integer `phase` of a thermodynamic state
/// (`state = setState_phX(p, h, X)`), and every Modelica tool accepts it: the field is then
/// evaluated with the call, like the Real fields beside it.
fn record_field_of_call(m: &FlatModel, target: &Expr, value: &Expr) -> bool {
    let (Expr::Var(v), Expr::UserCall { function, args, .. }) = (target, value) else {
        return false;
    };
    let Some((record, _)) = m.variables[*v].name.rsplit_once('.') else {
        return false;
    };
    m.equations.iter().any(|eq| {
        let EquationKind::Simple { lhs, rhs } = &eq.kind else {
            return false;
        };
        [(lhs, rhs), (rhs, lhs)].into_iter().any(|(t, x)| {
            matches!((t, x), (Expr::Var(w), Expr::UserCall { function: f, args: a, .. })
                if w != v
                    && f == function
                    && a == args
                    && m.variables[*w].name.rsplit_once('.').is_some_and(|(r, _)| r == record))
        })
    })
}

/// Refuses an equation outside `when` that gives a non-Real variable a user function's value
/// computed from continuous-time arguments.
pub(super) fn check(m: &FlatModel) -> Result<(), Diagnostic> {
    for eq in &m.equations {
        let EquationKind::Simple { lhs, rhs } = &eq.kind else {
            continue;
        };
        for (target, value) in [(lhs, rhs), (rhs, lhs)] {
            let Expr::Var(v) = target else { continue };
            let Some(var) = m.variables.get(*v) else {
                continue;
            };
            if var.ty == ScalarType::Real || var.variability != Variability::Discrete {
                continue;
            }
            if let Some(f) = continuous_call(m, value)
                && !record_field_of_call(m, target, value)
            {
                return Err(Diagnostic::error(
                    eq.span,
                    format!(
                        "`{}` is {} and so discrete-time, but this equation gives it a call of `{f}` with a continuous-time argument",
                        var.name,
                        match var.ty {
                            ScalarType::Integer => "an Integer",
                            ScalarType::Boolean => "a Boolean",
                            ScalarType::String => "a String",
                            _ => "of an enumeration type",
                        }
                    ),
                )
                .with_note(
                    "a function call is a discrete-time expression only when all its arguments are (MLS 3.8.3)",
                )
                .with_help("pass discrete-time arguments (e.g. `pre(x)`, or a value sampled in a `when`), or compute the value in a `when` equation"));
            }
        }
    }
    Ok(())
}
