//! Functional input arguments (MLS 12.4.2): an input whose type is a function, given a
//! function name or a partial application `function f(k = 2)` in a call.
//!
//! Each call is specialized: the function is built once per choice of functions passed to
//! its functional inputs (`quadrature<integrand=P.Sine(A,w)>`), with every call of the
//! functional input in its body a call of the chosen function. The arguments a partial
//! application binds are values of the call site (`w = i * time` changes in time), so they
//! become inputs of the specialization (`integrand.w`), passed along by the call; a
//! functional input passed on to another function passes its bound values on too. The
//! specialized function is then an ordinary function for the interpreter and the simulator.

use super::Flattener;
use super::classtree::ClassId;
use super::eval::EResult;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind};
use std::collections::BTreeMap;

/// The function given to a functional input: a function class and the names of the inputs a
/// partial application binds (their values are inputs `formal.name` of the specialization).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionalValue {
    pub class: ClassId,
    pub bound: Vec<String>,
}

/// The functional inputs of the function being built, by name.
pub type FunctionalBindings = BTreeMap<String, FunctionalValue>;

impl Flattener<'_> {
    /// The declared inputs of function `class` in order, with the type class of those whose
    /// type is a function.
    pub(super) fn declared_inputs(
        &mut self,
        class: ClassId,
    ) -> EResult<Vec<(String, Option<ClassId>)>> {
        self.declared_of(class, ast::Causality::Input)
    }

    fn declared_of(
        &mut self,
        class: ClassId,
        which: ast::Causality,
    ) -> EResult<Vec<(String, Option<ClassId>)>> {
        let exp = self.expanded(class)?;
        let mut out = Vec::new();
        for c in &exp.components {
            let ty = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
            let te = self.expanded(ty)?;
            let causality = super::functions::declared_causality(c, &te);
            if causality == which {
                out.push((c.name.clone(), te.is_function().then_some(ty)));
            }
        }
        Ok(out)
    }

    /// Whether function `class` has an input of function type.
    pub(super) fn has_functional_inputs(&mut self, class: ClassId) -> EResult<bool> {
        Ok(self
            .declared_inputs(class)?
            .iter()
            .any(|(_, f)| f.is_some()))
    }

    /// A call of function `class` with functional inputs, written in scope `(lex, inst)`:
    /// the name of the specialization for the functions given and its arguments (all named).
    pub(super) fn specialize_call(
        &mut self,
        class: ClassId,
        args: &ast::FunctionArgs,
        span: Span,
        lex: ClassId,
        inst: Option<usize>,
    ) -> EResult<(String, ast::FunctionArgs)> {
        let generic = self.tree.get(class).full.clone();
        let inputs = self.declared_inputs(class)?;
        let names: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
        let given = super::eval::bind_args(&names, args, &generic, span)?;
        let mut bindings = FunctionalBindings::new();
        let mut named = Vec::new();
        let mut key = Vec::new();
        for ((name, formal), arg) in inputs.iter().zip(given) {
            let Some(formal) = formal else {
                if let Some(e) = arg {
                    named.push(named_arg(name, e.clone()));
                }
                continue;
            };
            let Some(arg) = arg else {
                return Err(Diagnostic::error(
                    span,
                    format!("`{generic}`: the functional input `{name}` needs a function"),
                ));
            };
            let (value, values) = self.functional_value(arg, lex, inst)?;
            self.check_function_type(&value, *formal, arg.span)?;
            let actual = self.tree.get(value.class).full.clone();
            key.push(if value.bound.is_empty() {
                format!("{name}={actual}")
            } else {
                format!("{name}={actual}({})", value.bound.join(","))
            });
            for (p, e) in values {
                named.push(named_arg(&format!("{name}.{p}"), e));
            }
            bindings.insert(name.clone(), value);
        }
        let spec = format!("{generic}<{}>", key.join(";"));
        self.build_specialization(class, &spec, bindings)?;
        Ok((
            spec,
            ast::FunctionArgs {
                positional: vec![],
                named,
                iterators: vec![],
                span: args.span,
            },
        ))
    }

    fn build_specialization(
        &mut self,
        class: ClassId,
        spec: &str,
        bindings: FunctionalBindings,
    ) -> EResult<()> {
        if self.functions.contains_key(spec) || self.fn_building.contains(spec) {
            return Ok(());
        }
        self.fn_building.insert(spec.to_string());
        let outer_records = std::mem::take(&mut self.fn_records);
        let outer = std::mem::replace(&mut self.fn_functional, bindings);
        let r = self.build_function(class, spec);
        self.fn_functional = outer;
        self.fn_records = outer_records;
        self.fn_building.remove(spec);
        match r {
            Ok(f) => {
                self.functions.insert(spec.to_string(), f);
                Ok(())
            }
            Err(d) => {
                self.functions.remove(spec);
                Err(d)
            }
        }
    }

    /// The function an argument for a functional input names, and the values a partial
    /// application binds (expressions of the call site).
    fn functional_value(
        &mut self,
        e: &ast::Expr,
        lex: ClassId,
        inst: Option<usize>,
    ) -> EResult<(FunctionalValue, Vec<(String, ast::Expr)>)> {
        match &e.kind {
            ExprKind::Ref(c)
                if c.parts.len() == 1
                    && !c.global
                    && c.parts[0].subscripts.is_empty()
                    && self.fn_functional.contains_key(&c.parts[0].ident.name) =>
            {
                // A functional input of the function being built, passed on.
                let name = &c.parts[0].ident.name;
                let v = self.fn_functional[name].clone();
                let values = v
                    .bound
                    .iter()
                    .map(|p| (p.clone(), local_ref(&format!("{name}.{p}"), e.span)))
                    .collect();
                Ok((v, values))
            }
            ExprKind::Ref(c) if c.parts.iter().all(|p| p.subscripts.is_empty()) => {
                let class = self.function_class(&c.as_name(), lex, inst, e.span)?;
                Ok((
                    FunctionalValue {
                        class,
                        bound: vec![],
                    },
                    vec![],
                ))
            }
            ExprKind::PartialFunction { func, args } => {
                if !args.positional.is_empty() || !args.iterators.is_empty() {
                    return Err(Diagnostic::error(
                        args.span,
                        "a partial application binds inputs by name: `function f(k = 2)` (MLS 12.4.2.1)",
                    ));
                }
                let class = self.function_class(func, lex, inst, e.span)?;
                let inputs = self.declared_inputs(class)?;
                let mut bound = Vec::new();
                let mut values = Vec::new();
                for a in &args.named {
                    if !inputs.iter().any(|(n, f)| *n == a.name.name && f.is_none()) {
                        return Err(Diagnostic::error(
                            a.name.span,
                            format!(
                                "`{}` has no input `{}` of a non-function type to bind",
                                self.tree.get(class).full,
                                a.name.name
                            ),
                        ));
                    }
                    bound.push(a.name.name.clone());
                    values.push((a.name.name.clone(), a.value.clone()));
                }
                Ok((FunctionalValue { class, bound }, values))
            }
            _ => Err(Diagnostic::error(
                e.span,
                "a functional input needs a function name or a partial application `function f(...)` (MLS 12.4.2)",
            )),
        }
    }

    fn function_class(
        &mut self,
        name: &ast::Name,
        lex: ClassId,
        inst: Option<usize>,
        span: Span,
    ) -> EResult<ClassId> {
        let class = self.lookup_class_name(name, lex, inst)?;
        let class = self.nested_through_view(lex, class);
        let exp = self.expanded(class)?;
        if !exp.is_function() || exp.partial {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`{}` is not a function that can be called: a functional input needs a non-partial function",
                    self.tree.get(class).full
                ),
            ));
        }
        if self.has_functional_inputs(class)? {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`{}` has functional inputs itself: passing it as a function is not supported",
                    self.tree.get(class).full
                ),
            ));
        }
        Ok(class)
    }

    /// MLS 6.4: the function passed must have the inputs of the functional input's type first
    /// and in the same order (after removing those the partial application binds), and its
    /// outputs first; the names must match.
    fn check_function_type(
        &mut self,
        value: &FunctionalValue,
        formal: ClassId,
        span: Span,
    ) -> EResult<()> {
        let want_in = self.declared_of(formal, ast::Causality::Input)?;
        let want_out = self.declared_of(formal, ast::Causality::Output)?;
        let have_in: Vec<_> = self
            .declared_of(value.class, ast::Causality::Input)?
            .into_iter()
            .filter(|(n, _)| !value.bound.contains(n))
            .collect();
        let have_out = self.declared_of(value.class, ast::Causality::Output)?;
        let prefix = |want: &[(String, Option<ClassId>)], have: &[(String, Option<ClassId>)]| {
            want.len() <= have.len() && want.iter().zip(have).all(|(a, b)| a.0 == b.0)
        };
        if prefix(&want_in, &have_in) && prefix(&want_out, &have_out) {
            return Ok(());
        }
        let names = |v: &[(String, Option<ClassId>)]| {
            v.iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(Diagnostic::error(
            span,
            format!(
                "`{}` does not fit the function type `{}`: inputs ({}) and outputs ({}) are needed first, it has ({}) and ({}) (MLS 6.4)",
                self.tree.get(value.class).full,
                self.tree.get(formal).full,
                names(&want_in),
                names(&want_out),
                names(&have_in),
                names(&have_out)
            ),
        ))
    }

    /// Inside a specialization: a call of the functional input `name`, as a call of the
    /// function passed (its class: a name lookup could not reach a function declared in a
    /// model), with the values the partial application bound.
    pub(super) fn functional_input_call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
    ) -> EResult<Option<(ClassId, ast::FunctionArgs)>> {
        if func.parts.len() != 1 || func.global {
            return Ok(None);
        }
        let name = &func.parts[0].ident.name;
        let Some(v) = self.fn_functional.get(name).cloned() else {
            return Ok(None);
        };
        // Positional arguments fill the inputs the partial application left free, in order
        // (MLS 12.4.2.1: `Sine2(A, w, x)` with `A`, `w` bound takes `x` first).
        let free: Vec<String> = self
            .declared_inputs(v.class)?
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| !v.bound.contains(n))
            .collect();
        if args.positional.len() > free.len() {
            return Err(Diagnostic::error(
                args.span,
                format!(
                    "`{name}` takes {} argument(s), got {}",
                    free.len(),
                    args.positional.len()
                ),
            ));
        }
        let mut out = args.clone();
        out.positional.clear();
        for (n, e) in free.iter().zip(&args.positional) {
            out.named.push(named_arg(n, e.clone()));
        }
        for p in &v.bound {
            out.named
                .push(named_arg(p, local_ref(&format!("{name}.{p}"), func.span)));
        }
        Ok(Some((v.class, out)))
    }
}

/// A reference whose parts are the dot-separated parts of `full` (a specialization's name
/// reads back the same through `cref_name`).
pub(super) fn name_ref(full: &str, span: Span) -> ast::ComponentRef {
    ast::ComponentRef {
        global: false,
        parts: full
            .split('.')
            .map(|p| ast::RefPart {
                ident: ast::Ident {
                    name: p.to_string(),
                    span,
                },
                subscripts: vec![],
            })
            .collect(),
        span,
    }
}

fn local_ref(name: &str, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Ref(ast::ComponentRef::single(name, span)),
        span,
    }
}

fn named_arg(name: &str, value: ast::Expr) -> ast::NamedArg {
    ast::NamedArg {
        name: ast::Ident {
            name: name.to_string(),
            span: value.span,
        },
        value,
    }
}
