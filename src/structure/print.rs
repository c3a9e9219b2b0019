//! Modelica-like text of flat expressions and equations, with flat variable names, for the
//! teaching view and for diagnostics.

use crate::dae::{BinOp, Expr, UnOp, Variable};

/// Text of an expression; variables print by their flat name.
pub fn expr_text(e: &Expr, vars: &[Variable]) -> String {
    let mut s = String::new();
    write_expr(e, vars, 0, &mut s);
    s
}

/// Text of `0 = residual` as `lhs = rhs` when the residual is a difference.
pub fn residual_text(r: &Expr, vars: &[Variable]) -> String {
    match r {
        Expr::Binary(BinOp::Sub, a, b) => {
            format!("{} = {}", expr_text(a, vars), expr_text(b, vars))
        }
        other => format!("0 = {}", expr_text(other, vars)),
    }
}

/// Products, quotients and powers print tight (`a*b`), everything else spaced (`a + b`), as in
/// the specification's examples.
fn push_op(op: BinOp, s: &mut String) {
    if matches!(op, BinOp::Mul | BinOp::Div | BinOp::Pow) {
        s.push_str(op.symbol());
    } else {
        s.push(' ');
        s.push_str(op.symbol());
        s.push(' ');
    }
}

/// Built-in names are the flat printer's: one table for both.
pub use crate::dae::builtin_name;

fn list(args: &[Expr], vars: &[Variable], s: &mut String) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        write_expr(a, vars, 0, s);
    }
}

fn write_expr(e: &Expr, vars: &[Variable], outer: u8, s: &mut String) {
    match e {
        Expr::Real(r) => {
            if r.fract() == 0.0 && r.abs() < 1e15 {
                s.push_str(&format!("{r:.1}"));
            } else {
                s.push_str(&format!("{r}"));
            }
        }
        Expr::Integer(i) => s.push_str(&i.to_string()),
        Expr::Boolean(b) => s.push_str(if *b { "true" } else { "false" }),
        Expr::String(t) => s.push_str(&format!("{t:?}")),
        Expr::Var(v) => match vars.get(*v) {
            Some(var) => s.push_str(&var.name),
            None => s.push_str(&format!("<variable {v}>")),
        },
        Expr::Time => s.push_str("time"),
        Expr::Der(a) => wrap("der", a, vars, s),
        Expr::Pre(a) => wrap("pre", a, vars, s),
        Expr::Edge(a) => wrap("edge", a, vars, s),
        Expr::Change(a) => wrap("change", a, vars, s),
        Expr::NoEvent(a) => wrap("noEvent", a, vars, s),
        Expr::ToString(a, _) => wrap("String", a, vars, s),
        Expr::Smooth(p, a) => {
            s.push_str(&format!("smooth({p}, "));
            write_expr(a, vars, 0, s);
            s.push(')');
        }
        Expr::Unary(UnOp::Neg, a) => {
            let paren = outer > 5;
            if paren {
                s.push('(');
            }
            s.push('-');
            write_expr(a, vars, 7, s);
            if paren {
                s.push(')');
            }
        }
        Expr::Unary(UnOp::Not, a) => {
            let paren = outer > 3;
            if paren {
                s.push('(');
            }
            s.push_str("not ");
            write_expr(a, vars, 3, s);
            if paren {
                s.push(')');
            }
        }
        Expr::Binary(op, a, b) => {
            let p = op.precedence();
            let paren = outer > p;
            if paren {
                s.push('(');
            }
            // Left-associative: the right operand of `-` and `/` needs a tighter context.
            let (lp, rp) = if *op == BinOp::Pow {
                (p + 1, p + 1)
            } else {
                (p, p + 1)
            };
            write_expr(a, vars, lp, s);
            push_op(*op, s);
            write_expr(b, vars, rp, s);
            if paren {
                s.push(')');
            }
        }
        Expr::Call(f, args) => {
            s.push_str(builtin_name(*f));
            s.push('(');
            list(args, vars, s);
            s.push(')');
        }
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => {
            s.push_str(function);
            s.push('(');
            list(args, vars, s);
            s.push(')');
            if *output > 0 || *element > 0 {
                s.push_str(&format!("[output {}, element {}]", output + 1, element + 1));
            }
        }
        Expr::Array { elements, .. } => {
            s.push('{');
            list(elements, vars, s);
            s.push('}');
        }
        Expr::If { branches, else_ } => {
            let paren = outer > 0;
            if paren {
                s.push('(');
            }
            for (i, (c, v)) in branches.iter().enumerate() {
                s.push_str(if i == 0 { "if " } else { " elseif " });
                write_expr(c, vars, 0, s);
                s.push_str(" then ");
                write_expr(v, vars, 0, s);
            }
            s.push_str(" else ");
            write_expr(else_, vars, 0, s);
            if paren {
                s.push(')');
            }
        }
        Expr::Initial => s.push_str("initial()"),
        Expr::Terminal => s.push_str("terminal()"),
        Expr::Sample(a, b) => {
            s.push_str("sample(");
            write_expr(a, vars, 0, s);
            s.push_str(", ");
            write_expr(b, vars, 0, s);
            s.push(')');
        }
    }
}

fn wrap(name: &str, a: &Expr, vars: &[Variable], s: &mut String) {
    s.push_str(name);
    s.push('(');
    write_expr(a, vars, 0, s);
    s.push(')');
}
