//! Overdetermined connectors (MLS 9.4): the virtual connection graph of the records (or
//! types) that declare an `equalityConstraint` function (MultiBody's `Frames.Orientation`).
//! Its nodes are those records in connectors; `Connections.branch` gives non-breakable edges,
//! `connect` breakable ones; `Connections.root` and `potentialRoot` give the roots. Each
//! connected part gets one root (the definite one, else the potential root of lowest
//! priority), and a spanning tree grown from it (branches first). `Connections.isRoot` and
//! `Connections.rooted` are answered from that tree before the equations are generated, so the
//! if-equations they guard select their branch at flattening.
//!
//! A `connect` that closes a loop would need `equalityConstraint` equations instead of
//! equality; that is reported as unsupported rather than producing an over-determined system.

use super::Flattener;
use super::instance::InstId;
use super::modifier::Scope;
use super::scalarize::{FCtx, Mode, Node};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;
use std::collections::{HashMap, HashSet, VecDeque};

/// The result of the graph: which nodes are roots, and each node's distance from its root.
#[derive(Default)]
pub struct ConnGraph {
    /// Whether the graph has been built (`isRoot` before that is not known).
    pub ready: bool,
    pub roots: HashSet<InstId>,
    pub depth: HashMap<InstId, usize>,
    /// The other end of each node's `branch` (for `rooted`).
    pub partner: HashMap<InstId, Vec<InstId>>,
    /// How many `connect` statements each connector instance occurs in (`cardinality`).
    pub cardinality: HashMap<InstId, usize>,
    /// Set when a `connect` sits where the pre-pass does not look (a `for` loop or an
    /// if-equation whose condition is not known yet): `cardinality` then refuses to answer.
    pub cardinality_unknown: Option<Span>,
}

#[derive(Default)]
struct GraphInput {
    cardinality: HashMap<InstId, usize>,
    cardinality_unknown: Option<Span>,
    definite: Vec<(InstId, Span)>,
    potential: Vec<(InstId, i64)>,
    branches: Vec<(InstId, InstId, Span)>,
    connects: Vec<(InstId, InstId, Span)>,
}

const GRAPH_CALLS: &[&str] = &[
    "Connections.root",
    "Connections.potentialRoot",
    "Connections.branch",
    "Connections.uniqueRoot",
];

/// Whether `name` is one of the `Connections` statements (no equation of their own).
pub fn is_graph_statement(name: &str) -> bool {
    GRAPH_CALLS.contains(&name)
}

impl Flattener<'_> {
    /// Builds the virtual connection graph of the model below `root`.
    pub fn build_connection_graph(&mut self, instances: &[InstId]) -> Result<(), Diagnostic> {
        let mut g = GraphInput::default();
        for &i in instances {
            let exp = self.insts[i].exp.clone();
            for (lex, eq) in &exp.equations {
                let scope = Scope {
                    inst: Some(i),
                    lex: *lex,
                };
                self.graph_equation(eq, scope, &mut g)?;
            }
        }
        self.solve_graph(g)
    }

    fn graph_nodes(&mut self, e: &ast::Expr, scope: Scope) -> Result<Vec<InstId>, Diagnostic> {
        let ast::ExprKind::Ref(c) = &e.kind else {
            return Err(Diagnostic::error(
                e.span,
                "expected a component of an overdetermined type",
            ));
        };
        let mut fc = FCtx::new(self, scope, Mode::Structural);
        fc.conditional_ok = true;
        let nodes = fc.resolve(c)?.ok_or_else(|| {
            Diagnostic::error(
                c.span,
                format!("unknown name `{}`", super::eval::cref_name(c)),
            )
        })?;
        Ok(nodes
            .data
            .iter()
            .map(|n| match n {
                Node::Inst(i) | Node::Var(i, _) => *i,
            })
            .collect())
    }

    fn graph_equation(
        &mut self,
        eq: &ast::Equation,
        scope: Scope,
        g: &mut GraphInput,
    ) -> Result<(), Diagnostic> {
        match &eq.kind {
            ast::EquationKind::Call { func, args } => {
                let name = super::eval::cref_name(func);
                if !is_graph_statement(&name) {
                    return Ok(());
                }
                let Some(first) = args.positional.first() else {
                    return Err(Diagnostic::error(
                        eq.span,
                        format!("`{name}` needs an argument"),
                    ));
                };
                let a = self.graph_nodes(first, scope)?;
                match name.as_str() {
                    "Connections.root" | "Connections.uniqueRoot" => {
                        g.definite.extend(a.into_iter().map(|n| (n, eq.span)));
                    }
                    "Connections.potentialRoot" => {
                        let prio = match args.positional.get(1).or_else(|| {
                            args.named
                                .iter()
                                .find(|n| n.name.name == "priority")
                                .map(|n| &n.value)
                        }) {
                            Some(p) => self
                                .eval_structural(p, scope)?
                                .as_f64()
                                .map(|x| x as i64)
                                .unwrap_or(0),
                            None => 0,
                        };
                        g.potential.extend(a.into_iter().map(|n| (n, prio)));
                    }
                    _ => {
                        let Some(second) = args.positional.get(1) else {
                            return Err(Diagnostic::error(
                                eq.span,
                                "`Connections.branch` needs two arguments",
                            ));
                        };
                        let b = self.graph_nodes(second, scope)?;
                        for (x, y) in a.into_iter().zip(b) {
                            g.branches.push((x, y, eq.span));
                        }
                    }
                }
            }
            ast::EquationKind::Connect { a, b } => {
                let mut fc = FCtx::new(self, scope, Mode::Structural);
                fc.conditional_ok = true;
                let (Ok(Some(na)), Ok(Some(nb))) = (fc.resolve(a), fc.resolve(b)) else {
                    // Reported when the connection equations are generated.
                    return Ok(());
                };
                drop(fc);
                for n in na.data.iter().chain(&nb.data) {
                    if let Node::Inst(i) = n {
                        *g.cardinality.entry(*i).or_default() += 1;
                    }
                }
                for (x, y) in na.data.iter().zip(&nb.data) {
                    let (Node::Inst(x), Node::Inst(y)) = (*x, *y) else {
                        continue;
                    };
                    let px = self.overdetermined_parts(x, "")?;
                    let py = self.overdetermined_parts(y, "")?;
                    for (rel, nx) in &px {
                        if let Some((_, ny)) = py.iter().find(|(r, _)| r == rel) {
                            g.connects.push((*nx, *ny, eq.span));
                        }
                    }
                }
            }
            ast::EquationKind::If { branches, else_ } => {
                // Conditions are evaluated only when a branch holds something for the graph:
                // a structural evaluation marks its parameters structural (no `--set`).
                let all = || branches.iter().flat_map(|(_, b)| b).chain(else_);
                if !all().any(graph_relevant) {
                    return Ok(());
                }
                // Only branches chosen before simulation can hold graph statements; a condition
                // that is not known yet (`isRoot` itself) is skipped here.
                for (c, body) in branches {
                    match self.eval_structural(c, scope) {
                        Ok(v) if v.data.first() == Some(&super::tensor::Val::Bool(true)) => {
                            for e in body {
                                self.graph_equation(e, scope, g)?;
                            }
                            return Ok(());
                        }
                        Ok(_) => continue,
                        Err(_) => {
                            if let Some(sp) = all().filter_map(connect_span).next() {
                                g.cardinality_unknown.get_or_insert(sp);
                            }
                            return Ok(());
                        }
                    }
                }
                for e in else_ {
                    self.graph_equation(e, scope, g)?;
                }
            }
            ast::EquationKind::For { body, .. } => {
                if let Some(sp) = body.iter().filter_map(connect_span).next() {
                    g.cardinality_unknown.get_or_insert(sp);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The components of connector instance `i` whose type is overdetermined, by relative name.
    fn overdetermined_parts(
        &mut self,
        i: InstId,
        rel: &str,
    ) -> Result<Vec<(String, InstId)>, Diagnostic> {
        let mut out = Vec::new();
        if self.insts[i].exp.classes.contains_key("equalityConstraint") {
            out.push((rel.to_string(), i));
            return Ok(out);
        }
        for c in self.children(i)? {
            if matches!(self.insts[c].kind, super::instance::InstKind::Struct { .. }) {
                let sub = format!("{rel}.{}", self.insts[c].name);
                out.extend(self.overdetermined_parts(c, &sub)?);
            }
        }
        Ok(out)
    }

    fn solve_graph(&mut self, g: GraphInput) -> Result<(), Diagnostic> {
        self.conn_graph.cardinality = g.cardinality.clone();
        self.conn_graph.cardinality_unknown = g.cardinality_unknown;
        let mut adj: HashMap<InstId, Vec<(InstId, bool, Span)>> = HashMap::new();
        let mut order: Vec<InstId> = Vec::new();
        let mut node = |n: InstId, adj: &mut HashMap<InstId, Vec<(InstId, bool, Span)>>| {
            if let std::collections::hash_map::Entry::Vacant(e) = adj.entry(n) {
                e.insert(Vec::new());
                order.push(n);
            }
        };
        for &(n, _) in &g.definite {
            node(n, &mut adj);
        }
        for &(n, _) in &g.potential {
            node(n, &mut adj);
        }
        let mut partner: HashMap<InstId, Vec<InstId>> = HashMap::new();
        for &(a, b, span) in &g.branches {
            node(a, &mut adj);
            node(b, &mut adj);
            adj.get_mut(&a).expect("node").push((b, true, span));
            adj.get_mut(&b).expect("node").push((a, true, span));
            partner.entry(a).or_default().push(b);
            partner.entry(b).or_default().push(a);
        }
        for &(a, b, span) in &g.connects {
            node(a, &mut adj);
            node(b, &mut adj);
            adj.get_mut(&a).expect("node").push((b, false, span));
            adj.get_mut(&b).expect("node").push((a, false, span));
        }
        // Connected parts, in order of first appearance.
        let mut part: HashMap<InstId, usize> = HashMap::new();
        let mut parts: Vec<Vec<InstId>> = Vec::new();
        for &n in &order {
            if part.contains_key(&n) {
                continue;
            }
            let k = parts.len();
            let mut members = vec![n];
            part.insert(n, k);
            let mut q = VecDeque::from([n]);
            while let Some(x) = q.pop_front() {
                for &(y, _, _) in &adj[&x] {
                    if let std::collections::hash_map::Entry::Vacant(e) = part.entry(y) {
                        e.insert(k);
                        members.push(y);
                        q.push_back(y);
                    }
                }
            }
            parts.push(members);
        }
        let mut roots = HashSet::new();
        let mut depth: HashMap<InstId, usize> = HashMap::new();
        for (k, members) in parts.iter().enumerate() {
            let definite: Vec<&(InstId, Span)> =
                g.definite.iter().filter(|(n, _)| part[n] == k).collect();
            let root = match definite.as_slice() {
                [(r, _)] => *r,
                [(_, s1), (_, s2), ..] => {
                    return Err(Diagnostic::error(
                        *s2,
                        "two definite roots (`Connections.root`) in one connected part of the connection graph",
                    )
                    .with_secondary(*s1, "the other root"));
                }
                [] => {
                    let best = g
                        .potential
                        .iter()
                        .filter(|(n, _)| part[n] == k)
                        .min_by_key(|(_, p)| *p);
                    match best {
                        Some((r, _)) => *r,
                        None => {
                            let n = members[0];
                            return Err(Diagnostic::error(
                                self.insts[n].span,
                                format!(
                                    "`{}` is in a part of the connection graph without a root (MLS 9.4): add `Connections.root` or `Connections.potentialRoot`",
                                    self.insts[n].path
                                ),
                            ));
                        }
                    }
                }
            };
            roots.insert(root);
            // Spanning tree: branches first (0-1 breadth-first search), then connections.
            let mut dq = VecDeque::from([(root, 0usize)]);
            let mut done: HashSet<InstId> = HashSet::new();
            while let Some((x, d)) = dq.pop_front() {
                if !done.insert(x) {
                    continue;
                }
                depth.insert(x, d);
                for &(y, branch, _) in &adj[&x] {
                    if done.contains(&y) {
                        continue;
                    }
                    if branch {
                        dq.push_front((y, d + 1));
                    } else {
                        dq.push_back((y, d + 1));
                    }
                }
            }
        }
        // Loops: the tree of n nodes has n - parts edges; every further edge closes a loop.
        let edges = g.branches.len() + g.connects.len();
        let tree = adj.len() - parts.len();
        if edges > tree {
            let span = g
                .connects
                .last()
                .map(|c| c.2)
                .unwrap_or_else(|| g.branches[0].2);
            return Err(Diagnostic::error(
                span,
                format!(
                    "the connection graph of overdetermined connectors has {} loop(s) (MLS 9.4): breaking loops with `equalityConstraint` equations is not supported yet",
                    edges - tree
                ),
            ));
        }
        self.conn_graph = ConnGraph {
            ready: true,
            roots,
            depth,
            partner,
            cardinality: g.cardinality,
            cardinality_unknown: g.cardinality_unknown,
        };
        Ok(())
    }

    /// `cardinality(c)`: the number of `connect` statements connector `c` occurs in.
    pub fn cardinality(&self, nodes: &[InstId], span: Span) -> Result<i64, Diagnostic> {
        if !self.conn_graph.ready {
            return Err(Diagnostic::error(
                span,
                "the connections are not known yet here",
            ));
        }
        if let Some(sp) = self.conn_graph.cardinality_unknown {
            return Err(Diagnostic::error(
                span,
                "`cardinality` is not supported in a model with `connect` inside a `for` loop or a run-time if-equation",
            )
            .with_secondary(sp, "this connect"));
        }
        let [n] = nodes else {
            return Err(Diagnostic::error(
                span,
                "`cardinality` takes one scalar connector",
            ));
        };
        Ok(self.conn_graph.cardinality.get(n).copied().unwrap_or(0) as i64)
    }

    /// `Connections.isRoot(a)` / `Connections.rooted(a)` for the nodes of `a`.
    pub fn graph_query(
        &self,
        rooted: bool,
        nodes: &[InstId],
        span: Span,
    ) -> Result<bool, Diagnostic> {
        if !self.conn_graph.ready {
            return Err(Diagnostic::error(
                span,
                "the connection graph is not known yet here",
            ));
        }
        let Some(&n) = nodes.first() else {
            return Err(Diagnostic::error(span, "expected a component"));
        };
        if !rooted {
            return Ok(self.conn_graph.roots.contains(&n));
        }
        // `rooted(a)`: a is closer to the root than the other end of its branch.
        let d = self.conn_graph.depth.get(&n).copied().unwrap_or(0);
        let other = self
            .conn_graph
            .partner
            .get(&n)
            .and_then(|p| p.first())
            .and_then(|p| self.conn_graph.depth.get(p).copied())
            .unwrap_or(usize::MAX);
        Ok(d < other)
    }
}

/// The span of `e` when it is a `connect` (nested ones included).
fn connect_span(e: &ast::Equation) -> Option<Span> {
    match &e.kind {
        ast::EquationKind::Connect { .. } => Some(e.span),
        ast::EquationKind::For { body, .. } => body.iter().find_map(connect_span),
        ast::EquationKind::If { branches, else_ } => branches
            .iter()
            .flat_map(|(_, b)| b)
            .chain(else_)
            .find_map(connect_span),
        _ => None,
    }
}

/// Whether `e` holds a `connect` or a `Connections` statement (nested ones included).
fn graph_relevant(e: &ast::Equation) -> bool {
    match &e.kind {
        ast::EquationKind::Connect { .. } => true,
        ast::EquationKind::Call { func, .. } => is_graph_statement(&super::eval::cref_name(func)),
        ast::EquationKind::For { body, .. } => body.iter().any(graph_relevant),
        ast::EquationKind::If { branches, else_ } => branches
            .iter()
            .flat_map(|(_, b)| b)
            .chain(else_)
            .any(graph_relevant),
        _ => false,
    }
}
