//! Tearing of large linear blocks (and, for the simulator, of nonlinear blocks).
//!
//! A linear block of a multibody model (accelerations and reactions of every body, joint and
//! contact) has hundreds of unknowns, but most of its equations are assignments in disguise:
//! `frame.a = parent.a + ...`, `Fj = m*a - f - m*g`, flow sums. Tearing picks a few unknowns
//! (the tearing variables) such that, once they are known, the other unknowns follow one
//! equation at a time; the equations left over are the residuals of a small linear system in
//! the tearing variables. The block is then solved by the code of the assignments followed by an
//! LU of that small system instead of an LU of the whole block.
//!
//! An equation is used as an assignment only when its unknown enters with a numeric nonzero
//! coefficient (after constant folding): dividing by a coefficient that depends on the state
//! could divide by zero at some point of the run. With nonzero pivots the torn system is regular
//! whenever the block is (its matrix is a Schur complement of the block's).

use super::blt::solve_linear;
use super::incidence::{Lin, incidence_frozen};
use super::system::{Block, BlockKind, SortedEquation};
use crate::dae::{Expr, VarId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Linear blocks with at least this many unknowns are torn (smaller ones are solved whole).
const TEAR_MIN: usize = 10;

/// How the simulation solves `block`: torn when it is linear, has at least [`TEAR_MIN`]
/// unknowns and tearing at least halves it; `None` when it is solved whole.
pub fn tear_block(eqs: &[SortedEquation], block: &Block) -> Option<Tearing> {
    if block.kind != BlockKind::Linear || block.vars.len() < TEAR_MIN {
        return None;
    }
    tear_linear_block(eqs, &block.equations, &block.vars)
}

/// The work (unknowns plus incidences, summed over its greedy passes) the improving sweep of
/// [`tear_linear_block`] may spend: a vehicle of 79 omni wheels (a block of 15000 unknowns)
/// still gets the whole sweep, a ring of 5000 two-unknown loops (5000 tearing variables, none
/// improvable) stops after a third of it.
const SWEEP_BUDGET: usize = 60_000_000;

/// Nonlinear blocks with at least this many unknowns are torn by the simulator. Smaller ones
/// are solved whole: Newton's safeguards for piecewise loops (kinks, and the run-time tearing
/// of `sim/torn_root.rs`, up to 6 unknowns) work on the whole block, and an op-amp loop under
/// `noEvent` torn statically converges worse.
pub const TEAR_NONLINEAR_MIN: usize = 7;

/// How the simulation solves the nonlinear `block`: torn when it has at least
/// [`TEAR_NONLINEAR_MIN`] unknowns and tearing at least halves it.
///
/// Newton over all unknowns of a loop treats every intermediate quantity as independent: in
/// a transistor with a heat port (`vt_t = k/q*T`, `hexp = (T/Tnom - 1)*EG/vt_t`,
/// `htempexp = exp(hexp)`, `is_t = Is*(T/Tnom)^XTI*htempexp`, ...) a linearized step from
/// start values that do not satisfy those definitions (`vt_t = 0`, `htempexp = 0`) leaves
/// them far from each other, and the line search then crawls. Torn, the intermediate
/// quantities are computed from the tearing variables by their own equations at every
/// iterate, so Newton works on the few true unknowns of the loop (here the temperature), as
/// Modelica tools do. The torn block is as regular as the block (its Jacobian is the Schur
/// complement for nonzero numeric pivots, see the module comment); the other unknowns need no
/// start values.
pub fn tear_nonlinear_block(eqs: &[SortedEquation], block: &Block) -> Option<Tearing> {
    if block.kind != BlockKind::Nonlinear || block.vars.len() < TEAR_NONLINEAR_MIN {
        return None;
    }
    tear_linear_block(eqs, &block.equations, &block.vars)
}

/// How one linear block is torn.
#[derive(Clone, Debug)]
pub struct Tearing {
    /// Assignments in evaluation order: (equation, variable it computes, expression).
    pub inner: Vec<(usize, VarId, Expr)>,
    /// The tearing variables: the unknowns of the torn system.
    pub tears: Vec<VarId>,
    /// The equations left over: the residuals of the torn system (as many as `tears`).
    pub residuals: Vec<usize>,
}

/// Tears the linear block with equations `block_eqs` (indices into `eqs`) and unknowns `vars`.
/// `None` when tearing does not at least halve the system.
pub fn tear_linear_block(
    eqs: &[SortedEquation],
    block_eqs: &[usize],
    vars: &[VarId],
) -> Option<Tearing> {
    let n = vars.len();
    if n != block_eqs.len() || n == 0 {
        return None;
    }
    let local: std::collections::HashMap<VarId, usize> =
        vars.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    // rows[e]: (local variable, usable as this equation's assignment target).
    let mut rows: Vec<Vec<(usize, bool)>> = Vec::with_capacity(n);
    for &e in block_eqs {
        let inc = incidence_frozen(&eqs[e].residual, &|v| local.contains_key(&v));
        rows.push(
            inc.iter()
                .map(|(v, l)| {
                    let usable = matches!(l, Lin::Linear(Some(c)) if *c != 0.0 && c.is_finite());
                    (local[v], usable)
                })
                .collect(),
        );
    }
    let mut var_eqs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (e, row) in rows.iter().enumerate() {
        for &(v, _) in row {
            var_eqs[v].push(e);
        }
    }
    let g = Graph {
        rows: &rows,
        var_eqs: &var_eqs,
    };
    // The greedy choice of a tearing variable is short-sighted (it may tear an unknown that a
    // chain of assignments would reach later), so in one sweep each tearing variable in turn is
    // forbidden and the pass repeated; a forbidding that gives fewer tearing variables is kept.
    // The sweep makes as many passes as there are tearing variables, and both grow with the
    // block: time quadratic in its size (a ring of 5000 two-unknown loops: 40 s). An unknown
    // that no equation of the block can assign is torn whatever the order, so forbidding it is
    // not tried (the normal forces of a vehicle's roller contacts: a third of its passes), and
    // the sweep stops when its work exceeds [`SWEEP_BUDGET`].
    let pass_cost = n + rows.iter().map(Vec::len).sum::<usize>();
    let mut assignable = vec![false; n];
    for &(v, usable) in rows.iter().flatten() {
        assignable[v] |= usable;
    }
    let mut budget = SWEEP_BUDGET;
    let mut forbidden = vec![false; n];
    let (mut order, mut tears) = g.greedy(&forbidden);
    let mut k = 0;
    while k < tears.len() && budget >= pass_cost {
        let t = tears[k];
        k += 1;
        if forbidden[t] || !assignable[t] {
            continue;
        }
        budget -= pass_cost;
        forbidden[t] = true;
        let (o, ts) = g.greedy(&forbidden);
        if ts.len() < tears.len() {
            (order, tears) = (o, ts);
            k -= 1;
        } else {
            forbidden[t] = false;
        }
    }
    let assigned: std::collections::HashSet<usize> = order.iter().map(|&(e, _)| e).collect();
    if 2 * tears.len() > n {
        return None;
    }
    let mut inner = Vec::with_capacity(order.len());
    for &(e, v) in &order {
        let expr = solve_linear(&eqs[block_eqs[e]].residual, vars[v])?;
        inner.push((block_eqs[e], vars[v], expr));
    }
    let residuals: Vec<usize> = (0..n)
        .filter(|e| !assigned.contains(e))
        .map(|e| block_eqs[e])
        .collect();
    debug_assert_eq!(residuals.len(), tears.len());
    Some(Tearing {
        inner,
        tears: tears.into_iter().map(|v| vars[v]).collect(),
        residuals,
    })
}

/// The block's incidence in local indices: `rows[e]` lists (unknown, usable as the equation's
/// assignment target); `var_eqs[v]` the equations of unknown `v`.
struct Graph<'a> {
    rows: &'a [Vec<(usize, bool)>],
    var_eqs: &'a [Vec<usize>],
}

impl Graph<'_> {
    /// One greedy tearing: the assignments (equation, unknown) in order and the tearing
    /// variables. `forbidden` unknowns are torn only when nothing else is left to tear.
    ///
    /// The unknowns' scores live in a max-heap with lazy deletion: when an equation gains a
    /// known unknown or is assigned, the scores of its unknowns are pushed again, and a popped
    /// entry whose score is no longer current is dropped. Scanning every unknown for each
    /// tearing variable instead made a block of n unknowns with t tearing variables cost
    /// n * t per pass (a 48-wheel vehicle: minutes in the sweep below).
    fn greedy(&self, forbidden: &[bool]) -> (Vec<(usize, usize)>, Vec<usize>) {
        let (rows, var_eqs) = (self.rows, self.var_eqs);
        let n = rows.len();
        let mut st = GreedyState {
            unknown_in: rows.iter().map(|r| r.len()).collect(),
            known: vec![false; n],
            assigned: vec![false; n],
            dirty: Vec::new(),
            is_dirty: vec![false; n],
        };
        let mut order: Vec<(usize, usize)> = Vec::new();
        let mut tears: Vec<usize> = Vec::new();
        let mut nknown = 0;
        let mut queue: VecDeque<usize> = (0..n).filter(|&e| st.unknown_in[e] == 1).collect();
        let mut heap: BinaryHeap<(Score, Reverse<usize>)> = (0..n)
            .map(|v| (self.score(&st, forbidden, v), Reverse(v)))
            .collect();
        let mut stamp = vec![usize::MAX; n];
        let mut round = 0;
        while nknown < n {
            while let Some(e) = queue.pop_front() {
                if st.assigned[e] || st.unknown_in[e] != 1 {
                    continue;
                }
                let Some(&(v, usable)) = rows[e].iter().find(|(v, _)| !st.known[*v]) else {
                    continue;
                };
                if !usable {
                    continue;
                }
                st.assigned[e] = true;
                st.touch(e);
                order.push((e, v));
                nknown += 1;
                st.learn(v, var_eqs, &mut queue);
            }
            if nknown == n {
                break;
            }
            // Fresh scores for the unknowns of every equation that changed since the last
            // choice (each unknown once).
            round += 1;
            for e in std::mem::take(&mut st.dirty) {
                st.is_dirty[e] = false;
                for &(u, _) in &rows[e] {
                    if !st.known[u] && stamp[u] != round {
                        stamp[u] = round;
                        heap.push((self.score(&st, forbidden, u), Reverse(u)));
                    }
                }
            }
            let v = loop {
                let Some((score, Reverse(v))) = heap.pop() else {
                    break None;
                };
                if !st.known[v] && score == self.score(&st, forbidden, v) {
                    break Some(v);
                }
            };
            let Some(v) = v else { break };
            tears.push(v);
            nknown += 1;
            st.learn(v, var_eqs, &mut queue);
        }
        (order, tears)
    }

    /// A tearing variable's rank: not forbidden, then one that no equation left can assign
    /// (it must be torn anyway), then the one that completes most equations (those with two
    /// unknowns left), then the one in most equations; the first in block order on ties (the
    /// heap's `Reverse` index).
    fn score(&self, st: &GreedyState, forbidden: &[bool], v: usize) -> Score {
        let mut pairs = 0;
        let mut total = 0;
        let mut assignable = false;
        for &e in &self.var_eqs[v] {
            if !st.assigned[e] {
                total += 1;
                if st.unknown_in[e] == 2 {
                    pairs += 1;
                }
                assignable |= self.rows[e].iter().any(|&(u, usable)| u == v && usable);
            }
        }
        (!forbidden[v], !assignable, pairs, total)
    }
}

/// (not forbidden, not assignable, equations completed, equations): larger is torn first.
type Score = (bool, bool, usize, usize);

/// What one greedy pass knows: unknowns per equation, known unknowns, assigned equations, and
/// the equations changed since the scores were last refreshed.
struct GreedyState {
    unknown_in: Vec<usize>,
    known: Vec<bool>,
    assigned: Vec<bool>,
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
}

impl GreedyState {
    fn touch(&mut self, e: usize) {
        if !self.is_dirty[e] {
            self.is_dirty[e] = true;
            self.dirty.push(e);
        }
    }

    /// Marks `v` known and queues the equations it leaves with one unknown.
    fn learn(&mut self, v: usize, var_eqs: &[Vec<usize>], queue: &mut VecDeque<usize>) {
        self.known[v] = true;
        for &e in &var_eqs[v] {
            self.unknown_in[e] -= 1;
            self.touch(e);
            if self.unknown_in[e] == 1 {
                queue.push_back(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dae::BinOp;
    use crate::diag::Span;

    fn eq(residual: Expr) -> SortedEquation {
        SortedEquation {
            residual,
            origin: 0,
            differentiated: 0,
            span: Span::DUMMY,
            component: String::new(),
        }
    }
    fn v(i: VarId) -> Expr {
        Expr::Var(i)
    }
    /// The greedy pass as first written: every unknown scanned for each tearing variable.
    fn greedy_by_scan(g: &Graph, forbidden: &[bool]) -> (Vec<(usize, usize)>, Vec<usize>) {
        let n = g.rows.len();
        let mut st = GreedyState {
            unknown_in: g.rows.iter().map(|r| r.len()).collect(),
            known: vec![false; n],
            assigned: vec![false; n],
            dirty: Vec::new(),
            is_dirty: vec![false; n],
        };
        let (mut order, mut tears, mut nknown) = (Vec::new(), Vec::new(), 0);
        let mut queue: VecDeque<usize> = (0..n).filter(|&e| st.unknown_in[e] == 1).collect();
        while nknown < n {
            while let Some(e) = queue.pop_front() {
                if st.assigned[e] || st.unknown_in[e] != 1 {
                    continue;
                }
                let Some(&(v, usable)) = g.rows[e].iter().find(|(v, _)| !st.known[*v]) else {
                    continue;
                };
                if usable {
                    st.assigned[e] = true;
                    order.push((e, v));
                    nknown += 1;
                    st.learn(v, g.var_eqs, &mut queue);
                }
            }
            if nknown == n {
                break;
            }
            let mut best: Option<(usize, Score)> = None;
            for v in (0..n).filter(|&v| !st.known[v]) {
                let score = g.score(&st, forbidden, v);
                if best.is_none_or(|(_, b)| score > b) {
                    best = Some((v, score));
                }
            }
            let Some((v, _)) = best else { break };
            tears.push(v);
            nknown += 1;
            st.learn(v, g.var_eqs, &mut queue);
        }
        (order, tears)
    }

    /// The heap keeps the scan's choices exactly (same tearing variables, same order of
    /// assignments) on random square incidences with unusable entries and forbidden unknowns.
    #[test]
    fn the_heap_greedy_chooses_as_the_scan_does() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as usize
        };
        for case in 0..300 {
            let n = 2 + next(40);
            let mut rows: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
            for (e, row) in rows.iter_mut().enumerate() {
                // A diagonal keeps the incidence structurally regular, as in a real block.
                row.push((e, next(5) != 0));
                for _ in 0..next(4) {
                    let u = next(n as u64);
                    if row.iter().all(|&(w, _)| w != u) {
                        row.push((u, next(4) != 0));
                    }
                }
            }
            let mut var_eqs = vec![Vec::new(); n];
            for (e, row) in rows.iter().enumerate() {
                for &(u, _) in row {
                    var_eqs[u].push(e);
                }
            }
            let g = Graph {
                rows: &rows,
                var_eqs: &var_eqs,
            };
            let forbidden: Vec<bool> = (0..n).map(|_| next(6) == 0).collect();
            assert_eq!(
                g.greedy(&forbidden),
                greedy_by_scan(&g, &forbidden),
                "case {case}"
            );
        }
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// A chain `x[i+1] = x[i] + c*y` closed by `k*x[n] = y` (k = variable 100, known): one
    /// tearing variable, every other unknown assigned, and the assignments solve the block.
    #[test]
    fn a_closed_chain_tears_to_one_unknown() {
        let n = 12;
        let (y, k, c) = (n, 100, 101);
        let mut eqs = Vec::new();
        // x0 = 1 + y
        eqs.push(eq(bin(
            BinOp::Sub,
            v(0),
            bin(BinOp::Add, Expr::Integer(1), v(y)),
        )));
        for i in 0..n - 1 {
            // x[i+1] - (x[i] + c*y)
            eqs.push(eq(bin(
                BinOp::Sub,
                v(i + 1),
                bin(BinOp::Add, v(i), bin(BinOp::Mul, v(c), v(y))),
            )));
        }
        // k*x[n-1] - y: y enters with coefficient -1 but x[n-1] with the state-like k.
        eqs.push(eq(bin(BinOp::Sub, bin(BinOp::Mul, v(k), v(n - 1)), v(y))));
        let vars: Vec<VarId> = (0..=n).collect();
        let block: Vec<usize> = (0..=n).collect();
        let t = tear_linear_block(&eqs, &block, &vars).expect("torn");
        assert_eq!(t.tears.len(), 1);
        assert_eq!(t.residuals.len(), 1);
        assert_eq!(t.inner.len(), n);
        // Every unknown is either torn or assigned exactly once, and an assignment only reads
        // unknowns that are torn or assigned before it.
        let mut known: Vec<VarId> = t.tears.clone();
        for (_, var, expr) in &t.inner {
            let mut ok = true;
            expr.visit(&mut |x| {
                if let Expr::Var(u) = x
                    && vars.contains(u)
                    && !known.contains(u)
                {
                    ok = false;
                }
            });
            assert!(ok, "assignment of {var} reads an unknown not yet computed");
            known.push(*var);
        }
        known.sort_unstable();
        assert_eq!(known, vars);
    }

    /// No equation has a numeric coefficient for any unknown: nothing can be assigned, so the
    /// block is left whole.
    #[test]
    fn state_dependent_coefficients_are_never_divided_by() {
        let (a, b) = (10, 11);
        let eqs = vec![
            eq(bin(
                BinOp::Add,
                bin(BinOp::Mul, v(a), v(0)),
                bin(BinOp::Mul, v(b), v(1)),
            )),
            eq(bin(
                BinOp::Sub,
                bin(BinOp::Mul, v(b), v(0)),
                bin(BinOp::Mul, v(a), v(1)),
            )),
        ];
        assert!(tear_linear_block(&eqs, &[0, 1], &[0, 1]).is_none());
    }
}
