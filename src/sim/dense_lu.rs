//! Dense LU with partial pivoting for algebraic blocks, and the regularized (least-squares)
//! step that block solves take at a singular Jacobian.
//!
//! Blocks are usually small (a few to a few dozen unknowns), so a plain dense LU without
//! allocation in the hot path beats a general-purpose library call here.

/// An LU factorization `P A = L U` of a square matrix stored row-major.
#[derive(Clone, Debug, Default)]
pub struct Lu {
    n: usize,
    a: Vec<f64>,
    piv: Vec<usize>,
    /// Smallest pivot magnitude relative to the largest: a cheap condition indicator.
    pub pivot_ratio: f64,
    /// The column of the smallest pivot.
    pub min_pivot_column: usize,
}

impl Lu {
    /// Factorizes `a` (row-major, n x n) in place. Returns the index of the first zero pivot
    /// column if the matrix is singular.
    pub fn factor(&mut self, n: usize, a: &[f64]) -> Result<(), usize> {
        self.n = n;
        self.a.clear();
        self.a.extend_from_slice(a);
        self.piv.clear();
        self.piv.extend(0..n);
        let m = &mut self.a;
        let (mut pmin, mut pmax) = (f64::INFINITY, 0.0f64);
        self.min_pivot_column = 0;
        for k in 0..n {
            let mut p = k;
            let mut best = m[k * n + k].abs();
            for i in k + 1..n {
                let v = m[i * n + k].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if best == 0.0 || !best.is_finite() {
                return Err(k);
            }
            if best < pmin {
                pmin = best;
                self.min_pivot_column = k;
            }
            pmax = pmax.max(best);
            if p != k {
                for j in 0..n {
                    m.swap(k * n + j, p * n + j);
                }
                self.piv.swap(k, p);
            }
            let d = m[k * n + k];
            for i in k + 1..n {
                let f = m[i * n + k] / d;
                if f != 0.0 {
                    m[i * n + k] = f;
                    for j in k + 1..n {
                        m[i * n + j] -= f * m[k * n + j];
                    }
                } else {
                    m[i * n + k] = 0.0;
                }
            }
        }
        self.pivot_ratio = if pmax > 0.0 { pmin / pmax } else { 0.0 };
        Ok(())
    }

    /// Solves `A x = b` in place.
    pub fn solve(&self, b: &mut [f64], tmp: &mut Vec<f64>) {
        let n = self.n;
        tmp.clear();
        tmp.extend(self.piv.iter().map(|&p| b[p]));
        let m = &self.a;
        for i in 0..n {
            let mut s = tmp[i];
            for j in 0..i {
                s -= m[i * n + j] * tmp[j];
            }
            tmp[i] = s;
        }
        for i in (0..n).rev() {
            let mut s = tmp[i];
            for j in i + 1..n {
                s -= m[i * n + j] * tmp[j];
            }
            tmp[i] = s / m[i * n + i];
        }
        b[..n].copy_from_slice(&tmp[..n]);
    }
}

/// How strongly a regularized step is damped: `mu = relative * max diag(JᵀJ)`, or `at_zero`
/// when that diagonal is zero (`None`: no step then).
#[derive(Clone, Copy, Debug)]
pub struct Regularization {
    pub relative: f64,
    pub at_zero: Option<f64>,
}

/// The damping of block solves (and of a block's least-squares tangent).
pub const BLOCK_REGULARIZATION: Regularization = Regularization {
    relative: 1e-8,
    at_zero: None,
};

/// `JᵀJ + mu I` for the row-major `n x n` matrix `J`, with `mu` 1e-8 of the largest diagonal of
/// `JᵀJ`; `None` when that diagonal is zero or not finite.
pub fn regularized_normal_matrix(jac: &[f64], n: usize) -> Option<Vec<f64>> {
    normal_matrix_with(jac, n, BLOCK_REGULARIZATION)
}

/// `JᵀJ + mu I` with `mu` chosen by `reg`; `None` when the largest diagonal of `JᵀJ` is not
/// finite, or zero without `reg.at_zero`.
fn normal_matrix_with(jac: &[f64], n: usize, reg: Regularization) -> Option<Vec<f64>> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = (0..n).map(|k| jac[k * n + i] * jac[k * n + j]).sum();
        }
    }
    let dmax = (0..n).map(|i| m[i * n + i]).fold(0.0f64, f64::max);
    if !dmax.is_finite() {
        return None;
    }
    let mu = if dmax > 0.0 {
        reg.relative * dmax
    } else {
        reg.at_zero?
    };
    for i in 0..n {
        m[i * n + i] += mu;
    }
    Some(m)
}

/// A regularized Gauss-Newton (Levenberg-Marquardt) step for a singular Jacobian:
/// `(JᵀJ + mu I) d = Jᵀ r` with `mu` as `reg` says. Where `J` is regular this is close to the
/// Newton step `J⁻¹ r`; along directions where it is singular the step stays small instead of
/// undefined. `jac` is row-major `n x n`; the step replaces `r`. `Err(None)`: no normal matrix
/// ([`normal_matrix_with`]); `Err(Some(column))`: the normal matrix is singular there.
pub fn regularized_solve(
    jac: &[f64],
    n: usize,
    r: &mut [f64],
    lu: &mut Lu,
    tmp: &mut Vec<f64>,
    reg: Regularization,
) -> Result<(), Option<usize>> {
    let m = normal_matrix_with(jac, n, reg).ok_or(None)?;
    let rhs: Vec<f64> = (0..n)
        .map(|j| (0..n).map(|k| jac[k * n + j] * r[k]).sum())
        .collect();
    lu.factor(n, &m).map_err(Some)?;
    r[..n].copy_from_slice(&rhs);
    lu.solve(r, tmp);
    Ok(())
}

/// The regularized step of a block solve ([`regularized_solve`] with
/// [`BLOCK_REGULARIZATION`]). A start value that zeroes a product (`v = R*i` with `R` and `i`
/// both 0: a zero row) makes the Jacobian singular at the first guess only; this step moves the
/// other unknowns so that the next Newton step is regular again. Returns false when even this
/// system is singular or the step is not finite.
pub fn regularized_step(
    jac: &[f64],
    n: usize,
    r: &mut [f64],
    lu: &mut Lu,
    tmp: &mut Vec<f64>,
) -> bool {
    regularized_solve(jac, n, r, lu, tmp, BLOCK_REGULARIZATION).is_ok()
        && r[..n].iter().all(|x| x.is_finite())
}

/// The columns of the row-major `n x n` matrix `a` that Gaussian elimination with complete
/// pivoting leaves without a pivot above `tol` times the largest entry: a set of unknowns the
/// equations do not determine, numerically (the rank deficiency of a Jacobian whose rounding
/// keeps it from being exactly singular). Complete pivoting takes the best-determined columns
/// first, so what is left spans the directions in which the equations do not change. Empty
/// for a regular matrix.
pub fn undetermined_columns(a: &[f64], n: usize, tol: f64) -> Vec<usize> {
    let mut m = a.to_vec();
    let mut cols: Vec<usize> = (0..n).collect();
    let largest = m.iter().fold(0.0f64, |x, v| x.max(v.abs()));
    if !largest.is_finite() {
        return Vec::new();
    }
    for k in 0..n {
        // The largest remaining entry, rows and columns k.. (column order by `cols`).
        let (mut pi, mut pj, mut best) = (k, k, 0.0f64);
        for i in k..n {
            for j in k..n {
                let v = m[i * n + j].abs();
                if v > best {
                    (pi, pj, best) = (i, j, v);
                }
            }
        }
        if best <= tol * largest {
            let mut left = cols[k..].to_vec();
            left.sort_unstable();
            return left;
        }
        for j in 0..n {
            m.swap(k * n + j, pi * n + j);
        }
        for i in 0..n {
            m.swap(i * n + k, i * n + pj);
        }
        cols.swap(k, pj);
        let d = m[k * n + k];
        for i in k + 1..n {
            let f = m[i * n + k] / d;
            if f != 0.0 {
                for j in k..n {
                    m[i * n + j] -= f * m[k * n + j];
                }
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_a_pivoting_system() {
        // [[0, 2, 1], [1, 1, 0], [3, 0, 1]] x = [5, 3, 6]  ->  x = [1.5, 1.5, 1.5]... checked below
        let a = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let x_true = [1.0, 2.0, 3.0];
        let mut b = [0.0; 3];
        for i in 0..3 {
            b[i] = (0..3).map(|j| a[i * 3 + j] * x_true[j]).sum();
        }
        let mut lu = Lu::default();
        lu.factor(3, &a).unwrap();
        let mut tmp = Vec::new();
        lu.solve(&mut b, &mut tmp);
        for i in 0..3 {
            assert!((b[i] - x_true[i]).abs() < 1e-14);
        }
    }

    #[test]
    fn undetermined_columns_are_those_left_without_a_pivot() {
        // x0 + x2 = 1 twice (up to rounding), x1 = 2: x0 and x2 only as a sum, so one of
        // them is undetermined; the first pivots are the larger entries.
        let a = [1.0, 0.0, 2.0, 1.0 + 1e-17, 0.0, 2.0, 0.0, 3.0, 0.0];
        assert_eq!(undetermined_columns(&a, 3, 1e-13), vec![0]);
        let regular = [2.0, 1.0, 1.0, 3.0];
        assert!(undetermined_columns(&regular, 2, 1e-13).is_empty());
    }

    #[test]
    fn lu_reports_singular_column() {
        let a = [1.0, 2.0, 2.0, 4.0];
        let mut lu = Lu::default();
        assert_eq!(lu.factor(2, &a), Err(1));
    }
}
