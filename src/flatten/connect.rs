//! Connection equations (MLS 9.2): connection sets built with union-find over
//! (variable, inside/outside) pairs; potentials equal, flows summing to zero with `+` for
//! inside and `-` for outside connectors; flow variables of unconnected inside connectors set
//! to zero. Parameters and constants of connectors give no equation; stream variables give
//! their sets to `stream.rs`; the overdetermined parts of a connection that the spanning trees
//! of `overdetermined.rs` leave out give `0 = equalityConstraint(A.R, B.R)` (MLS 9.4.2).

use super::Flattener;
use super::equations::Connect;
use super::instance::{InstId, InstKind};
use super::modifier::Scope;
use super::scalarize::Node;
use super::tensor::{Tensor, Val};
use crate::dae::{BinOp, Equation, EquationKind, Expr, VarId};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, Connection, Variability};
use std::collections::{BTreeMap, HashMap};

/// What a primitive connector variable contributes to its connection set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    /// Equal in the set.
    Potential,
    /// Summing to zero.
    Flow,
    /// No connection equation of its own (MLS 15.1): `stream.rs` uses the set.
    Stream,
    /// A parameter: no equation, an assertion that the values agree (MLS 9.3).
    Parameter,
    /// A constant: no equation; the values must agree (checked at flattening, MLS 9.3).
    Constant,
}

/// A primitive variable of a connector with its name relative to the connector.
struct Leaf {
    rel: String,
    var: VarId,
    /// The primitive instance and element.
    node: (InstId, usize),
    kind: Kind,
    /// The flow variable of the connector a stream variable belongs to.
    flow_var: Option<VarId>,
    span: Span,
}

/// Union-find over dense indices; the smaller index is kept as root, so sets are ordered by
/// their first member.
pub(super) struct UnionFind {
    pub parent: Vec<usize>,
}

impl UnionFind {
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }
    pub fn push(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }
    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}

/// One member of a connection set of stream variables.
#[derive(Clone, Copy, Debug)]
pub(super) struct StreamMember {
    pub var: VarId,
    pub inside: bool,
    /// The flow variable of the member's connector.
    pub flow: Option<VarId>,
}

/// What the connection sets give besides equations: the sets of stream variables, for
/// `inStream`, `actualStream` and the equations of outside stream connectors (`stream.rs`).
pub(super) struct Connections {
    pub eqs: Vec<Equation>,
    pub streams: Vec<Vec<StreamMember>>,
    /// The component and span each stream set's equations are attributed to.
    pub stream_origin: Vec<(String, Span)>,
}

impl Flattener<'_> {
    /// The primitive variables below node `n`, named relative to it. `inherited` is the
    /// `flow`/`stream` prefix of an enclosing component (`flow Complex i`).
    fn leaves(
        &mut self,
        n: Node,
        rel: &str,
        inherited: Connection,
        out: &mut Vec<Leaf>,
    ) -> Result<(), Diagnostic> {
        match n {
            // An element of a primitive connector array is connected on its own (`y[2]` to
            // `u[1]`); the element suffix only names it inside a structured connector.
            Node::Var(i, k) => {
                let conn = match self.insts[i].prefix.connection {
                    Connection::None => inherited,
                    c => c,
                };
                let variability = self.variability(i);
                let kind = match conn {
                    _ if variability == Variability::Constant => Kind::Constant,
                    _ if variability == Variability::Parameter => Kind::Parameter,
                    Connection::Flow => Kind::Flow,
                    Connection::Stream => Kind::Stream,
                    Connection::None => Kind::Potential,
                };
                let flow_var = if kind == Kind::Stream {
                    self.stream_flow(i)?
                } else {
                    None
                };
                out.push(Leaf {
                    rel: rel.to_string(),
                    var: self.insts[i].var0 + k,
                    node: (i, k),
                    kind,
                    flow_var,
                    span: self.insts[i].span,
                });
            }
            Node::Inst(i) => {
                let inherited = match self.insts[i].prefix.connection {
                    Connection::None => inherited,
                    c => c,
                };
                let kids = self.children(i)?;
                for c in kids {
                    let name = self.insts[c].name.clone();
                    let sub = if rel.is_empty() {
                        name
                    } else {
                        format!("{rel}.{name}")
                    };
                    match &self.insts[c].kind {
                        InstKind::Prim { dims, .. } => {
                            let dims = dims.clone();
                            let n: usize = dims.iter().product();
                            for k in 0..n {
                                let suffix = if dims.is_empty() {
                                    String::new()
                                } else {
                                    let idx = super::instance::unflatten(k, &dims);
                                    format!(
                                        "[{}]",
                                        idx.iter()
                                            .map(|x| (x + 1).to_string())
                                            .collect::<Vec<_>>()
                                            .join(",")
                                    )
                                };
                                self.leaves(
                                    Node::Var(c, k),
                                    &format!("{sub}{suffix}"),
                                    inherited,
                                    out,
                                )?;
                            }
                        }
                        InstKind::Array { elems, .. } => {
                            let elems = elems.clone();
                            let inherited = match self.insts[c].prefix.connection {
                                Connection::None => inherited,
                                x => x,
                            };
                            for e in elems {
                                let en = self.insts[e].name.clone();
                                let esub = if rel.is_empty() {
                                    en
                                } else {
                                    format!("{rel}.{en}")
                                };
                                self.leaves(Node::Inst(e), &esub, inherited, out)?;
                            }
                        }
                        InstKind::Struct { .. } => {
                            self.leaves(Node::Inst(c), &sub, inherited, out)?
                        }
                        InstKind::Removed | InstKind::Stub => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// The flow variable a stream variable (primitive instance `i`) is carried by: the one
    /// scalar flow variable of its connector (MLS 15.1).
    pub(super) fn stream_flow(&mut self, i: InstId) -> Result<Option<VarId>, Diagnostic> {
        let Some(p) = self.insts[i].parent else {
            return Ok(None);
        };
        for c in self.children(p)? {
            if let InstKind::Prim { dims, .. } = &self.insts[c].kind
                && dims.is_empty()
                && self.insts[c].prefix.connection == Connection::Flow
            {
                return Ok(Some(self.insts[c].var0));
            }
        }
        Ok(None)
    }

    fn node_inst(&self, n: Node) -> InstId {
        match n {
            Node::Var(i, _) | Node::Inst(i) => i,
        }
    }

    /// Generates the connection equations and the zero equations of unconnected flows.
    pub(super) fn connection_equations(
        &mut self,
        connects: &[Connect],
        root: InstId,
    ) -> Result<Connections, Vec<Diagnostic>> {
        self.check_connects(connects)?;
        let mut sets = ConnectionSets {
            keys: HashMap::new(),
            info: Vec::new(),
            uf: UnionFind::new(0),
        };
        let mut errors = Vec::new();
        let mut eqs = Vec::new();
        for c in connects {
            self.join_connect(c, &mut sets, &mut eqs, &mut errors);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let ConnectionSets { keys, info, mut uf } = sets;
        let mut classes: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for k in 0..info.len() {
            let r = uf.find(k);
            classes.entry(r).or_default().push(k);
        }
        let mut streams = Vec::new();
        let mut stream_origin = Vec::new();
        for (root_key, members) in classes {
            let (_, _, kind, _, inst) = info[root_key];
            let component = self.insts[inst].path.clone();
            let span = self.insts[inst].span;
            match kind {
                Kind::Flow => eqs.extend(flow_sum(&info, &members, component, span)),
                Kind::Potential => eqs.extend(potentials_equal(&info, &members, &component, span)),
                Kind::Stream => {
                    streams.push(
                        members
                            .iter()
                            .map(|m| StreamMember {
                                var: info[*m].0,
                                inside: info[*m].1,
                                flow: info[*m].3,
                            })
                            .collect(),
                    );
                    stream_origin.push((component, span));
                }
                Kind::Parameter | Kind::Constant => {}
            }
        }
        // Unconnected flow variables: zero (MLS 9.2, for inside connectors; for the elements
        // of expandable connectors also as outside connectors, MLS 9.2).
        self.unconnected_flows(root, &keys, &mut eqs)
            .map_err(|d| vec![d])?;
        Ok(Connections {
            eqs,
            streams,
            stream_origin,
        })
    }

    /// Adds the leaves `c` connects to the connection sets; the equations of connected
    /// parameters and constants and of broken overconstrained connections go to `eqs`.
    fn join_connect(
        &mut self,
        c: &Connect,
        sets: &mut ConnectionSets,
        eqs: &mut Vec<Equation>,
        errors: &mut Vec<Diagnostic>,
    ) {
        for (na, nb) in c.a.iter().zip(&c.b) {
            let broken = match self.broken_parts(*na, *nb) {
                Ok(b) => b,
                Err(d) => {
                    errors.push(d);
                    continue;
                }
            };
            match self.connect_pair(*na, *nb, c) {
                Ok(pairs) => {
                    for (la, lb) in pairs {
                        if matches!(la.kind, Kind::Parameter | Kind::Constant) {
                            match self.fixed_agree(&la, &lb, c) {
                                Ok(e) => eqs.extend(e),
                                Err(d) => errors.push(d),
                            }
                            continue;
                        }
                        if broken.iter().any(|(rel, _, _)| under(&la.rel, rel)) {
                            continue;
                        }
                        let ka = sets.key(&la, !c.a_outside, c.inst);
                        let kb = sets.key(&lb, !c.b_outside, c.inst);
                        sets.uf.union(ka, kb);
                    }
                }
                Err(d) => errors.push(d),
            }
            for (_, x, y) in broken {
                match self.equality_constraint(x, y, c) {
                    Ok(e) => eqs.extend(e),
                    Err(d) => errors.push(d),
                }
            }
        }
    }

    /// The zero equations of the flow variables of connectors below `root` that no
    /// connection set holds.
    fn unconnected_flows(
        &mut self,
        root: InstId,
        keys: &HashMap<(VarId, bool), usize>,
        eqs: &mut Vec<Equation>,
    ) -> Result<(), Diagnostic> {
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            match &self.insts[i].kind {
                InstKind::Struct {
                    children: Some(c), ..
                } => {
                    let c = c.clone();
                    if self.insts[i].is_connector() && i != root {
                        let mut ls = Vec::new();
                        self.leaves(Node::Inst(i), "", Connection::None, &mut ls)?;
                        let component = self.insts[i]
                            .parent
                            .map(|p| self.insts[p].path.clone())
                            .unwrap_or_default();
                        let expandable = self.insts[i].exp.kind
                            == crate::syntax::ast::ClassKind::ExpandableConnector;
                        for l in ls.into_iter().filter(|l| l.kind == Kind::Flow) {
                            let sides: &[bool] = if expandable { &[true, false] } else { &[true] };
                            for &inside in sides {
                                if !keys.contains_key(&(l.var, inside)) {
                                    eqs.push(Equation {
                                        kind: EquationKind::Simple {
                                            lhs: Expr::Var(l.var),
                                            rhs: Expr::Real(0.0),
                                        },
                                        component: component.clone(),
                                        span: l.span,
                                    });
                                }
                            }
                        }
                    } else {
                        stack.extend(c.iter().rev());
                    }
                }
                InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                _ => {}
            }
        }
        Ok(())
    }

    /// Connected constants must be equal, connected parameters get an assertion that they are
    /// (MLS 9.3: "constants or parameters in connected components yield the appropriate
    /// assert-statements to check that they have the same value; connections are not
    /// generated").
    fn fixed_agree(
        &mut self,
        a: &Leaf,
        b: &Leaf,
        c: &Connect,
    ) -> Result<Vec<Equation>, Diagnostic> {
        let component = self.insts[c.inst].path.clone();
        let name = |f: &Self, l: &Leaf| f.var_names.get(l.var).cloned().unwrap_or_default();
        let (na, nb) = (name(self, a), name(self, b));
        if a.kind == Kind::Constant {
            let va = self.param_value(a.node.0)?.data.get(a.node.1).cloned();
            let vb = self.param_value(b.node.0)?.data.get(b.node.1).cloned();
            if let (Some(x), Some(y)) = (va, vb)
                && x != y
            {
                let show = |v: &Val| match v {
                    Val::Real(r) => r.to_string(),
                    Val::Int(n) => n.to_string(),
                    Val::Bool(b) => b.to_string(),
                    Val::Str(t) => format!("{t:?}"),
                };
                let (x, y) = (show(&x), show(&y));
                return Err(Diagnostic::error(
                    c.span,
                    format!("this connects constants with different values: `{na}` = {x} and `{nb}` = {y}"),
                )
                .with_secondary(a.span, format!("`{na}` is declared here"))
                .with_secondary(b.span, format!("`{nb}` is declared here"))
                .with_note("connected constants must have the same value (MLS 9.3)"));
            }
            return Ok(Vec::new());
        }
        Ok(vec![Equation {
            kind: EquationKind::Assert {
                condition: Expr::binary(BinOp::Eq, Expr::Var(a.var), Expr::Var(b.var)),
                message: Expr::String(format!(
                    "connected parameters `{na}` and `{nb}` have different values (MLS 9.3)"
                )),
                warning: false,
            },
            component,
            span: c.span,
        }])
    }

    /// The overdetermined parts of a connection that the spanning trees leave out (MLS
    /// 9.4.2): relative name and the two nodes.
    fn broken_parts(
        &mut self,
        a: Node,
        b: Node,
    ) -> Result<Vec<(String, InstId, InstId)>, Diagnostic> {
        if self.conn_graph.broken.is_empty() {
            return Ok(Vec::new());
        }
        let (Node::Inst(x), Node::Inst(y)) = (a, b) else {
            return Ok(Vec::new());
        };
        let px = self.overdetermined_parts(x, "")?;
        if px.is_empty() {
            return Ok(Vec::new());
        }
        let py = self.overdetermined_parts(y, "")?;
        let mut out = Vec::new();
        for (rel, nx) in px {
            if let Some((_, ny)) = py.iter().find(|(r, _)| *r == rel)
                && self.take_broken_edge(nx, *ny)
            {
                out.push((rel, nx, *ny));
            }
        }
        Ok(out)
    }

    /// `0 = R.equalityConstraint(A.R, B.R)` for the overdetermined components `x` and `y`
    /// of a broken connection.
    fn equality_constraint(
        &mut self,
        x: InstId,
        y: InstId,
        c: &Connect,
    ) -> Result<Vec<Equation>, Diagnostic> {
        let value = |f: &mut Self, i: InstId| -> Result<Tensor<Expr>, Diagnostic> {
            if let InstKind::Prim { dims, .. } = &f.insts[i].kind {
                let n: usize = dims.iter().product();
                let v0 = f.insts[i].var0;
                return Ok(Tensor {
                    dims: dims.clone(),
                    data: (0..n).map(|k| Expr::Var(v0 + k)).collect(),
                });
            }
            let mut ls = Vec::new();
            f.leaves(Node::Inst(i), "", Connection::None, &mut ls)?;
            let data: Vec<Expr> = ls
                .iter()
                .filter(|l| !matches!(f.variability_of_var(l.var), Some(Variability::Constant)))
                .map(|l| Expr::Var(l.var))
                .collect();
            Ok(Tensor {
                dims: vec![data.len()],
                data,
            })
        };
        let va = value(self, x)?;
        let vb = value(self, y)?;
        let class = self.tree.get(self.insts[x].class).full.clone();
        let ident = |name: &str| ast::RefPart {
            ident: ast::Ident {
                name: name.to_string(),
                span: c.span,
            },
            subscripts: Vec::new(),
        };
        let local = |name: &str| ast::Expr {
            kind: ast::ExprKind::Ref(ast::ComponentRef {
                global: false,
                parts: vec![ident(name)],
                span: c.span,
            }),
            span: c.span,
        };
        // Called by its simple name from inside the overdetermined class itself, so the
        // composite-name rules for user code (MLS 5.3.2) do not get in the way when the class
        // sits inside a model.
        let call = ast::Expr {
            kind: ast::ExprKind::Call {
                func: ast::ComponentRef {
                    global: false,
                    parts: vec![ident("equalityConstraint")],
                    span: c.span,
                },
                args: ast::FunctionArgs {
                    positional: vec![local("'$R1'"), local("'$R2'")],
                    named: Vec::new(),
                    iterators: Vec::new(),
                    span: c.span,
                },
            },
            span: c.span,
        };
        let scope = Scope {
            inst: Some(c.inst),
            lex: self.insts[x].class,
        };
        let locals = vec![("'$R1'".to_string(), va), ("'$R2'".to_string(), vb)];
        let residue = self.eval_symbolic(&call, scope, &locals).map_err(|d| {
            Diagnostic::error(
                c.span,
                format!(
                    "this connection closes a loop of overdetermined connectors; its `{class}.equalityConstraint` could not be used: {}",
                    d.message
                ),
            )
        })?;
        let component = self.insts[c.inst].path.clone();
        Ok(residue
            .data
            .into_iter()
            .map(|r| Equation {
                kind: EquationKind::Simple {
                    lhs: Expr::Real(0.0),
                    rhs: r,
                },
                component: component.clone(),
                span: c.span,
            })
            .collect())
    }

    fn variability_of_var(&self, v: VarId) -> Option<Variability> {
        let k = self.prims.partition_point(|p| self.insts[*p].var0 <= v);
        let i = *self.prims.get(k.checked_sub(1)?)?;
        Some(self.variability(i))
    }

    fn connect_pair(
        &mut self,
        a: Node,
        b: Node,
        c: &Connect,
    ) -> Result<Vec<(Leaf, Leaf)>, Diagnostic> {
        let (ia, ib) = (self.node_inst(a), self.node_inst(b));
        for (i, sp) in [(ia, c.a_span), (ib, c.b_span)] {
            if !self.insts[i].is_connector() && !self.in_expandable(i) {
                return Err(Diagnostic::error(
                    sp,
                    format!("`{}` is not a connector", self.insts[i].path),
                )
                .with_label("connect needs connectors")
                .with_secondary(self.insts[i].span, "declared here"));
            }
        }
        let mut la = Vec::new();
        let mut lb = Vec::new();
        self.leaves(a, "", Connection::None, &mut la)?;
        self.leaves(b, "", Connection::None, &mut lb)?;
        let names = |l: &[Leaf]| {
            l.iter()
                .map(|x| (x.rel.clone(), x.kind))
                .collect::<Vec<_>>()
        };
        let (mut na, mut nb) = (names(&la), names(&lb));
        na.sort();
        nb.sort();
        if na != nb {
            let (pa, pb) = (self.insts[ia].path.clone(), self.insts[ib].path.clone());
            let ta = self.tree.get(self.insts[ia].class).full.clone();
            let tb = self.tree.get(self.insts[ib].class).full.clone();
            let only_a: Vec<String> = na
                .iter()
                .filter(|x| !nb.contains(x))
                .map(fmt_leaf)
                .collect();
            let only_b: Vec<String> = nb
                .iter()
                .filter(|x| !na.contains(x))
                .map(fmt_leaf)
                .collect();
            let mut d = Diagnostic::error(
                c.span,
                format!("incompatible connectors: `{pa}` ({ta}) and `{pb}` ({tb})"),
            )
            .with_label("cannot connect these")
            .with_secondary(self.insts[ia].span, format!("`{pa}` is declared here"))
            .with_secondary(self.insts[ib].span, format!("`{pb}` is declared here"));
            if !only_a.is_empty() {
                d = d.with_note(format!("only `{pa}` has: {}", only_a.join(", ")));
            }
            if !only_b.is_empty() {
                d = d.with_note(format!("only `{pb}` has: {}", only_b.join(", ")));
            }
            return Err(d.with_help(
                "connected connectors must have the same variables, with the same flow, stream and parameter prefixes",
            ));
        }
        la.sort_by(|x, y| x.rel.cmp(&y.rel));
        lb.sort_by(|x, y| x.rel.cmp(&y.rel));
        // MLS 9.3: matched primitive components have the same primitive type.
        for (x, y) in la.iter().zip(&lb) {
            let ty = |f: &Self, l: &Leaf| match &f.insts[l.node.0].kind {
                InstKind::Prim { ty, .. } => Some(*ty),
                _ => None,
            };
            let (tx, ty_) = (ty(self, x), ty(self, y));
            if tx != ty_ {
                let name = |f: &Self, l: &Leaf| f.insts[l.node.0].path.clone();
                let show = |t: Option<crate::dae::ScalarType>| match t {
                    Some(t) => format!("{t:?}"),
                    None => "?".to_string(),
                };
                return Err(Diagnostic::error(
                    c.span,
                    format!(
                        "this connects `{}` of type {} to `{}` of type {}",
                        name(self, x),
                        show(tx),
                        name(self, y),
                        show(ty_)
                    ),
                )
                .with_secondary(x.span, "declared here")
                .with_secondary(y.span, "declared here")
                .with_note("connected variables must have the same primitive type (MLS 9.3)"));
            }
        }
        Ok(la.into_iter().zip(lb).collect())
    }

    /// Whether instance `i` is an element of an expandable connector (MLS 9.1.3: every
    /// component of one is a connector, declared as such or not).
    pub(super) fn in_expandable(&self, i: InstId) -> bool {
        let mut cur = self.insts[i].parent;
        while let Some(p) = cur {
            if self.insts[p].exp.kind == crate::syntax::ast::ClassKind::ExpandableConnector {
                return true;
            }
            if !self.insts[p].is_connector() {
                return false;
            }
            cur = self.insts[p].parent;
        }
        false
    }
}

/// Whether relative name `rel` is `prefix` or below it.
fn under(rel: &str, prefix: &str) -> bool {
    match rel.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('['),
        None => false,
    }
}

fn fmt_leaf(x: &(String, Kind)) -> String {
    let name = if x.0.is_empty() {
        "(the value)".to_string()
    } else {
        x.0.clone()
    };
    match x.1 {
        Kind::Potential => name,
        Kind::Flow => format!("flow {name}"),
        Kind::Stream => format!("stream {name}"),
        Kind::Parameter => format!("parameter {name}"),
        Kind::Constant => format!("constant {name}"),
    }
}

/// A connection set member: variable, inside, kind, flow variable (stream), connect instance.
type MemberInfo = (VarId, bool, Kind, Option<VarId>, InstId);

/// The connection sets being built: one key per (variable, side), its member data and its
/// union-find class.
struct ConnectionSets {
    keys: HashMap<(VarId, bool), usize>,
    info: Vec<MemberInfo>,
    uf: UnionFind,
}

impl ConnectionSets {
    /// The key of leaf `l` on side `inside`, added when new (`inst`: the connect's instance).
    fn key(&mut self, l: &Leaf, inside: bool, inst: InstId) -> usize {
        *self.keys.entry((l.var, inside)).or_insert_with(|| {
            self.info.push((l.var, inside, l.kind, l.flow_var, inst));
            self.uf.push()
        })
    }
}

/// The flow set equation: the inside members' sum minus the outside members' is zero.
fn flow_sum(
    info: &[MemberInfo],
    members: &[usize],
    component: String,
    span: Span,
) -> Option<Equation> {
    let mut sum: Option<Expr> = None;
    for m in members {
        let (v, inside, ..) = info[*m];
        sum = Some(match sum {
            None if inside => Expr::Var(v),
            None => Expr::neg(Expr::Var(v)),
            Some(s) => Expr::binary(
                if inside { BinOp::Add } else { BinOp::Sub },
                s,
                Expr::Var(v),
            ),
        });
    }
    sum.map(|s| Equation {
        kind: EquationKind::Simple {
            lhs: s,
            rhs: Expr::Real(0.0),
        },
        component,
        span,
    })
}

/// The potential set equations: consecutive members equal. Members may repeat a variable
/// (inside and outside): equal only distinct ones.
fn potentials_equal(
    info: &[MemberInfo],
    members: &[usize],
    component: &str,
    span: Span,
) -> Vec<Equation> {
    let mut vars: Vec<VarId> = Vec::new();
    for m in members {
        if !vars.contains(&info[*m].0) {
            vars.push(info[*m].0);
        }
    }
    vars.windows(2)
        .map(|w| Equation {
            kind: EquationKind::Simple {
                lhs: Expr::Var(w[0]),
                rhs: Expr::Var(w[1]),
            },
            component: component.to_string(),
            span,
        })
        .collect()
}
