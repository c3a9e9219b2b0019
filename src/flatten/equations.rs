//! Equations of every instance, scalarized: array equations become one equation per
//! element, `for` loops are unrolled, if-equations with parameter conditions pick their
//! branch, `connect` equations are collected for `connect.rs`.

use super::Flattener;
use super::eval::{self, EResult, cref_name};
use super::instance::InstId;
use super::modifier::Scope;
use super::scalarize::{FCtx, Mode, Node};
use super::tensor::{Elem, Tensor, Val, fmt_dims};
use crate::dae::{Equation, EquationKind, Expr};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;

/// One `connect(a, b)` after resolution: element-wise pairs of connector nodes.
pub struct Connect {
    pub a: Vec<Node>,
    pub b: Vec<Node>,
    /// Whether each side is an outside connector (a connector of the instance itself).
    pub a_outside: bool,
    pub b_outside: bool,
    /// The instance the connect is written in.
    pub inst: InstId,
    pub span: Span,
    pub a_span: Span,
    pub b_span: Span,
}

pub struct EqOut {
    pub eqs: Vec<Equation>,
    pub connects: Vec<Connect>,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Ctx {
    Normal,
    When,
    Initial,
}

impl Flattener<'_> {
    /// The equations written in instance `inst` (not in its children).
    pub fn instance_equations(
        &mut self,
        inst: InstId,
        initial: bool,
        out: &mut EqOut,
    ) -> EResult<()> {
        let exp = self.insts[inst].exp.clone();
        let list = if initial {
            &exp.initial_equations
        } else {
            &exp.equations
        };
        let ctx = if initial { Ctx::Initial } else { Ctx::Normal };
        let mut locals = Vec::new();
        for (lex, eq) in list {
            let scope = Scope {
                inst: Some(inst),
                lex: *lex,
            };
            self.equation(eq, scope, &mut locals, ctx, out)?;
        }
        let algorithms = if initial {
            &exp.initial_algorithms
        } else {
            &exp.algorithms
        };
        for (lex, alg) in algorithms {
            let scope = Scope {
                inst: Some(inst),
                lex: *lex,
            };
            self.algorithm_equations(alg, scope, out)?;
        }
        Ok(())
    }

    pub(super) fn equation(
        &mut self,
        eq: &ast::Equation,
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        match &eq.kind {
            ast::EquationKind::Simple { lhs, rhs } => {
                self.simple_equation(eq, lhs, rhs, scope, locals, ctx, out)
            }
            ast::EquationKind::Connect { a, b } => {
                self.connect_equation(eq, a, b, scope, locals, ctx, out)
            }
            ast::EquationKind::For { indices, body } => {
                self.for_equation(indices, body, scope, locals, ctx, out)
            }
            ast::EquationKind::If { branches, else_ } => {
                self.if_equation(eq, branches, else_, scope, locals, ctx, out)
            }
            ast::EquationKind::When { branches } => {
                self.when_equation(eq, branches, scope, locals, ctx, out)
            }
            ast::EquationKind::Call { func, args } => {
                self.call_equation(eq, func, args, scope, locals, ctx, out)
            }
        }
    }

    /// `lhs = rhs`, element by element (a tuple `(a, b) = f(...)` by output).
    #[allow(clippy::too_many_arguments)] // the equation, its parts, and where it is
    fn simple_equation(
        &mut self,
        eq: &ast::Equation,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mk = |kind| Equation {
            kind,
            component: component.clone(),
            span: eq.span,
        };
        if let ast::ExprKind::Tuple(targets) = &lhs.kind {
            return self.tuple_equation(targets, rhs, scope, locals, eq.span, &component, out);
        }
        if ctx == Ctx::When
            && let ast::ExprKind::Ref(target) = &lhs.kind
        {
            self.check_when_target(scope.inst.unwrap_or(0), target)?;
        }
        let names: Vec<String> = locals.iter().map(|(n, _)| n.clone()).collect();
        self.check_equation_types(eq, lhs, rhs, scope, &names)?;
        let l = self.eval_symbolic(lhs, scope, locals)?;
        let r = self.eval_symbolic(rhs, scope, locals)?;
        let (l, r) = match (l.dims == r.dims, l.len() == r.len()) {
            (true, _) => (l, r),
            (false, true) if l.len() == 1 => (l, r),
            _ => {
                return Err(Diagnostic::error(
                    eq.span,
                    format!(
                        "the two sides of this equation have different sizes: {} and {}",
                        fmt_dims(&l.dims),
                        fmt_dims(&r.dims)
                    ),
                ));
            }
        };
        let r = self.record_rhs_by_name(lhs, rhs, r, scope, locals, eq.span)?;
        for (a, b) in l.data.into_iter().zip(r.data) {
            out.eqs.push(mk(EquationKind::Simple { lhs: a, rhs: b }));
        }
        Ok(())
    }

    /// A record equation between two record classes matches fields by name (MLS 6.4,
    /// 8.3.1): the right side's scalars in the order of the left side's fields.
    fn record_rhs_by_name(
        &mut self,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        r: Tensor<Expr>,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        span: Span,
    ) -> EResult<Tensor<Expr>> {
        let Some(to) = self.record_expr_class(lhs, scope, locals) else {
            return Ok(r);
        };
        let Some(from) = self.record_expr_value(rhs, scope, locals)? else {
            return Ok(r);
        };
        match self.record_value_map(&from, to, span)? {
            Some(map) if map.arg_sizes.iter().sum::<usize>() == r.len() => {
                let data = map.permute_scalars(&r.data);
                Ok(Tensor {
                    dims: vec![data.len()],
                    data,
                })
            }
            _ => Ok(r),
        }
    }

    /// `connect(a, b)`: recorded for the connection sets (`connect.rs`).
    #[allow(clippy::too_many_arguments)] // the equation, its parts, and where it is
    fn connect_equation(
        &mut self,
        eq: &ast::Equation,
        a: &ast::ComponentRef,
        b: &ast::ComponentRef,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        if ctx == Ctx::When {
            return Err(Diagnostic::error(
                eq.span,
                "`connect` cannot be used inside a when-equation",
            ));
        }
        let inst = scope.inst.unwrap_or(0);
        // Connections to disabled conditional components are removed (MLS 4.4.5).
        if self.refers_removed(inst, a) || self.refers_removed(inst, b) {
            return Ok(());
        }
        self.check_connect_form(inst, a)?;
        self.check_connect_form(inst, b)?;
        let mut fc = FCtx::new(self, scope, Mode::Symbolic);
        fc.locals = locals.to_vec();
        fc.conditional_ok = true;
        let na = fc.resolve(a)?.ok_or_else(|| unknown_connector(a))?;
        let nb = fc.resolve(b)?.ok_or_else(|| unknown_connector(b))?;
        drop(fc);
        if na.dims != nb.dims && na.len() != nb.len() {
            return Err(Diagnostic::error(
                eq.span,
                format!(
                    "connected arrays have different sizes: {} and {}",
                    fmt_dims(&na.dims),
                    fmt_dims(&nb.dims)
                ),
            ));
        }
        let a_outside = self.is_outside(inst, a);
        let b_outside = self.is_outside(inst, b);
        out.connects.push(Connect {
            a: na.data,
            b: nb.data,
            a_outside,
            b_outside,
            inst,
            span: eq.span,
            a_span: a.span,
            b_span: b.span,
        });
        Ok(())
    }

    /// An if-equation: conditions known before simulation select their branch now (MLS
    /// 8.3.4); the others are kept.
    #[allow(clippy::too_many_arguments)] // the equation, its parts, and where it is
    fn if_equation(
        &mut self,
        eq: &ast::Equation,
        branches: &[(ast::Expr, Vec<ast::Equation>)],
        else_: &[ast::Equation],
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mk = |kind| Equation {
            kind,
            component: component.clone(),
            span: eq.span,
        };
        // Conditions known before simulation select their branch now (MLS 8.3.4).
        let mut kept: Vec<(Expr, Vec<Equation>)> = Vec::new();
        let mut chosen: Option<&Vec<ast::Equation>> = None;
        for (c, body) in branches {
            let cv = {
                let mut fc = FCtx::new(self, scope, Mode::Structural);
                fc.locals = locals.clone();
                let v = eval::eval(&mut fc, c)?;
                // Only a condition known before simulation makes its parameters structural.
                fc.commit = v.data.iter().all(|x| x.to_val().is_some());
                v
            };
            let cv = cv.into_scalar().map_err(|m| Diagnostic::error(c.span, m))?;
            match cv.to_val() {
                Some(Val::Bool(true)) => {
                    chosen = Some(body);
                    break;
                }
                Some(Val::Bool(false)) => continue,
                Some(_) => {
                    return Err(Diagnostic::error(c.span, "an if-condition must be Boolean"));
                }
                None => {
                    // Keep it symbolic (parameters not evaluated in the kept condition).
                    let sym = self
                        .eval_symbolic(c, scope, locals)?
                        .into_scalar()
                        .map_err(|m| Diagnostic::error(c.span, m))?;
                    let mut sub = EqOut {
                        eqs: Vec::new(),
                        connects: Vec::new(),
                    };
                    for e in body {
                        self.equation(e, scope, locals, ctx, &mut sub)?;
                    }
                    if !sub.connects.is_empty() {
                        return Err(Diagnostic::error(
                            c.span,
                            "`connect` inside an if-equation needs a parameter condition",
                        ));
                    }
                    kept.push((sym, sub.eqs));
                }
            }
        }
        let else_eqs = match chosen {
            Some(b) => b,
            None => else_,
        };
        let mut sub = EqOut {
            eqs: Vec::new(),
            connects: Vec::new(),
        };
        for e in else_eqs {
            self.equation(e, scope, locals, ctx, &mut sub)?;
        }
        if kept.is_empty() {
            out.eqs.extend(sub.eqs);
            out.connects.extend(sub.connects);
        } else {
            if !sub.connects.is_empty() {
                return Err(Diagnostic::error(
                    eq.span,
                    "`connect` inside an if-equation needs a parameter condition",
                ));
            }
            if ctx != Ctx::When {
                let count = |v: &Vec<Equation>| v.iter().map(count_equations).sum::<usize>();
                let n = count(&kept[0].1);
                let bad = kept
                    .iter()
                    .map(|(_, b)| count(b))
                    .chain(std::iter::once(count(&sub.eqs)))
                    .find(|c| *c != n);
                if let Some(m) = bad {
                    return Err(Diagnostic::error(
                        eq.span,
                        format!("the branches of this if-equation have different numbers of equations ({n} and {m})"),
                    )
                    .with_help("with a condition that changes during simulation, every branch needs the same number of equations (MLS 8.3.4)"));
                }
            }
            out.eqs.push(mk(EquationKind::If {
                branches: kept,
                else_: sub.eqs,
            }));
        }
        Ok(())
    }

    /// A when-equation: its branches with their conditions.
    fn when_equation(
        &mut self,
        eq: &ast::Equation,
        branches: &[(ast::Expr, Vec<ast::Equation>)],
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mk = |kind| Equation {
            kind,
            component: component.clone(),
            span: eq.span,
        };
        if ctx == Ctx::When {
            return Err(Diagnostic::error(
                eq.span,
                "when-equations cannot be nested",
            ));
        }
        if ctx == Ctx::Initial {
            return Err(Diagnostic::error(
                eq.span,
                "when-equations are not allowed in initial equations",
            ));
        }
        if self.clocked_when(eq, branches, scope, locals, out)? {
            return Ok(());
        }
        let mut bs = Vec::new();
        for (c, body) in branches {
            let cond = self.eval_symbolic(c, scope, locals)?;
            let mut sub = EqOut {
                eqs: Vec::new(),
                connects: Vec::new(),
            };
            for e in body {
                self.equation(e, scope, locals, Ctx::When, &mut sub)?;
            }
            let body = super::when_if::assignments(sub.eqs);
            bs.extend(super::algorithm::when_branches(cond.data, body));
        }
        out.eqs.push(mk(EquationKind::When { branches: bs }));
        Ok(())
    }

    /// An equation that is a call: `assert`, `terminate`, `reinit`, graph statements, or a
    /// function called for its effect.
    #[allow(clippy::too_many_arguments)] // the equation, its parts, and where it is
    fn call_equation(
        &mut self,
        eq: &ast::Equation,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mk = |kind| Equation {
            kind,
            component: component.clone(),
            span: eq.span,
        };
        let name = cref_name(func);
        // Graph statements only shape the connection graph (`overdetermined.rs`).
        if super::overdetermined::is_graph_statement(&name) {
            return Ok(());
        }
        match name.as_str() {
            "assert" => self.assert_equation(eq, args, scope, locals, out)?,
            "terminate" => {
                let m = arg(args, 0, "message", eq.span)?;
                let message = self
                    .eval_symbolic(m, scope, locals)?
                    .into_scalar()
                    .map_err(|m| Diagnostic::error(eq.span, m))?;
                out.eqs.push(mk(EquationKind::Terminate { message }));
            }
            "reinit" => self.reinit_equation(eq, args, scope, locals, ctx, out)?,
            _ => self.call_for_effect(func, args, scope, locals, eq.span, &component, out)?,
        }
        Ok(())
    }

    /// `assert(condition, message, level)`: one assert per condition element; nothing for a
    /// condition known to hold.
    fn assert_equation(
        &mut self,
        eq: &ast::Equation,
        args: &ast::FunctionArgs,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mk = |kind| Equation {
            kind,
            component: component.clone(),
            span: eq.span,
        };
        let c = arg(args, 0, "condition", eq.span)?;
        let cond = self.eval_symbolic(c, scope, locals)?;
        if let Some(v) = cond
            .data
            .iter()
            .filter_map(|x| x.to_val())
            .find(|v| !matches!(v, Val::Bool(_)))
        {
            let what = match v {
                Val::Int(_) => "an Integer",
                Val::Real(_) => "a Real",
                _ => "a String",
            };
            return Err(Diagnostic::error(
                c.span,
                format!("the condition of `assert` must be a Boolean expression (MLS 8.3.7), this is {what}"),
            )
            .with_help("write a comparison, e.g. `assert(x > 0, \"...\")`"));
        }
        // A condition known to hold: the message is never evaluated (it
        // may be a call that fails, MLS 8.3.7).
        if cond.data.iter().all(|x| *x == Expr::Boolean(true)) {
            return Ok(());
        }
        let message = match args.positional.get(1).or_else(|| named(args, "message")) {
            Some(m) => self
                .eval_symbolic(m, scope, locals)?
                .into_scalar()
                .map_err(|m| Diagnostic::error(eq.span, m))?,
            None => Expr::String("assertion failed".into()),
        };
        let warning = match args.positional.get(2).or_else(|| named(args, "level")) {
            Some(l) => {
                let v = self.eval_structural_with(l, scope, locals)?;
                v.data.first().and_then(|x| x.as_int()) == Some(2)
            }
            None => false,
        };
        for c in cond.data {
            out.eqs.push(mk(EquationKind::Assert {
                condition: c,
                message: message.clone(),
                warning,
            }));
        }
        Ok(())
    }

    /// `reinit(x, value)` in a when-equation, for continuous-time variables only (MLS 8.3.6).
    fn reinit_equation(
        &mut self,
        eq: &ast::Equation,
        args: &ast::FunctionArgs,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        let component = self.insts[scope.inst.unwrap_or(0)].path.clone();
        let mk = |kind| Equation {
            kind,
            component: component.clone(),
            span: eq.span,
        };
        if ctx != Ctx::When {
            return Err(Diagnostic::error(
                eq.span,
                "`reinit` can only be used inside a when-equation",
            ));
        }
        let x = arg(args, 0, "variable", eq.span)?;
        let v = arg(args, 1, "value", eq.span)?;
        let xs = self.eval_symbolic(x, scope, locals)?;
        let vs = self.eval_symbolic(v, scope, locals)?;
        if xs.len() != vs.len() {
            return Err(Diagnostic::error(
                eq.span,
                "reinit: the variable and the value have different sizes",
            ));
        }
        for (a, b) in xs.data.into_iter().zip(vs.data) {
            let Expr::Var(var) = a else {
                return Err(Diagnostic::error(
                    x.span,
                    "the first argument of `reinit` must be a variable",
                ));
            };
            if let Some(i) = self.var_inst(var)
                && matches!(
                    self.variability(i),
                    ast::Variability::Parameter | ast::Variability::Constant
                )
            {
                return Err(Diagnostic::error(
                    x.span,
                    format!(
                        "`reinit` needs a continuous-time Real variable (MLS 8.3.6): `{}` is a parameter",
                        self.insts[i].path
                    ),
                ));
            }
            out.eqs.push(mk(EquationKind::Reinit { var, value: b }));
        }
        Ok(())
    }

    /// A call of a user function as a statement or equation (`isValidTable(table);`, MLS
    /// 8.3.7, 11.2.3): only its effect counts (the asserts it checks). The arguments must be
    /// parameters or constants; the function then runs once, here, on their values.
    /// `f(args);` for its effect: run now when its arguments are constants, else an assert
    /// on the call of its wrapper, checked where the call stands (`effect_call.rs`).
    #[allow(clippy::too_many_arguments)] // the call, where it is, and where its assert goes
    pub(super) fn call_for_effect(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        span: Span,
        component: &str,
        out: &mut EqOut,
    ) -> EResult<()> {
        let outs = {
            let mut fc = FCtx::new(self, scope, Mode::Symbolic);
            fc.locals = locals.to_vec();
            fc.for_effect = Some(span);
            eval::call(&mut fc, func, args, span)?
        };
        let name = cref_name(func);
        // Only a user function's call is turned into its wrapper's; a built-in called for its
        // effect gives no value to check.
        let Some(t) = outs.first().filter(|_| outs.len() == 1) else {
            return Ok(());
        };
        for condition in t.data.iter().filter(|c| is_effect_call(c)) {
            out.eqs.push(Equation {
                kind: EquationKind::Assert {
                    condition: condition.clone(),
                    message: Expr::String(super::effect_call::message(&name)),
                    warning: false,
                },
                component: component.to_string(),
                span,
            });
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn tuple_equation(
        &mut self,
        targets: &[Option<ast::Expr>],
        rhs: &ast::Expr,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
        span: Span,
        component: &str,
        out: &mut EqOut,
    ) -> EResult<()> {
        let ast::ExprKind::Call { func, args } = &rhs.kind else {
            return Err(Diagnostic::error(
                span,
                "a list of expressions on the left needs a function call on the right",
            ));
        };
        let outs = {
            let mut fc = FCtx::new(self, scope, Mode::Symbolic);
            fc.locals = locals.to_vec();
            eval::call(&mut fc, func, args, rhs.span)?
        };
        if targets.len() > outs.len() {
            return Err(Diagnostic::error(
                span,
                format!("`{}` has only {} output(s)", cref_name(func), outs.len()),
            ));
        }
        for (t, o) in targets.iter().zip(outs) {
            let Some(t) = t else { continue };
            let l = self.eval_symbolic(t, scope, locals)?;
            if l.len() != o.len() {
                return Err(Diagnostic::error(
                    t.span,
                    "this output has a different size than its target",
                ));
            }
            for (a, b) in l.data.into_iter().zip(o.data) {
                out.eqs.push(Equation {
                    kind: EquationKind::Simple { lhs: a, rhs: b },
                    component: component.to_string(),
                    span,
                });
            }
        }
        Ok(())
    }

    fn for_equation(
        &mut self,
        indices: &[ast::ForIndex],
        body: &[ast::Equation],
        scope: Scope,
        locals: &mut Vec<(String, Tensor<Expr>)>,
        ctx: Ctx,
        out: &mut EqOut,
    ) -> EResult<()> {
        let Some((first, rest)) = indices.split_first() else {
            for e in body {
                self.equation(e, scope, locals, ctx, out)?;
            }
            return Ok(());
        };
        let values = match &first.range {
            Some(r) => self.eval_structural_with(r, scope, locals)?,
            None => {
                let mut uses = Vec::new();
                super::implicit::in_equations(&first.name.name, body, &mut uses);
                for i in rest {
                    if let Some(r) = &i.range {
                        super::implicit::in_exprs(&first.name.name, &[r], &mut uses);
                    }
                }
                self.implicit_for_range(&first.name, &uses, scope, locals)?
            }
        };
        let n = crate::flatten::tensor::range_len(&values.dims).map_err(|m| {
            let at = first.range.as_ref().map_or(first.name.span, |r| r.span);
            Diagnostic::error(at, m)
        })?;
        for k in 0..n {
            let v = values.row(k).map(Expr::from_val);
            locals.push((first.name.name.clone(), v));
            let res = self.for_equation(rest, body, scope, locals, ctx, out);
            locals.pop();
            res?;
        }
        Ok(())
    }

    /// Whether a reference passes through a conditional component that is disabled.
    fn refers_removed(&mut self, inst: InstId, c: &ast::ComponentRef) -> bool {
        let mut cur = inst;
        for p in &c.parts {
            let Ok(Some(ch)) = self.child(cur, &p.ident.name) else {
                return false;
            };
            if self.ready(ch).is_err() {
                return false;
            }
            match &self.insts[ch].kind {
                super::instance::InstKind::Removed => return true,
                super::instance::InstKind::Struct { .. } => cur = ch,
                super::instance::InstKind::Array { elems, .. } => match elems.first() {
                    Some(e) => cur = *e,
                    None => return false,
                },
                _ => return false,
            }
        }
        false
    }

    /// A connector reference is outside when it names a connector of the instance itself
    /// (MLS 9.1.2): its first part is a connector component.
    pub(super) fn is_outside(&mut self, inst: InstId, c: &ast::ComponentRef) -> bool {
        let first = &c.parts[0].ident.name;
        match self.child(inst, first) {
            Ok(Some(ch)) => self.insts[ch].is_connector(),
            _ => false,
        }
    }
}

fn unknown_connector(c: &ast::ComponentRef) -> Diagnostic {
    Diagnostic::error(c.span, format!("unknown connector `{}`", cref_name(c)))
        .with_label("not found in this scope")
}

fn arg<'a>(
    args: &'a ast::FunctionArgs,
    i: usize,
    name: &str,
    span: Span,
) -> EResult<&'a ast::Expr> {
    args.positional
        .get(i)
        .or_else(|| named(args, name))
        .ok_or_else(|| Diagnostic::error(span, format!("missing argument `{name}`")))
}

fn named<'a>(args: &'a ast::FunctionArgs, name: &str) -> Option<&'a ast::Expr> {
    args.named
        .iter()
        .find(|n| n.name.name == name)
        .map(|n| &n.value)
}

/// Whether `e` is the call of a wrapper made by `effect_call.rs`.
fn is_effect_call(e: &Expr) -> bool {
    matches!(e, Expr::UserCall { function, .. } if function.ends_with(super::effect_call::SUFFIX))
}

/// How many scalar equations an equation counts for the balance (MLS 4.7).
pub fn count_equations(e: &Equation) -> usize {
    match &e.kind {
        EquationKind::Simple { .. } => 1,
        EquationKind::If { branches, else_ } => branches
            .first()
            .map(|(_, b)| b.iter().map(count_equations).sum())
            .unwrap_or_else(|| else_.iter().map(count_equations).sum()),
        EquationKind::When { branches } => branches
            .first()
            .map(|(_, b)| b.iter().map(count_equations).sum())
            .unwrap_or(0),
        EquationKind::Reinit { .. }
        | EquationKind::Assert { .. }
        | EquationKind::Terminate { .. } => 0,
    }
}
