//! Block lower triangular form: Tarjan's strongly connected components of the equation
//! dependency graph, and the classification of each block.
//!
//! Equation `e` depends on equation `f` when `e` uses the variable matched to `f`. Tarjan's
//! algorithm emits components with all their dependencies first, which is the evaluation order.
//! It runs with an explicit stack: a chain of 80k equations is a dependency path of that length.

use super::derivative::{Partial, diff};
use super::expr::{div, neg, simplify};
use super::incidence::is_linear_in_frozen;
use super::matching::Matching;
use crate::dae::{Expr, VarId};
use crate::structure::{Block, BlockKind, SortedEquation};

/// Strongly connected components of the graph `succ`, dependencies first.
pub fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut call: Vec<(usize, usize)> = Vec::new();
    let mut next = 0usize;
    let mut out = Vec::new();
    for s in 0..n {
        if index[s] != NONE {
            continue;
        }
        call.push((s, 0));
        index[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on_stack[s] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                out.push(comp);
            }
        }
    }
    out
}

/// The strongly connected components of the equations in evaluation order: equation `e`
/// comes after the equations matched to the unknowns it reads (`adj[e]`).
pub(crate) fn equation_blocks(adj: &[Vec<VarId>], m: &Matching) -> Vec<Vec<usize>> {
    let succ: Vec<Vec<usize>> = adj
        .iter()
        .enumerate()
        .map(|(e, row)| {
            row.iter()
                .filter_map(|&v| m.eq_of_var[v])
                .filter(|&f| f != e)
                .collect()
        })
        .collect();
    tarjan(&succ)
}

/// Sorts the equations into blocks. `adj[e]` are the unknowns of equation `e`; the matching
/// must be perfect.
pub fn sort(eqs: &[SortedEquation], adj: &[Vec<VarId>], m: &Matching) -> Vec<Block> {
    equation_blocks(adj, m)
        .into_iter()
        .map(|comp| {
            let vars: Vec<VarId> = comp.iter().filter_map(|&e| m.var_of_eq[e]).collect();
            let kind = classify(eqs, &comp, &vars);
            Block {
                kind,
                vars,
                equations: comp,
            }
        })
        .collect()
}

fn classify(eqs: &[SortedEquation], comp: &[usize], vars: &[VarId]) -> BlockKind {
    let set: std::collections::HashSet<VarId> = vars.iter().copied().collect();
    let in_block = |v: VarId| {
        if vars.len() <= 8 {
            vars.contains(&v)
        } else {
            set.contains(&v)
        }
    };
    let linear = comp
        .iter()
        .all(|&e| is_linear_in_frozen(&eqs[e].residual, &in_block));
    if comp.len() == 1
        && vars.len() == 1
        && linear
        && let Some(expr) = solve_linear(&eqs[comp[0]].residual, vars[0])
    {
        return BlockKind::Explicit { expr };
    }
    if comp.len() == 1
        && vars.len() == 1
        && !linear
        && let Some(expr) = solve_reciprocal(&eqs[comp[0]].residual, vars[0])
    {
        return BlockKind::Explicit { expr };
    }
    if linear {
        BlockKind::Linear
    } else {
        BlockKind::Nonlinear
    }
}

/// Solves `0 = r` for `v` when `v` enters `r` only as the denominator of quotients `a / v`
/// with `a` free of `v`, and `r` is linear in `1/v` (`R = 1/G` solved for `G`): `1/v` from
/// the linear solution, so `v = 1/(1/v)`. The one root, which Newton's method starting at
/// `v = 0` (a usual start value) cannot reach, since `r` is not finite there.
fn solve_reciprocal(r: &Expr, v: VarId) -> Option<Expr> {
    use crate::dae::BinOp;
    let is_v = |x: &Expr| matches!(x, Expr::Var(u) if *u == v);
    let mut quotients = 0usize;
    // `a / v` written as `a * v`, so `v` stands for `1/v`.
    let inverted = super::expr::rewrite(r, &mut |x| match x {
        Expr::Binary(BinOp::Div, a, b) if is_v(&b) && !super::expr::any_var(&a, &|u| u == v) => {
            quotients += 1;
            Expr::Binary(BinOp::Mul, a, b)
        }
        other => other,
    });
    if quotients == 0 {
        return None;
    }
    // Every other occurrence of `v` (under `pre` too) rules the rewrite out.
    let rest = super::expr::rewrite(r, &mut |x| match x {
        Expr::Binary(BinOp::Div, a, b) if is_v(&b) => {
            Expr::Binary(BinOp::Mul, a, Box::new(Expr::Integer(0)))
        }
        other => other,
    });
    if super::expr::any_var(&rest, &|u| u == v) {
        return None;
    }
    if !is_linear_in_frozen(&inverted, &|u| u == v) {
        return None;
    }
    let inv = solve_linear(&inverted, v)?;
    Some(simplify(&div(Expr::Integer(1), inv)))
}

/// Solves `0 = r` for `v` when `r` is linear in `v`: `r = a*v + b`, so `v = -b/a`.
pub fn solve_linear(r: &Expr, v: VarId) -> Option<Expr> {
    // Branch by branch, so a switched equation gives a switched assignment.
    if let Expr::If { branches, else_ } = r
        && !branches
            .iter()
            .any(|(c, _)| super::expr::any_var(c, &|u| u == v))
    {
        let bs: Option<Vec<(Expr, Expr)>> = branches
            .iter()
            .map(|(c, b)| solve_linear(b, v).map(|s| (c.clone(), s)))
            .collect();
        let e = solve_linear(else_, v);
        if let (Some(bs), Some(e)) = (bs, e) {
            return Some(Expr::If {
                branches: bs,
                else_: Box::new(e),
            });
        }
    }
    let mut no_user = |_: &str, _: &[Expr], _: usize, _: usize, _: usize| -> Result<Expr, String> {
        Err(String::new())
    };
    let a = simplify(
        &diff(
            r,
            &mut Partial {
                var: v,
                user: &mut no_user,
            },
        )
        .ok()?,
    );
    if super::expr::is_zero(&a) {
        return None;
    }
    // `v` set to zero, except inside `pre(v)` (a value from before the event, not `v`).
    let b = if super::expr::any_var(r, &|u| u == v) {
        super::expr::rewrite(r, &mut |x| match x {
            Expr::Var(u) if u == v => Expr::Integer(0),
            Expr::Pre(a) if matches!(*a, Expr::Integer(0)) => Expr::Pre(Box::new(Expr::Var(v))),
            other => other,
        })
    } else {
        r.clone()
    };
    let b = simplify(&b);
    Some(simplify(&div(neg(b), a)))
}
