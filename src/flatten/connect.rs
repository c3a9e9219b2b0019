//! Connection equations (MLS 9.2): connection sets built with union-find over
//! (variable, inside/outside) pairs; potentials equal, flows summing to zero with `+` for
//! inside and `-` for outside connectors; flow variables of unconnected inside connectors set
//! to zero.

use super::Flattener;
use super::equations::Connect;
use super::instance::{InstId, InstKind};
use super::scalarize::Node;
use crate::dae::{BinOp, Equation, EquationKind, Expr, VarId};
use crate::diag::{Diagnostic, Span};
use std::collections::{BTreeMap, HashMap};

/// A primitive variable of a connector with its name relative to the connector.
struct Leaf {
    rel: String,
    var: VarId,
    flow: bool,
    span: Span,
}

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
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
            // Keep the smaller index as root: sets are then ordered by first appearance.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}

impl Flattener<'_> {
    fn leaves(&mut self, n: Node, rel: &str, out: &mut Vec<Leaf>) -> Result<(), Diagnostic> {
        match n {
            // An element of a primitive connector array is connected on its own (`y[2]` to
            // `u[1]`); the element suffix only names it inside a structured connector.
            // Parameters and constants of connectors get no connection equations (MLS 9.3).
            Node::Var(i, _)
                if matches!(
                    self.variability(i),
                    crate::syntax::ast::Variability::Parameter
                        | crate::syntax::ast::Variability::Constant
                ) => {}
            Node::Var(i, k) => {
                out.push(Leaf {
                    rel: rel.to_string(),
                    var: self.insts[i].var0 + k,
                    flow: self.insts[i].prefix.connection == crate::syntax::ast::Connection::Flow,
                    span: self.insts[i].span,
                });
            }
            Node::Inst(i) => {
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
                                self.leaves(Node::Var(c, k), &format!("{sub}{suffix}"), out)?;
                            }
                        }
                        InstKind::Array { elems, .. } => {
                            let elems = elems.clone();
                            for e in elems {
                                let en = self.insts[e].name.clone();
                                let esub = if rel.is_empty() {
                                    en
                                } else {
                                    format!("{rel}.{en}")
                                };
                                self.leaves(Node::Inst(e), &esub, out)?;
                            }
                        }
                        InstKind::Struct { .. } => self.leaves(Node::Inst(c), &sub, out)?,
                        InstKind::Removed | InstKind::Stub => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn node_inst(&self, n: Node) -> InstId {
        match n {
            Node::Var(i, _) | Node::Inst(i) => i,
        }
    }

    /// Generates the connection equations and the zero equations of unconnected flows.
    pub fn connection_equations(
        &mut self,
        connects: &[Connect],
        root: InstId,
    ) -> Result<Vec<Equation>, Vec<Diagnostic>> {
        self.check_connects(connects)?;
        let mut keys: HashMap<(VarId, bool), usize> = HashMap::new();
        let mut info: Vec<(VarId, bool, bool, InstId)> = Vec::new(); // var, inside, flow, connect instance
        let mut uf = UnionFind { parent: Vec::new() };
        let mut errors = Vec::new();
        for c in connects {
            for (na, nb) in c.a.iter().zip(&c.b) {
                match self.connect_pair(*na, *nb, c) {
                    Ok(pairs) => {
                        for (la, lb) in pairs {
                            let mut key = |v: VarId, inside: bool, flow: bool| -> usize {
                                *keys.entry((v, inside)).or_insert_with(|| {
                                    info.push((v, inside, flow, c.inst));
                                    uf.parent.push(uf.parent.len());
                                    info.len() - 1
                                })
                            };
                            let ka = key(la.var, !c.a_outside, la.flow);
                            let kb = key(lb.var, !c.b_outside, lb.flow);
                            uf.union(ka, kb);
                        }
                    }
                    Err(d) => errors.push(d),
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for k in 0..info.len() {
            let r = uf.find(k);
            sets.entry(r).or_default().push(k);
        }
        let mut eqs = Vec::new();
        for (root_key, members) in sets {
            let (_, _, flow, inst) = info[root_key];
            let component = self.insts[inst].path.clone();
            let span = self.insts[inst].span;
            if flow {
                let mut sum: Option<Expr> = None;
                for m in &members {
                    let (v, inside, _, _) = info[*m];
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
                if let Some(s) = sum {
                    eqs.push(Equation {
                        kind: EquationKind::Simple {
                            lhs: s,
                            rhs: Expr::Real(0.0),
                        },
                        component,
                        span,
                    });
                }
            } else {
                // Members may repeat a variable (inside and outside): equal only distinct ones.
                let mut vars: Vec<VarId> = Vec::new();
                for m in &members {
                    if !vars.contains(&info[*m].0) {
                        vars.push(info[*m].0);
                    }
                }
                for w in vars.windows(2) {
                    eqs.push(Equation {
                        kind: EquationKind::Simple {
                            lhs: Expr::Var(w[0]),
                            rhs: Expr::Var(w[1]),
                        },
                        component: component.clone(),
                        span,
                    });
                }
            }
        }
        // Unconnected flow variables: zero (MLS 9.2, for inside connectors).
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            match &self.insts[i].kind {
                InstKind::Struct {
                    children: Some(c), ..
                } => {
                    let c = c.clone();
                    if self.insts[i].is_connector() && i != root {
                        let mut ls = Vec::new();
                        self.leaves(Node::Inst(i), "", &mut ls)
                            .map_err(|d| vec![d])?;
                        let component = self.insts[i]
                            .parent
                            .map(|p| self.insts[p].path.clone())
                            .unwrap_or_default();
                        for l in ls.into_iter().filter(|l| l.flow) {
                            if !keys.contains_key(&(l.var, true)) {
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
                    } else {
                        stack.extend(c.iter().rev());
                    }
                }
                InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                _ => {}
            }
        }
        Ok(eqs)
    }

    fn connect_pair(
        &mut self,
        a: Node,
        b: Node,
        c: &Connect,
    ) -> Result<Vec<(Leaf, Leaf)>, Diagnostic> {
        let (ia, ib) = (self.node_inst(a), self.node_inst(b));
        for (i, sp) in [(ia, c.a_span), (ib, c.b_span)] {
            if !self.insts[i].is_connector() {
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
        self.leaves(a, "", &mut la)?;
        self.leaves(b, "", &mut lb)?;
        let names = |l: &[Leaf]| {
            l.iter()
                .map(|x| (x.rel.clone(), x.flow))
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
                "connected connectors must have the same variables, with the same flow prefixes",
            ));
        }
        la.sort_by(|x, y| x.rel.cmp(&y.rel));
        lb.sort_by(|x, y| x.rel.cmp(&y.rel));
        Ok(la.into_iter().zip(lb).collect())
    }
}

fn fmt_leaf(x: &(String, bool)) -> String {
    let name = if x.0.is_empty() {
        "(the value)".to_string()
    } else {
        x.0.clone()
    };
    if x.1 { format!("flow {name}") } else { name }
}
