//! Expressions: the grammar delivers each operator expression as a flat list of operands and
//! operators (the precedence levels are silent rules, so the pest tree stays shallow and fast);
//! this module folds the list into a tree by precedence (MLS 3.2, low to high):
//! `or`, `and`, `not`, relations, `+ -` (with the unary sign of the first term), `* /`, `^`.
//! The grammar already rejects what Modelica forbids (`a < b < c`, `a ^ b ^ c`, `2 * -3`).

use super::ast::*;
use super::build::{Builder, P, R, err};
use super::parser::Rule;
use crate::diag::{Diagnostic, Span};

impl Builder {
    /// A `simple_expression` or `if_expression` pair.
    pub(crate) fn expr(&self, p: P) -> R<Expr> {
        let _guard = self.enter(&p)?;
        let span = self.span(&p);
        match p.as_rule() {
            Rule::simple_expression => {
                let mut f = Fold {
                    b: self,
                    items: p.into_inner().collect(),
                    pos: 0,
                    ops: 0,
                };
                let e = f.range(span)?;
                match f.items.get(f.pos) {
                    None => Ok(e),
                    Some(extra) => err(Diagnostic::error(
                        self.span(extra),
                        format!("unexpected `{}`", extra.as_str()),
                    )
                    .with_label("this operator is not expected here")),
                }
            }
            Rule::if_expression => {
                let mut exprs = Vec::new();
                for c in p.into_inner() {
                    if matches!(c.as_rule(), Rule::simple_expression | Rule::if_expression) {
                        exprs.push(self.expr(c)?);
                    }
                }
                let Some(else_) = exprs.pop() else {
                    return err(Diagnostic::error(
                        span,
                        "internal parser error: if-expression",
                    ));
                };
                let mut branches = Vec::with_capacity(exprs.len() / 2);
                let mut it = exprs.into_iter();
                while let (Some(c), Some(v)) = (it.next(), it.next()) {
                    branches.push((c, v));
                }
                Ok(Expr {
                    kind: ExprKind::If {
                        branches,
                        else_: Box::new(else_),
                    },
                    span,
                })
            }
            _ => err(self.unexpected(&p)),
        }
    }

    pub(crate) fn component_reference(&self, p: P) -> R<ComponentRef> {
        let span = self.span(&p);
        let global = p.as_str().starts_with('.');
        let mut parts: Vec<RefPart> = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::IDENT => parts.push(RefPart {
                    ident: self.ident(c),
                    subscripts: Vec::new(),
                }),
                Rule::array_subscripts => {
                    let subs = self.subscripts(c)?;
                    if let Some(last) = parts.last_mut() {
                        last.subscripts = subs;
                    }
                }
                _ => return err(self.unexpected(&c)),
            }
        }
        Ok(ComponentRef {
            global,
            parts,
            span,
        })
    }

    pub(crate) fn subscripts(&self, p: P) -> R<Vec<Subscript>> {
        p.into_inner()
            .map(|c| match c.as_rule() {
                Rule::colon_subscript => Ok(Subscript::Colon(self.span(&c))),
                _ => self.expr(c).map(Subscript::Expr),
            })
            .collect()
    }

    /// `(args)` of a call; empty arguments for `()`.
    pub(crate) fn function_call_args(&self, p: P) -> R<FunctionArgs> {
        let span = self.span(&p);
        match p.into_inner().next() {
            Some(a) => self.function_arguments(a, span),
            None => Ok(FunctionArgs {
                positional: Vec::new(),
                named: Vec::new(),
                iterators: Vec::new(),
                span,
            }),
        }
    }

    /// The value of a named argument: an expression or a partial application (MLS 12.4.2.1).
    fn arg_value(&self, v: P) -> R<Expr> {
        if v.as_rule() == Rule::partial_function {
            self.partial_function(v)
        } else {
            self.expr(v)
        }
    }

    /// `function f(k = 2)`.
    fn partial_function(&self, c: P) -> R<Expr> {
        let pspan = self.span(&c);
        let mut func = None;
        let mut fargs = FunctionArgs {
            positional: Vec::new(),
            named: Vec::new(),
            iterators: Vec::new(),
            span: pspan,
        };
        for x in c.into_inner() {
            match x.as_rule() {
                Rule::kw_function => {}
                Rule::name => func = Some(self.name(x)),
                Rule::named_argument => {
                    let mut it = x.into_inner();
                    if let (Some(n), Some(v)) = (it.next(), it.next()) {
                        fargs.named.push(NamedArg {
                            name: self.ident(n),
                            value: self.arg_value(v)?,
                        });
                    }
                }
                _ => return err(self.unexpected(&x)),
            }
        }
        let Some(func) = func else {
            return err(Diagnostic::error(
                pspan,
                "internal parser error: partial function",
            ));
        };
        Ok(Expr {
            kind: ExprKind::PartialFunction { func, args: fargs },
            span: pspan,
        })
    }

    fn function_arguments(&self, p: P, span: Span) -> R<FunctionArgs> {
        let mut args = FunctionArgs {
            positional: Vec::new(),
            named: Vec::new(),
            iterators: Vec::new(),
            span,
        };
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::named_argument => {
                    let mut it = c.into_inner();
                    let (Some(n), Some(v)) = (it.next(), it.next()) else {
                        return err(Diagnostic::error(
                            span,
                            "internal parser error: named argument",
                        ));
                    };
                    args.named.push(NamedArg {
                        name: self.ident(n),
                        value: self.arg_value(v)?,
                    });
                }
                Rule::partial_function => {
                    let e = self.partial_function(c)?;
                    self.push_positional(&mut args, e)?;
                }
                Rule::kw_for => {}
                Rule::for_indices => args.iterators = self.for_indices(c)?,
                _ => {
                    let e = self.expr(c)?;
                    self.push_positional(&mut args, e)?;
                }
            }
        }
        if !args.iterators.is_empty() && (args.positional.len() != 1 || !args.named.is_empty()) {
            return err(Diagnostic::error(
                span,
                "an iterator `for ...` needs exactly one expression before it",
            )
            .with_help("write e.g. `{i^2 for i in 1:n}` or `sum(x[i] for i in 1:n)`"));
        }
        Ok(args)
    }

    fn push_positional(&self, args: &mut FunctionArgs, e: Expr) -> R<()> {
        if let Some(last) = args.named.last() {
            return err(Diagnostic::error(
                e.span,
                "a positional argument cannot follow a named argument",
            )
            .with_secondary(last.name.span, "named argument here")
            .with_help("put the positional arguments first"));
        }
        args.positional.push(e);
        Ok(())
    }

    fn number(&self, p: &P) -> R<Expr> {
        let text = p.as_str();
        let span = self.span(p);
        let is_real = text.contains(['.', 'e', 'E']);
        if !is_real && let Ok(i) = text.parse::<i64>() {
            return Ok(Expr {
                kind: ExprKind::Integer(i),
                span,
            });
        }
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Expr {
                kind: ExprKind::Real(v),
                span,
            }),
            _ => err(Diagnostic::error(
                span,
                format!("the number `{text}` is too large"),
            )),
        }
    }

    fn primary(&self, p: P, call_args: Option<P>) -> R<Expr> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::number => return self.number(&p),
            Rule::STRING => ExprKind::String(self.string_value(&p)?),
            Rule::bool_lit => ExprKind::Boolean(p.as_str().starts_with('t')),
            Rule::end_expr => ExprKind::End,
            Rule::initial_call => {
                let func = ComponentRef {
                    global: false,
                    parts: vec![RefPart {
                        ident: Ident {
                            name: "initial".into(),
                            span,
                        },
                        subscripts: Vec::new(),
                    }],
                    span,
                };
                let args = FunctionArgs {
                    positional: Vec::new(),
                    named: Vec::new(),
                    iterators: Vec::new(),
                    span,
                };
                ExprKind::Call { func, args }
            }
            Rule::component_reference => {
                let r = self.component_reference(p)?;
                match call_args {
                    Some(a) => {
                        let span = span.to(self.span(&a));
                        let args = self.function_call_args(a)?;
                        // `array(a, b, c)` and `array(e for i in r)` are the array constructor
                        // `{...}` written as a call (MLS 10.4.1).
                        let kind = if !r.global
                            && r.parts.len() == 1
                            && r.parts[0].subscripts.is_empty()
                            && r.parts[0].ident.name == "array"
                            && args.named.is_empty()
                        {
                            ExprKind::Array(args)
                        } else {
                            ExprKind::Call { func: r, args }
                        };
                        return Ok(Expr { kind, span });
                    }
                    None => ExprKind::Ref(r),
                }
            }
            Rule::paren_expr => {
                let mut items = Vec::new();
                for c in p.into_inner() {
                    match c.into_inner().next() {
                        Some(e) => items.push(Some(self.expr(e)?)),
                        None => items.push(None),
                    }
                }
                if items.len() == 1 {
                    return match items.pop().flatten() {
                        Some(e) => Ok(e),
                        None => {
                            let close = span.end.saturating_sub(1) as usize;
                            err(Diagnostic::error(
                                Span::new(self.file, close, close + 1),
                                "unexpected `)`: missing expression",
                            )
                            .with_label("an expression is needed between the parentheses"))
                        }
                    };
                }
                ExprKind::Tuple(items)
            }
            Rule::matrix => {
                let mut rows = Vec::new();
                for row in p.into_inner() {
                    let mut r = Vec::new();
                    for e in row.into_inner() {
                        r.push(self.expr(e)?);
                    }
                    rows.push(r);
                }
                ExprKind::Matrix(rows)
            }
            Rule::array_expr => match p.into_inner().next() {
                Some(a) => ExprKind::Array(self.function_arguments(a, span)?),
                None => ExprKind::Array(FunctionArgs {
                    positional: Vec::new(),
                    named: Vec::new(),
                    iterators: Vec::new(),
                    span,
                }),
            },
            _ => return err(self.unexpected(&p)),
        };
        Ok(Expr { kind, span })
    }
}

/// Precedence folding over the flat list `prefix_op* primary (binop prefix_op* primary)*` of a
/// `simple_expression`. Levels, low to high: range `:`, `or`, `and`, `not`, relations, `+ -`
/// (with a sign allowed only on the first term), `* /`, `^`. Relations and `^` do not chain.
struct Fold<'b, 'i> {
    b: &'b Builder,
    items: Vec<P<'i>>,
    pos: usize,
    /// Operators folded so far (bounds the depth of the tree).
    ops: usize,
}

/// Most binary operators accepted in one expression (`a + b + ...`).
const MAX_CHAIN: usize = 2000;

// The binary operators of each precedence level, as written.
const OR: &[(&str, BinOp)] = &[("or", BinOp::Or)];
const AND: &[(&str, BinOp)] = &[("and", BinOp::And)];
const RELATIONS: &[(&str, BinOp)] = &[
    ("<", BinOp::Lt),
    ("<=", BinOp::Le),
    (">", BinOp::Gt),
    (">=", BinOp::Ge),
    ("==", BinOp::Eq),
    ("<>", BinOp::Ne),
];
const ADDITIVE: &[(&str, BinOp)] = &[
    ("+", BinOp::Add),
    ("-", BinOp::Sub),
    (".+", BinOp::ElemAdd),
    (".-", BinOp::ElemSub),
];
const MULTIPLICATIVE: &[(&str, BinOp)] = &[
    ("*", BinOp::Mul),
    ("/", BinOp::Div),
    (".*", BinOp::ElemMul),
    ("./", BinOp::ElemDiv),
];
const POWER: &[(&str, BinOp)] = &[("^", BinOp::Pow), (".^", BinOp::ElemPow)];

impl<'i> Fold<'_, 'i> {
    /// The text of the item at the cursor if it is a binary operator.
    fn peek_bin(&self) -> Option<&'i str> {
        self.items
            .get(self.pos)
            .filter(|p| p.as_rule() == Rule::binop)
            .map(|p| p.as_str())
    }

    /// The text of the item at the cursor if it is a prefix operator.
    fn peek_prefix(&self) -> Option<&'i str> {
        self.items
            .get(self.pos)
            .filter(|p| p.as_rule() == Rule::prefix_op)
            .map(|p| p.as_str())
    }

    fn next(&mut self) -> R<P<'i>> {
        match self.items.get(self.pos) {
            Some(p) => {
                self.pos += 1;
                Ok(p.clone())
            }
            None => err(Diagnostic::error(
                Span::DUMMY,
                "internal parser error: operand missing",
            )),
        }
    }

    fn binary(&mut self, op: BinOp, lhs: Expr, rhs: Expr) -> R<Expr> {
        // Each operator of a chain adds a level to the (left-nested) tree.
        self.ops += 1;
        if self.ops > MAX_CHAIN {
            return err(
                Diagnostic::error(lhs.span.to(rhs.span), "expression too long")
                    .with_label(format!("more than {MAX_CHAIN} operators in one expression"))
                    .with_help("split it with intermediate variables"),
            );
        }
        let span = lhs.span.to(rhs.span);
        Ok(Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        })
    }

    fn range(&mut self, span: Span) -> R<Expr> {
        let start = self.or()?;
        if self.peek_bin() != Some(":") {
            return Ok(start);
        }
        self.pos += 1;
        let second = self.or()?;
        let (step, stop) = if self.peek_bin() == Some(":") {
            self.pos += 1;
            (Some(Box::new(second)), self.or()?)
        } else {
            (None, second)
        };
        if self.peek_bin() == Some(":") {
            let op = self.next()?;
            return err(Diagnostic::error(
                self.b.span(&op),
                "a range has at most three parts: `start:step:stop`",
            ));
        }
        Ok(Expr {
            kind: ExprKind::Range {
                start: Box::new(start),
                step,
                stop: Box::new(stop),
            },
            span,
        })
    }

    /// The operator at the cursor if it is one of the level `ops`.
    fn peek_op(&self, ops: &[(&str, BinOp)]) -> Option<BinOp> {
        let t = self.peek_bin()?;
        ops.iter().find(|(text, _)| *text == t).map(|(_, op)| *op)
    }

    /// `lhs` followed by any number of `op operand` of the level `ops`, folded to the left.
    fn chain(
        &mut self,
        mut lhs: Expr,
        ops: &[(&str, BinOp)],
        operand: fn(&mut Self) -> R<Expr>,
    ) -> R<Expr> {
        while let Some(op) = self.peek_op(ops) {
            self.pos += 1;
            let rhs = operand(self)?;
            lhs = self.binary(op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    /// `lhs`, or `lhs op operand` for a level whose operators do not chain: a second operator of
    /// the level is the error `chained` makes from it.
    fn single(
        &mut self,
        lhs: Expr,
        ops: &[(&str, BinOp)],
        operand: fn(&mut Self) -> R<Expr>,
        chained: fn(Span, &str) -> Diagnostic,
    ) -> R<Expr> {
        let Some(op) = self.peek_op(ops) else {
            return Ok(lhs);
        };
        self.pos += 1;
        let rhs = operand(self)?;
        if self.peek_op(ops).is_some() {
            let second = self.next()?;
            return err(chained(self.b.span(&second), second.as_str()));
        }
        self.binary(op, lhs, rhs)
    }

    /// The prefix operator at the cursor applied as `op` to what `operand` reads after it.
    fn unary(&mut self, op: UnOp, operand: fn(&mut Self) -> R<Expr>) -> R<Expr> {
        let op_pair = self.next()?;
        let operand = operand(self)?;
        let span = self.b.span(&op_pair).to(operand.span);
        Ok(Expr {
            kind: ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            span,
        })
    }

    fn or(&mut self) -> R<Expr> {
        let lhs = self.and()?;
        self.chain(lhs, OR, Self::and)
    }

    fn and(&mut self) -> R<Expr> {
        let lhs = self.not()?;
        self.chain(lhs, AND, Self::not)
    }

    fn not(&mut self) -> R<Expr> {
        if self.peek_prefix() == Some("not") {
            return self.unary(UnOp::Not, Self::relation);
        }
        self.relation()
    }

    fn relation(&mut self) -> R<Expr> {
        let lhs = self.arithmetic()?;
        self.single(lhs, RELATIONS, Self::arithmetic, |span, _| {
            Diagnostic::error(span, "comparisons cannot be chained")
                .with_label("second comparison")
                .with_help("write `a < b and b < c`")
        })
    }

    fn arithmetic(&mut self) -> R<Expr> {
        let lhs = match self.peek_prefix() {
            Some("-") => self.unary(UnOp::Neg, Self::term)?,
            Some("+") => self.unary(UnOp::Plus, Self::term)?,
            Some(".-") => self.unary(UnOp::ElemNeg, Self::term)?,
            Some(".+") => self.unary(UnOp::ElemPlus, Self::term)?,
            _ => self.term()?,
        };
        self.chain(lhs, ADDITIVE, Self::term)
    }

    fn term(&mut self) -> R<Expr> {
        let lhs = self.factor()?;
        self.chain(lhs, MULTIPLICATIVE, Self::factor)
    }

    fn factor(&mut self) -> R<Expr> {
        let lhs = self.primary()?;
        self.single(lhs, POWER, Self::primary, |span, op| {
            Diagnostic::error(span, format!("`{op}` cannot be chained: add parentheses"))
                .with_help("write `(a ^ b) ^ c` or `a ^ (b ^ c)`")
        })
    }

    fn primary(&mut self) -> R<Expr> {
        let p = self.next()?;
        if p.as_rule() == Rule::prefix_op {
            let t = p.as_str();
            let span = self.b.span(&p);
            return err(if t == "not" {
                Diagnostic::error(span, "`not` cannot follow another operator")
                    .with_label("put the negated condition in parentheses")
                    .with_help("write e.g. `a and not b` or `x < (if not b then 1 else 2)`")
            } else {
                Diagnostic::error(span, format!("a sign `{t}` cannot follow another operator"))
                    .with_label("put the signed operand in parentheses")
                    .with_help(format!("write e.g. `2 * ({t}3)` instead of `2 * {t}3`"))
            });
        }
        let args = if p.as_rule() == Rule::component_reference
            && self
                .items
                .get(self.pos)
                .is_some_and(|a| a.as_rule() == Rule::function_call_args)
        {
            Some(self.next()?)
        } else {
            None
        };
        self.b.primary(p, args)
    }
}
