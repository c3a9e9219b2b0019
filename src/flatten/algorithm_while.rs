//! `while` loops of model algorithms whose condition is known only during simulation (MLS
//! 11.2.5): the loop runs until its condition is false each time the section is evaluated.
//!
//! Symbolic execution cannot unroll such a loop (the number of iterations is a run-time
//! value), so the loop becomes a generated function: its inputs are the model variables the
//! loop reads or assigns (whole arrays: subscripts inside the loop may change from one
//! iteration to the next), its outputs those it assigns, each starting from the value it has
//! before the loop. The function interpreter the simulator uses for user functions runs it;
//! the algorithm section then assigns each output element its call result, so the rest of the
//! section continues symbolically from the loop's results.
//!
//! Guard: each run of the loop is stopped after [`MAX_ITERATIONS`] iterations by an `assert`
//! the function carries; the failed call stops the simulation with the time and that message,
//! which names the loop by its file, line and column.

use super::Flattener;
use super::eval::{EResult, cref_name, is_generic_builtin};
use super::modifier::Scope;
use super::tensor::Tensor;
use crate::dae::{Expr, Function, FunctionVar, ScalarType, VarId};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind, Statement, StatementKind};

/// Iterations after which one run of a generated loop stops as a modeling error.
pub(super) const MAX_ITERATIONS: u64 = 1_000_000;

/// Name of the generated function's iteration counter (a quoted name: no model name can
/// be spelled the same way inside the loop).
const COUNTER: &str = "'iterations'";

/// A loop compiled to a function, and how to call it.
pub(super) struct LoopFunction {
    pub name: String,
    /// The value of each input before substitution (in input order): a model variable, a
    /// parameter or a value of an enclosing `for` index.
    pub inputs: Vec<Tensor<Expr>>,
    /// The model variables of each output, element by element (row-major).
    pub outputs: Vec<Vec<VarId>>,
}

/// A model name the loop uses: its local name in the function and its value.
struct Used {
    name: String,
    value: Tensor<Expr>,
    ty: ScalarType,
    written: bool,
}

/// The state of rewriting one loop.
struct Rewrite {
    scope: Scope,
    locals: Vec<(String, Tensor<Expr>)>,
    used: Vec<Used>,
    /// Names bound inside the loop (`for` indices, reduction iterators).
    bound: Vec<String>,
}

impl Flattener<'_> {
    /// The loop `while condition loop body end while` as a registered function.
    pub(super) fn while_function(
        &mut self,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        component: &str,
        condition: &ast::Expr,
        body: &[Statement],
        span: Span,
    ) -> EResult<LoopFunction> {
        let mut rw = Rewrite {
            scope,
            locals: locals.to_vec(),
            used: Vec::new(),
            bound: Vec::new(),
        };
        let condition = self.rw_expr(&mut rw, condition)?;
        let mut body = self.rw_block(&mut rw, body)?;
        let location = self.sources.location(span);
        let mut stmts = vec![assign(COUNTER, int(0, span), span)];
        let mut guarded = vec![
            assign(
                COUNTER,
                binary(ast::BinOp::Add, reference(COUNTER, span), int(1, span)),
                span,
            ),
            iteration_assert(&location, span),
        ];
        guarded.append(&mut body);
        stmts.push(Statement {
            kind: StatementKind::While {
                condition,
                body: guarded,
            },
            comment: ast::Comment::default(),
            span,
        });
        let mut f = Function {
            name: String::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            locals: vec![FunctionVar {
                name: COUNTER.to_string(),
                ty: ScalarType::Integer,
                dims: vec![],
                default: None,
            }],
            body: stmts,
            span,
            native: None,
            derivative: None,
            input_groups: vec![],
            output_groups: vec![],
            folded: Vec::new(),
            inline_after_index_reduction: false,
        };
        let mut outputs = Vec::new();
        for u in &rw.used {
            let dims: Vec<Option<ast::Expr>> = u
                .value
                .dims
                .iter()
                .map(|&d| Some(int(d as i64, span)))
                .collect();
            let input = if u.written {
                format!("{}'in", u.name)
            } else {
                u.name.clone()
            };
            f.inputs.push(FunctionVar {
                name: input.clone(),
                ty: u.ty,
                dims: dims.clone(),
                default: None,
            });
            if u.written {
                f.outputs.push(FunctionVar {
                    name: u.name.clone(),
                    ty: u.ty,
                    dims,
                    default: Some(reference(&input, span)),
                });
                outputs.push(
                    u.value
                        .data
                        .iter()
                        .map(|x| match x {
                            Expr::Var(v) => *v,
                            _ => super::scalarize::PLACEHOLDER,
                        })
                        .collect(),
                );
            }
        }
        let (line, col) = self
            .sources
            .get(span.file)
            .map_or((0, 0), |file| file.line_col(span.start));
        let prefix = if component.is_empty() {
            String::new()
        } else {
            format!("{component}.")
        };
        f.name = format!("{prefix}'while@{line}:{col}'");
        // One loop unrolled in a `for` or met in both passes registers the same function;
        // a different one (other sizes) gets its own name.
        let mut k = 1;
        while self.functions.get(&f.name).is_some_and(|g| *g != f) {
            k += 1;
            f.name = format!("{prefix}'while@{line}:{col}#{k}'");
        }
        let name = f.name.clone();
        self.functions.insert(name.clone(), f);
        Ok(LoopFunction {
            name,
            inputs: rw.used.into_iter().map(|u| u.value).collect(),
            outputs,
        })
    }

    fn rw_block(&mut self, rw: &mut Rewrite, body: &[Statement]) -> EResult<Vec<Statement>> {
        body.iter().map(|s| self.rw_stmt(rw, s)).collect()
    }

    fn rw_stmt(&mut self, rw: &mut Rewrite, s: &Statement) -> EResult<Statement> {
        let kind = match &s.kind {
            StatementKind::Assign { target, value } => {
                let value = self.rw_expr(rw, value)?;
                StatementKind::Assign {
                    target: self.rw_ref(rw, target, true)?,
                    value,
                }
            }
            StatementKind::MultiAssign { targets, value } => {
                let value = self.rw_expr(rw, value)?;
                let mut ts = Vec::new();
                for t in targets {
                    ts.push(match t {
                        Some(t) => Some(self.rw_ref(rw, t, true)?),
                        None => None,
                    });
                }
                StatementKind::MultiAssign { targets: ts, value }
            }
            StatementKind::Call { func, args } => {
                let name = cref_name(func);
                if matches!(name.as_str(), "reinit" | "terminate") {
                    return Err(not_in_loop(s.span, &format!("`{name}`")));
                }
                let call = self.rw_call(rw, func, args, s.span)?;
                let ExprKind::Call { func, args } = call.kind else {
                    return Err(Diagnostic::error(s.span, "internal: a call stays a call"));
                };
                StatementKind::Call { func, args }
            }
            StatementKind::If { branches, else_ } => {
                let mut bs = Vec::new();
                for (c, b) in branches {
                    bs.push((self.rw_expr(rw, c)?, self.rw_block(rw, b)?));
                }
                StatementKind::If {
                    branches: bs,
                    else_: self.rw_block(rw, else_)?,
                }
            }
            StatementKind::For { indices, body } => {
                let n0 = rw.bound.len();
                let mut idx = Vec::new();
                for i in indices {
                    let range = match &i.range {
                        Some(r) => Some(self.rw_expr(rw, r)?),
                        None => None,
                    };
                    idx.push(ast::ForIndex {
                        name: i.name.clone(),
                        range,
                    });
                    rw.bound.push(i.name.name.clone());
                }
                let body = self.rw_block(rw, body);
                rw.bound.truncate(n0);
                StatementKind::For {
                    indices: idx,
                    body: body?,
                }
            }
            StatementKind::While { condition, body } => StatementKind::While {
                condition: self.rw_expr(rw, condition)?,
                body: self.rw_block(rw, body)?,
            },
            StatementKind::When { .. } => return Err(not_in_loop(s.span, "a `when` statement")),
            StatementKind::Return => {
                return Err(Diagnostic::error(
                    s.span,
                    "`return` can only be used inside a function (MLS 11.2.5)",
                ));
            }
            StatementKind::Break => StatementKind::Break,
        };
        Ok(Statement {
            kind,
            comment: ast::Comment::default(),
            span: s.span,
        })
    }

    fn rw_expr(&mut self, rw: &mut Rewrite, e: &ast::Expr) -> EResult<ast::Expr> {
        let kind = match &e.kind {
            ExprKind::Ref(c) => ExprKind::Ref(self.rw_ref(rw, c, false)?),
            ExprKind::Call { func, args } => return self.rw_call(rw, func, args, e.span),
            ExprKind::Array(args) => ExprKind::Array(self.rw_args(rw, args)?),
            ExprKind::Matrix(rows) => {
                let mut out = Vec::new();
                for r in rows {
                    let mut row = Vec::new();
                    for x in r {
                        row.push(self.rw_expr(rw, x)?);
                    }
                    out.push(row);
                }
                ExprKind::Matrix(out)
            }
            ExprKind::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(match i {
                        Some(x) => Some(self.rw_expr(rw, x)?),
                        None => None,
                    });
                }
                ExprKind::Tuple(out)
            }
            ExprKind::Range { start, step, stop } => ExprKind::Range {
                start: Box::new(self.rw_expr(rw, start)?),
                step: match step {
                    Some(s) => Some(Box::new(self.rw_expr(rw, s)?)),
                    None => None,
                },
                stop: Box::new(self.rw_expr(rw, stop)?),
            },
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op: *op,
                operand: Box::new(self.rw_expr(rw, operand)?),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op: *op,
                lhs: Box::new(self.rw_expr(rw, lhs)?),
                rhs: Box::new(self.rw_expr(rw, rhs)?),
            },
            ExprKind::If { branches, else_ } => {
                let mut bs = Vec::new();
                for (c, v) in branches {
                    bs.push((self.rw_expr(rw, c)?, self.rw_expr(rw, v)?));
                }
                ExprKind::If {
                    branches: bs,
                    else_: Box::new(self.rw_expr(rw, else_)?),
                }
            }
            ExprKind::PartialFunction { .. } => {
                return Err(not_in_loop(e.span, "a partial function application"));
            }
            other => other.clone(),
        };
        Ok(ast::Expr { kind, span: e.span })
    }

    fn rw_args(&mut self, rw: &mut Rewrite, a: &ast::FunctionArgs) -> EResult<ast::FunctionArgs> {
        // Iterator ranges are read outside the iterators' scope; the arguments inside it.
        let mut iterators = Vec::new();
        for i in &a.iterators {
            iterators.push(ast::ForIndex {
                name: i.name.clone(),
                range: match &i.range {
                    Some(r) => Some(self.rw_expr(rw, r)?),
                    None => None,
                },
            });
        }
        let n0 = rw.bound.len();
        rw.bound
            .extend(a.iterators.iter().map(|i| i.name.name.clone()));
        let r = self.rw_args_inside(rw, a);
        rw.bound.truncate(n0);
        let (positional, named) = r?;
        Ok(ast::FunctionArgs {
            positional,
            named,
            iterators,
            span: a.span,
        })
    }

    fn rw_args_inside(
        &mut self,
        rw: &mut Rewrite,
        a: &ast::FunctionArgs,
    ) -> EResult<(Vec<ast::Expr>, Vec<ast::NamedArg>)> {
        let mut positional = Vec::new();
        for x in &a.positional {
            positional.push(self.rw_expr(rw, x)?);
        }
        let mut named = Vec::new();
        for n in &a.named {
            named.push(ast::NamedArg {
                name: n.name.clone(),
                value: self.rw_expr(rw, &n.value)?,
            });
        }
        Ok((positional, named))
    }

    /// A call inside the loop: built-ins stay, user functions get their flat name; operators
    /// on the model's event or time structure have no meaning inside a function.
    fn rw_call(
        &mut self,
        rw: &mut Rewrite,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<ast::Expr> {
        let name = cref_name(func);
        let args = self.rw_args(rw, args)?;
        let single = func.parts.len() == 1 && !func.global;
        if single
            && matches!(
                name.as_str(),
                "der"
                    | "pre"
                    | "edge"
                    | "change"
                    | "initial"
                    | "terminal"
                    | "sample"
                    | "delay"
                    | "spatialDistribution"
                    | "cardinality"
                    | "inStream"
                    | "actualStream"
            )
        {
            return Err(not_in_loop(span, &format!("`{name}()`")));
        }
        let func = if single && (is_generic_builtin(&name) || matches!(name.as_str(), "assert")) {
            func.clone()
        } else {
            self.loop_function_name(rw, func, span)?
        };
        Ok(ast::Expr {
            kind: ExprKind::Call { func, args },
            span,
        })
    }

    fn loop_function_name(
        &mut self,
        rw: &Rewrite,
        func: &ast::ComponentRef,
        span: Span,
    ) -> EResult<ast::ComponentRef> {
        let id = self
            .lookup_class_name(&func.as_name(), rw.scope.lex, rw.scope.inst)
            .map_err(|mut d| {
                d.message = format!("unknown function `{}`", cref_name(func));
                d
            })?;
        if !self.expanded(id)?.is_function() {
            return Err(not_in_loop(
                span,
                &format!("`{}` (not a function)", cref_name(func)),
            ));
        }
        let full = self.function(id)?;
        if self
            .functions
            .get(&full)
            .is_some_and(|f| !f.input_groups.is_empty() || !f.output_groups.is_empty())
        {
            return Err(not_in_loop(
                span,
                &format!("a call of `{full}`, which takes or returns records"),
            ));
        }
        Ok(ast::ComponentRef::single(&full, span))
    }

    /// A name the loop reads or assigns: an index bound inside the loop stays; a model name
    /// becomes the function variable that holds all of it.
    fn rw_ref(
        &mut self,
        rw: &mut Rewrite,
        c: &ast::ComponentRef,
        written: bool,
    ) -> EResult<ast::ComponentRef> {
        let subs = |this: &mut Self, rw: &mut Rewrite, p: &ast::RefPart| -> EResult<_> {
            let mut out = Vec::new();
            for s in &p.subscripts {
                out.push(match s {
                    ast::Subscript::Colon(sp) => ast::Subscript::Colon(*sp),
                    ast::Subscript::Expr(x) => ast::Subscript::Expr(this.rw_expr(rw, x)?),
                });
            }
            Ok(out)
        };
        let first = &c.parts[0].ident.name;
        if !c.global && c.parts.len() == 1 && rw.bound.iter().any(|b| b == first) {
            if written {
                return Err(Diagnostic::error(
                    c.span,
                    format!("the loop index `{first}` cannot be assigned"),
                ));
            }
            let subscripts = subs(self, rw, &c.parts[0])?;
            return Ok(ast::ComponentRef {
                global: false,
                parts: vec![ast::RefPart {
                    ident: c.parts[0].ident.clone(),
                    subscripts,
                }],
                span: c.span,
            });
        }
        let (last, init) = c
            .parts
            .split_last()
            .ok_or_else(|| Diagnostic::error(c.span, "internal: an empty name"))?;
        if init.iter().any(|p| !p.subscripts.is_empty()) {
            return Err(not_in_loop(
                c.span,
                "a subscript before the last part of a name (`a[1].b`)",
            ));
        }
        let name = c
            .parts
            .iter()
            .map(|p| p.ident.name.as_str())
            .collect::<Vec<_>>()
            .join(".");
        self.note_used(rw, c, &name, written)?;
        let subscripts = subs(self, rw, last)?;
        let mut r = ast::ComponentRef::single(&name, c.span);
        r.parts[0].subscripts = subscripts;
        Ok(r)
    }

    /// Records the whole value of the model name `name` (written: its elements must be
    /// variables).
    fn note_used(
        &mut self,
        rw: &mut Rewrite,
        c: &ast::ComponentRef,
        name: &str,
        written: bool,
    ) -> EResult<()> {
        if let Some(u) = rw.used.iter_mut().find(|u| u.name == name) {
            if written && !u.written {
                check_variables(&u.value, c.span)?;
                u.written = true;
            }
            return Ok(());
        }
        let mut whole = c.clone();
        if let Some(p) = whole.parts.last_mut() {
            p.subscripts.clear();
        }
        let e = ast::Expr {
            kind: ExprKind::Ref(whole),
            span: c.span,
        };
        let value = self.eval_symbolic(&e, rw.scope, &rw.locals)?;
        if written {
            check_variables(&value, c.span)?;
        }
        let ty = self.loop_value_type(&value, c.span)?;
        rw.used.push(Used {
            name: name.to_string(),
            value,
            ty,
            written,
        });
        Ok(())
    }

    /// The type a value passes into the loop function with (from its variables, else its
    /// literals; an expression of parameters is a Real unless it is a literal).
    fn loop_value_type(&self, value: &Tensor<Expr>, span: Span) -> EResult<ScalarType> {
        let ty = match value.data.first() {
            Some(Expr::Var(v)) => self.loop_var_type(*v),
            Some(Expr::Integer(_)) => ScalarType::Integer,
            Some(Expr::Boolean(_)) => ScalarType::Boolean,
            Some(Expr::String(_)) => ScalarType::String,
            _ => ScalarType::Real,
        };
        if ty == ScalarType::String {
            return Err(not_in_loop(span, "a String value"));
        }
        Ok(ty)
    }

    fn loop_var_type(&self, v: VarId) -> ScalarType {
        let Some(i) = self.var_inst(v) else {
            return ScalarType::Real;
        };
        match &self.insts[i].kind {
            super::instance::InstKind::Prim { ty, .. } => *ty,
            _ => ScalarType::Real,
        }
    }
}

fn check_variables(value: &Tensor<Expr>, span: Span) -> EResult<()> {
    if value.data.iter().all(|x| matches!(x, Expr::Var(_))) {
        Ok(())
    } else {
        Err(Diagnostic::error(
            span,
            "the target of an assignment must be a variable",
        ))
    }
}

fn not_in_loop(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "{what} inside a `while` loop whose condition is known only during simulation is not supported"
        ),
    )
    .with_help("such a loop runs as a function of the values it reads; move the loop into a function")
}

fn reference(name: &str, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Ref(ast::ComponentRef::single(name, span)),
        span,
    }
}

fn int(k: i64, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Integer(k),
        span,
    }
}

fn binary(op: ast::BinOp, lhs: ast::Expr, rhs: ast::Expr) -> ast::Expr {
    let span = lhs.span;
    ast::Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    }
}

fn assign(name: &str, value: ast::Expr, span: Span) -> Statement {
    Statement {
        kind: StatementKind::Assign {
            target: ast::ComponentRef::single(name, span),
            value,
        },
        comment: ast::Comment::default(),
        span,
    }
}

/// `assert('iterations' <= MAX_ITERATIONS, "...")` at the start of each iteration.
fn iteration_assert(location: &str, span: Span) -> Statement {
    let condition = binary(
        ast::BinOp::Le,
        reference(COUNTER, span),
        int(MAX_ITERATIONS as i64, span),
    );
    let message = ast::Expr {
        kind: ExprKind::String(format!(
            "the `while` loop at {location} did not end after {MAX_ITERATIONS} iterations"
        )),
        span,
    };
    Statement {
        kind: StatementKind::Call {
            func: ast::ComponentRef::single("assert", span),
            args: ast::FunctionArgs {
                positional: vec![condition, message],
                named: vec![],
                iterators: vec![],
                span,
            },
        },
        comment: ast::Comment::default(),
        span,
    }
}
