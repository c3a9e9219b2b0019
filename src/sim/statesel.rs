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
    for set in &engine.prog.state_sets {
        let mut a = vec![0.0; set.rows * set.cols];
        for &(r, c, reg) in &set.entries {
            if r < set.rows && c < set.cols {
                a[r * set.cols + c] = engine.regs[reg as usize];
            }
        }
        let current = det_of(&a, set.rows, set.cols, &set.dummy_cols).abs();
        // The best choice by complete pivoting: O(rows² · cols), where enumerating the
        // combinations would be exponential (a contact of a rigid body gives dozens of
        // candidates).
        let best = pivot_columns(&a, set.rows, set.cols);
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

/// Columns chosen by Gaussian elimination with complete pivoting (largest remaining entry
/// first) on the `rows x cols` row-major matrix `a`, with the absolute determinant of the
/// square submatrix they form (the product of the pivots). `None` when the rows are dependent.
fn pivot_columns(a: &[f64], rows: usize, cols: usize) -> Option<(f64, Vec<usize>)> {
    if rows > cols || a.len() != rows * cols {
        return None;
    }
    let mut m = a.to_vec();
    let mut row_done = vec![false; rows];
    let mut col_done = vec![false; cols];
    let mut chosen = Vec::with_capacity(rows);
    let mut det = 1.0f64;
    for _ in 0..rows {
        let mut best: Option<(usize, usize, f64)> = None;
        for i in (0..rows).filter(|&i| !row_done[i]) {
            for j in (0..cols).filter(|&j| !col_done[j]) {
                let v = m[i * cols + j].abs();
                if v.is_finite() && best.is_none_or(|(_, _, b)| v > b) {
                    best = Some((i, j, v));
                }
            }
        }
        let (p, q, v) = best?;
        if v == 0.0 {
            return None;
        }
        row_done[p] = true;
        col_done[q] = true;
        chosen.push(q);
        det *= v;
        let piv = m[p * cols + q];
        for i in (0..rows).filter(|&i| !row_done[i]) {
            let f = m[i * cols + q] / piv;
            if f != 0.0 {
                for j in 0..cols {
                    m[i * cols + j] -= f * m[p * cols + j];
                }
            }
        }
    }
    chosen.sort_unstable();
    Some((det, chosen))
}

/// Determinant of the square submatrix of `a` (rows x cols, row-major) made of `cols_sel`.
fn det_of(a: &[f64], rows: usize, cols: usize, cols_sel: &[usize]) -> f64 {
    let n = rows;
    if cols_sel.len() != n {
        return 0.0;
    }
    let mut m: Vec<f64> = (0..n)
        .flat_map(|r| cols_sel.iter().map(move |&c| a[r * cols + c]))
        .collect();
    let mut det = 1.0;
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i * n + k].abs().total_cmp(&m[j * n + k].abs()))
            .unwrap_or(k);
        if m[p * n + k] == 0.0 {
            return 0.0;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn determinant_of_selected_columns() {
        // [[1, 2, 3], [4, 5, 6]]: columns 0 and 2 -> 1*6 - 3*4 = -6
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert!((det_of(&a, 2, 3, &[0, 2]) + 6.0).abs() < 1e-12);
    }

    #[test]
    fn pivoting_picks_the_best_conditioned_columns() {
        // [[1, 0, 3], [0, 0.1, 2]]: the first pivot is the 3 at (0, 2); row 1 then reduces to
        // [-2/3, 0.1, 0], whose largest entry picks column 0 (|det| = |1 * 2 - 3 * 0| = 2).
        let a = [1.0, 0.0, 3.0, 0.0, 0.1, 2.0];
        let (det, cols) = pivot_columns(&a, 2, 3).expect("regular");
        assert_eq!(cols, vec![0, 2]);
        assert!((det - det_of(&a, 2, 3, &[0, 2]).abs()).abs() < 1e-12);
        // Dependent rows have no regular choice.
        assert!(pivot_columns(&[1.0, 2.0, 2.0, 4.0], 2, 2).is_none());
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
        let (det, cols) = pivot_columns(&big, r, c).expect("regular");
        assert_eq!(cols.len(), r);
        assert!(det > 0.0);
    }
}
