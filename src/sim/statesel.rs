//! Dynamic state selection: watching the state sets and asking for a new choice.
//!
//! Structural analysis records, for constraints whose dummy derivatives could be chosen in
//! several ways, the Jacobian of the constraints with respect to the candidates. The choice is
//! regular where the square submatrix of the chosen (dummy) columns is nonsingular. After every
//! accepted step the simulator evaluates these Jacobians; when the determinant of the current
//! choice falls below a tenth of the best choice found by complete pivoting (largest pivots
//! first, polynomial even for the dozens of candidates of a rigid contact), it asks structure for a new
//! selection and restarts the integrator from the current point. The factor ten is a hysteresis
//! that keeps the choice from chattering near the crossover (at 45° for the pendulum).

use super::engine::Engine;
use super::tape::run;
use crate::dae::VarId;
use std::cmp::Reverse;

/// Switch when the current choice is this much worse than the best.
const HYSTERESIS: f64 = 0.1;

/// Checks every state set at the current point (after the main pass and outputs). Returns the
/// variables to prefer as states when the current choice should change.
pub fn check(engine: &mut Engine) -> Option<Vec<VarId>> {
    if engine.prog.state_sets.is_empty() {
        return None;
    }
    let code = engine.prog.state_set_code.clone();
    run(&engine.prog.code[code], &mut engine.regs);
    let mut switch = false;
    let mut prefer = Vec::new();
    let n_sets = engine.prog.state_sets.len();
    engine.set_checks.resize(n_sets, None);
    for (si, set) in engine.prog.state_sets.iter().enumerate() {
        // One sparse elimination for every set: a pendulum's 1 x 2 set and the 426 constraints
        // of an engine's six crank loops alike.
        let rows = sparse_rows(set, &engine.regs);
        let mut in_current = vec![false; set.cols];
        for &c in &set.dummy_cols {
            if let Some(x) = in_current.get_mut(c) {
                *x = true;
            }
        }
        // Pivots restricted to the chosen columns: |det| of the current choice's submatrix.
        let current = if set.dummy_cols.len() == set.rows {
            sparse_pivot(rows.clone(), set.rows, set.cols, &in_current).map_or(0.0, |(d, _)| d)
        } else {
            0.0
        };
        // The search for the best choice (complete pivoting: O(rows² · cols), where
        // enumerating the combinations would be exponential) is the expensive part on large
        // sets: there it is repeated when the current choice has lost half its determinant
        // since the last search, and every REFRESH checks; in between the last best stands
        // (the current choice is regular against it).
        let last = &mut engine.set_checks[si];
        if set.rows * set.cols > LARGE_SET
            && let Some(l) = last
            && l.age < REFRESH
            && current.is_finite()
            && current >= 0.5 * l.current
            && current >= HYSTERESIS * l.best
        {
            l.age += 1;
            for c in 0..set.cols {
                if !set.dummy_cols.contains(&c) {
                    prefer.push(set.candidate_states[c]);
                }
            }
            continue;
        }
        let all = vec![true; set.cols];
        let best = sparse_pivot(rows, set.rows, set.cols, &all);
        *last = best.as_ref().map(|(b, _)| LastCheck {
            current,
            best: *b,
            age: 0,
        });
        let Some((best_det, best_cols)) = best else {
            continue;
        };
        // NaN determinants count as singular.
        let regular = current >= HYSTERESIS * best_det;
        if !regular {
            switch = true;
        }
        let keep = if regular { &set.dummy_cols } else { &best_cols };
        for c in 0..set.cols {
            if !keep.contains(&c) {
                prefer.push(set.candidate_states[c]);
            }
        }
    }
    prefer.sort_unstable();
    prefer.dedup();
    switch.then_some(prefer)
}

/// Sets with more entries than this (rows x cols) search for their best choice only now and
/// then (see [`REFRESH`]).
const LARGE_SET: usize = 40 * 40;

/// Checks of a large set between two searches for the best choice.
const REFRESH: usize = 16;

/// The last complete check of a large set: the current choice's determinant then, the best
/// one, and the checks made since.
#[derive(Clone, Copy, Debug)]
pub struct LastCheck {
    current: f64,
    best: f64,
    age: usize,
}

/// The set's Jacobian as sparse rows of `(column, value)`, zeros left out.
fn sparse_rows(set: &super::program::SetMonitor, regs: &[f64]) -> Vec<Vec<(usize, f64)>> {
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); set.rows];
    for &(r, c, reg) in &set.entries {
        let v = regs.get(reg as usize).copied().unwrap_or(f64::NAN);
        if r < set.rows && c < set.cols && v != 0.0 {
            rows[r].push((c, v));
        }
    }
    rows
}

/// Gaussian elimination with complete pivoting (largest remaining entry first) on sparse rows,
/// pivots taken only in the `allowed` columns: the absolute determinant of the square
/// submatrix the chosen columns form (the product of the pivots) and those columns, or `None`
/// when the rows are dependent on them. Each row's largest eligible entry is kept in a heap and
/// recomputed only for the rows an elimination step touches (the others hold no entry in the
/// pivot column), so choosing a pivot scans neither every nonzero nor every row: an engine's
/// 426-row set is checked after every accepted step.
fn sparse_pivot(
    mut rows: Vec<Vec<(usize, f64)>>,
    n_rows: usize,
    n_cols: usize,
    allowed: &[bool],
) -> Option<(f64, Vec<usize>)> {
    if n_rows > n_cols {
        return None;
    }
    // Rows holding (or having held) an entry in each column.
    let mut col_rows: Vec<Vec<usize>> = vec![Vec::new(); n_cols];
    for (i, r) in rows.iter().enumerate() {
        for &(c, _) in r {
            col_rows[c].push(i);
        }
    }
    let mut row_done = vec![false; n_rows];
    let mut col_done = vec![false; n_cols];
    // Each row's largest eligible entry in a max-heap ordered by magnitude, then by the
    // first row (ties); an entry is current while its row's stamp is unchanged.
    let mut stamp = vec![0usize; n_rows];
    let mut heap = std::collections::BinaryHeap::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some((j, a)) = row_best(r, allowed, &col_done) {
            heap.push((a.to_bits(), Reverse(i), j, 0usize));
        }
    }
    // Where each column sits in the row being updated (usize::MAX: absent).
    let mut pos = vec![usize::MAX; n_cols];
    let mut chosen = Vec::with_capacity(n_rows);
    let mut det = 1.0f64;
    for _ in 0..n_rows {
        // Ties go to the first row (and within a row to the first column, by `row_best`).
        // The magnitudes are finite and not negative, so their bits order as they do.
        let (p, q, v) = loop {
            let (bits, Reverse(i), j, st) = heap.pop()?;
            if !row_done[i] && stamp[i] == st {
                break (i, j, f64::from_bits(bits));
            }
        };
        if v == 0.0 {
            return None;
        }
        row_done[p] = true;
        col_done[q] = true;
        chosen.push(q);
        det *= v;
        let prow = std::mem::take(&mut rows[p]);
        let piv = prow.iter().find(|(j, _)| *j == q).map_or(1.0, |(_, x)| *x);
        let mut targets = std::mem::take(&mut col_rows[q]);
        targets.sort_unstable();
        targets.dedup();
        for &i in &targets {
            if row_done[i] {
                continue;
            }
            eliminate(&mut rows[i], i, &prow, q, piv, &mut pos, &mut col_rows);
            stamp[i] += 1;
            if let Some((j, a)) = row_best(&rows[i], allowed, &col_done) {
                heap.push((a.to_bits(), Reverse(i), j, stamp[i]));
            }
        }
        col_rows[q] = targets;
        rows[p] = prow;
    }
    chosen.sort_unstable();
    Some((det, chosen))
}

/// The largest finite entry of a row in an allowed column not yet pivoted, the first column
/// on ties.
fn row_best(r: &[(usize, f64)], allowed: &[bool], col_done: &[bool]) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for &(j, v) in r {
        let a = v.abs();
        if allowed[j]
            && !col_done[j]
            && a.is_finite()
            && best.is_none_or(|(bj, b)| a > b || (a == b && j < bj))
        {
            best = Some((j, a));
        }
    }
    best
}

/// Subtracts the multiple of the pivot row `prow` that clears column `q` from row `row`
/// (number `i`); new nonzeros are registered in `col_rows`. `pos` is all `usize::MAX` on entry
/// and on return.
fn eliminate(
    row: &mut Vec<(usize, f64)>,
    i: usize,
    prow: &[(usize, f64)],
    q: usize,
    piv: f64,
    pos: &mut [usize],
    col_rows: &mut [Vec<usize>],
) {
    let Some(k) = row.iter().position(|(j, _)| *j == q) else {
        return;
    };
    let f = row[k].1 / piv;
    row.swap_remove(k);
    for (idx, &(c, _)) in row.iter().enumerate() {
        pos[c] = idx;
    }
    for &(j, x) in prow {
        if j == q {
            continue;
        }
        match pos[j] {
            usize::MAX => {
                row.push((j, -f * x));
                col_rows[j].push(i);
            }
            k => row[k].1 -= f * x,
        }
    }
    for &(c, _) in row.iter() {
        pos[c] = usize::MAX;
    }
    row.retain(|(_, x)| *x != 0.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dense rows of a row-major matrix as the sparse rows `sparse_pivot` takes.
    fn sparse(a: &[f64], rows: usize, cols: usize) -> Vec<Vec<(usize, f64)>> {
        (0..rows)
            .map(|i| {
                (0..cols)
                    .filter(|&j| a[i * cols + j] != 0.0)
                    .map(|j| (j, a[i * cols + j]))
                    .collect()
            })
            .collect()
    }

    /// The oracle: determinant of the square submatrix of columns `sel`, by LU with partial
    /// pivoting.
    fn det_of(a: &[f64], rows: usize, cols: usize, sel: &[usize]) -> f64 {
        let n = rows;
        let mut m: Vec<f64> = (0..n)
            .flat_map(|r| sel.iter().map(move |&c| a[r * cols + c]))
            .collect();
        let mut det = 1.0;
        for k in 0..n {
            let p = (k..n)
                .max_by(|&i, &j| m[i * n + k].abs().total_cmp(&m[j * n + k].abs()))
                .unwrap_or(k);
            if p != k {
                for j in 0..n {
                    m.swap(k * n + j, p * n + j);
                }
                det = -det;
            }
            det *= m[k * n + k];
            for i in k + 1..n {
                let f = m[i * n + k] / m[k * n + k];
                for j in k..n {
                    m[i * n + j] -= f * m[k * n + j];
                }
            }
        }
        det
    }

    fn only(cols: usize, sel: &[usize]) -> Vec<bool> {
        (0..cols).map(|c| sel.contains(&c)).collect()
    }

    #[test]
    fn determinant_of_selected_columns() {
        // [[1, 2, 3], [4, 5, 6]]: columns 0 and 2 -> |1*6 - 3*4| = 6
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let (det, cols) = sparse_pivot(sparse(&a, 2, 3), 2, 3, &only(3, &[0, 2])).expect("regular");
        assert_eq!(cols, vec![0, 2]);
        assert!((det - 6.0).abs() < 1e-12);
    }

    #[test]
    fn pivoting_picks_the_best_conditioned_columns() {
        // [[1, 0, 3], [0, 0.1, 2]]: the first pivot is the 3 at (0, 2); row 1 then reduces to
        // [-2/3, 0.1, 0], whose largest entry picks column 0 (|det| = |1 * 2 - 3 * 0| = 2).
        let a = [1.0, 0.0, 3.0, 0.0, 0.1, 2.0];
        let (det, cols) = sparse_pivot(sparse(&a, 2, 3), 2, 3, &[true; 3]).expect("regular");
        assert_eq!(cols, vec![0, 2]);
        assert!((det - 2.0).abs() < 1e-12);
        // Dependent rows have no regular choice.
        let dep = [1.0, 2.0, 2.0, 4.0];
        assert!(sparse_pivot(sparse(&dep, 2, 2), 2, 2, &[true; 2]).is_none());
        // A large set stays fast: 30 rows, 40 columns (C(40, 30) combinations).
        let (r, c) = (30, 40);
        let big: Vec<f64> = (0..r * c)
            .map(|k| {
                if k % c == k / c {
                    1.0
                } else {
                    0.01 * ((k * 7919) % 13) as f64
                }
            })
            .collect();
        let (det, cols) = sparse_pivot(sparse(&big, r, c), r, c, &vec![true; c]).expect("regular");
        assert_eq!(cols.len(), r);
        assert!((det - det_of(&big, r, c, &cols).abs()).abs() <= 1e-9 * det);
        // Restricted to given columns: the determinant of that square submatrix.
        let (d2, _) = sparse_pivot(sparse(&big, r, c), r, c, &only(c, &cols)).expect("regular");
        assert!((d2 - det).abs() <= 1e-9 * d2);
    }
}
