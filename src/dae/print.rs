//! Flat Modelica text of a [`FlatModel`] (used by `minimo flatten` and in messages).

use super::{
    BinOp, Builtin, Causality, Equation, EquationKind, Expr, FlatModel, Function, ScalarType,
    StateSelect, UnOp, Variability, Variable,
};
use crate::syntax::{print_expr as print_ast_expr, print_statement, real};
use std::fmt::Write as _;

/// Prints the flat model as flat Modelica: functions, then variables, then equations.
pub fn print_flat(model: &FlatModel) -> String {
    let mut s = String::new();
    for f in model.functions.values() {
        print_function(&mut s, f);
    }
    let _ = writeln!(s, "class {}", model.name);
    for v in &model.variables {
        let _ = writeln!(s, "  {};", print_declaration(v, &model.variables));
    }
    if !model.initial_equations.is_empty() {
        s.push_str("initial equation\n");
        for e in &model.initial_equations {
            print_equation(&mut s, e, &model.variables, 1);
        }
    }
    if !model.equations.is_empty() {
        s.push_str("equation\n");
        for e in &model.equations {
            print_equation(&mut s, e, &model.variables, 1);
        }
    }
    let x = &model.experiment;
    let parts: Vec<String> = [
        ("StartTime", x.start_time),
        ("StopTime", x.stop_time),
        ("Interval", x.interval),
        ("Tolerance", x.tolerance),
    ]
    .iter()
    .filter_map(|(n, v)| v.map(|v| format!("{n} = {}", real(v))))
    .collect();
    if !parts.is_empty() {
        let _ = writeln!(s, "  annotation(experiment({}));", parts.join(", "));
    }
    let _ = writeln!(s, "end {};", model.name);
    s
}

fn type_name(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Real => "Real",
        ScalarType::Integer => "Integer",
        ScalarType::Boolean => "Boolean",
        ScalarType::String => "String",
        ScalarType::Enumeration => "enumeration",
    }
}

fn print_declaration(v: &Variable, vars: &[Variable]) -> String {
    let mut s = String::new();
    if v.flow {
        s.push_str("flow ");
    }
    match v.variability {
        Variability::Constant => s.push_str("constant "),
        Variability::Parameter => s.push_str("parameter "),
        Variability::Discrete if v.ty == ScalarType::Real => s.push_str("discrete "),
        _ => {}
    }
    match v.causality {
        Causality::Input => s.push_str("input "),
        Causality::Output => s.push_str("output "),
        Causality::Local => {}
    }
    s.push_str(type_name(v.ty));
    s.push(' ');
    s.push_str(&v.name);
    let mut attrs = Vec::new();
    let attr = |attrs: &mut Vec<String>, n: &str, e: &Option<Expr>| {
        if let Some(e) = e {
            attrs.push(format!("{n} = {}", print_expr(e, vars)));
        }
    };
    attr(&mut attrs, "start", &v.start);
    if let Some(f) = v.fixed {
        attrs.push(format!("fixed = {f}"));
    }
    attr(&mut attrs, "nominal", &v.nominal);
    attr(&mut attrs, "min", &v.min);
    attr(&mut attrs, "max", &v.max);
    if let Some(u) = &v.unit {
        attrs.push(format!("unit = {u:?}"));
    }
    if let Some(u) = &v.display_unit {
        attrs.push(format!("displayUnit = {u:?}"));
    }
    if v.state_select != StateSelect::Default {
        attrs.push(format!(
            "stateSelect = StateSelect.{}",
            format!("{:?}", v.state_select).to_lowercase()
        ));
    }
    if !attrs.is_empty() {
        let _ = write!(s, "({})", attrs.join(", "));
    }
    if let Some(b) = &v.binding {
        let _ = write!(s, " = {}", print_expr(b, vars));
    }
    if let Some(d) = &v.description {
        let _ = write!(s, " {d:?}");
    }
    s
}

fn indent(n: usize) -> String {
    "  ".repeat(n)
}

fn print_equation(s: &mut String, e: &Equation, vars: &[Variable], depth: usize) {
    let ind = indent(depth);
    match &e.kind {
        EquationKind::Simple { lhs, rhs } => {
            let _ = writeln!(
                s,
                "{ind}{} = {};",
                print_expr(lhs, vars),
                print_expr(rhs, vars)
            );
        }
        EquationKind::If { branches, else_ } => {
            for (k, (c, b)) in branches.iter().enumerate() {
                let kw = if k == 0 { "if" } else { "elseif" };
                let _ = writeln!(s, "{ind}{kw} {} then", print_expr(c, vars));
                for x in b {
                    print_equation(s, x, vars, depth + 1);
                }
            }
            if !else_.is_empty() {
                let _ = writeln!(s, "{ind}else");
                for x in else_ {
                    print_equation(s, x, vars, depth + 1);
                }
            }
            let _ = writeln!(s, "{ind}end if;");
        }
        EquationKind::When { branches } => {
            for (k, (c, b)) in branches.iter().enumerate() {
                let kw = if k == 0 { "when" } else { "elsewhen" };
                let _ = writeln!(s, "{ind}{kw} {} then", print_expr(c, vars));
                for x in b {
                    print_equation(s, x, vars, depth + 1);
                }
            }
            let _ = writeln!(s, "{ind}end when;");
        }
        EquationKind::Reinit { var, value } => {
            let _ = writeln!(
                s,
                "{ind}reinit({}, {});",
                var_name(*var, vars),
                print_expr(value, vars)
            );
        }
        EquationKind::Assert {
            condition,
            message,
            warning,
        } => {
            let level = if *warning {
                ", AssertionLevel.warning"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "{ind}assert({}, {}{level});",
                print_expr(condition, vars),
                print_expr(message, vars)
            );
        }
        EquationKind::Terminate { message } => {
            let _ = writeln!(s, "{ind}terminate({});", print_expr(message, vars));
        }
    }
}

fn var_name(v: usize, vars: &[Variable]) -> String {
    vars.get(v)
        .map(|x| x.name.clone())
        .unwrap_or_else(|| format!("<var {v}>"))
}

/// Binding strength of the outer operator of `e` (higher binds tighter).
fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, _, _) => op.precedence(),
        Expr::Unary(UnOp::Not, _) => 3,
        Expr::Unary(UnOp::Neg, _) => 5,
        Expr::If { .. } => 0,
        Expr::Real(x) if *x < 0.0 => 5,
        Expr::Integer(i) if *i < 0 => 5,
        _ => 10,
    }
}

pub fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::Sin => "sin",
        Builtin::Cos => "cos",
        Builtin::Tan => "tan",
        Builtin::Asin => "asin",
        Builtin::Acos => "acos",
        Builtin::Atan => "atan",
        Builtin::Atan2 => "atan2",
        Builtin::Sinh => "sinh",
        Builtin::Cosh => "cosh",
        Builtin::Tanh => "tanh",
        Builtin::Exp => "exp",
        Builtin::Log => "log",
        Builtin::Log10 => "log10",
        Builtin::Sqrt => "sqrt",
        Builtin::Abs => "abs",
        Builtin::Sign => "sign",
        Builtin::Min => "min",
        Builtin::Max => "max",
        Builtin::Floor => "floor",
        Builtin::Ceil => "ceil",
        Builtin::Integer => "integer",
        Builtin::Div => "div",
        Builtin::Mod => "mod",
        Builtin::Rem => "rem",
        Builtin::SemiLinear => "semiLinear",
        Builtin::Homotopy => "homotopy",
        Builtin::Delay => "delay",
        Builtin::EventClock => "Clock",
    }
}

/// An expression as Modelica text, with variables by flat name and minimal parentheses.
pub fn print_expr(e: &Expr, vars: &[Variable]) -> String {
    let list = |args: &[Expr]| {
        args.iter()
            .map(|a| print_expr(a, vars))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match e {
        Expr::Real(x) => real(*x),
        Expr::Integer(i) => i.to_string(),
        Expr::Boolean(b) => b.to_string(),
        Expr::String(s) => format!("{s:?}"),
        Expr::Var(v) => var_name(*v, vars),
        Expr::Time => "time".into(),
        Expr::Der(a) => format!("der({})", print_expr(a, vars)),
        Expr::Pre(a) => format!("pre({})", print_expr(a, vars)),
        Expr::Edge(a) => format!("edge({})", print_expr(a, vars)),
        Expr::Change(a) => format!("change({})", print_expr(a, vars)),
        Expr::NoEvent(a) => format!("noEvent({})", print_expr(a, vars)),
        Expr::Smooth(p, a) => format!("smooth({p}, {})", print_expr(a, vars)),
        Expr::ToString(a, f) => {
            let mut opts = String::new();
            if let Some(fmt) = &f.format {
                opts.push_str(&format!(", format = {fmt:?}"));
            } else if f.significant_digits != 6 {
                opts.push_str(&format!(", significantDigits = {}", f.significant_digits));
            }
            if f.min_length != 0 {
                opts.push_str(&format!(", minimumLength = {}", f.min_length));
            }
            if !f.left_justified {
                opts.push_str(", leftJustified = false");
            }
            format!("String({}{opts})", print_expr(a, vars))
        }
        Expr::Initial => "initial()".into(),
        Expr::Terminal => "terminal()".into(),
        Expr::Sample(a, b) => format!("sample({}, {})", print_expr(a, vars), print_expr(b, vars)),
        Expr::Unary(op, a) => {
            let p = prec(e);
            let inner = print_expr(a, vars);
            let inner = if prec(a) <= p {
                format!("({inner})")
            } else {
                inner
            };
            match op {
                UnOp::Neg => format!("-{inner}"),
                UnOp::Not => format!("not {inner}"),
            }
        }
        Expr::Binary(op, a, b) => {
            let p = prec(e);
            let l = print_expr(a, vars);
            let r = print_expr(b, vars);
            // Left-associative: the right operand needs parentheses at equal precedence
            // (except for + and * which are associative); `^` is non-associative.
            let lp = if prec(a) < p || (*op == BinOp::Pow && prec(a) <= p) {
                format!("({l})")
            } else {
                l
            };
            let assoc = matches!(op, BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or);
            let rp = if prec(b) < p
                || (prec(b) == p && !assoc)
                || (prec(b) == p && matches!(**b, Expr::Binary(BinOp::Sub | BinOp::Div, ..)))
            {
                format!("({r})")
            } else {
                r
            };
            format!("{lp} {} {rp}", op.symbol())
        }
        Expr::Call(f, args) => format!("{}({})", builtin_name(*f), list(args)),
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => {
            let mut s = format!("{function}({})", list(args));
            if *output > 0 {
                let _ = write!(s, ".output{}", output + 1);
            }
            if !matches!((output, element), (_, 0)) {
                let _ = write!(s, "[{}]", element + 1);
            }
            s
        }
        Expr::Array { dims, elements } => {
            if dims.len() <= 1 {
                format!("{{{}}}", list(elements))
            } else {
                let inner: usize = dims[1..].iter().product();
                let rows: Vec<String> = elements
                    .chunks(inner.max(1))
                    .map(|c| {
                        print_expr(
                            &Expr::Array {
                                dims: dims[1..].to_vec(),
                                elements: c.to_vec(),
                            },
                            vars,
                        )
                    })
                    .collect();
                format!("{{{}}}", rows.join(", "))
            }
        }
        Expr::If { branches, else_ } => {
            let mut s = String::new();
            for (k, (c, v)) in branches.iter().enumerate() {
                let kw = if k == 0 { "if" } else { " elseif" };
                let _ = write!(
                    s,
                    "{kw} {} then {}",
                    print_expr(c, vars),
                    print_expr(v, vars)
                );
            }
            let _ = write!(s, " else {}", print_expr(else_, vars));
            s
        }
    }
}

fn print_function(s: &mut String, f: &Function) {
    let _ = writeln!(s, "function {}", f.name);
    let decl = |s: &mut String, prefix: &str, v: &super::FunctionVar| {
        let dims = if v.dims.is_empty() {
            String::new()
        } else {
            let d: Vec<String> = v
                .dims
                .iter()
                .map(|d| d.as_ref().map(print_ast_expr).unwrap_or_else(|| ":".into()))
                .collect();
            format!("[{}]", d.join(", "))
        };
        let default = v
            .default
            .as_ref()
            .map(|d| format!(" = {}", print_ast_expr(d)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {prefix}{} {}{dims}{default};",
            type_name(v.ty),
            v.name
        );
    };
    for v in &f.inputs {
        decl(s, "input ", v);
    }
    for v in &f.outputs {
        decl(s, "output ", v);
    }
    if !f.locals.is_empty() {
        s.push_str("protected\n");
        for v in &f.locals {
            decl(s, "", v);
        }
    }
    if let Some(n) = &f.native {
        // Evaluated by minimo itself; the table it reads is summarised, not printed.
        let what = match &n.table {
            Some(super::tables::Table::OneD(t)) => {
                format!(" (1-D table, {} rows, {:?})", t.x.len(), t.smoothness)
            }
            Some(super::tables::Table::Time(t)) => {
                format!(
                    " (time table, {} rows, {:?})",
                    t.table.x.len(),
                    t.table.smoothness
                )
            }
            Some(super::tables::Table::TwoD(t)) => {
                format!(
                    " (2-D table, {}x{}, {:?})",
                    t.u1.len(),
                    t.u2.len(),
                    t.smoothness
                )
            }
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "  // external \"C\" {}, evaluated natively{what}",
            n.c_name
        );
        let _ = writeln!(s, "end {};\n", f.name);
        return;
    }
    s.push_str("algorithm\n");
    for st in &f.body {
        s.push_str(&print_statement(st, 1));
    }
    let _ = writeln!(s, "end {};\n", f.name);
}
