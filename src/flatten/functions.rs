//! User functions (MLS 12): a function class becomes a [`dae::Function`] whose algorithm
//! refers only to its own variables, literal values of the constants it uses, and fully
//! qualified names of the functions it calls, so it can run without the class tree.

use super::Flattener;
use super::classtree::ClassId;
use super::eval::is_generic_builtin;
use super::expand::Prim;
use super::modifier::Scope;
use super::tensor::{Tensor, Val};
use crate::dae::{Function, FunctionVar, Native};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind, StatementKind};

impl Flattener<'_> {
    /// Makes sure the function class `class` is in `self.functions`; returns its name.
    pub fn function(&mut self, class: ClassId) -> Result<String, Diagnostic> {
        let name = self.tree.get(class).full.clone();
        if self.functions.contains_key(&name) || self.fn_building.contains(&name) {
            return Ok(name);
        }
        self.fn_building.insert(name.clone());
        let r = self.build_function(class, &name);
        self.fn_building.remove(&name);
        let f = r?;
        self.functions.insert(name.clone(), f);
        Ok(name)
    }

    fn build_function(&mut self, class: ClassId, name: &str) -> Result<Function, Diagnostic> {
        let exp = self.expanded(class)?;
        let span = self.tree.get(class).span;
        // Any external function becomes native: the ModelicaStandardTables ones are evaluated by
        // minimo, the others fail with their C name when (and only when) a call is evaluated,
        // so a call in a branch not taken (`if tableOnFile then Strings.length(fileName)`)
        // does no harm.
        let native = self
            .tree
            .get(class)
            .long()
            .and_then(|b| b.external_name.clone())
            .map(|c_name| Native {
                c_name,
                table: None,
            });
        if exp.partial {
            return Err(Diagnostic::error(
                span,
                format!("cannot call `{name}`: it is declared `partial`"),
            ));
        }
        let mut bound: Vec<String> = exp.components.iter().map(|c| c.name.clone()).collect();
        let mut f = Function {
            name: name.to_string(),
            inputs: vec![],
            outputs: vec![],
            locals: vec![],
            body: vec![],
            span,
            native,
            derivative: None,
        };
        for c in &exp.components {
            let ty_class = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
            let te = self.expanded(ty_class)?;
            let ty = match &te.prim {
                Some(Prim::Scalar(t)) => *t,
                Some(Prim::Enum(_)) => crate::dae::ScalarType::Enumeration,
                Some(Prim::ExternalObject) => crate::dae::ScalarType::Integer,
                None => {
                    return Err(Diagnostic::error(
                        c.decl().name.span,
                        format!(
                            "function `{name}`: `{}` has type `{}`; only built-in types and their arrays are supported in functions",
                            c.name,
                            self.tree.get(ty_class).full
                        ),
                    ));
                }
            };
            let mut dims = Vec::new();
            for d in c
                .decl()
                .dims
                .iter()
                .chain(&c.clause.type_dims)
                .chain(te.dims.iter().map(|(d, _)| d))
            {
                dims.push(match d {
                    ast::Subscript::Colon(_) => None,
                    ast::Subscript::Expr(e) => Some(self.rewrite_expr(e, class, &mut bound)?),
                });
            }
            let default = match &c.decl().modification {
                Some(ast::Modification::Binding { expr, .. })
                | Some(ast::Modification::Assign { expr, .. }) => Some(expr.clone()),
                Some(ast::Modification::Class {
                    binding: Some(expr),
                    ..
                }) => Some(expr.clone()),
                _ => None,
            };
            let default = match default {
                Some(e) => Some(self.rewrite_expr(&e, class, &mut bound)?),
                None => None,
            };
            let v = FunctionVar {
                name: c.name.clone(),
                ty,
                dims,
                default,
            };
            match c.clause.prefix.causality {
                ast::Causality::Input => f.inputs.push(v),
                ast::Causality::Output => f.outputs.push(v),
                ast::Causality::None => f.locals.push(v),
            }
        }
        for (_, alg) in &exp.algorithms {
            for s in alg.iter() {
                f.body.push(self.rewrite_stmt(s, class, &mut bound)?);
            }
        }
        if f.native.is_none()
            && exp.algorithms.is_empty()
            && !f.outputs.iter().all(|o| o.default.is_some())
        {
            return Err(Diagnostic::error(
                span,
                format!("function `{name}` has no algorithm section"),
            ));
        }
        f.derivative = self.derivative_annotation(class)?;
        Ok(f)
    }

    /// `annotation(derivative(order = 2, noDerivative = u, zeroDerivative = y) = fder)` of a
    /// function class; the derivative function is flattened too.
    fn derivative_annotation(
        &mut self,
        class: ClassId,
    ) -> Result<Option<crate::dae::FunctionDerivative>, Diagnostic> {
        let Some(ann) = self
            .tree
            .get(class)
            .long()
            .and_then(|b| b.annotation.clone())
        else {
            return Ok(None);
        };
        for a in &ann.modification.args {
            let ast::Argument::Modify {
                name,
                modification: Some(m),
                ..
            } = a
            else {
                continue;
            };
            if name.parts.len() != 1 || name.parts[0].name != "derivative" {
                continue;
            }
            let (opts, target) = match m {
                ast::Modification::Class { args, binding, .. } => (Some(args), binding.as_ref()),
                ast::Modification::Binding { expr, .. } => (None, Some(expr)),
                ast::Modification::Assign { .. } => continue,
            };
            let Some(ast::Expr {
                kind: ast::ExprKind::Ref(cref),
                ..
            }) = target
            else {
                return Err(Diagnostic::error(
                    m_span(m),
                    "the `derivative` annotation must name a function: `derivative = f_der`",
                ));
            };
            let fname = ast::Name {
                global: cref.global,
                parts: cref.parts.iter().map(|p| p.ident.clone()).collect(),
                span: cref.span,
            };
            let target = self.lookup_class_name(&fname, class, None)?;
            let mut d = crate::dae::FunctionDerivative {
                name: self.function(target)?,
                order: 1,
                no_derivative: Vec::new(),
                zero_derivative: Vec::new(),
            };
            for o in opts.map(|o| o.args.as_slice()).unwrap_or(&[]) {
                let ast::Argument::Modify {
                    name,
                    modification: Some(ast::Modification::Binding { expr, .. }),
                    ..
                } = o
                else {
                    continue;
                };
                let value = match &expr.kind {
                    ast::ExprKind::Ref(r) => Some(r.parts[0].ident.name.clone()),
                    _ => None,
                };
                match (name.parts[0].name.as_str(), value, &expr.kind) {
                    ("noDerivative", Some(v), _) => d.no_derivative.push(v),
                    ("zeroDerivative", Some(v), _) => d.zero_derivative.push(v),
                    ("order", _, ast::ExprKind::Integer(k)) if *k >= 1 => d.order = *k as u32,
                    _ => {}
                }
            }
            return Ok(Some(d));
        }
        Ok(None)
    }

    fn rewrite_stmt(
        &mut self,
        s: &ast::Statement,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::Statement, Diagnostic> {
        let kind = match &s.kind {
            StatementKind::Assign { target, value } => StatementKind::Assign {
                target: self.rewrite_cref_subs(target, class, bound)?,
                value: self.rewrite_expr(value, class, bound)?,
            },
            StatementKind::MultiAssign { targets, value } => {
                let mut ts = Vec::new();
                for t in targets {
                    ts.push(match t {
                        Some(t) => Some(self.rewrite_cref_subs(t, class, bound)?),
                        None => None,
                    });
                }
                StatementKind::MultiAssign {
                    targets: ts,
                    value: self.rewrite_expr(value, class, bound)?,
                }
            }
            StatementKind::Call { func, args } => {
                let func = self.rewrite_func_name(func, class)?;
                StatementKind::Call {
                    func,
                    args: self.rewrite_args(args, class, bound)?,
                }
            }
            StatementKind::If { branches, else_ } => {
                let mut bs = Vec::new();
                for (c, body) in branches {
                    let c = self.rewrite_expr(c, class, bound)?;
                    let body = body
                        .iter()
                        .map(|x| self.rewrite_stmt(x, class, bound))
                        .collect::<Result<_, _>>()?;
                    bs.push((c, body));
                }
                let else_ = else_
                    .iter()
                    .map(|x| self.rewrite_stmt(x, class, bound))
                    .collect::<Result<_, _>>()?;
                StatementKind::If {
                    branches: bs,
                    else_,
                }
            }
            StatementKind::For { indices, body } => {
                let mut idx = Vec::new();
                let n0 = bound.len();
                for i in indices {
                    let range = match &i.range {
                        Some(r) => Some(self.rewrite_expr(r, class, bound)?),
                        None => None,
                    };
                    idx.push(ast::ForIndex {
                        name: i.name.clone(),
                        range,
                    });
                    bound.push(i.name.name.clone());
                }
                let body = body
                    .iter()
                    .map(|x| self.rewrite_stmt(x, class, bound))
                    .collect::<Result<_, _>>();
                bound.truncate(n0);
                StatementKind::For {
                    indices: idx,
                    body: body?,
                }
            }
            StatementKind::While { condition, body } => StatementKind::While {
                condition: self.rewrite_expr(condition, class, bound)?,
                body: body
                    .iter()
                    .map(|x| self.rewrite_stmt(x, class, bound))
                    .collect::<Result<_, _>>()?,
            },
            StatementKind::When { .. } => {
                return Err(Diagnostic::error(
                    s.span,
                    "`when` statements are not allowed in functions",
                ));
            }
            StatementKind::Return => StatementKind::Return,
            StatementKind::Break => StatementKind::Break,
        };
        Ok(ast::Statement {
            kind,
            comment: ast::Comment::default(),
            span: s.span,
        })
    }

    fn rewrite_cref_subs(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::ComponentRef, Diagnostic> {
        let mut c = c.clone();
        for p in &mut c.parts {
            for s in &mut p.subscripts {
                if let ast::Subscript::Expr(e) = s {
                    *e = self.rewrite_expr(e, class, bound)?;
                }
            }
        }
        Ok(c)
    }

    fn rewrite_func_name(
        &mut self,
        func: &ast::ComponentRef,
        class: ClassId,
    ) -> Result<ast::ComponentRef, Diagnostic> {
        let name = super::eval::cref_name(func);
        let keep = func.parts.len() == 1
            && (is_generic_builtin(&name)
                || matches!(
                    name.as_str(),
                    "assert"
                        | "terminate"
                        | "noEvent"
                        | "smooth"
                        | "der"
                        | "pre"
                        | "edge"
                        | "change"
                        | "initial"
                        | "terminal"
                        | "sample"
                        | "reinit"
                ));
        if keep {
            return Ok(func.clone());
        }
        let n = ast::Name {
            global: func.global,
            parts: func.parts.iter().map(|p| p.ident.clone()).collect(),
            span: func.span,
        };
        let id = match self.lookup_class_name(&n, class, None) {
            Ok(id) => id,
            Err(mut d) => {
                d.message = format!("unknown function `{name}`");
                return Err(d);
            }
        };
        if !self.expanded(id)?.is_function() {
            return Err(Diagnostic::error(
                func.span,
                format!("`{name}` is not a function"),
            ));
        }
        let full = self.function(id)?;
        Ok(ast::ComponentRef {
            global: false,
            parts: full
                .split('.')
                .map(|p| ast::RefPart {
                    ident: ast::Ident {
                        name: p.to_string(),
                        span: func.span,
                    },
                    subscripts: vec![],
                })
                .collect(),
            span: func.span,
        })
    }

    fn rewrite_args(
        &mut self,
        a: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::FunctionArgs, Diagnostic> {
        let n0 = bound.len();
        let mut iterators = Vec::new();
        for i in &a.iterators {
            let range = match &i.range {
                Some(r) => Some(self.rewrite_expr(r, class, bound)?),
                None => None,
            };
            iterators.push(ast::ForIndex {
                name: i.name.clone(),
                range,
            });
            bound.push(i.name.name.clone());
        }
        let r = (|| -> Result<ast::FunctionArgs, Diagnostic> {
            let positional = a
                .positional
                .iter()
                .map(|e| self.rewrite_expr(e, class, bound))
                .collect::<Result<_, _>>()?;
            let mut named = Vec::new();
            for na in &a.named {
                named.push(ast::NamedArg {
                    name: na.name.clone(),
                    value: self.rewrite_expr(&na.value, class, bound)?,
                });
            }
            Ok(ast::FunctionArgs {
                positional,
                named,
                iterators: iterators.clone(),
                span: a.span,
            })
        })();
        bound.truncate(n0);
        r
    }

    fn rewrite_expr(
        &mut self,
        e: &ast::Expr,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::Expr, Diagnostic> {
        let span = e.span;
        let kind = match &e.kind {
            ExprKind::Ref(c) => {
                let first = &c.parts[0].ident.name;
                if !c.global && bound.iter().any(|b| b == first) {
                    ExprKind::Ref(self.rewrite_cref_subs(c, class, bound)?)
                } else {
                    // A constant of an enclosing package (or an enumeration literal): inline it.
                    let scope = Scope {
                        inst: None,
                        lex: class,
                    };
                    let v = self.eval_structural(e, scope).map_err(|mut d| {
                        if d.message.starts_with("unknown name") {
                            d.message = format!(
                                "unknown name `{first}` in function `{}`",
                                self.tree.get(class).full
                            );
                        }
                        d
                    })?;
                    return Ok(literal(&v, span));
                }
            }
            ExprKind::Call { func, args } => ExprKind::Call {
                func: self.rewrite_func_name(func, class)?,
                args: self.rewrite_args(args, class, bound)?,
            },
            ExprKind::Array(args) => ExprKind::Array(self.rewrite_args(args, class, bound)?),
            ExprKind::Matrix(rows) => {
                let mut out = Vec::new();
                for r in rows {
                    out.push(
                        r.iter()
                            .map(|x| self.rewrite_expr(x, class, bound))
                            .collect::<Result<_, _>>()?,
                    );
                }
                ExprKind::Matrix(out)
            }
            ExprKind::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(match i {
                        Some(x) => Some(self.rewrite_expr(x, class, bound)?),
                        None => None,
                    });
                }
                ExprKind::Tuple(out)
            }
            ExprKind::Range { start, step, stop } => ExprKind::Range {
                start: Box::new(self.rewrite_expr(start, class, bound)?),
                step: match step {
                    Some(s) => Some(Box::new(self.rewrite_expr(s, class, bound)?)),
                    None => None,
                },
                stop: Box::new(self.rewrite_expr(stop, class, bound)?),
            },
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op: *op,
                operand: Box::new(self.rewrite_expr(operand, class, bound)?),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op: *op,
                lhs: Box::new(self.rewrite_expr(lhs, class, bound)?),
                rhs: Box::new(self.rewrite_expr(rhs, class, bound)?),
            },
            ExprKind::If { branches, else_ } => {
                let mut bs = Vec::new();
                for (c, v) in branches {
                    bs.push((
                        self.rewrite_expr(c, class, bound)?,
                        self.rewrite_expr(v, class, bound)?,
                    ));
                }
                ExprKind::If {
                    branches: bs,
                    else_: Box::new(self.rewrite_expr(else_, class, bound)?),
                }
            }
            other => other.clone(),
        };
        Ok(ast::Expr { kind, span })
    }
}

/// A value as a literal expression (arrays as nested `{...}`).
pub fn literal(v: &Tensor<Val>, span: Span) -> ast::Expr {
    fn scalar(v: &Val, span: Span) -> ast::Expr {
        let kind = match v {
            Val::Real(x) => ExprKind::Real(*x),
            Val::Int(i) => ExprKind::Integer(*i),
            Val::Bool(b) => ExprKind::Boolean(*b),
            Val::Str(s) => ExprKind::String(s.clone()),
        };
        ast::Expr { kind, span }
    }
    if v.is_scalar() {
        return scalar(&v.data[0], span);
    }
    let items = (0..v.dims[0]).map(|k| literal(&v.row(k), span)).collect();
    ast::Expr {
        kind: ExprKind::Array(ast::FunctionArgs {
            positional: items,
            named: vec![],
            iterators: vec![],
            span,
        }),
        span,
    }
}

fn m_span(m: &ast::Modification) -> crate::diag::Span {
    match m {
        ast::Modification::Class { span, .. }
        | ast::Modification::Binding { span, .. }
        | ast::Modification::Assign { span, .. } => *span,
    }
}
