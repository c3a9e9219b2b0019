//! The bipartite equation-variable graph, with how each variable enters each equation.
//!
//! For each (equation, variable) pair we record whether the variable enters linearly when every
//! other unknown is held fixed, and its coefficient when that is an integer literal. The
//! matching and Pantelides phases use plain adjacency lists built from it (cache-friendly and
//! cheap to extend with differentiated equations); the teaching views use the petgraph form.

use crate::dae::{BinOp, Expr, UnOp, VarId};
use petgraph::graph::{NodeIndex, UnGraph};
use serde::Serialize;
use std::collections::BTreeMap;

/// How a variable enters an equation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Lin {
    /// Linearly; the coefficient when it is a numeric literal.
    Linear(Option<f64>),
    Nonlinear,
}

impl Lin {
    /// The integer coefficient, when the variable enters linearly with one.
    pub fn integer(self) -> Option<i64> {
        match self {
            Lin::Linear(Some(c)) if c.fract() == 0.0 && c.abs() < 1e15 => Some(c as i64),
            _ => None,
        }
    }
}

type Map = BTreeMap<VarId, Lin>;

/// How every variable for which `is_unknown` holds enters `e` (the others count as known).
pub fn incidence(e: &Expr, is_unknown: &impl Fn(VarId) -> bool) -> Map {
    walk(e, is_unknown)
}

/// The incidence as the simulator evaluates `e` between and during events: a relation outside
/// `noEvent` reads a register that only the event iteration sets (its operands do not enter
/// the equation), and `pre(v)` is a value from before the event, not `v`. The sorting uses
/// this view, so that in a friction element `startForward = pre(mode) == Stuck and sa > f0`
/// is an assignment of the Boolean, not an equation of the continuous loop for `sa`: the loop
/// is then solved with its discrete variables fixed, and the event iteration updates them.
pub fn incidence_frozen(e: &Expr, is_unknown: &impl Fn(VarId) -> bool) -> Map {
    walk(&frozen(e), is_unknown)
}

/// Whether `e` is linear in the set, in the view of [`incidence_frozen`].
pub fn is_linear_in_frozen(e: &Expr, is_unknown: &impl Fn(VarId) -> bool) -> bool {
    incidence_frozen(e, is_unknown)
        .values()
        .all(|l| matches!(l, Lin::Linear(_)))
}

/// `e` with every event-generating relation and every `pre(...)` replaced by `time` (a known
/// value that is not a numeric literal, so no coefficient folds through it).
fn frozen(e: &Expr) -> Expr {
    let bx = |x: &Expr| Box::new(frozen(x));
    match e {
        Expr::NoEvent(_) => e.clone(),
        Expr::Pre(_) => Expr::Time,
        Expr::Binary(
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne,
            _,
            _,
        ) => Expr::Time,
        Expr::Binary(op, a, b) => Expr::Binary(*op, bx(a), bx(b)),
        Expr::Unary(op, a) => Expr::Unary(*op, bx(a)),
        Expr::Smooth(p, a) => Expr::Smooth(*p, bx(a)),
        Expr::Call(f, args) => Expr::Call(*f, args.iter().map(frozen).collect()),
        Expr::UserCall {
            function,
            args,
            output,
            element,
        } => Expr::UserCall {
            function: function.clone(),
            args: args.iter().map(frozen).collect(),
            output: *output,
            element: *element,
        },
        Expr::Array { dims, elements } => Expr::Array {
            dims: dims.clone(),
            elements: elements.iter().map(frozen).collect(),
        },
        Expr::If { branches, else_ } => Expr::If {
            branches: branches
                .iter()
                .map(|(c, x)| (frozen(c), frozen(x)))
                .collect(),
            else_: bx(else_),
        },
        other => other.clone(),
    }
}

fn scale(m: Map, k: Option<f64>) -> Map {
    m.into_iter()
        .map(|(v, l)| {
            let l = match l {
                Lin::Linear(c) => Lin::Linear(c.zip(k).map(|(a, b)| a * b)),
                n => n,
            };
            (v, l)
        })
        .collect()
}

fn merge(mut a: Map, b: Map, sign: f64) -> Map {
    for (v, lb) in b {
        let lb = match lb {
            Lin::Linear(c) => Lin::Linear(c.map(|c| c * sign)),
            n => n,
        };
        let l = match a.get(&v) {
            None => lb,
            Some(Lin::Linear(ca)) => match lb {
                Lin::Linear(cb) => Lin::Linear(ca.zip(cb).map(|(x, y)| x + y)),
                Lin::Nonlinear => Lin::Nonlinear,
            },
            Some(Lin::Nonlinear) => Lin::Nonlinear,
        };
        a.insert(v, l);
    }
    a
}

fn all_nonlinear(m: Map) -> Map {
    m.into_keys().map(|v| (v, Lin::Nonlinear)).collect()
}

fn literal(e: &Expr) -> Option<f64> {
    super::expr::num(e)
}

fn walk(e: &Expr, u: &impl Fn(VarId) -> bool) -> Map {
    match e {
        Expr::Var(v) => {
            if u(*v) {
                BTreeMap::from([(*v, Lin::Linear(Some(1.0)))])
            } else {
                Map::new()
            }
        }
        Expr::Unary(UnOp::Neg, a) => scale(walk(a, u), Some(-1.0)),
        Expr::NoEvent(a) | Expr::Smooth(_, a) => walk(a, u),
        Expr::Binary(BinOp::Add, a, b) => merge(walk(a, u), walk(b, u), 1.0),
        Expr::Binary(BinOp::Sub, a, b) => merge(walk(a, u), walk(b, u), -1.0),
        Expr::Binary(BinOp::Mul, a, b) => {
            let (ma, mb) = (walk(a, u), walk(b, u));
            match (ma.is_empty(), mb.is_empty()) {
                (true, _) => scale(mb, literal(a)),
                (_, true) => scale(ma, literal(b)),
                _ => merge(all_nonlinear(ma), all_nonlinear(mb), 1.0),
            }
        }
        Expr::Binary(BinOp::Div, a, b) => {
            let (ma, mb) = (walk(a, u), walk(b, u));
            if mb.is_empty() {
                scale(ma, literal(b).filter(|d| *d != 0.0).map(|d| 1.0 / d))
            } else {
                merge(all_nonlinear(ma), all_nonlinear(mb), 1.0)
            }
        }
        Expr::If { branches, else_ } => {
            // Linear in v when every branch is, and the conditions do not depend on v.
            let mut m = walk(else_, u);
            for (c, v) in branches {
                let mv = walk(v, u);
                let mut joined = Map::new();
                for (var, l) in mv.iter() {
                    let other = m.get(var).copied();
                    let l = match (l, other) {
                        (Lin::Linear(a), Some(Lin::Linear(b))) if *a == b => Lin::Linear(*a),
                        (Lin::Linear(_), Some(Lin::Linear(_))) | (Lin::Linear(_), None) => {
                            Lin::Linear(None)
                        }
                        _ => Lin::Nonlinear,
                    };
                    joined.insert(*var, l);
                }
                for (var, l) in m.iter() {
                    if !mv.contains_key(var) {
                        let l = match l {
                            Lin::Linear(_) => Lin::Linear(None),
                            n => *n,
                        };
                        joined.insert(*var, l);
                    }
                }
                m = merge(joined, all_nonlinear(walk(c, u)), 1.0);
            }
            m
        }
        other => {
            // Any other operation is nonlinear in every unknown it contains.
            let mut m = Map::new();
            other.visit(&mut |x| {
                if let Expr::Var(v) = x
                    && u(*v)
                {
                    m.insert(*v, Lin::Nonlinear);
                }
            });
            m
        }
    }
}

/// A node of the bipartite graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Node {
    Equation(usize),
    Variable(VarId),
}

/// The bipartite graph on petgraph, for the views.
pub struct BipartiteGraph {
    pub graph: UnGraph<Node, Lin>,
    pub eq_nodes: Vec<NodeIndex>,
    pub var_nodes: BTreeMap<VarId, NodeIndex>,
}

impl BipartiteGraph {
    /// `rows[e]` lists `(variable, how it enters)` for equation `e`.
    pub fn build(rows: &[Vec<(VarId, Lin)>]) -> BipartiteGraph {
        let mut graph = UnGraph::new_undirected();
        let eq_nodes: Vec<NodeIndex> = (0..rows.len())
            .map(|e| graph.add_node(Node::Equation(e)))
            .collect();
        let mut var_nodes = BTreeMap::new();
        for (e, row) in rows.iter().enumerate() {
            for &(v, l) in row {
                let vn = *var_nodes
                    .entry(v)
                    .or_insert_with(|| graph.add_node(Node::Variable(v)));
                graph.add_edge(eq_nodes[e], vn, l);
            }
        }
        BipartiteGraph {
            graph,
            eq_nodes,
            var_nodes,
        }
    }
}
