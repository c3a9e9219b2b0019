//! The static type of an expression, as far as it can be told without evaluating it (MLS 6.7,
//! 10.6, 3.5): enough to refuse a Real value bound to an Integer (`4000 / 100` and `8 ^ 3` are
//! Real), an enumeration compared with a number, a Boolean in arithmetic, and a value of one
//! enumeration type given to another (MLS 4.9.5: enumeration types are the same only with the
//! same literals in the same order, MLS 6.3).
//!
//! Whatever is not sure (user functions, names outside the instance tree, iterators,
//! most built-ins) is `Unknown`, and `Unknown` is never an error: the check refuses only what
//! it can prove wrong.

use super::Flattener;
use super::expand::Prim;
use super::instance::{InstId, InstKind};
use super::modifier::{ModExpr, Scope};
use crate::dae::ScalarType;
use crate::diag::Diagnostic;
use crate::syntax::ast::{self, BinOp, ExprKind, UnOp};
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ty {
    Real,
    Integer,
    Boolean,
    String,
    /// An enumeration, by its literals.
    Enum(Rc<Vec<String>>),
    Unknown,
}

impl Ty {
    fn numeric(&self) -> bool {
        matches!(self, Ty::Real | Ty::Integer)
    }

    fn name(&self) -> String {
        match self {
            Ty::Real => "Real".into(),
            Ty::Integer => "Integer".into(),
            Ty::Boolean => "Boolean".into(),
            Ty::String => "String".into(),
            Ty::Enum(l) => format!("enumeration({})", l.join(", ")),
            Ty::Unknown => "unknown".into(),
        }
    }
}

/// The common type of two alternatives (if-branches, array elements): Integer widens to Real.
fn join(a: Ty, b: Ty) -> Ty {
    match (a, b) {
        (Ty::Unknown, _) | (_, Ty::Unknown) => Ty::Unknown,
        (Ty::Integer, Ty::Real) | (Ty::Real, Ty::Integer) => Ty::Real,
        (a, b) if a == b => a,
        _ => Ty::Unknown,
    }
}

/// Names of iterators and loop variables in scope: they hide components of the same name.
pub(super) type Locals<'a> = &'a [String];

impl Flattener<'_> {
    /// Refuses a binding whose type cannot be given to the component `i` (MLS 6.7): a Real
    /// value for an Integer, a number for an enumeration, a value of another enumeration.
    pub(super) fn check_binding_type(&mut self, i: InstId, b: &ModExpr) -> Result<(), Diagnostic> {
        let InstKind::Prim { ty, .. } = self.insts[i].kind else {
            return Ok(());
        };
        let target = match ty {
            ScalarType::Real => Ty::Real,
            ScalarType::Integer => Ty::Integer,
            ScalarType::Boolean => Ty::Boolean,
            ScalarType::String => Ty::String,
            ScalarType::Enumeration => match &self.insts[i].exp.prim {
                Some(Prim::Enum(l)) => Ty::Enum(l.clone()),
                _ => return Ok(()),
            },
        };
        let got = self.static_type(&b.expr, b.scope, &[])?;
        let fits = match (&target, &got) {
            (_, Ty::Unknown) => true,
            (Ty::Real, Ty::Integer) => true,
            (t, g) => t == g,
        };
        if fits {
            return Ok(());
        }
        let mut d = Diagnostic::error(
            b.expr.span,
            format!(
                "`{}` is of type {} but its binding is of type {} (MLS 6.7)",
                self.insts[i].path,
                target.name(),
                got.name()
            ),
        );
        d = match (&target, &got) {
            (Ty::Integer, Ty::Real) => d.with_help(
                "`/` and `^` give Real values: use `div(a, b)` or `integer(...)` for an Integer",
            ),
            (Ty::Enum(_), Ty::Integer) => {
                d.with_help("give a literal of the enumeration; Integer values do not convert")
            }
            _ => d,
        };
        Err(d)
    }

    /// The type of `e` written in `scope`; an operation on operands of the wrong type is an
    /// error located at the operation.
    pub(super) fn static_type(
        &mut self,
        e: &ast::Expr,
        scope: Scope,
        locals: Locals,
    ) -> Result<Ty, Diagnostic> {
        Ok(match &e.kind {
            ExprKind::Integer(_) => Ty::Integer,
            ExprKind::Real(_) => Ty::Real,
            ExprKind::String(_) => Ty::String,
            ExprKind::Boolean(_) => Ty::Boolean,
            ExprKind::Ref(c) => self.ref_type(c, scope, locals),
            ExprKind::Unary { op, operand } => {
                let t = self.static_type(operand, scope, locals)?;
                match op {
                    UnOp::Not => {
                        expect(&t, e, "`not`", |t| *t == Ty::Boolean)?;
                        Ty::Boolean
                    }
                    _ => {
                        expect(&t, e, "a sign", Ty::numeric)?;
                        t
                    }
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (
                    self.static_type(lhs, scope, locals)?,
                    self.static_type(rhs, scope, locals)?,
                );
                binary(*op, a, b, e)?
            }
            ExprKind::If { branches, else_ } => {
                let mut t = self.static_type(else_, scope, locals)?;
                for (c, v) in branches {
                    let ct = self.static_type(c, scope, locals)?;
                    expect(&ct, c, "an if-condition", |t| *t == Ty::Boolean)?;
                    let vt = self.static_type(v, scope, locals)?;
                    t = join(t, vt);
                }
                t
            }
            ExprKind::Array(a) if a.iterators.is_empty() => {
                let mut t: Option<Ty> = None;
                for x in &a.positional {
                    let xt = self.static_type(x, scope, locals)?;
                    t = Some(match t {
                        None => xt,
                        Some(t) => join(t, xt),
                    });
                }
                t.unwrap_or(Ty::Unknown)
            }
            ExprKind::Matrix(rows) => {
                let mut t: Option<Ty> = None;
                for x in rows.iter().flatten() {
                    let xt = self.static_type(x, scope, locals)?;
                    t = Some(match t {
                        None => xt,
                        Some(t) => join(t, xt),
                    });
                }
                t.unwrap_or(Ty::Unknown)
            }
            ExprKind::Call { func, args } => self.call_type(func, args, scope, locals)?,
            _ => Ty::Unknown,
        })
    }

    fn call_type(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        scope: Scope,
        locals: Locals,
    ) -> Result<Ty, Diagnostic> {
        if func.global || func.parts.len() != 1 || !args.iterators.is_empty() {
            return Ok(Ty::Unknown);
        }
        // A class of that name in scope (a user function, a record) is not the built-in.
        if self
            .lookup_first(&func.parts[0].ident.name, scope.lex, scope.inst)
            .ok()
            .flatten()
            .is_some_and(|c| !matches!(self.tree.get(c).name.as_str(), "Integer" | "String"))
        {
            return Ok(Ty::Unknown);
        }
        let first = match args.positional.first() {
            Some(a) if args.named.is_empty() => Some(self.static_type(a, scope, locals)?),
            _ => None,
        };
        Ok(match func.parts[0].ident.name.as_str() {
            // `sample(u)` of MLS 16.5.2 is u's value at a clock tick.
            "sample" if args.positional.len() == 1 => first.unwrap_or(Ty::Unknown),
            // `sample(u, clock)`: a clock variable types as Boolean (a `Clock(...)` call as
            // unknown), the interval of `sample(start, interval)` never does.
            "sample" if args.positional.len() == 2 => {
                match self.static_type(&args.positional[1], scope, locals)? {
                    Ty::Boolean => first.unwrap_or(Ty::Unknown),
                    Ty::Unknown => Ty::Unknown,
                    _ => Ty::Boolean,
                }
            }
            "initial" | "terminal" | "sample" | "edge" | "change" => Ty::Boolean,
            "interval" => Ty::Real,
            "integer" | "size" | "ndims" | "Integer" | "cardinality" => Ty::Integer,
            "der" | "sqrt" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "atan2" | "exp"
            | "log" | "log10" | "sinh" | "cosh" | "tanh" | "floor" | "ceil" | "delay" => Ty::Real,
            "noEvent" | "pre" | "previous" | "hold" => first.unwrap_or(Ty::Unknown),
            "String" => Ty::String,
            _ => Ty::Unknown,
        })
    }

    /// A component's type when the reference leads through the instance tree to a variable of
    /// a predefined or enumeration type; an enumeration literal's type.
    fn ref_type(&mut self, c: &ast::ComponentRef, scope: Scope, locals: Locals) -> Ty {
        let Some(first) = c.parts.first() else {
            return Ty::Unknown;
        };
        if c.global || locals.contains(&first.ident.name) {
            return Ty::Unknown;
        }
        if c.parts.len() == 1 && first.ident.name == "time" {
            return Ty::Real;
        }
        if let Some(inst) = scope.inst
            && let Some(found) = self.existing_child(inst, &first.ident.name)
        {
            let mut cur = found;
            for p in &c.parts[1..] {
                cur = match self.existing_child(cur, &p.ident.name) {
                    Some(x) => x,
                    None => return Ty::Unknown,
                };
            }
            return self.inst_type(cur);
        }
        if c.parts.len() >= 2 && self.is_enum_value_ref(c, scope) {
            let n = c.parts.len();
            let name = ast::Name {
                global: c.global,
                parts: c.parts[..n - 1].iter().map(|p| p.ident.clone()).collect(),
                span: c.span,
            };
            if let Ok(class) = self.lookup_class_name(&name, scope.lex, scope.inst)
                && let Ok(exp) = self.expanded(class)
                && let Some(Prim::Enum(l)) = &exp.prim
            {
                return Ty::Enum(l.clone());
            }
        }
        Ty::Unknown
    }

    fn is_enum_value_ref(&mut self, c: &ast::ComponentRef, scope: Scope) -> bool {
        let e = ast::Expr {
            kind: ExprKind::Ref(c.clone()),
            span: c.span,
        };
        self.is_enum_value(&e, scope)
    }

    /// A child that already exists (no instance is created here: the check must not change
    /// what gets instantiated, nor run into an instance under construction). An array of
    /// components stands for its first element: all have the same type.
    fn existing_child(&self, i: InstId, name: &str) -> Option<InstId> {
        let i = match &self.insts[i].kind {
            InstKind::Array { elems, .. } => *elems.first()?,
            _ => i,
        };
        match &self.insts[i].kind {
            InstKind::Struct {
                children: Some(_),
                index,
            } => index.get(name).copied(),
            _ => None,
        }
    }

    fn inst_type(&self, i: InstId) -> Ty {
        match &self.insts[i].kind {
            InstKind::Prim { ty, .. } => match ty {
                ScalarType::Real => Ty::Real,
                ScalarType::Integer => Ty::Integer,
                ScalarType::Boolean => Ty::Boolean,
                ScalarType::String => Ty::String,
                ScalarType::Enumeration => match &self.insts[i].exp.prim {
                    Some(Prim::Enum(l)) => Ty::Enum(l.clone()),
                    _ => Ty::Unknown,
                },
            },
            _ => Ty::Unknown,
        }
    }
}

/// The type of `a op b`, or the error of an operand of the wrong type.
fn binary(op: BinOp, a: Ty, b: Ty, e: &ast::Expr) -> Result<Ty, Diagnostic> {
    use BinOp::*;
    match op {
        And | Or => {
            expect(&a, e, "`and`/`or`", |t| *t == Ty::Boolean)?;
            expect(&b, e, "`and`/`or`", |t| *t == Ty::Boolean)?;
            Ok(Ty::Boolean)
        }
        Lt | Le | Gt | Ge | Eq | Ne => {
            let comparable = match (&a, &b) {
                (Ty::Unknown, _) | (_, Ty::Unknown) => true,
                (x, y) if x.numeric() && y.numeric() => true,
                (x, y) => x == y,
            };
            if !comparable {
                return Err(Diagnostic::error(
                    e.span,
                    format!(
                        "cannot compare a value of type {} with one of type {} (MLS 10.6.6)",
                        a.name(),
                        b.name()
                    ),
                )
                .with_help(
                    "an enumeration value compares only with the same enumeration; convert it with `Integer(...)` to compare with a number",
                ));
            }
            Ok(Ty::Boolean)
        }
        Add | ElemAdd if a == Ty::String && b == Ty::String => Ok(Ty::String),
        _ => {
            expect(&a, e, "arithmetic", Ty::numeric)?;
            expect(&b, e, "arithmetic", Ty::numeric)?;
            Ok(match (op, &a, &b) {
                (_, Ty::Unknown, _) | (_, _, Ty::Unknown) => Ty::Unknown,
                (Div | ElemDiv | Pow | ElemPow, _, _) => Ty::Real,
                (_, Ty::Integer, Ty::Integer) => Ty::Integer,
                _ => Ty::Real,
            })
        }
    }
}

/// Refuses an operand whose (known) type `what` does not accept.
fn expect(t: &Ty, e: &ast::Expr, what: &str, ok: impl Fn(&Ty) -> bool) -> Result<(), Diagnostic> {
    if *t == Ty::Unknown || ok(t) {
        return Ok(());
    }
    Err(Diagnostic::error(
        e.span,
        format!(
            "an operand of type {} is not allowed in {what} (MLS 10.6)",
            t.name()
        ),
    ))
}

impl Flattener<'_> {
    /// Refuses an equation whose sides have types that cannot be equal (MLS 8.3.1, 6.7): a
    /// Boolean and a number, an enumeration and a number, two different enumerations.
    pub(super) fn check_equation_types(
        &mut self,
        eq: &ast::Equation,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        scope: Scope,
        locals: Locals,
    ) -> Result<(), Diagnostic> {
        let a = self.static_type(lhs, scope, locals)?;
        let b = self.static_type(rhs, scope, locals)?;
        let compatible = match (&a, &b) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => true,
            (x, y) if x.numeric() && y.numeric() => true,
            (x, y) => x == y,
        };
        if compatible {
            return Ok(());
        }
        Err(Diagnostic::error(
            eq.span,
            format!(
                "the two sides of this equation have different types: {} and {} (MLS 8.3.1)",
                a.name(),
                b.name()
            ),
        ))
    }
}

impl Flattener<'_> {
    /// A constant's binding may use only constants (MLS 3.8.1): refuses the value of the
    /// parameter `i` asked for while a constant's binding is being evaluated.
    pub(super) fn check_constant_uses_constants(&self, i: InstId) -> Result<(), Diagnostic> {
        use ast::Variability::Constant;
        let Some(&k) = self.evaluating.last() else {
            return Ok(());
        };
        if k == i || self.variability(k) != Constant || self.variability(i) == Constant {
            return Ok(());
        }
        Err(Diagnostic::error(
            self.insts[k].span,
            format!(
                "the binding of constant `{}` uses `{}`, which is not a constant (MLS 3.8.1)",
                self.insts[k].path, self.insts[i].path
            ),
        )
        .with_secondary(self.insts[i].span, "declared here without `constant`")
        .with_help("declare the constant a `parameter`, or the value it uses a `constant`"))
    }
}
