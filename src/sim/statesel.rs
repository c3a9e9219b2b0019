//! Dynamic state selection: watching the state sets and asking for a new choice.
//!
//! Structural analysis records, for constraints whose dummy derivatives could be chosen in
//! several ways, the Jacobian of the constraints with respect to the candidates. The choice is
//! regular where the square submatrix of the chosen (dummy) columns is nonsingular. After every
//! accepted step the simulator evaluates these Jacobians; when the determinant of the current
//! choice falls below a tenth of the best available choice, it asks structure for a new
//! selection and restarts the integrator from the current point. The factor ten is a hysteresis
//! that keeps the choice from chattering near the crossover (at 45° for the pendulum).

use super::eval::Engine;
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
        let mut best: Option<(f64, Vec<usize>)> = None;
        let mut count = 0;
        combinations(set.cols, set.rows, &mut Vec::new(), 0, &mut |cols| {
            count += 1;
            if count > 500 {
                return;
            }
            let d = det_of(&a, set.rows, set.cols, cols).abs();
            if best.as_ref().is_none_or(|(b, _)| d > *b) {
                best = Some((d, cols.to_vec()));
            }
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

fn combinations(
    n: usize,
    k: usize,
    cur: &mut Vec<usize>,
    start: usize,
    f: &mut impl FnMut(&[usize]),
) {
    if cur.len() == k {
        f(cur);
        return;
    }
    for i in start..n {
        cur.push(i);
        combinations(n, k, cur, i + 1, f);
        cur.pop();
    }
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
        let mut all = Vec::new();
        combinations(3, 2, &mut Vec::new(), 0, &mut |c| all.push(c.to_vec()));
        assert_eq!(all, vec![vec![0, 1], vec![0, 2], vec![1, 2]]);
    }
}
