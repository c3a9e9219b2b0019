//! Algorithm sections of models (MLS 11.1) as equations, by symbolic execution.
//!
//! An algorithm section is one block whose unknowns are the variables it assigns; its
//! statements run in order each time the block is evaluated. Running the statements on
//! symbolic values, where each assigned variable stands for the expression of its current
//! value, gives every assigned variable's final value as an expression of variables the
//! section does not assign. The equations `v = final value` then have exactly the solution of
//! executing the section, and they are explicit, so sorting keeps them as one assignment each.
//!
//! - `for` loops are unrolled (their ranges are parameters, as in for-equations); `while`
//!   loops only when their condition is known at translation.
//! - `if` statements whose conditions are known pick their branch; others merge the branches'
//!   values into if-expressions.
//! - `when` statements become when-equations. Inside them a variable the statement assigns
//!   reads as `pre(v)` until it is assigned (MLS 11.1.2: discrete variables start from their
//!   `pre` values), so `z := div(z, 2)` in a loop is a chain of expressions of `pre(z)`.
//! - Outside `when`, reading an assigned variable before the section assigns it would read
//!   its start value (MLS 11.1.2); that is refused with the place, rather than given a
//!   meaning nobody intends.
//! - `assert`, `terminate`, `reinit` and calls of functions for their effect are handled as
//!   in equations, with the current values substituted.

use super::Flattener;
use super::equations::{Ctx, EqOut};
use super::eval::EResult;
use super::modifier::Scope;
use super::tensor::{Elem, Tensor};
use crate::dae::{Equation, EquationKind, Expr, VarId};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, Statement, StatementKind};
use std::collections::{HashMap, HashSet};

/// Unrolling bound for `while` loops with known conditions.
const MAX_WHILE: usize = 100_000;

/// The symbolic state of one execution.
#[derive(Clone, Default)]
struct Env {
    /// Current value of each variable assigned so far.
    values: HashMap<VarId, Expr>,
    /// Assigned variables in the order of their first assignment (equation order).
    order: Vec<VarId>,
    /// Span of the last assignment of each variable.
    spans: HashMap<VarId, Span>,
}

impl Env {
    fn set(&mut self, v: VarId, e: Expr, span: Span) {
        if self.values.insert(v, e).is_none() {
            self.order.push(v);
        }
        self.spans.insert(v, span);
    }
}

struct Exec {
    scope: Scope,
    component: String,
    locals: Vec<(String, Tensor<Expr>)>,
    /// Every variable the section assigns (from a first pass): reading one of them before it
    /// is assigned is the case MLS 11.1.2 gives a start or `pre` value.
    assigned_anywhere: HashSet<VarId>,
    /// Variables assigned inside `when` statements so far (their value is the variable itself
    /// after the statement: it changes only at its events).
    when_assigned: HashSet<VarId>,
    /// Whether the statements being run are inside a `when` statement.
    in_when: bool,
    /// First pass: only collect the assigned variables.
    collecting: bool,
    /// Equations produced by `when`, `assert` and friends, in statement order.
    out: Vec<Equation>,
}

impl Flattener<'_> {
    /// The equations equivalent to one algorithm section of instance `scope.inst`.
    pub fn algorithm_equations(
        &mut self,
        statements: &[Statement],
        scope: Scope,
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mut ex = Exec {
            scope,
            component,
            locals: Vec::new(),
            assigned_anywhere: HashSet::new(),
            when_assigned: HashSet::new(),
            in_when: false,
            collecting: true,
            out: Vec::new(),
        };
        let mut env = Env::default();
        self.run_statements(&mut ex, statements, &mut env)?;
        ex.assigned_anywhere = env.order.iter().copied().collect();
        ex.assigned_anywhere.extend(ex.when_assigned.drain());
        ex.collecting = false;
        ex.out.clear();
        let mut env = Env::default();
        self.run_statements(&mut ex, statements, &mut env)?;
        for v in &env.order {
            if ex.when_assigned.contains(v) {
                let span = env.spans.get(v).copied().unwrap_or(Span::DUMMY);
                return Err(Diagnostic::error(
                    span,
                    "a variable assigned in a `when` statement cannot also be assigned outside it in the same algorithm",
                ));
            }
        }
        for v in env.order {
            let span = env.spans.get(&v).copied().unwrap_or(Span::DUMMY);
            out.eqs.push(Equation {
                kind: EquationKind::Simple {
                    lhs: Expr::Var(v),
                    rhs: env.values[&v].clone(),
                },
                component: ex.component.clone(),
                span,
            });
        }
        out.eqs.append(&mut ex.out);
        Ok(())
    }

    fn run_statements(&mut self, ex: &mut Exec, body: &[Statement], env: &mut Env) -> EResult<()> {
        for s in body {
            self.run_statement(ex, s, env)?;
        }
        Ok(())
    }

    fn run_statement(&mut self, ex: &mut Exec, s: &Statement, env: &mut Env) -> EResult<()> {
        match &s.kind {
            StatementKind::Assign { target, value } => {
                let vals = self.eval_substituted(ex, value, env)?;
                let targets = self.targets(ex, target, env)?;
                if targets.len() != vals.len() && vals.len() != 1 {
                    return Err(Diagnostic::error(
                        s.span,
                        format!(
                            "the two sides of this assignment have different sizes: {} and {}",
                            targets.len(),
                            vals.len()
                        ),
                    ));
                }
                for (k, v) in targets.into_iter().enumerate() {
                    let x = vals.data[if vals.len() == 1 { 0 } else { k }].clone();
                    self.assign(ex, v, x, s.span, env);
                }
            }
            StatementKind::MultiAssign { targets, value } => {
                let ast::ExprKind::Call { func, args } = &value.kind else {
                    return Err(Diagnostic::error(
                        s.span,
                        "a list of targets needs a function call on the right",
                    ));
                };
                let outs = {
                    let mut fc = super::scalarize::FCtx::new(
                        self,
                        ex.scope,
                        super::scalarize::Mode::Symbolic,
                    );
                    fc.locals = ex.locals.clone();
                    super::eval::call(&mut fc, func, args, value.span)?
                };
                if targets.len() > outs.len() {
                    return Err(Diagnostic::error(
                        s.span,
                        format!(
                            "`{}` has only {} output(s)",
                            super::eval::cref_name(func),
                            outs.len()
                        ),
                    ));
                }
                let mut pending = Vec::new();
                for (t, o) in targets.iter().zip(outs) {
                    let Some(t) = t else { continue };
                    let vs = self.targets(ex, t, env)?;
                    if vs.len() != o.len() {
                        return Err(Diagnostic::error(
                            t.span,
                            "this output has a different size than its target",
                        ));
                    }
                    for (v, x) in vs.into_iter().zip(o.data) {
                        pending.push((v, self.substitute(ex, &x, env, value.span)?));
                    }
                }
                // All outputs come from the values before the statement.
                for (v, x) in pending {
                    self.assign(ex, v, x, s.span, env);
                }
            }
            StatementKind::For { indices, body } => self.run_for(ex, indices, body, env)?,
            StatementKind::If { branches, else_ } => self.run_if(ex, branches, else_, env)?,
            StatementKind::While { condition, body } => {
                for _ in 0..MAX_WHILE {
                    match self.known_condition(ex, condition, env)? {
                        Some(true) => self.run_statements(ex, body, env)?,
                        Some(false) => return Ok(()),
                        None => {
                            return Err(Diagnostic::error(
                                condition.span,
                                "a `while` loop in a model's algorithm needs a condition known before simulation",
                            )
                            .with_help("move the loop into a function"));
                        }
                    }
                }
                return Err(Diagnostic::error(
                    s.span,
                    format!("this `while` loop did not end after {MAX_WHILE} iterations"),
                ));
            }
            StatementKind::When { branches } => self.run_when(ex, branches, s.span, env)?,
            StatementKind::Call { func, args } => {
                let eq = ast::Equation {
                    kind: ast::EquationKind::Call {
                        func: func.clone(),
                        args: args.clone(),
                    },
                    comment: s.comment.clone(),
                    span: s.span,
                };
                let mut sub = EqOut {
                    eqs: Vec::new(),
                    connects: Vec::new(),
                };
                let ctx = if ex.in_when { Ctx::When } else { Ctx::Normal };
                let mut locals = ex.locals.clone();
                self.equation(&eq, ex.scope, &mut locals, ctx, &mut sub)?;
                for mut e in sub.eqs {
                    self.substitute_equation(ex, &mut e, env)?;
                    if !ex.collecting {
                        ex.out.push(e);
                    }
                }
            }
            StatementKind::Return | StatementKind::Break => {
                return Err(Diagnostic::error(
                    s.span,
                    "`return` and `break` are only supported in functions",
                ));
            }
        }
        Ok(())
    }

    fn assign(&mut self, ex: &mut Exec, v: VarId, x: Expr, span: Span, env: &mut Env) {
        if ex.in_when {
            ex.when_assigned.insert(v);
        }
        env.set(v, x, span);
    }

    /// The variables a target names (one per element).
    fn targets(
        &mut self,
        ex: &mut Exec,
        target: &ast::ComponentRef,
        env: &Env,
    ) -> EResult<Vec<VarId>> {
        let e = ast::Expr {
            kind: ast::ExprKind::Ref(target.clone()),
            span: target.span,
        };
        let t = self.eval_symbolic(&e, ex.scope, &ex.locals)?;
        let _ = env;
        t.data
            .into_iter()
            .map(|x| match x {
                Expr::Var(v) => Ok(v),
                _ => Err(Diagnostic::error(
                    target.span,
                    "the target of an assignment must be a variable (subscripts known before simulation)",
                )),
            })
            .collect()
    }

    fn eval_substituted(
        &mut self,
        ex: &mut Exec,
        e: &ast::Expr,
        env: &Env,
    ) -> EResult<Tensor<Expr>> {
        let t = self.eval_symbolic(e, ex.scope, &ex.locals)?;
        let mut data = Vec::with_capacity(t.data.len());
        for x in &t.data {
            data.push(self.substitute(ex, x, env, e.span)?);
        }
        Ok(Tensor { dims: t.dims, data })
    }

    /// Replaces reads of assigned variables by their current values (see the module doc).
    fn substitute(&self, ex: &Exec, e: &Expr, env: &Env, span: Span) -> EResult<Expr> {
        let mut error = None;
        let r = subst_reads(e, &mut |v| {
            if let Some(x) = env.values.get(&v) {
                return Some(x.clone());
            }
            if ex.collecting || !ex.assigned_anywhere.contains(&v) {
                return None;
            }
            // Inside `when`: the value before the event until this branch assigns it.
            if ex.in_when {
                return Some(Expr::Pre(Box::new(Expr::Var(v))));
            }
            if ex.when_assigned.contains(&v) {
                return None;
            }
            error.get_or_insert(v);
            None
        });
        if error.is_some() {
            return Err(Diagnostic::error(
                span,
                "this reads a variable before the algorithm assigns it (it would read its start value)",
            )
            .with_help("assign the variable first, or use `pre(v)` for the value before the event"));
        }
        Ok(r)
    }

    fn substitute_equation(&self, ex: &Exec, e: &mut Equation, env: &Env) -> EResult<()> {
        let span = e.span;
        match &mut e.kind {
            EquationKind::Assert { condition, .. } => {
                *condition = self.substitute(ex, condition, env, span)?
            }
            EquationKind::Reinit { value, .. } => *value = self.substitute(ex, value, env, span)?,
            EquationKind::Terminate { message } => {
                *message = self.substitute(ex, message, env, span)?
            }
            _ => {}
        }
        Ok(())
    }

    /// The value of a condition when it is known at translation.
    fn known_condition(
        &mut self,
        ex: &mut Exec,
        c: &ast::Expr,
        env: &Env,
    ) -> EResult<Option<bool>> {
        let t = self.eval_substituted(ex, c, env)?;
        Ok(match t.data.as_slice() {
            [Expr::Boolean(b)] => Some(*b),
            _ => None,
        })
    }

    fn run_for(
        &mut self,
        ex: &mut Exec,
        indices: &[ast::ForIndex],
        body: &[Statement],
        env: &mut Env,
    ) -> EResult<()> {
        let Some((first, rest)) = indices.split_first() else {
            return self.run_statements(ex, body, env);
        };
        let Some(r) = &first.range else {
            return Err(Diagnostic::error(
                first.name.span,
                "a `for` loop in a model's algorithm needs an explicit range (`for i in 1:n`)",
            ));
        };
        let values = self.eval_structural_with(r, ex.scope, &ex.locals)?;
        let n = super::tensor::range_len(&values.dims).map_err(|m| Diagnostic::error(r.span, m))?;
        for k in 0..n {
            let v = values.row(k).map(Expr::from_val);
            ex.locals.push((first.name.name.clone(), v));
            let res = self.run_for(ex, rest, body, env);
            ex.locals.pop();
            res?;
        }
        Ok(())
    }

    fn run_if(
        &mut self,
        ex: &mut Exec,
        branches: &[(ast::Expr, Vec<Statement>)],
        else_: &[Statement],
        env: &mut Env,
    ) -> EResult<()> {
        // Conditions known at translation pick the branch; the first unknown one starts the
        // merged part.
        let mut conds = Vec::new();
        let mut bodies = Vec::new();
        for (c, body) in branches {
            let t = self.eval_substituted(ex, c, env)?;
            let cond = match t.data.as_slice() {
                [x] => x.clone(),
                _ => {
                    return Err(Diagnostic::error(
                        c.span,
                        "the condition of an `if` must be a scalar Boolean",
                    ));
                }
            };
            match cond {
                Expr::Boolean(false) => continue,
                Expr::Boolean(true) if conds.is_empty() => {
                    return self.run_statements(ex, body, env);
                }
                Expr::Boolean(true) => {
                    bodies.push(body.as_slice());
                    conds.push(cond);
                    break;
                }
                c => {
                    conds.push(c);
                    bodies.push(body.as_slice());
                }
            }
        }
        let else_body =
            if conds.len() == bodies.len() && !matches!(conds.last(), Some(Expr::Boolean(true))) {
                else_
            } else {
                &[]
            };
        if conds.is_empty() {
            return self.run_statements(ex, else_, env);
        }
        let n_out = ex.out.len();
        let mut results = Vec::new();
        for body in bodies.iter().copied().chain(std::iter::once(else_body)) {
            let mut e = env.clone();
            self.run_statements(ex, body, &mut e)?;
            results.push(e);
        }
        if ex.out.len() != n_out {
            return Err(Diagnostic::error(
                ex.out[n_out].span,
                "`when`, `assert`, `terminate` and calls inside an `if` whose condition changes during simulation are not supported in a model's algorithm",
            ));
        }
        // Every variable assigned in some branch: an if-expression over the branches, each
        // branch giving its value or the value before the `if`.
        let mut assigned: Vec<VarId> = Vec::new();
        for r in &results {
            for v in &r.order {
                if r.values.get(v) != env.values.get(v) && !assigned.contains(v) {
                    assigned.push(*v);
                }
            }
        }
        let span = results
            .iter()
            .flat_map(|r| r.spans.values())
            .next()
            .copied()
            .unwrap_or(Span::DUMMY);
        for v in assigned {
            // The value before the `if` is needed only when a branch leaves `v` alone.
            let before = match env.values.get(&v) {
                Some(x) => x.clone(),
                None if results.iter().all(|r| r.values.contains_key(&v)) => Expr::Var(v),
                None => self.substitute(ex, &Expr::Var(v), env, span)?,
            };
            let value_in = |r: &Env| r.values.get(&v).cloned().unwrap_or_else(|| before.clone());
            let merged = Expr::If {
                branches: conds
                    .iter()
                    .cloned()
                    .zip(results.iter().map(value_in))
                    .collect(),
                else_: Box::new(value_in(results.last().unwrap_or(env))),
            };
            let span = results
                .iter()
                .find_map(|r| r.spans.get(&v))
                .copied()
                .unwrap_or(span);
            if ex.in_when {
                ex.when_assigned.insert(v);
            }
            env.set(v, merged, span);
        }
        Ok(())
    }

    fn run_when(
        &mut self,
        ex: &mut Exec,
        branches: &[(ast::Expr, Vec<Statement>)],
        span: Span,
        env: &mut Env,
    ) -> EResult<()> {
        if ex.in_when {
            return Err(Diagnostic::error(
                span,
                "`when` statements cannot be nested",
            ));
        }
        let mut out_branches = Vec::new();
        for (c, body) in branches {
            let cond = self.eval_substituted(ex, c, env)?;
            // `when {a, b}` fires when any element becomes true.
            let cond = super::equations::when_condition(cond.data);
            ex.in_when = true;
            let saved = std::mem::take(&mut ex.out);
            let mut e = env.clone();
            let res = self.run_statements(ex, body, &mut e);
            ex.in_when = false;
            let inner = std::mem::replace(&mut ex.out, saved);
            res?;
            let mut eqs = Vec::new();
            for v in &e.order {
                if env.values.get(v) == e.values.get(v) {
                    continue;
                }
                eqs.push(Equation {
                    kind: EquationKind::Simple {
                        lhs: Expr::Var(*v),
                        rhs: e.values[v].clone(),
                    },
                    component: ex.component.clone(),
                    span: e.spans.get(v).copied().unwrap_or(span),
                });
            }
            eqs.extend(inner);
            out_branches.push((cond, eqs));
        }
        if !ex.collecting {
            ex.out.push(Equation {
                kind: EquationKind::When {
                    branches: out_branches,
                },
                component: ex.component.clone(),
                span,
            });
        }
        Ok(())
    }
}

/// Replaces `Var(v)` by `f(v)` where it gives a value; `pre`, `edge` and `change` of a
/// variable keep referring to the variable.
fn subst_reads(e: &Expr, f: &mut dyn FnMut(VarId) -> Option<Expr>) -> Expr {
    let mut go = |x: &Expr| subst_reads(x, f);
    match e {
        Expr::Var(v) => f(*v).unwrap_or(Expr::Var(*v)),
        Expr::Pre(a) | Expr::Edge(a) | Expr::Change(a) if matches!(**a, Expr::Var(_)) => e.clone(),
        Expr::Der(a) => Expr::Der(Box::new(go(a))),
        Expr::Pre(a) => Expr::Pre(Box::new(go(a))),
        Expr::Edge(a) => Expr::Edge(Box::new(go(a))),
        Expr::Change(a) => Expr::Change(Box::new(go(a))),
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(go(a))),
        Expr::NoEvent(a) => Expr::NoEvent(Box::new(go(a))),
        Expr::Smooth(p, a) => Expr::Smooth(*p, Box::new(go(a))),
        Expr::Binary(op, a, b) => {
            let a = go(a);
            Expr::binary(*op, a, go(b))
        }
        Expr::Sample(a, b) => {
            let a = go(a);
            Expr::Sample(Box::new(a), Box::new(go(b)))
        }
        Expr::Call(g, args) => Expr::Call(*g, args.iter().map(&mut go).collect()),
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => Expr::UserCall {
            function: function.clone(),
            args: args.iter().map(&mut go).collect(),
            output: *output,
            element: *element,
        },
        Expr::Array { dims, elements } => Expr::Array {
            dims: dims.clone(),
            elements: elements.iter().map(&mut go).collect(),
        },
        Expr::If { branches, else_ } => Expr::If {
            branches: branches.iter().map(|(c, v)| (go(c), go(v))).collect(),
            else_: Box::new(go(else_)),
        },
        leaf => leaf.clone(),
    }
}
