//! Overdetermined connectors (MLS 9.4): the virtual connection graph of the records (or
//! types) that declare an `equalityConstraint` function (MultiBody's `Frames.Orientation`,
//! a power system's `AC_Angle`). Its nodes are those components in connectors;
//! `Connections.branch` gives required edges, `connect` optional ones; `Connections.root` and
//! `potentialRoot` give the roots. Every definite root is a root; a connected part without one
//! takes its potential root of lowest priority. The spanning trees are grown Kruskal-style: a
//! virtual node joins the roots, then every branch (a branch closing a loop is an error), then
//! the connections that join two trees. A connection left out (it closes a loop) is *broken*:
//! `connect.rs` gives its overdetermined parts `0 = equalityConstraint(A.R, B.R)` instead of
//! `A.R = B.R`. `Connections.isRoot` and `Connections.rooted` are answered from the trees
//! before the equations are generated, so the if-equations they guard select their branch at
//! flattening.

use super::Flattener;
use super::connect_scan::{Scan, Scanned};
use super::instance::InstId;
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
    /// Connections left out of the spanning trees, by their two nodes (lower id first), with
    /// how many `connect`s between the two are left out.
    pub broken: HashMap<(InstId, InstId), usize>,
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

/// The key of an undirected edge.
fn edge_key(a: InstId, b: InstId) -> (InstId, InstId) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Union-find over dense indices (path halving).
struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra] = rb;
        }
    }
}

/// Whether `name` is one of the `Connections` statements (no equation of their own).
pub fn is_graph_statement(name: &str) -> bool {
    GRAPH_CALLS.contains(&name)
}

impl Flattener<'_> {
    /// Builds the virtual connection graph from the scanned connections.
    pub fn build_connection_graph(&mut self, scan: &Scan) -> Result<(), Diagnostic> {
        let mut g = GraphInput {
            cardinality_unknown: scan.unknown,
            ..GraphInput::default()
        };
        for item in &scan.items {
            self.graph_equation(item, &mut g)?;
        }
        self.solve_graph(g)
    }

    fn graph_nodes(&mut self, e: &ast::Expr, item: &Scanned) -> Result<Vec<InstId>, Diagnostic> {
        let ast::ExprKind::Ref(c) = &e.kind else {
            return Err(Diagnostic::error(
                e.span,
                "expected a component of an overdetermined type",
            ));
        };
        let mut fc = FCtx::new(self, item.scope, Mode::Structural);
        fc.conditional_ok = true;
        fc.locals = item.locals.clone();
        let nodes = fc
            .resolve(c)?
            .ok_or_else(|| super::scalarize::unknown_name(c))?;
        // An array of a built-in overdetermined type is one node (MLS 9.4.1).
        let mut out: Vec<InstId> = Vec::new();
        for n in &nodes.data {
            let (Node::Inst(i) | Node::Var(i, _)) = *n;
            if !out.contains(&i) {
                out.push(i);
            }
        }
        Ok(out)
    }

    fn graph_equation(&mut self, item: &Scanned, g: &mut GraphInput) -> Result<(), Diagnostic> {
        let eq = &item.eq;
        match &eq.kind {
            ast::EquationKind::Call { func, args } => {
                let name = super::eval::cref_name(func);
                let Some(first) = args.positional.first() else {
                    return Err(Diagnostic::error(
                        eq.span,
                        format!("`{name}` needs an argument"),
                    ));
                };
                let a = self.graph_nodes(first, item)?;
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
                                .eval_structural_with(p, item.scope, &item.locals)?
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
                        let b = self.graph_nodes(second, item)?;
                        for (x, y) in a.into_iter().zip(b) {
                            g.branches.push((x, y, eq.span));
                        }
                    }
                }
            }
            ast::EquationKind::Connect { a, b } => {
                let mut fc = FCtx::new(self, item.scope, Mode::Structural);
                fc.conditional_ok = true;
                fc.locals = item.locals.clone();
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
                    if px.is_empty() {
                        continue;
                    }
                    let py = self.overdetermined_parts(y, "")?;
                    for (rel, nx) in &px {
                        if let Some((_, ny)) = py.iter().find(|(r, _)| r == rel) {
                            g.connects.push((*nx, *ny, eq.span));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The components of connector instance `i` whose type is overdetermined, by relative name.
    pub fn overdetermined_parts(
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
            let sub = if rel.is_empty() {
                self.insts[c].name.clone()
            } else {
                format!("{rel}.{}", self.insts[c].name)
            };
            match &self.insts[c].kind {
                super::instance::InstKind::Struct { .. } => {
                    out.extend(self.overdetermined_parts(c, &sub)?);
                }
                // A component of an overdetermined type (`AC_Angle theta`).
                super::instance::InstKind::Prim { .. }
                    if self.insts[c].exp.classes.contains_key("equalityConstraint") =>
                {
                    out.push((sub, c));
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn solve_graph(&mut self, g: GraphInput) -> Result<(), Diagnostic> {
        // Nodes in order of first appearance.
        let mut index: HashMap<InstId, usize> = HashMap::new();
        let mut nodes: Vec<InstId> = Vec::new();
        let mut node = |n: InstId| -> usize {
            *index.entry(n).or_insert_with(|| {
                nodes.push(n);
                nodes.len() - 1
            })
        };
        for &(n, _) in &g.definite {
            node(n);
        }
        for &(n, _) in &g.potential {
            node(n);
        }
        for &(a, b, _) in g.branches.iter().chain(&g.connects) {
            node(a);
            node(b);
        }
        let n = nodes.len();
        // Connected parts of the whole graph (every edge), to pick the roots.
        let mut parts = UnionFind::new(n);
        for &(a, b, _) in g.branches.iter().chain(&g.connects) {
            parts.union(index[&a], index[&b]);
        }
        let mut roots: Vec<usize> = Vec::new();
        let mut has_definite: HashSet<usize> = HashSet::new();
        for &(r, _) in &g.definite {
            let k = index[&r];
            if !roots.contains(&k) {
                roots.push(k);
            }
            has_definite.insert(parts.find(k));
        }
        // A part without a definite root: its potential root of lowest priority (the first
        // one declared among equals).
        let mut best: HashMap<usize, (i64, usize)> = HashMap::new();
        for &(p, prio) in &g.potential {
            let k = index[&p];
            let part = parts.find(k);
            if has_definite.contains(&part) {
                continue;
            }
            match best.get(&part) {
                Some((bp, _)) if *bp <= prio => {}
                _ => {
                    best.insert(part, (prio, k));
                }
            }
        }
        let mut chosen: Vec<(usize, usize)> = best.into_iter().map(|(p, (_, k))| (p, k)).collect();
        chosen.sort();
        roots.extend(chosen.into_iter().map(|(_, k)| k));
        for (k, &i) in nodes.iter().enumerate() {
            let part = parts.find(k);
            if !roots.iter().any(|r| parts.find(*r) == part) {
                return Err(Diagnostic::error(
                    self.insts[i].span,
                    format!(
                        "`{}` is in a part of the connection graph without a root (MLS 9.4): add `Connections.root` or `Connections.potentialRoot`",
                        self.insts[i].path
                    ),
                ));
            }
        }
        // Spanning trees (MLS 9.4.2): one per selected root. A virtual node joins the roots,
        // then every branch (required edge) and the connections that join two trees; a
        // connection closing a loop is broken (its overdetermined parts get
        // `equalityConstraint` equations instead of equality).
        let virt = n;
        let mut tree = UnionFind::new(n + 1);
        for &r in &roots {
            tree.union(virt, r);
        }
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut partner: HashMap<InstId, Vec<InstId>> = HashMap::new();
        for &(a, b, span) in &g.branches {
            let (ka, kb) = (index[&a], index[&b]);
            partner.entry(a).or_default().push(b);
            partner.entry(b).or_default().push(a);
            if tree.find(ka) == tree.find(kb) {
                return Err(Diagnostic::error(
                    span,
                    "this `Connections.branch` closes a loop of branches (or joins two roots) in the connection graph: a loop must contain a `connect` that can be broken (MLS 9.4.2)",
                ));
            }
            tree.union(ka, kb);
            adj[ka].push(kb);
            adj[kb].push(ka);
        }
        let mut broken: HashMap<(InstId, InstId), usize> = HashMap::new();
        for &(a, b, _) in &g.connects {
            let (ka, kb) = (index[&a], index[&b]);
            if tree.find(ka) == tree.find(kb) {
                *broken.entry(edge_key(a, b)).or_default() += 1;
            } else {
                tree.union(ka, kb);
                adj[ka].push(kb);
                adj[kb].push(ka);
            }
        }
        // Distance of every node from its root along the trees (for `rooted`).
        let mut depth: HashMap<InstId, usize> = HashMap::new();
        let mut q: VecDeque<(usize, usize)> = roots.iter().map(|r| (*r, 0)).collect();
        let mut seen = vec![false; n];
        while let Some((x, d)) = q.pop_front() {
            if std::mem::replace(&mut seen[x], true) {
                continue;
            }
            depth.insert(nodes[x], d);
            for &y in &adj[x] {
                if !seen[y] {
                    q.push_back((y, d + 1));
                }
            }
        }
        self.conn_graph = ConnGraph {
            ready: true,
            roots: roots.iter().map(|k| nodes[*k]).collect(),
            depth,
            partner,
            broken,
            cardinality: g.cardinality,
            cardinality_unknown: g.cardinality_unknown,
        };
        Ok(())
    }

    /// Whether the connection between overdetermined nodes `a` and `b` is one the spanning
    /// trees leave out; each call consumes one such connection.
    pub fn take_broken_edge(&mut self, a: InstId, b: InstId) -> bool {
        match self.conn_graph.broken.get_mut(&edge_key(a, b)) {
            Some(k) if *k > 0 => {
                *k -= 1;
                true
            }
            _ => false,
        }
    }

    /// The size of the `residue` of the `equalityConstraint` of overdetermined instance `i`
    /// (MLS 9.3.1: what the instance counts for in the balance of its connector), `None` when
    /// its type is not overdetermined.
    #[allow(dead_code)] // for the connector size rule (MLS 9.3.1)
    pub fn equality_constraint_size(&mut self, i: InstId) -> Result<Option<usize>, Diagnostic> {
        let Some(f) = self.inst_class_element(i, "equalityConstraint") else {
            return Ok(None);
        };
        let name = self.function(f)?;
        let dims = self.functions[&name]
            .outputs
            .first()
            .map(|o| o.dims.clone())
            .unwrap_or_default();
        let scope = super::modifier::Scope {
            inst: Some(self.package_inst(f)?),
            lex: f,
        };
        let mut n = 1usize;
        for d in dims {
            let Some(e) = d else {
                return Err(Diagnostic::error(
                    self.insts[i].span,
                    format!("the residue of `{name}` needs a size known before simulation"),
                ));
            };
            let v = self.eval_structural(&e, scope)?;
            n *= v.data.first().and_then(|x| x.as_int()).unwrap_or(0).max(0) as usize;
        }
        Ok(Some(n))
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
        if !self.insts[*n].is_connector() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`cardinality` takes a connector, but `{}` is not one (MLS 3.7.2.3)",
                    self.insts[*n].path
                ),
            ));
        }
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
