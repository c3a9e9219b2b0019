//! Stream connectors (MLS 15). A stream variable gives no connection equation of its own
//! (`connect.rs` hands its connection sets here). `inStream(v)` and `actualStream(v)` are left
//! as placeholders (`$inStream(v)`, `$actualStream(v, m_flow)`) while the equations are
//! generated, because their value needs the connection sets, which are complete only after
//! every instance's equations; `stream_equations` then replaces them and adds the equation of
//! every stream variable of an outside connector.
//!
//! For a set with inside connectors `m_j.c` and outside connectors `c_k` (MLS 15.2):
//!
//! - `inStream(m_i.c.h)` mixes `m_j.c.h` (j != i) weighted by `max(-m_j.c.m_flow, 0)` and
//!   `inStream(c_k.h)` weighted by `max(c_k.m_flow, 0)`; `inStream(c_k.h)` comes from the set
//!   one level up, where `c_k` is an inside connector (a variable in no set as inside
//!   connector is its own `inStream`: N = 1, M = 0);
//! - every outside `c_q.h = ` the same mix over all `m_j` and the other `c_k`.
//!
//! Terms whose flow cannot carry matter into the set (`m_j.c.m_flow.min >= 0`,
//! `c_k.m_flow.max <= 0`, evaluated from parameters) are dropped when more than one term
//! remains. One term left is the value itself (the special cases N = 2, M = 0; N = 1, M = 1;
//! N = 0, M = 2 of the specification, exact and linear); no term at all gives `m_i.c.h` (for
//! `inStream`) or `0` (for an outside connector). More terms use the specification's
//! regularised mix: with `s` the sum of the positive flows and `eps = 1e-5 * min(nominal)`,
//! `alpha = smooth(1, if s > eps then 1 elseif s > 0 then (s/eps)^2*(3 - 2*s/eps) else 0)`
//! and `positiveMax(v) = alpha*max(v, 0) + (1 - alpha)*eps`, so the mix is exact when the
//! flows into the set exceed `eps` and the mean of the candidates when all flows vanish. The
//! mix is event free (`noEvent`). `actualStream(v) = if m_flow > 0 then inStream(v) else v`
//! (MLS 15.3), with the relation generating events as written, except in a product with its
//! own flow variable (`port.m_flow*actualStream(port.h_outflow)`, the energy balance of every
//! Fluid component): the product is continuous where the relation switches (both sides are
//! zero there), so the relation is evaluated without events, as MLS 15.3 allows ("a tool
//! might infer that the expression is `smooth(0, ...)`"). An event-generating relation would
//! be frozen during the iterations of an event or of the initialization: a pump's
//! steady-state energy balance `0 = m_flow*(inStream(h) - h) + W` with `m_flow > 0` frozen
//! false at a start point of zero flow reads `0 = W`, which no flow other than zero
//! satisfies.

use super::Flattener;
use super::connect::{Connections, StreamMember};
use super::instance::{InstId, InstKind};
use crate::dae::{BinOp, Builtin, Equation, EquationKind, Expr, FlatModel, VarId, Variability};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::Connection;
use std::collections::{HashMap, HashSet};

pub(super) const IN_STREAM: &str = "$inStream";
pub(super) const ACTUAL_STREAM: &str = "$actualStream";
/// `actualStream(v)` as a factor of a product with its own flow variable (marked by
/// [`mark_flow_products`]): event free.
const ACTUAL_STREAM_TIMES_FLOW: &str = "$actualStreamTimesFlow";

/// Relative size of the flow below which the mix is regularised (`relativeTolerance` of
/// the specification's recommended implementation), times the flows' nominal value.
const REL_EPS: f64 = 1e-5;

/// The placeholder of `inStream(v)`.
pub(super) fn in_stream_placeholder(v: Expr) -> Expr {
    Expr::UserCall {
        function: IN_STREAM.to_string(),
        args: vec![v],
        output: 0,
        element: 0,
    }
}

/// The placeholder of `actualStream(v)` for stream variable `v` carried by `flow`.
pub(super) fn actual_stream_placeholder(v: Expr, flow: Expr) -> Expr {
    Expr::UserCall {
        function: ACTUAL_STREAM.to_string(),
        args: vec![v, flow],
        output: 0,
        element: 0,
    }
}

/// A candidate of a mix: the flow into the set (`-m_j.c.m_flow`, `c_k.m_flow`), its flow
/// variable, and the value it brings.
struct Term {
    inflow: Expr,
    flow: VarId,
    /// Whether the flow variable is of an inside connector (its `min` bounds the term).
    inside: bool,
    value: Expr,
}

struct Streams<'m> {
    model: &'m mut FlatModel,
    sets: &'m [Vec<StreamMember>],
    /// (variable, inside) -> set.
    set_of: HashMap<(VarId, bool), usize>,
    memo: HashMap<VarId, Expr>,
    busy: HashSet<VarId>,
}

impl Flattener<'_> {
    /// The `flow`/`stream` prefix of instance `c`'s own declaration: its instance prefix also
    /// carries the one propagated from an enclosing structured component.
    fn declared_connection(&self, c: InstId) -> Connection {
        self.insts[c]
            .elem
            .as_ref()
            .map_or(Connection::None, |e| e.clause.prefix.connection)
    }

    /// MLS 15.1: `stream` only in connectors, and a stream connector has exactly one scalar
    /// flow variable.
    pub(super) fn check_stream_declarations(&mut self, root: InstId) -> Result<(), Diagnostic> {
        for i in self.struct_instances(root) {
            let kids = self.children(i)?;
            for &c in &kids {
                self.check_connection_prefix(c)?;
            }
            let streams: Vec<InstId> = kids
                .iter()
                .copied()
                .filter(|c| self.declared_connection(*c) == Connection::Stream)
                .collect();
            let Some(&first) = streams.first() else {
                continue;
            };
            if !self.insts[i].is_connector() {
                return Err(Diagnostic::error(
                    self.insts[first].span,
                    format!(
                        "`{}` is declared `stream` outside a connector",
                        self.insts[first].path
                    ),
                )
                .with_note("the `stream` prefix is only allowed in connectors (MLS 15.1)"));
            }
            let flows: Vec<InstId> = kids
                .iter()
                .copied()
                .filter(|c| self.insts[*c].prefix.connection == Connection::Flow)
                .collect();
            let scalar = |f: &Self, c: InstId| matches!(&f.insts[c].kind, InstKind::Prim { dims, .. } if dims.is_empty());
            if flows.len() != 1 || !scalar(self, flows[0]) {
                let what = match flows.len() {
                    0 => "it has no flow variable".to_string(),
                    1 => format!(
                        "its flow variable `{}` is not a scalar",
                        self.insts[flows[0]].name
                    ),
                    n => format!("it has {n} flow variables"),
                };
                let mut d = Diagnostic::error(
                    self.insts[i].span,
                    format!(
                        "`{}` is a stream connector ({} is `stream`), but {what}",
                        self.insts[i].path, self.insts[first].name
                    ),
                )
                .with_secondary(self.insts[first].span, "stream variable")
                .with_note(
                    "a stream connector must have exactly one scalar flow variable (MLS 15.1)",
                );
                for f in flows {
                    d = d.with_secondary(self.insts[f].span, "flow variable");
                }
                return Err(d);
            }
        }
        Ok(())
    }

    /// MLS 4.4.2.2: `flow`/`stream` apply to components of a type, record or connector, and
    /// not to one that holds `flow` or `stream` components itself.
    fn check_connection_prefix(&mut self, c: InstId) -> Result<(), Diagnostic> {
        let prefix = self.insts[c].prefix.connection;
        if prefix == Connection::None {
            return Ok(());
        }
        let word = if prefix == Connection::Flow {
            "flow"
        } else {
            "stream"
        };
        let target = match &self.insts[c].kind {
            InstKind::Array { elems, .. } => match elems.first() {
                Some(e) => *e,
                None => return Ok(()),
            },
            InstKind::Struct { .. } => c,
            _ => return Ok(()),
        };
        use crate::syntax::ast::ClassKind;
        let kind = self.insts[target].exp.kind;
        if !matches!(
            kind,
            ClassKind::Record | ClassKind::OperatorRecord | ClassKind::Connector | ClassKind::Type
        ) {
            return Err(Diagnostic::error(
                self.insts[c].span,
                format!(
                    "`{word}` cannot be applied to `{}`: its class is a {kind:?}, not a type, record or connector",
                    self.insts[c].path
                ),
            )
            .with_note("MLS 4.4.2.2: the prefixes flow and stream are for variables of types, records and connectors"));
        }
        let mut stack = self.children(target)?;
        while let Some(x) = stack.pop() {
            // The element's own declaration: the instance prefix already carries the one
            // propagated from the enclosing component.
            let declared = self.declared_connection(x);
            if declared != Connection::None {
                return Err(Diagnostic::error(
                    self.insts[c].span,
                    format!(
                        "`{}` is declared `{word}` but its element `{}` is already `{}`",
                        self.insts[c].path,
                        self.insts[x].path,
                        if declared == Connection::Flow { "flow" } else { "stream" }
                    ),
                )
                .with_secondary(self.insts[x].span, "declared here")
                .with_note("MLS 4.4.2.2: flow and stream cannot be combined, or applied twice, on one variable"));
            }
            match &self.insts[x].kind {
                InstKind::Struct { .. } => stack.extend(self.children(x)?),
                InstKind::Array { elems, .. } => stack.extend(elems.iter().copied()),
                _ => {}
            }
        }
        Ok(())
    }

    /// Replaces the `inStream`/`actualStream` placeholders of every equation and adds the
    /// equations of the stream variables of outside connectors.
    pub(super) fn stream_equations(
        &mut self,
        model: &mut FlatModel,
        conns: &Connections,
    ) -> Result<(), Vec<Diagnostic>> {
        let mut set_of = HashMap::new();
        for (s, members) in conns.streams.iter().enumerate() {
            for m in members {
                set_of.insert((m.var, m.inside), s);
            }
        }
        let mut st = Streams {
            model,
            sets: &conns.streams,
            set_of,
            memo: HashMap::new(),
            busy: HashSet::new(),
        };
        let mut errors = Vec::new();
        // Outside connectors: `c_q.h = mix` (MLS 15.2).
        let mut added = Vec::new();
        for (s, members) in conns.streams.iter().enumerate() {
            for (q, m) in members.iter().enumerate() {
                if m.inside {
                    continue;
                }
                let (component, span) = conns.stream_origin[s].clone();
                match st.terms(s, q, span).map(|t| st.mix(t, Expr::Real(0.0))) {
                    Ok(rhs) => added.push(Equation {
                        kind: EquationKind::Simple {
                            lhs: Expr::Var(m.var),
                            rhs,
                        },
                        component,
                        span,
                    }),
                    Err(d) => errors.push(d),
                }
            }
        }
        st.model.equations.extend(added);
        let mut eqs = std::mem::take(&mut st.model.equations);
        let mut init = std::mem::take(&mut st.model.initial_equations);
        for e in eqs.iter_mut().chain(init.iter_mut()) {
            let span = e.span;
            let _ = equation_exprs(&mut e.kind, &mut |x| {
                mark_flow_products(x);
                Ok(())
            });
            if let Err(d) = equation_exprs(&mut e.kind, &mut |x| st.replace(x, span)) {
                errors.push(d);
            }
        }
        st.model.equations = eqs;
        st.model.initial_equations = init;
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl Streams<'_> {
    /// Replaces the placeholders in `e` (post-order, so arguments are plain variables).
    fn replace(&mut self, e: &mut Expr, span: Span) -> Result<(), Diagnostic> {
        let Expr::UserCall { function, args, .. } = e else {
            return Ok(());
        };
        if function == IN_STREAM {
            let Some(Expr::Var(v)) = args.first() else {
                return Ok(());
            };
            *e = self.in_stream(*v, span)?;
        } else if function == ACTUAL_STREAM || function == ACTUAL_STREAM_TIMES_FLOW {
            let event_free = function == ACTUAL_STREAM_TIMES_FLOW;
            let (Some(Expr::Var(v)), Some(flow)) = (args.first(), args.get(1)) else {
                return Ok(());
            };
            let (v, flow) = (*v, flow.clone());
            let inflow = self.in_stream(v, span)?;
            *e = Expr::If {
                branches: vec![(Expr::binary(BinOp::Gt, flow, Expr::Real(0.0)), inflow)],
                else_: Box::new(Expr::Var(v)),
            };
            if event_free {
                *e = Expr::NoEvent(Box::new(std::mem::replace(e, Expr::Real(0.0))));
            }
        }
        Ok(())
    }

    /// `inStream(v)` for stream variable `v`.
    fn in_stream(&mut self, v: VarId, span: Span) -> Result<Expr, Diagnostic> {
        if let Some(x) = self.memo.get(&v) {
            return Ok(x.clone());
        }
        let Some(&s) = self.set_of.get(&(v, true)) else {
            // Not connected from outside: N = 1, M = 0.
            return Ok(Expr::Var(v));
        };
        if !self.busy.insert(v) {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`inStream({})` depends on itself through its connection sets",
                    self.model.variables[v].name
                ),
            ));
        }
        let i = self.sets[s]
            .iter()
            .position(|m| m.var == v && m.inside)
            .unwrap_or(0);
        let r = self.terms(s, i, span).map(|t| self.mix(t, Expr::Var(v)));
        self.busy.remove(&v);
        let r = r?;
        self.memo.insert(v, r.clone());
        Ok(r)
    }

    /// The candidates of set `s` for member `skip`: every other member.
    fn terms(&mut self, s: usize, skip: usize, span: Span) -> Result<Vec<Term>, Diagnostic> {
        let members = self.sets[s].clone();
        let mut out = Vec::new();
        for (j, m) in members.iter().enumerate() {
            if j == skip {
                continue;
            }
            let Some(flow) = m.flow else {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "the connector of stream variable `{}` has no flow variable",
                        self.model.variables[m.var].name
                    ),
                ));
            };
            let (inflow, value) = if m.inside {
                (Expr::neg(Expr::Var(flow)), Expr::Var(m.var))
            } else {
                (Expr::Var(flow), self.in_stream(m.var, span)?)
            };
            out.push(Term {
                inflow,
                flow,
                inside: m.inside,
                value,
            });
        }
        Ok(out)
    }

    /// The mix of the candidates; `none` when no candidate can flow in.
    fn mix(&mut self, terms: Vec<Term>, none: Expr) -> Expr {
        let mut terms = terms;
        if terms.len() >= 2 {
            // Drop candidates whose flow cannot enter the set (MLS 15.2, recommended
            // implementation): `m_j.c.m_flow.min >= 0`, `c_k.m_flow.max <= 0`.
            let mut used = Vec::new();
            terms.retain(|t| {
                let var = &self.model.variables[t.flow];
                let bound = if t.inside { &var.min } else { &var.max };
                let mut touched = Vec::new();
                let drop = match bound
                    .as_ref()
                    .and_then(|b| const_eval(b, self.model, 0, &mut touched))
                {
                    Some(x) if t.inside => x >= 0.0,
                    Some(x) => x <= 0.0,
                    None => false,
                };
                if drop {
                    used.extend(touched);
                }
                !drop
            });
            // Those parameters decided the equations' form: changing them needs flattening.
            for p in used {
                self.model.variables[p].structural = true;
            }
        }
        match terms.len() {
            0 => return none,
            1 => return terms.pop().map(|t| t.value).unwrap_or(none),
            _ => {}
        }
        let nominal = terms
            .iter()
            .map(|t| {
                self.model.variables[t.flow]
                    .nominal
                    .as_ref()
                    .and_then(|n| const_eval(n, self.model, 0, &mut Vec::new()))
                    .map(f64::abs)
                    .filter(|n| *n > 0.0)
                    .unwrap_or(1.0)
            })
            .fold(f64::INFINITY, f64::min);
        let eps = REL_EPS * nominal;
        let pos = |x: &Expr| Expr::Call(Builtin::Max, vec![x.clone(), Expr::Real(0.0)]);
        let s = terms
            .iter()
            .map(|t| pos(&t.inflow))
            .reduce(|a, b| Expr::binary(BinOp::Add, a, b))
            .unwrap_or(Expr::Real(0.0));
        let ratio = Expr::binary(BinOp::Div, s.clone(), Expr::Real(eps));
        let alpha = Expr::Smooth(
            1,
            Box::new(Expr::If {
                branches: vec![
                    (
                        Expr::binary(BinOp::Gt, s.clone(), Expr::Real(eps)),
                        Expr::Real(1.0),
                    ),
                    (
                        Expr::binary(BinOp::Gt, s, Expr::Real(0.0)),
                        Expr::binary(
                            BinOp::Mul,
                            Expr::binary(BinOp::Pow, ratio.clone(), Expr::Real(2.0)),
                            Expr::binary(
                                BinOp::Sub,
                                Expr::Real(3.0),
                                Expr::binary(BinOp::Mul, Expr::Real(2.0), ratio),
                            ),
                        ),
                    ),
                ],
                else_: Box::new(Expr::Real(0.0)),
            }),
        );
        let positive_max = |t: &Term| {
            Expr::binary(
                BinOp::Add,
                Expr::binary(BinOp::Mul, alpha.clone(), pos(&t.inflow)),
                Expr::binary(
                    BinOp::Mul,
                    Expr::binary(BinOp::Sub, Expr::Real(1.0), alpha.clone()),
                    Expr::Real(eps),
                ),
            )
        };
        let weights: Vec<Expr> = terms.iter().map(positive_max).collect();
        let num = terms
            .iter()
            .zip(&weights)
            .map(|(t, w)| Expr::binary(BinOp::Mul, w.clone(), t.value.clone()))
            .reduce(|a, b| Expr::binary(BinOp::Add, a, b))
            .unwrap_or(Expr::Real(0.0));
        let den = weights
            .into_iter()
            .reduce(|a, b| Expr::binary(BinOp::Add, a, b))
            .unwrap_or(Expr::Real(1.0));
        Expr::NoEvent(Box::new(Expr::binary(BinOp::Div, num, den)))
    }
}

/// The value of an expression of literals and parameters with bindings (attribute values
/// such as `min = if allowFlowReversal then -inf else 0`); the parameters read go to
/// `touched`.
fn const_eval(e: &Expr, model: &FlatModel, depth: usize, touched: &mut Vec<VarId>) -> Option<f64> {
    if depth > 32 {
        return None;
    }
    let ev = |x: &Expr, t: &mut Vec<VarId>| const_eval(x, model, depth + 1, t);
    Some(match e {
        Expr::Real(x) => *x,
        Expr::Integer(n) => *n as f64,
        Expr::Boolean(b) => f64::from(u8::from(*b)),
        Expr::Var(v) => {
            let var = model.variables.get(*v)?;
            if !matches!(
                var.variability,
                Variability::Parameter | Variability::Constant
            ) {
                return None;
            }
            let x = ev(var.binding.as_ref()?, touched)?;
            touched.push(*v);
            x
        }
        Expr::Unary(crate::dae::UnOp::Neg, a) => -ev(a, touched)?,
        Expr::Unary(crate::dae::UnOp::Not, a) => f64::from(u8::from(ev(a, touched)? == 0.0)),
        Expr::Binary(op, a, b) => {
            let (x, y) = (ev(a, touched)?, ev(b, touched)?);
            let bool = |c: bool| f64::from(u8::from(c));
            match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Pow => x.powf(y),
                BinOp::And => bool(x != 0.0 && y != 0.0),
                BinOp::Or => bool(x != 0.0 || y != 0.0),
                BinOp::Lt => bool(x < y),
                BinOp::Le => bool(x <= y),
                BinOp::Gt => bool(x > y),
                BinOp::Ge => bool(x >= y),
                BinOp::Eq => bool(x == y),
                BinOp::Ne => bool(x != y),
            }
        }
        Expr::If { branches, else_ } => {
            for (c, x) in branches {
                if ev(c, touched)? != 0.0 {
                    return ev(x, touched);
                }
            }
            ev(else_, touched)?
        }
        Expr::NoEvent(a) | Expr::Smooth(_, a) => ev(a, touched)?,
        _ => return None,
    })
}

/// Calls `f` on every expression of an equation, sub-expressions first.
fn equation_exprs(
    k: &mut EquationKind,
    f: &mut impl FnMut(&mut Expr) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostic> {
    match k {
        EquationKind::Simple { lhs, rhs } => {
            expr_post(lhs, f)?;
            expr_post(rhs, f)?;
        }
        EquationKind::If { branches, else_ } => {
            for (c, body) in branches {
                expr_post(c, f)?;
                for e in body {
                    equation_exprs(&mut e.kind, f)?;
                }
            }
            for e in else_ {
                equation_exprs(&mut e.kind, f)?;
            }
        }
        EquationKind::When { branches } => {
            for (c, body) in branches {
                expr_post(c, f)?;
                for e in body {
                    equation_exprs(&mut e.kind, f)?;
                }
            }
        }
        EquationKind::Reinit { value, .. } => expr_post(value, f)?,
        EquationKind::Assert {
            condition, message, ..
        } => {
            expr_post(condition, f)?;
            expr_post(message, f)?;
        }
        EquationKind::Terminate { message } => expr_post(message, f)?,
    }
    Ok(())
}

/// Marks, in a product `e`, each `actualStream` placeholder whose flow variable is another
/// factor of the same product (`m_flow*actualStream(h)`, `actualStream(h)*m_flow`,
/// `-m_flow*actualStream(h)`): see the module comment. Called on every node, so nested
/// products are found too.
fn mark_flow_products(e: &mut Expr) {
    if !matches!(e, Expr::Binary(BinOp::Mul, ..)) {
        return;
    }
    let mut flows = Vec::new();
    product_factors(e, &mut |f| {
        if let Expr::Var(v) = f {
            flows.push(*v);
        }
    });
    if flows.is_empty() {
        return;
    }
    product_factors_mut(e, &mut |f| {
        if let Expr::UserCall { function, args, .. } = f
            && function == ACTUAL_STREAM
            && matches!(args.get(1), Some(Expr::Var(m)) if flows.contains(m))
        {
            *function = ACTUAL_STREAM_TIMES_FLOW.to_string();
        }
    });
}

/// The factors of a product (through nested products and negations).
fn product_factors(e: &Expr, f: &mut impl FnMut(&Expr)) {
    match e {
        Expr::Binary(BinOp::Mul, a, b) => {
            product_factors(a, f);
            product_factors(b, f);
        }
        Expr::Unary(crate::dae::UnOp::Neg, a) => product_factors(a, f),
        _ => f(e),
    }
}

/// [`product_factors`], mutable.
fn product_factors_mut(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    match e {
        Expr::Binary(BinOp::Mul, a, b) => {
            product_factors_mut(a, f);
            product_factors_mut(b, f);
        }
        Expr::Unary(crate::dae::UnOp::Neg, a) => product_factors_mut(a, f),
        _ => f(e),
    }
}

fn expr_post(
    e: &mut Expr,
    f: &mut impl FnMut(&mut Expr) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostic> {
    match e {
        Expr::Der(a)
        | Expr::Pre(a)
        | Expr::Edge(a)
        | Expr::Change(a)
        | Expr::Unary(_, a)
        | Expr::NoEvent(a)
        | Expr::Smooth(_, a)
        | Expr::ToString(a, _) => expr_post(a, f)?,
        Expr::Binary(_, a, b) | Expr::Sample(a, b) => {
            expr_post(a, f)?;
            expr_post(b, f)?;
        }
        Expr::Call(_, args) | Expr::UserCall { args, .. } => {
            for a in args {
                expr_post(a, f)?;
            }
        }
        Expr::Array { elements, .. } => {
            for a in elements {
                expr_post(a, f)?;
            }
        }
        Expr::If { branches, else_ } => {
            for (c, x) in branches {
                expr_post(c, f)?;
                expr_post(x, f)?;
            }
            expr_post(else_, f)?;
        }
        Expr::Real(_)
        | Expr::Integer(_)
        | Expr::Boolean(_)
        | Expr::String(_)
        | Expr::Var(_)
        | Expr::Time
        | Expr::Initial
        | Expr::Terminal => {}
    }
    f(e)
}
