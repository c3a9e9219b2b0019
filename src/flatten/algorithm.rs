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
//!   loops while their condition is known at translation; the iterations from the first
//!   whose condition is known only during simulation run in a generated function
//!   (`algorithm_while.rs`).
//! - `if` statements whose conditions are known pick their branch; others merge the branches'
//!   values into if-expressions.
//! - `when` statements become when-equations. Inside them a variable the statement assigns
//!   reads as `pre(v)` until it is assigned (MLS 11.1.2: discrete variables start from their
//!   `pre` values), so `z := div(z, 2)` in a loop is a chain of expressions of `pre(z)`.
//! - Outside `when`, reading an assigned variable before the section assigns it reads its
//!   initial value (MLS 11.1.2): `pre(v)` for a discrete variable, the `start` value of a
//!   continuous one (`if c then x := 1; end if;` leaves `x` at its start value otherwise).
//! - `assert`, `terminate`, `reinit` and calls of functions for their effect are handled as
//!   in equations, with the current values substituted. Inside an `if` whose condition is
//!   only known during simulation an `assert` is guarded by its branch (`assert(if c then
//!   cond else true, ...)`) and a `terminate` becomes `when c then terminate(...)`.
//! - `break` ends the innermost loop (which is unrolled anyway). Under an `if` whose condition
//!   is known only during simulation it leaves the loop only where that condition holds: the
//!   loop keeps the condition under which it has been left, and every later assignment of the
//!   loop (in this and the remaining iterations) keeps the variable's value where it holds
//!   (`v := if left then v else x`); `assert`s after it are guarded the same way.

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

/// One element of an assignment's target.
enum Target {
    Var(VarId),
    /// Chosen by a subscript known only at run time.
    Chosen(super::dyn_target::DynTarget),
}

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
    /// The value a variable the section assigns has before its first assignment (MLS
    /// 11.1.2): `pre(v)` or its start value.
    initial: HashMap<VarId, Expr>,
    /// Nesting of `for`/`while` loops being run, and whether a `break` was reached.
    loops: usize,
    breaking: bool,
    /// The condition, known only during simulation, under which the innermost loop has been
    /// left by a `break` (`false` when none was reached): later statements of the loop act
    /// only where it is false.
    broken: Expr,
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
            initial: HashMap::new(),
            loops: 0,
            breaking: false,
            broken: Expr::Boolean(false),
        };
        let mut env = Env::default();
        self.run_statements(&mut ex, statements, &mut env)?;
        ex.assigned_anywhere = env.order.iter().copied().collect();
        ex.assigned_anywhere.extend(ex.when_assigned.drain());
        let mut vars: Vec<VarId> = ex.assigned_anywhere.iter().copied().collect();
        vars.sort_unstable();
        for v in vars {
            let x = self.initial_value(v)?;
            ex.initial.insert(v, x);
        }
        ex.collecting = false;
        ex.breaking = false;
        ex.broken = Expr::Boolean(false);
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
        super::algorithm_when::merge_shared_when_assignments(&mut ex.out);
        out.eqs.append(&mut ex.out);
        Ok(())
    }

    /// The primitive instance a flat variable belongs to.
    pub(super) fn var_inst(&self, v: VarId) -> Option<usize> {
        if !self.numbered || v == super::scalarize::PLACEHOLDER {
            return None;
        }
        let at = self.prims.partition_point(|&i| self.insts[i].var0 <= v);
        at.checked_sub(1).and_then(|k| self.prims.get(k)).copied()
    }

    /// Whether `e` depends only on parameters and constants (MLS 3.8.2); a variable not
    /// numbered yet counts as one (structural evaluation decides those itself).
    pub(super) fn is_parameter_expr(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.visit(&mut |x| match x {
            Expr::Var(v) => {
                if let Some(i) = self.var_inst(*v) {
                    ok &= matches!(
                        self.variability(i),
                        ast::Variability::Parameter | ast::Variability::Constant
                    );
                }
            }
            Expr::Time
            | Expr::Pre(_)
            | Expr::Der(_)
            | Expr::Sample(..)
            | Expr::Initial
            | Expr::Terminal => ok = false,
            _ => {}
        });
        ok
    }

    fn var_type(&self, v: VarId) -> Option<crate::dae::ScalarType> {
        match &self.insts[self.var_inst(v)?].kind {
            super::instance::InstKind::Prim { ty, .. } => Some(*ty),
            _ => None,
        }
    }

    /// The value of an assigned variable before the section assigns it (MLS 11.1.2).
    fn initial_value(&mut self, v: VarId) -> EResult<Expr> {
        let Some(i) = self.var_inst(v) else {
            return Ok(Expr::Pre(Box::new(Expr::Var(v))));
        };
        let (ty, dims) = match &self.insts[i].kind {
            super::instance::InstKind::Prim { ty, dims } => (*ty, dims.clone()),
            _ => return Ok(Expr::Pre(Box::new(Expr::Var(v)))),
        };
        let discrete = ty != crate::dae::ScalarType::Real
            || self.variability(i) != ast::Variability::Continuous;
        if discrete {
            return Ok(Expr::Pre(Box::new(Expr::Var(v))));
        }
        let k = v - self.insts[i].var0;
        let start = self.insts[i]
            .mods
            .sub("start")
            .and_then(|m| m.binding.clone());
        Ok(match start {
            Some(b) => {
                let t = self.mod_value(&b, super::scalarize::Mode::Symbolic, &dims)?;
                t.data.get(k).cloned().unwrap_or(Expr::Real(0.0))
            }
            None => Expr::Real(0.0),
        })
    }

    fn run_statements(&mut self, ex: &mut Exec, body: &[Statement], env: &mut Env) -> EResult<()> {
        for s in body {
            self.run_statement(ex, s, env)?;
            if ex.breaking {
                break;
            }
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
                for (k, t) in targets.into_iter().enumerate() {
                    let x = vals.data[if vals.len() == 1 { 0 } else { k }].clone();
                    match t {
                        Target::Var(v) => self.assign(ex, v, x, s.span, env)?,
                        Target::Chosen(d) => self.assign_chosen(ex, d, x, s.span, env)?,
                    }
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
                    let vs: Vec<VarId> = vs
                        .into_iter()
                        .map(|x| match x {
                            Target::Var(v) => Ok(v),
                            Target::Chosen(_) => Err(Diagnostic::error(
                                t.span,
                                "an output of a function call cannot go to an element chosen at run time; assign it to a variable first",
                            )),
                        })
                        .collect::<EResult<_>>()?;
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
                    self.assign(ex, v, x, s.span, env)?;
                }
            }
            StatementKind::For { indices, body } => {
                ex.loops += 1;
                let outer = std::mem::replace(&mut ex.broken, Expr::Boolean(false));
                let r = self.run_for(ex, indices, body, env);
                ex.loops -= 1;
                ex.breaking = false;
                ex.broken = outer;
                r?
            }
            StatementKind::If { branches, else_ } => self.run_if(ex, branches, else_, env)?,
            StatementKind::While { condition, body } => {
                let outer = std::mem::replace(&mut ex.broken, Expr::Boolean(false));
                let r = self.run_while(ex, condition, body, s.span, env);
                ex.broken = outer;
                r?
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
                    if !is_false(&ex.broken) {
                        e = guard(e, std::slice::from_ref(&ex.broken), 1)?;
                    }
                    if !ex.collecting {
                        ex.out.push(e);
                    }
                }
            }
            StatementKind::Break if ex.loops > 0 => ex.breaking = true,
            StatementKind::Break => {
                return Err(Diagnostic::error(
                    s.span,
                    "`break` can only be used inside a `for` or `while` loop (MLS 11.2.5)",
                ));
            }
            StatementKind::Return => {
                return Err(Diagnostic::error(
                    s.span,
                    "`return` can only be used inside a function (MLS 11.2.5)",
                ));
            }
        }
        Ok(())
    }

    /// `v := x`; after a `break` under a run-time condition, only where it was not taken.
    fn assign(
        &mut self,
        ex: &mut Exec,
        v: VarId,
        x: Expr,
        span: Span,
        env: &mut Env,
    ) -> EResult<()> {
        if ex.in_when {
            ex.when_assigned.insert(v);
        }
        let x = if is_false(&ex.broken) {
            x
        } else {
            let before = self.substitute(ex, &Expr::Var(v), env, span)?;
            select(ex.broken.clone(), before, x)
        };
        env.set(v, x, span);
        Ok(())
    }

    /// A `while` loop, unrolled as long as its condition is known at translation.
    fn run_while(
        &mut self,
        ex: &mut Exec,
        condition: &ast::Expr,
        body: &[Statement],
        span: Span,
        env: &mut Env,
    ) -> EResult<()> {
        for _ in 0..MAX_WHILE {
            match self.known_condition(ex, condition, env)? {
                Some(true) => {
                    ex.loops += 1;
                    let r = self.run_statements(ex, body, env);
                    ex.loops -= 1;
                    r?;
                    if std::mem::take(&mut ex.breaking) || ex.broken == Expr::Boolean(true) {
                        return Ok(());
                    }
                }
                Some(false) => return Ok(()),
                // The remaining iterations run at simulation time.
                None => return self.run_while_function(ex, condition, body, span, env),
            }
        }
        Err(Diagnostic::error(
            span,
            format!("this `while` loop did not end after {MAX_WHILE} iterations"),
        ))
    }

    /// A `while` loop whose condition is known only during simulation: a generated function
    /// of the values before the loop gives each variable the loop assigns its value after it
    /// (`algorithm_while.rs`).
    fn run_while_function(
        &mut self,
        ex: &mut Exec,
        condition: &ast::Expr,
        body: &[Statement],
        span: Span,
        env: &mut Env,
    ) -> EResult<()> {
        let lf = self.while_function(ex.scope, &ex.locals, &ex.component, condition, body, span)?;
        let mut args = Vec::with_capacity(lf.inputs.len());
        for t in &lf.inputs {
            let mut data = Vec::with_capacity(t.data.len());
            for x in &t.data {
                data.push(self.substitute(ex, x, env, span)?);
            }
            args.push(match (t.dims.is_empty(), data.pop()) {
                (true, Some(x)) if data.is_empty() => x,
                (_, last) => {
                    data.extend(last);
                    Expr::Array {
                        dims: t.dims.clone(),
                        elements: data,
                    }
                }
            });
        }
        for (output, vars) in lf.outputs.iter().enumerate() {
            for (element, &v) in vars.iter().enumerate() {
                let call = Expr::UserCall {
                    function: lf.name.clone(),
                    args: args.clone(),
                    output,
                    element,
                };
                self.assign(ex, v, call, span, env)?;
            }
        }
        Ok(())
    }

    /// The variables a target names (one per element); an element chosen by a subscript
    /// known only at run time is a choice among variables, its conditions read with the
    /// values the statements before gave.
    fn targets(
        &mut self,
        ex: &mut Exec,
        target: &ast::ComponentRef,
        env: &Env,
    ) -> EResult<Vec<Target>> {
        let e = ast::Expr {
            kind: ast::ExprKind::Ref(target.clone()),
            span: target.span,
        };
        let t = self.eval_symbolic(&e, ex.scope, &ex.locals)?;
        let mut out = Vec::with_capacity(t.data.len());
        for x in t.data {
            if let Expr::Var(v) = x {
                out.push(Target::Var(v));
                continue;
            }
            let Some(mut d) = super::dyn_target::split(&x) else {
                return Err(Diagnostic::error(
                    target.span,
                    "the target of an assignment must be a variable",
                ));
            };
            for (c, _) in &mut d.options {
                *c = self.substitute(ex, c, env, target.span)?;
            }
            for c in &mut d.checks {
                *c = self.substitute(ex, c, env, target.span)?;
            }
            out.push(Target::Chosen(d));
        }
        Ok(out)
    }

    /// `v[k] := x` with `k` known only at run time: each element `v[k]` can select keeps its
    /// value unless selected; an index out of range stops the run (an assert).
    fn assign_chosen(
        &mut self,
        ex: &mut Exec,
        d: super::dyn_target::DynTarget,
        x: Expr,
        span: Span,
        env: &mut Env,
    ) -> EResult<()> {
        if !ex.collecting
            && let Some(a) = super::dyn_target::bounds_assert(&d, &ex.component, span)
        {
            ex.out.push(a);
        }
        for (cond, v) in d.options {
            let before = self.substitute(ex, &Expr::Var(v), env, span)?;
            let value = super::dyn_target::element_value(&cond, x.clone(), before);
            self.assign(ex, v, value, span, env)?;
        }
        Ok(())
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
            ex.initial.get(&v).cloned()
        });
        let _ = span;
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
        let values = match &first.range {
            Some(r) => match self.eval_structural_with(r, ex.scope, &ex.locals) {
                Ok(v) => v.map(Expr::from_val),
                // A vector of values known only during simulation (`for i in y loop` with `y`
                // a discrete variable) still has a size known now (MLS 11.2.2.1): the loop
                // runs once per element with the iterator standing for that element.
                Err(e) => match self.eval_symbolic(r, ex.scope, &ex.locals) {
                    Ok(v) if v.dims.len() == 1 => v,
                    _ => return Err(e),
                },
            },
            None => {
                let mut uses = Vec::new();
                super::implicit::in_statements(&first.name.name, body, &mut uses);
                for i in rest {
                    if let Some(r) = &i.range {
                        super::implicit::in_exprs(&first.name.name, &[r], &mut uses);
                    }
                }
                self.implicit_for_range(&first.name, &uses, ex.scope, &ex.locals)?
                    .map(Expr::from_val)
            }
        };
        let n = super::tensor::range_len(&values.dims).map_err(|m| {
            let at = first.range.as_ref().map_or(first.name.span, |r| r.span);
            Diagnostic::error(at, m)
        })?;
        for k in 0..n {
            let v = values.row(k);
            ex.locals.push((first.name.name.clone(), v));
            let res = self.run_for(ex, rest, body, env);
            ex.locals.pop();
            res?;
            // `break` ends the whole statement (a multi-index `for` is one loop); the
            // statement clears the flag.
            if ex.breaking || ex.broken == Expr::Boolean(true) {
                break;
            }
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
            let not_boolean = match &cond {
                Expr::Var(v) => self
                    .var_type(*v)
                    .is_some_and(|t| t != crate::dae::ScalarType::Boolean),
                _ => false,
            };
            if not_boolean {
                return Err(Diagnostic::error(
                    c.span,
                    "the condition of an `if` must be a Boolean expression (MLS 11.2.6)",
                ));
            }
            if let Some(v) = cond
                .to_val()
                .filter(|v| !matches!(v, super::tensor::Val::Bool(_)))
            {
                return Err(Diagnostic::error(
                    c.span,
                    format!(
                        "the condition of an `if` must be a Boolean expression (MLS 11.2.6), this is {}",
                        if matches!(v, super::tensor::Val::Str(_)) {
                            "a String"
                        } else {
                            "a number"
                        }
                    ),
                ));
            }
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
        let mut results = Vec::new();
        let mut outs = Vec::new();
        // Where each branch leaves the loop: a `break` reached in it, or under a further
        // condition inside it.
        let broken_before = ex.broken.clone();
        let mut broken = Vec::new();
        for body in bodies.iter().copied().chain(std::iter::once(else_body)) {
            let mut e = env.clone();
            let n_out = ex.out.len();
            ex.broken = broken_before.clone();
            self.run_statements(ex, body, &mut e)?;
            broken.push(if std::mem::take(&mut ex.breaking) {
                Expr::Boolean(true)
            } else {
                std::mem::replace(&mut ex.broken, broken_before.clone())
            });
            outs.push(ex.out.split_off(n_out));
            results.push(e);
        }
        ex.broken = if broken.iter().all(|b| *b == broken_before) {
            broken_before
        } else {
            let mut acc = broken.pop().unwrap_or(Expr::Boolean(false));
            for (c, b) in conds.iter().zip(broken).rev() {
                acc = select(c.clone(), b, acc);
            }
            acc
        };
        for (k, eqs) in outs.into_iter().enumerate() {
            for eq in eqs {
                let guarded = guard(eq, &conds, k)?;
                ex.out.push(guarded);
            }
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
        if !is_false(&ex.broken) {
            return Err(Diagnostic::error(
                span,
                "a `when` statement after a `break` under a condition known only during simulation is not supported",
            ));
        }
        let mut out_branches = Vec::new();
        for (c, body) in branches {
            let cond = self.eval_substituted(ex, c, env)?;
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
            out_branches.extend(when_branches(cond.data, eqs));
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

/// The branches of `when c then eqs` for the elements of `c`: `when {a, b}` fires when any
/// element becomes true (MLS 8.3.5), which is one branch per element with the same body (the
/// first branch whose condition becomes true is taken, so the order of an `elsewhen` chain is
/// kept). `a or b` would miss `b` becoming true while `a` is already true.
pub(super) fn when_branches(conds: Vec<Expr>, eqs: Vec<Equation>) -> Vec<(Expr, Vec<Equation>)> {
    if conds.len() <= 1 {
        let c = conds.into_iter().next().unwrap_or(Expr::Boolean(false));
        return vec![(c, eqs)];
    }
    conds.into_iter().map(|c| (c, eqs.clone())).collect()
}

fn is_false(e: &Expr) -> bool {
    *e == Expr::Boolean(false)
}

/// `if c then a else b`, folded when `c` is known.
fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    if a == b {
        return a;
    }
    Elem::select(c.clone(), a.clone(), b.clone()).unwrap_or_else(|_| Expr::If {
        branches: vec![(c, a)],
        else_: Box::new(b),
    })
}

/// `eq`, produced by branch `k` of an `if` with conditions `conds` (`k == conds.len()` for
/// the `else` branch), made to act only when that branch is taken.
fn guard(eq: Equation, conds: &[Expr], k: usize) -> EResult<Equation> {
    let taken = |yes: Expr, no: Expr| Expr::If {
        branches: conds
            .iter()
            .take(k + 1)
            .enumerate()
            .map(|(j, c)| (c.clone(), if j == k { yes.clone() } else { no.clone() }))
            .collect(),
        else_: Box::new(if k == conds.len() {
            yes.clone()
        } else {
            no.clone()
        }),
    };
    let Equation {
        kind,
        component,
        span,
    } = eq;
    let kind = match kind {
        EquationKind::Assert {
            condition,
            message,
            warning,
        } => EquationKind::Assert {
            // A call for its effect must not run in a branch not taken.
            condition: super::effect_call::guarded(
                &condition,
                &taken(Expr::Boolean(true), Expr::Boolean(false)),
            )
            .unwrap_or_else(|| taken(condition, Expr::Boolean(true))),
            message,
            warning,
        },
        EquationKind::Terminate { message } => EquationKind::When {
            branches: vec![(
                taken(Expr::Boolean(true), Expr::Boolean(false)),
                vec![Equation {
                    kind: EquationKind::Terminate { message },
                    component: component.clone(),
                    span,
                }],
            )],
        },
        EquationKind::When { .. } => {
            return Err(Diagnostic::error(
                span,
                "a `when` statement cannot be inside an `if` statement (MLS 11.2.7.1)",
            ));
        }
        _ => {
            return Err(Diagnostic::error(
                span,
                "a call for its effect inside an `if` whose condition changes during simulation is not supported in a model's algorithm",
            )
            .with_help("move the call into a function"));
        }
    };
    Ok(Equation {
        kind,
        component,
        span,
    })
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
        // Values substituted for reads may be constants: fold them, so conditions known at
        // translation pick their branch (`if noEvent(x > 25) then break`).
        Expr::Unary(op, a) => {
            let a = go(a);
            Elem::unary(*op, a.clone()).unwrap_or_else(|_| Expr::Unary(*op, Box::new(a)))
        }
        Expr::NoEvent(a) => match go(a) {
            x if x.to_val().is_some() => x,
            x => Expr::NoEvent(Box::new(x)),
        },
        Expr::Smooth(p, a) => Expr::Smooth(*p, Box::new(go(a))),
        Expr::Binary(op, a, b) => {
            let a = go(a);
            let b = go(b);
            Elem::binary(*op, a.clone(), b.clone()).unwrap_or_else(|_| Expr::binary(*op, a, b))
        }
        Expr::Sample(a, b) => {
            let a = go(a);
            Expr::Sample(Box::new(a), Box::new(go(b)))
        }
        Expr::Call(g, args) => {
            let args: Vec<Expr> = args.iter().map(&mut go).collect();
            Elem::builtin(*g, args.clone()).unwrap_or(Expr::Call(*g, args))
        }
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
        Expr::If { branches, else_ } => {
            let mut acc = go(else_);
            for (c, v) in branches.iter().rev() {
                let (c, v) = (go(c), go(v));
                acc =
                    Elem::select(c.clone(), v.clone(), acc.clone()).unwrap_or_else(|_| Expr::If {
                        branches: vec![(c, v)],
                        else_: Box::new(acc),
                    });
            }
            acc
        }
        leaf => leaf.clone(),
    }
}
