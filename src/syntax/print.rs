//! Pretty-printer: a syntax tree back to Modelica text.
//!
//! The output re-parses to the same tree (spans aside): parentheses are inserted from the
//! precedence of each operator, never copied from the source; reals are written in Rust's
//! shortest round-trip form (always with `.` or `e`, so they stay reals).

use super::ast::*;
use std::fmt::Write;

/// Modelica text of a whole file.
pub fn print(def: &StoredDefinition) -> String {
    let mut p = Printer::default();
    if let Some(w) = &def.within {
        match &w.name {
            Some(n) => {
                let _ = writeln!(p.out, "within {};", name(n));
            }
            None => p.out.push_str("within;\n"),
        }
    }
    for (i, c) in def.classes.iter().enumerate() {
        if i > 0 || def.within.is_some() {
            p.out.push('\n');
        }
        p.class(c, true);
        p.out.push_str(";\n");
    }
    p.out
}

/// Modelica text of one expression (no trailing newline).
pub fn print_expr(e: &Expr) -> String {
    let mut s = String::new();
    expr(&mut s, e, 0);
    s
}

/// Modelica text of one statement (and the statements it nests), its lines indented by `depth`
/// levels.
pub fn print_statement(s: &Statement, depth: usize) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: depth,
    };
    p.statement(s);
    p.out
}

/// A real literal that reads back as a Real (`2.0`, `1e-10`): Rust's shortest round-trip form.
/// Folding constants can produce non-finite values, which have no literal: they are written as
/// expressions that evaluate to them.
pub(crate) fn real(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else if x.is_nan() {
        "0.0/0.0".into()
    } else if x > 0.0 {
        "1e400".into()
    } else {
        "-1e400".into()
    }
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    /// A class definition without the trailing `;`. `with_element_prefixes` is false inside a
    /// modifier, where `redeclare`/`final`/`replaceable` belong to the argument.
    fn class(&mut self, c: &ClassDef, with_element_prefixes: bool) {
        self.line_start();
        let pr = &c.prefixes;
        if with_element_prefixes {
            for (on, kw) in [
                (pr.redeclare, "redeclare "),
                (pr.final_, "final "),
                (pr.inner, "inner "),
                (pr.outer, "outer "),
                (pr.replaceable, "replaceable "),
            ] {
                if on {
                    self.out.push_str(kw);
                }
            }
        }
        if pr.encapsulated {
            self.out.push_str("encapsulated ");
        }
        if pr.partial {
            self.out.push_str("partial ");
        }
        self.out.push_str(kind_text(c.kind));
        self.out.push(' ');
        match &c.body {
            ClassBody::Long(l) => {
                self.out.push_str(&c.name.name);
                description(&mut self.out, &l.description);
                self.out.push('\n');
                self.long_body(l);
            }
            ClassBody::Extends(x) => {
                self.out.push_str("extends ");
                self.out.push_str(&x.base_name.name);
                if let Some(m) = &x.modification {
                    class_modification(&mut self.out, m);
                }
                description(&mut self.out, &x.body.description);
                self.out.push('\n');
                self.long_body(&x.body);
            }
            ClassBody::Short(s) => {
                let _ = write!(self.out, "{} = ", c.name.name);
                type_prefix(&mut self.out, &s.prefixes);
                self.out.push_str(&name(&s.base));
                subscripts(&mut self.out, &s.array_dims);
                if let Some(m) = &s.modification {
                    class_modification(&mut self.out, m);
                }
                comment(&mut self.out, &c.comment);
            }
            ClassBody::Enumeration(e) => {
                let _ = write!(self.out, "{} = enumeration(", c.name.name);
                if e.colon {
                    self.out.push(':');
                }
                for (i, lit) in e.literals.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(&lit.name.name);
                    comment(&mut self.out, &lit.comment);
                }
                self.out.push(')');
                comment(&mut self.out, &c.comment);
            }
            ClassBody::Der(d) => {
                let _ = write!(self.out, "{} = der({}", c.name.name, name(&d.function));
                for v in &d.vars {
                    let _ = write!(self.out, ", {}", v.name);
                }
                self.out.push(')');
                comment(&mut self.out, &c.comment);
            }
        }
        if let Some(cb) = &c.constrainedby {
            constrainedby(&mut self.out, cb);
        }
    }

    fn long_body(&mut self, l: &LongClass) {
        for (i, s) in l.sections.iter().enumerate() {
            match s {
                Section::Elements {
                    visibility,
                    elements,
                    ..
                } => {
                    if i > 0 || *visibility == Visibility::Protected {
                        self.line_start();
                        self.out.push_str(match visibility {
                            Visibility::Public => "public\n",
                            Visibility::Protected => "protected\n",
                        });
                    }
                    self.indent += 1;
                    for e in elements {
                        self.element(e);
                    }
                    self.indent -= 1;
                }
                Section::Equations {
                    initial, equations, ..
                } => {
                    self.line_start();
                    self.out.push_str(if *initial {
                        "initial equation\n"
                    } else {
                        "equation\n"
                    });
                    self.indent += 1;
                    for e in equations {
                        self.equation(e);
                    }
                    self.indent -= 1;
                }
                Section::Algorithm {
                    initial,
                    statements,
                    ..
                } => {
                    self.line_start();
                    self.out.push_str(if *initial {
                        "initial algorithm\n"
                    } else {
                        "algorithm\n"
                    });
                    self.indent += 1;
                    for s in statements {
                        self.statement(s);
                    }
                    self.indent -= 1;
                }
            }
        }
        self.indent += 1;
        if let Some(x) = &l.external {
            self.line_start();
            let _ = writeln!(self.out, "external {};", x.text);
        }
        if let Some(a) = &l.annotation {
            self.line_start();
            annotation(&mut self.out, a);
            self.out.push_str(";\n");
        }
        self.indent -= 1;
        self.line_start();
        let _ = write!(self.out, "end {}", l.end_name.name);
    }

    fn element(&mut self, e: &Element) {
        match e {
            Element::Import(i) => {
                self.line_start();
                self.out.push_str("import ");
                match &i.kind {
                    ImportKind::Named { alias: Some(a) } => {
                        let _ = write!(self.out, "{} = {}", a.name, name(&i.name));
                    }
                    ImportKind::Named { alias: None } => self.out.push_str(&name(&i.name)),
                    ImportKind::Unqualified => {
                        let _ = write!(self.out, "{}.*", name(&i.name));
                    }
                    ImportKind::Multiple(ids) => {
                        let list: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
                        let _ = write!(self.out, "{}.{{{}}}", name(&i.name), list.join(", "));
                    }
                }
                comment(&mut self.out, &i.comment);
                self.out.push_str(";\n");
            }
            Element::Extends(x) => {
                self.line_start();
                let _ = write!(self.out, "extends {}", name(&x.base));
                if let Some(m) = &x.modification {
                    class_modification(&mut self.out, m);
                }
                if let Some(a) = &x.annotation {
                    self.out.push(' ');
                    annotation(&mut self.out, a);
                }
                self.out.push_str(";\n");
            }
            Element::Class(c) => {
                self.class(c, true);
                self.out.push_str(";\n");
            }
            Element::Component(c) => {
                self.line_start();
                component_clause(&mut self.out, c, true);
                self.out.push_str(";\n");
            }
        }
    }

    fn equation(&mut self, e: &Equation) {
        self.line_start();
        match &e.kind {
            EquationKind::Simple { lhs, rhs } => {
                expr(&mut self.out, lhs, 0);
                self.out.push_str(" = ");
                expr(&mut self.out, rhs, 0);
            }
            EquationKind::Connect { a, b } => {
                let _ = write!(self.out, "connect({}, {})", cref(a), cref(b));
            }
            EquationKind::Call { func, args } => {
                self.out.push_str(&cref(func));
                call_args(&mut self.out, args);
            }
            EquationKind::For { indices, body } => {
                self.out.push_str("for ");
                for_indices(&mut self.out, indices);
                self.out.push_str(" loop\n");
                self.block(body, Self::equation);
                self.line_start();
                self.out.push_str("end for");
            }
            EquationKind::If { branches, else_ } => {
                self.branches("if", "elseif", branches, Self::equation);
                if !else_.is_empty() {
                    self.line_start();
                    self.out.push_str("else\n");
                    self.block(else_, Self::equation);
                }
                self.line_start();
                self.out.push_str("end if");
            }
            EquationKind::When { branches } => {
                self.branches("when", "elsewhen", branches, Self::equation);
                self.line_start();
                self.out.push_str("end when");
            }
        }
        comment(&mut self.out, &e.comment);
        self.out.push_str(";\n");
    }

    fn statement(&mut self, s: &Statement) {
        self.line_start();
        match &s.kind {
            StatementKind::Assign { target, value } => {
                let _ = write!(self.out, "{} := ", cref(target));
                expr(&mut self.out, value, 0);
            }
            StatementKind::MultiAssign { targets, value } => {
                let t: Vec<String> = targets
                    .iter()
                    .map(|t| t.as_ref().map(cref).unwrap_or_default())
                    .collect();
                let _ = write!(self.out, "({}) := ", t.join(", "));
                expr(&mut self.out, value, 0);
            }
            StatementKind::Call { func, args } => {
                self.out.push_str(&cref(func));
                call_args(&mut self.out, args);
            }
            StatementKind::If { branches, else_ } => {
                self.branches("if", "elseif", branches, Self::statement);
                if !else_.is_empty() {
                    self.line_start();
                    self.out.push_str("else\n");
                    self.block(else_, Self::statement);
                }
                self.line_start();
                self.out.push_str("end if");
            }
            StatementKind::For { indices, body } => {
                self.out.push_str("for ");
                for_indices(&mut self.out, indices);
                self.out.push_str(" loop\n");
                self.block(body, Self::statement);
                self.line_start();
                self.out.push_str("end for");
            }
            StatementKind::While { condition, body } => {
                self.out.push_str("while ");
                expr(&mut self.out, condition, 0);
                self.out.push_str(" loop\n");
                self.block(body, Self::statement);
                self.line_start();
                self.out.push_str("end while");
            }
            StatementKind::When { branches } => {
                self.branches("when", "elsewhen", branches, Self::statement);
                self.line_start();
                self.out.push_str("end when");
            }
            StatementKind::Return => self.out.push_str("return"),
            StatementKind::Break => self.out.push_str("break"),
        }
        comment(&mut self.out, &s.comment);
        self.out.push_str(";\n");
    }

    fn block<T>(&mut self, items: &[T], f: fn(&mut Self, &T)) {
        self.indent += 1;
        for i in items {
            f(self, i);
        }
        self.indent -= 1;
    }

    /// `if c then ... elseif c then ...` (the caller has already indented the first line).
    fn branches<T>(
        &mut self,
        first: &str,
        next: &str,
        branches: &[(Expr, Vec<T>)],
        f: fn(&mut Self, &T),
    ) {
        for (i, (c, body)) in branches.iter().enumerate() {
            if i > 0 {
                self.line_start();
            }
            self.out.push_str(if i == 0 { first } else { next });
            self.out.push(' ');
            expr(&mut self.out, c, 0);
            self.out.push_str(" then\n");
            self.block(body, f);
        }
    }
}

pub fn kind_text(k: ClassKind) -> &'static str {
    match k {
        ClassKind::Class => "class",
        ClassKind::Model => "model",
        ClassKind::Record => "record",
        ClassKind::OperatorRecord => "operator record",
        ClassKind::Block => "block",
        ClassKind::Connector => "connector",
        ClassKind::ExpandableConnector => "expandable connector",
        ClassKind::Type => "type",
        ClassKind::Package => "package",
        ClassKind::Function => "function",
        ClassKind::PureFunction => "pure function",
        ClassKind::ImpureFunction => "impure function",
        ClassKind::OperatorFunction => "operator function",
        ClassKind::Operator => "operator",
    }
}

fn name(n: &Name) -> String {
    let mut s = String::new();
    if n.global {
        s.push('.');
    }
    for (i, p) in n.parts.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        s.push_str(&p.name);
    }
    s
}

fn cref(r: &ComponentRef) -> String {
    let mut s = String::new();
    if r.global {
        s.push('.');
    }
    for (i, p) in r.parts.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        s.push_str(&p.ident.name);
        subscripts(&mut s, &p.subscripts);
    }
    s
}

fn subscripts(out: &mut String, subs: &[Subscript]) {
    if subs.is_empty() {
        return;
    }
    out.push('[');
    for (i, s) in subs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match s {
            Subscript::Colon(_) => out.push(':'),
            Subscript::Expr(e) => expr(out, e, 0),
        }
    }
    out.push(']');
}

fn type_prefix(out: &mut String, t: &TypePrefix) {
    out.push_str(match t.connection {
        Connection::None => "",
        Connection::Flow => "flow ",
        Connection::Stream => "stream ",
    });
    out.push_str(match t.variability {
        Variability::Continuous => "",
        Variability::Discrete => "discrete ",
        Variability::Parameter => "parameter ",
        Variability::Constant => "constant ",
    });
    out.push_str(match t.causality {
        Causality::None => "",
        Causality::Input => "input ",
        Causality::Output => "output ",
    });
}

fn component_clause(out: &mut String, c: &ComponentClause, with_element_prefixes: bool) {
    let ep = &c.element_prefixes;
    if with_element_prefixes {
        for (on, kw) in [
            (ep.redeclare, "redeclare "),
            (ep.final_, "final "),
            (ep.inner, "inner "),
            (ep.outer, "outer "),
            (ep.replaceable, "replaceable "),
        ] {
            if on {
                out.push_str(kw);
            }
        }
    }
    type_prefix(out, &c.prefix);
    out.push_str(&name(&c.type_name));
    subscripts(out, &c.type_dims);
    for (i, d) in c.components.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(&d.name.name);
        subscripts(out, &d.dims);
        if let Some(m) = &d.modification {
            modification(out, m);
        }
        if let Some(cond) = &d.condition {
            out.push_str(" if ");
            expr(out, cond, 0);
        }
        comment(out, &d.comment);
    }
    if let Some(cb) = &c.constrainedby {
        constrainedby(out, cb);
    }
}

fn constrainedby(out: &mut String, cb: &Constrainedby) {
    let _ = write!(out, " constrainedby {}", name(&cb.name));
    if let Some(m) = &cb.modification {
        class_modification(out, m);
    }
    comment(out, &cb.comment);
}

fn modification(out: &mut String, m: &Modification) {
    match m {
        Modification::Class { args, binding, .. } => {
            class_modification(out, args);
            if let Some(b) = binding {
                out.push_str(" = ");
                expr(out, b, 0);
            }
        }
        Modification::Binding { expr: e, .. } => {
            out.push_str(" = ");
            expr(out, e, 0);
        }
        Modification::Assign { expr: e, .. } => {
            out.push_str(" := ");
            expr(out, e, 0);
        }
    }
}

fn class_modification(out: &mut String, m: &ClassModification) {
    out.push('(');
    for (i, a) in m.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        argument(out, a);
    }
    out.push(')');
}

fn argument(out: &mut String, a: &Argument) {
    match a {
        Argument::Modify {
            each,
            final_,
            name: n,
            modification: m,
            description: d,
            ..
        } => {
            if *each {
                out.push_str("each ");
            }
            if *final_ {
                out.push_str("final ");
            }
            out.push_str(&name(n));
            if let Some(m) = m {
                modification(out, m);
            }
            description(out, d);
        }
        Argument::Redeclare {
            redeclare,
            each,
            final_,
            replaceable,
            element,
            ..
        } => {
            for (on, kw) in [
                (*redeclare, "redeclare "),
                (*each, "each "),
                (*final_, "final "),
                (*replaceable, "replaceable "),
            ] {
                if on {
                    out.push_str(kw);
                }
            }
            match element {
                RedeclaredElement::Class(c) => {
                    let mut p = Printer::default();
                    p.class(c, false);
                    out.push_str(&p.out);
                }
                RedeclaredElement::Component(c) => component_clause(out, c, false),
            }
        }
    }
}

fn annotation(out: &mut String, a: &Annotation) {
    out.push_str("annotation");
    class_modification(out, &a.modification);
}

fn description(out: &mut String, d: &Option<StringLit>) {
    if let Some(s) = d {
        out.push(' ');
        string(out, &s.value);
    }
}

fn comment(out: &mut String, c: &Comment) {
    description(out, &c.description);
    if let Some(a) = &c.annotation {
        out.push(' ');
        annotation(out, a);
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn for_indices(out: &mut String, indices: &[ForIndex]) {
    for (i, ix) in indices.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&ix.name.name);
        if let Some(r) = &ix.range {
            out.push_str(" in ");
            expr(out, r, 0);
        }
    }
}

fn call_args(out: &mut String, a: &FunctionArgs) {
    out.push('(');
    function_args(out, a);
    out.push(')');
}

fn function_args(out: &mut String, a: &FunctionArgs) {
    let mut first = true;
    for e in &a.positional {
        if !first {
            out.push_str(", ");
        }
        first = false;
        expr(out, e, 0);
    }
    for n in &a.named {
        if !first {
            out.push_str(", ");
        }
        first = false;
        let _ = write!(out, "{} = ", n.name.name);
        expr(out, &n.value, 0);
    }
    if !a.iterators.is_empty() {
        out.push_str(" for ");
        for_indices(out, &a.iterators);
    }
}

// Precedence levels (higher binds tighter).
const P_IF: u8 = 0;
const P_OR: u8 = 1;
const P_AND: u8 = 2;
const P_NOT: u8 = 3;
const P_REL: u8 = 4;
const P_ADD: u8 = 5;
const P_MUL: u8 = 6;
const P_POW: u8 = 7;
const P_PRIMARY: u8 = 8;

fn binop(op: BinOp) -> (&'static str, u8) {
    match op {
        BinOp::Or => ("or", P_OR),
        BinOp::And => ("and", P_AND),
        BinOp::Lt => ("<", P_REL),
        BinOp::Le => ("<=", P_REL),
        BinOp::Gt => (">", P_REL),
        BinOp::Ge => (">=", P_REL),
        BinOp::Eq => ("==", P_REL),
        BinOp::Ne => ("<>", P_REL),
        BinOp::Add => ("+", P_ADD),
        BinOp::Sub => ("-", P_ADD),
        BinOp::ElemAdd => (".+", P_ADD),
        BinOp::ElemSub => (".-", P_ADD),
        BinOp::Mul => ("*", P_MUL),
        BinOp::Div => ("/", P_MUL),
        BinOp::ElemMul => (".*", P_MUL),
        BinOp::ElemDiv => ("./", P_MUL),
        BinOp::Pow => ("^", P_POW),
        BinOp::ElemPow => (".^", P_POW),
    }
}

fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::If { .. } | ExprKind::Range { .. } => P_IF,
        ExprKind::Binary { op, .. } => binop(*op).1,
        ExprKind::Unary { op: UnOp::Not, .. } => P_NOT,
        ExprKind::Unary { .. } => P_ADD,
        _ => P_PRIMARY,
    }
}

/// Writes `e`, in parentheses when its precedence is below `min`.
fn expr(out: &mut String, e: &Expr, min: u8) {
    if precedence(e) < min {
        out.push('(');
        expr(out, e, 0);
        out.push(')');
        return;
    }
    match &e.kind {
        ExprKind::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        ExprKind::Real(r) => out.push_str(&real(*r)),
        ExprKind::String(s) => string(out, s),
        ExprKind::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::End => out.push_str("end"),
        ExprKind::Ref(r) => out.push_str(&cref(r)),
        ExprKind::Call { func, args } => {
            out.push_str(&cref(func));
            call_args(out, args);
        }
        ExprKind::Array(args) => {
            out.push('{');
            function_args(out, args);
            out.push('}');
        }
        ExprKind::Matrix(rows) => {
            out.push('[');
            for (i, row) in rows.iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                for (j, x) in row.iter().enumerate() {
                    if j > 0 {
                        out.push_str(", ");
                    }
                    expr(out, x, 0);
                }
            }
            out.push(']');
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if let Some(x) = x {
                    expr(out, x, 0);
                }
            }
            out.push(')');
        }
        ExprKind::Range { start, step, stop } => {
            expr(out, start, P_OR);
            out.push(':');
            if let Some(s) = step {
                expr(out, s, P_OR);
                out.push(':');
            }
            expr(out, stop, P_OR);
        }
        ExprKind::Unary { op, operand } => {
            let (text, min) = match op {
                UnOp::Not => ("not ", P_REL),
                UnOp::Neg => ("-", P_MUL),
                UnOp::Plus => ("+", P_MUL),
                UnOp::ElemNeg => (".-", P_MUL),
                UnOp::ElemPlus => (".+", P_MUL),
            };
            out.push_str(text);
            expr(out, operand, min);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (text, p) = binop(*op);
            // Left-associative except relations and powers, which do not associate at all.
            let (lmin, rmin) = match p {
                P_REL => (P_ADD, P_ADD),
                P_POW => (P_PRIMARY, P_PRIMARY),
                _ => (p, p + 1),
            };
            expr(out, lhs, lmin);
            let _ = write!(out, " {text} ");
            expr(out, rhs, rmin);
        }
        ExprKind::If { branches, else_ } => {
            for (i, (c, v)) in branches.iter().enumerate() {
                out.push_str(if i == 0 { "if " } else { " elseif " });
                expr(out, c, 0);
                out.push_str(" then ");
                expr(out, v, 0);
            }
            out.push_str(" else ");
            expr(out, else_, 0);
        }
        ExprKind::PartialFunction { func, args } => {
            let _ = write!(out, "function {}", name(func));
            call_args(out, args);
        }
    }
}
