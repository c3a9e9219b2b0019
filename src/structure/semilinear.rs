//! `semiLinear` at zero flow (MLS 3.7.4.5, rule 1), after alias elimination.
//!
//! Connected ports of a fluid stream write `y = semiLinear(x, s_i, s_{i+1})` once per port:
//! after the connection's flow sums and aliases are eliminated, the equations of one stream
//! share `y` and `x` and chain their enthalpies `sa -> s1 -> ... -> sN -> sb`. At `x = 0` every
//! one of them reads `0 = 0`, and the enthalpies `s1 .. sN` are undetermined (a NaN or a
//! singular loop). The specification's transformation keeps the same number of equations and
//! selects the meaningful solution: `s1 = if x >= 0 then sa else sb`, `s_{k+1} = s_k`, and
//! `y = semiLinear(x, sa, sb)`. It is exact for `x <> 0` (each `s_k` then equals the upstream
//! value, as the chain demands).

use super::expr::{neg, sub};
use super::work::{Role, WorkingSystem};
use crate::dae::{BinOp, Builtin, Expr, UnOp, VarId};
use std::collections::BTreeMap;

/// `y = sign * semiLinear(x, a, b)` read off a residual.
struct Link {
    eq: usize,
    a: Expr,
    b: Expr,
    /// Whether the flow as written in this equation (into its component) is `+x`.
    forward: bool,
}

/// Applies rule 1 to every chain of two or more equations.
pub fn rule1(work: &mut WorkingSystem) {
    let mut groups: BTreeMap<(VarId, VarId, bool), Vec<Link>> = BTreeMap::new();
    for (eq, e) in work.eqs.iter().enumerate() {
        if let Some((y, x, negative, a, b, forward)) = read(&e.residual, work) {
            groups
                .entry((y, x, negative))
                .or_default()
                .push(Link { eq, a, b, forward });
        }
    }
    for ((y, x, negative), links) in groups {
        if links.len() < 2 {
            continue;
        }
        let unknown = |e: &Expr| matches!(e, Expr::Var(v) if work.is_continuous(*v));
        for chain in chains(links, &unknown) {
            rewrite(work, y, x, negative, &chain);
        }
    }
}

/// The chains of links `a -> b` (each intermediate value an unknown written once as a `b` and
/// once as an `a`); links in no chain of two or more are left as they are.
fn chains(links: Vec<Link>, unknown: &impl Fn(&Expr) -> bool) -> Vec<Vec<Link>> {
    let count = |e: &Expr, side: fn(&Link) -> &Expr| links.iter().filter(|l| side(l) == e).count();
    let mut out = Vec::new();
    let mut used = vec![false; links.len()];
    for start in 0..links.len() {
        // A chain starts where its upstream value is no other link's downstream value.
        if used[start] || count(&links[start].a, |l| &l.b) != 0 {
            continue;
        }
        let mut chain = vec![start];
        let mut cur = start;
        loop {
            let b = &links[cur].b;
            if !unknown(b) || count(b, |l| &l.a) != 1 || count(b, |l| &l.b) != 1 {
                break;
            }
            let Some(next) = (0..links.len()).find(|&k| !used[k] && &links[k].a == b) else {
                break;
            };
            if chain.contains(&next) {
                break;
            }
            chain.push(next);
            cur = next;
        }
        for &k in &chain {
            used[k] = true;
        }
        if chain.len() >= 2 {
            out.push(chain);
        }
    }
    let mut slots: Vec<Option<Link>> = links.into_iter().map(Some).collect();
    out.into_iter()
        .map(|c| c.into_iter().filter_map(|k| slots[k].take()).collect())
        .collect()
}

/// Replaces the chain's equations: one intermediate value chooses by the flow's sign, the
/// others equal their neighbour, the last equation keeps `y` with the ends of the chain.
///
/// At `x = 0` rule 1 gives the intermediate values the upstream end for `x > 0`; which sign
/// is positive the specification leaves to the equations as written. Here it is the direction
/// of the first component that writes two equations of the chain (a two-port passing the
/// stream on), taken from its first one: the direction in which the component is written
/// (inlet `flowPort_a` before outlet `flowPort_b`). Without such a component, the first
/// equation's flow as written (into its component) is positive.
fn rewrite(work: &mut WorkingSystem, y: VarId, x: VarId, negative: bool, chain: &[Link]) {
    let (Some(first), Some(last)) = (chain.first(), chain.last()) else {
        return;
    };
    let (sa, sb) = (first.a.clone(), last.b.clone());
    let forward = direction(work, chain);
    // Intermediate values from the upstream end for the positive direction.
    let n = chain.len() - 1;
    let order: Vec<usize> = if forward {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    let (op, up, down) = if forward {
        (BinOp::Ge, sa.clone(), sb.clone())
    } else {
        (BinOp::Le, sb.clone(), sa.clone())
    };
    let choose = Expr::If {
        branches: vec![(Expr::binary(op, Expr::Var(x), Expr::Real(0.0)), up)],
        else_: Box::new(down),
    };
    let mut previous: Option<Expr> = None;
    for (slot, &k) in order.iter().enumerate() {
        let s = chain[k].b.clone();
        let value = previous.take().unwrap_or_else(|| choose.clone());
        work.eqs[chain[slot].eq].residual = sub(s.clone(), value);
        previous = Some(s);
    }
    let mut f = Expr::Call(Builtin::SemiLinear, vec![Expr::Var(x), sa, sb]);
    if negative {
        f = neg(f);
    }
    work.eqs[last.eq].residual = sub(Expr::Var(y), f);
}

/// Whether `+x` is the chain's positive direction (see [`rewrite`]).
fn direction(work: &WorkingSystem, chain: &[Link]) -> bool {
    let mut links: Vec<&Link> = chain.iter().collect();
    links.sort_by_key(|l| l.eq);
    let component = |l: &Link| &work.eqs[l.eq].component;
    links
        .iter()
        .find(|l| {
            links
                .iter()
                .filter(|o| component(o) == component(l))
                .count()
                >= 2
        })
        .or(links.first())
        .is_none_or(|l| l.forward)
}

/// `±y ± semiLinear(±x, a, b)` as `y = [-]semiLinear(x, a', b')` (`semiLinear(-x, a, b)` is
/// `-semiLinear(x, b, a)`), with `y` and `x` continuous unknowns.
fn read(r: &Expr, work: &WorkingSystem) -> Option<(VarId, VarId, bool, Expr, Expr, bool)> {
    let mut terms = Vec::new();
    split(r, true, &mut terms, 0)?;
    let [(s1, t1), (s2, t2)] = <[(bool, &Expr); 2]>::try_from(terms).ok()?;
    let ((sy, y), (sf, f)) = match (t1, t2) {
        (Expr::Var(_), Expr::Call(Builtin::SemiLinear, _)) => ((s1, t1), (s2, t2)),
        (Expr::Call(Builtin::SemiLinear, _), Expr::Var(_)) => ((s2, t2), (s1, t1)),
        _ => return None,
    };
    let (Expr::Var(y), Expr::Call(_, args)) = (y, f) else {
        return None;
    };
    let [xa, a, b] = args.as_slice() else {
        return None;
    };
    let (sx, x) = signed_var(xa)?;
    let unknown = |v: VarId| work.role[v] == Role::Unknown && work.is_continuous(v);
    if !unknown(*y) || !unknown(x) || *y == x {
        return None;
    }
    // 0 = sy*y + sf*semiLinear(sx*x, a, b)  =>  y = -(sy*sf) * semiLinear(sx*x, a, b).
    let mut negative = sy == sf;
    let (a, b) = if sx {
        (a.clone(), b.clone())
    } else {
        negative = !negative;
        (b.clone(), a.clone())
    };
    Some((*y, x, negative, a, b, sx))
}

/// The residual as a signed sum of terms (`true` = plus); at most two terms.
fn split<'a>(e: &'a Expr, plus: bool, out: &mut Vec<(bool, &'a Expr)>, depth: usize) -> Option<()> {
    if out.len() > 2 || depth > 8 {
        return None;
    }
    match e {
        Expr::Binary(BinOp::Add, a, b) => {
            split(a, plus, out, depth + 1)?;
            split(b, plus, out, depth + 1)
        }
        Expr::Binary(BinOp::Sub, a, b) => {
            split(a, plus, out, depth + 1)?;
            split(b, !plus, out, depth + 1)
        }
        Expr::Unary(UnOp::Neg, a) => split(a, !plus, out, depth + 1),
        other => {
            out.push((plus, other));
            (out.len() <= 2).then_some(())
        }
    }
}

/// `x` or `-x` (any number of negations): `(true, x)` for `x`.
fn signed_var(e: &Expr) -> Option<(bool, VarId)> {
    match e {
        Expr::Var(v) => Some((true, *v)),
        Expr::Unary(UnOp::Neg, a) => signed_var(a).map(|(s, v)| (!s, v)),
        _ => None,
    }
}
