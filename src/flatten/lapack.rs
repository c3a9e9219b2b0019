//! The LAPACK routines behind `Modelica.Math.Matrices` (`solve`, `LU`, `LU_solve`, `det`,
//! `leastSquares`, `equalityLeastSquares`, and through them `Polynomials.fitting`), computed
//! natively: no Fortran is linked, and these few routines are what the MSL's examples and media
//! reach (pump characteristics solved at parameter time, fitted property polynomials of
//! incompressible media).
//!
//! Each routine is called with the inputs of its `Modelica.Math.Matrices.LAPACK` wrapper (the
//! `_vec` variants pass a vector where the matrix variants pass a matrix) and returns that
//! wrapper's outputs in order, with LAPACK's `info` convention: 0 on success, `i > 0` for the
//! first exactly zero pivot (`dgetrf`, `dgesv`), 1 or 2 for a rank-deficient constraint or
//! stacked matrix (`dgglse`). The wrappers' callers assert `info == 0`, so a singular system
//! stops the run with the MSL's own message rather than with a made-up solution.

use super::func_eval::Value;
use super::tensor::{Tensor, Val};
use nalgebra::{DMatrix, DVector};

/// The C (Fortran) names computed here.
pub const ROUTINES: &[&str] = &["dgesv", "dgetrf", "dgetrs", "dgelsy", "dgglse"];

/// Runs LAPACK routine `c_name` (called through the Modelica function `name`).
pub fn call(c_name: &str, name: &str, inputs: &[&Value]) -> Result<Vec<Value>, String> {
    let arg = |k: usize| -> Result<&Value, String> {
        inputs
            .get(k)
            .copied()
            .ok_or_else(|| format!("`{name}`: argument {} is missing", k + 1))
    };
    match c_name {
        "dgetrf" => {
            let a = matrix(name, arg(0)?)?;
            let (lu, piv, info) = getrf(a);
            Ok(vec![from_matrix(&lu), ints(&piv), int(info)])
        }
        "dgetrs" => {
            let lu = matrix(name, arg(0)?)?;
            let piv = pivots(name, arg(1)?, lu.nrows())?;
            let (b, shape) = rhs(name, arg(2)?, lu.nrows())?;
            Ok(vec![shaped(&getrs(&lu, &piv, b), &shape), int(0)])
        }
        "dgesv" => {
            let a = square(name, arg(0)?)?;
            let (b, shape) = rhs(name, arg(1)?, a.nrows())?;
            let (lu, piv, info) = getrf(a);
            let piv: Vec<usize> = piv.iter().map(|&p| p as usize - 1).collect();
            let x = if info == 0 { getrs(&lu, &piv, b) } else { b };
            Ok(vec![shaped(&x, &shape), int(info)])
        }
        "dgelsy" => {
            let a = matrix(name, arg(0)?)?;
            let (b, shape) = rhs(name, arg(1)?, a.nrows())?;
            let rcond = match inputs.get(2) {
                Some(v) => real(name, v)?,
                None => 0.0,
            };
            let (x, rank) = gelsy(&a, &b, rcond);
            // The wrapper's X has max(m, n) rows, the solution in the first n of them; LAPACK
            // leaves workspace in the others, no caller reads them, minimo writes zeros.
            let rows = a.nrows().max(a.ncols());
            let mut out = DMatrix::zeros(rows, x.ncols());
            out.rows_mut(0, x.nrows()).copy_from(&x);
            let mut shape = shape;
            shape[0] = rows;
            Ok(vec![shaped(&out, &shape), int(0), int(rank as i64)])
        }
        "dgglse" => {
            let a = matrix(name, arg(0)?)?;
            let c = vector(name, arg(1)?)?;
            let b = matrix(name, arg(2)?)?;
            let d = vector(name, arg(3)?)?;
            if c.len() != a.nrows() || b.ncols() != a.ncols() || d.len() != b.nrows() {
                return Err(format!(
                    "`{name}`: sizes do not fit: A is {}x{}, c has {}, B is {}x{}, d has {}",
                    a.nrows(),
                    a.ncols(),
                    c.len(),
                    b.nrows(),
                    b.ncols(),
                    d.len()
                ));
            }
            let (x, info) = match gglse(&a, &c, &b, &d) {
                Ok(x) => (x, 0),
                Err(info) => (DVector::zeros(a.ncols()), info),
            };
            Ok(vec![
                Tensor::vector(x.iter().map(|&v| Val::Real(v)).collect()),
                int(info),
            ])
        }
        _ => Err(format!(
            "`{name}`: LAPACK routine `{c_name}` is not built in"
        )),
    }
}

/// Whether `f` is declared as its `Modelica.Math.Matrices.LAPACK` wrapper is: the outputs'
/// types and numbers of dimensions in the wrapper's order (the inputs' shapes are checked at
/// each call), so that values never land in the wrong outputs.
pub fn declared_as_in_the_msl(c_name: &str, f: &crate::dae::Function) -> bool {
    use crate::dae::ScalarType::{Integer as I, Real as R};
    let outs: Vec<_> = f.outputs.iter().map(|o| (o.ty, o.dims.len())).collect();
    let rhs_dims = f.inputs.last().map(|v| v.dims.len());
    let n_in = f.inputs.len();
    match c_name {
        "dgetrf" => n_in == 1 && outs == [(R, 2), (I, 1), (I, 0)],
        "dgetrs" => n_in == 3 && rhs_dims.is_some_and(|d| outs == [(R, d), (I, 0)]),
        "dgesv" => n_in == 2 && rhs_dims.is_some_and(|d| outs == [(R, d), (I, 0)]),
        "dgelsy" => {
            n_in == 3
                && f.inputs
                    .get(1)
                    .is_some_and(|b| outs == [(R, b.dims.len()), (I, 0), (I, 0)])
        }
        "dgglse" => n_in == 4 && outs == [(R, 1), (I, 0)],
        _ => false,
    }
}

/// LU factorisation with partial pivoting, as `dgetf2`: the pivot is the first entry of largest
/// magnitude in the column; an exactly zero pivot sets `info` (1-based, first one) and the
/// elimination goes on with the next column. Pivots are 1-based row numbers.
fn getrf(mut a: DMatrix<f64>) -> (DMatrix<f64>, Vec<i64>, i64) {
    let (m, n) = a.shape();
    let mut piv = Vec::with_capacity(m.min(n));
    let mut info = 0;
    for j in 0..m.min(n) {
        let mut p = j;
        for i in j + 1..m {
            if a[(i, j)].abs() > a[(p, j)].abs() {
                p = i;
            }
        }
        piv.push(p as i64 + 1);
        if a[(p, j)] == 0.0 {
            if info == 0 {
                info = j as i64 + 1;
            }
            continue;
        }
        if p != j {
            a.swap_rows(p, j);
        }
        let pivot = a[(j, j)];
        for i in j + 1..m {
            a[(i, j)] /= pivot;
        }
        for k in j + 1..n {
            let u = a[(j, k)];
            if u != 0.0 {
                for i in j + 1..m {
                    a[(i, k)] -= a[(i, j)] * u;
                }
            }
        }
    }
    (a, piv, info)
}

/// Solves `A X = B` from `dgetrf`'s factors: the row interchanges in order, then the unit lower
/// and the upper triangular solves.
fn getrs(lu: &DMatrix<f64>, piv: &[usize], mut b: DMatrix<f64>) -> DMatrix<f64> {
    let n = lu.nrows();
    for (i, &p) in piv.iter().enumerate() {
        if p != i {
            b.swap_rows(i, p);
        }
    }
    for k in 0..b.ncols() {
        for i in 0..n {
            let s: f64 = (0..i).map(|j| lu[(i, j)] * b[(j, k)]).sum();
            b[(i, k)] -= s;
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| lu[(i, j)] * b[(j, k)]).sum();
            b[(i, k)] = (b[(i, k)] - s) / lu[(i, i)];
        }
    }
    b
}

/// Minimum-norm least-squares solution of `A X = B` with rank determination, as `dgelsy`: QR
/// with column pivoting, and the effective rank the largest `r` whose leading `r`x`r` triangle
/// has reciprocal condition number above `rcond` (LAPACK estimates that condition number
/// incrementally; here it is computed from the triangle's singular values). The solution is the
/// minimum-norm one of the first `r` rows of `R P' x = Q' b`.
fn gelsy(a: &DMatrix<f64>, b: &DMatrix<f64>, rcond: f64) -> (DMatrix<f64>, usize) {
    let (m, n) = a.shape();
    let k = m.min(n);
    if k == 0 {
        return (DMatrix::zeros(n, b.ncols()), 0);
    }
    let qr = a.clone().col_piv_qr();
    let r = qr.r();
    let mut rank = 0;
    if r[(0, 0)] != 0.0 {
        rank = 1;
        while rank < k {
            let s = r.view((0, 0), (rank + 1, rank + 1)).singular_values();
            let (smax, smin) = (s.max(), s.min());
            if smax * rcond > smin || smin == 0.0 {
                break;
            }
            rank += 1;
        }
    }
    if rank == 0 {
        return (DMatrix::zeros(n, b.ncols()), 0);
    }
    let qtb = qr.q().transpose() * b;
    let r1 = r.rows(0, rank).into_owned();
    let c = qtb.rows(0, rank).into_owned();
    // R1 (rank x n) has full row rank: its minimum-norm solution is R1' (R1 R1')^-1 c, computed
    // by the SVD's pseudo-inverse.
    let y = r1
        .svd(true, true)
        .solve(&c, 0.0)
        .unwrap_or_else(|_| DMatrix::zeros(n, b.ncols()));
    let mut x = y;
    qr.p().inv_permute_rows(&mut x);
    (x, rank)
}

/// Least squares with equality constraints, as `dgglse`: minimise `|A x - c|` subject to
/// `B x = d`. With `B' = Q [R; 0]`, `x = Q1 y1 + Q2 y2` where `R' y1 = d` fixes the constrained
/// part and `y2` is the least-squares solution of `A Q2 y2 = c - A Q1 y1`. `Err(1)` when `B` has
/// not full row rank, `Err(2)` when `[A; B]` has not full column rank (LAPACK's `info`).
fn gglse(
    a: &DMatrix<f64>,
    c: &DVector<f64>,
    b: &DMatrix<f64>,
    d: &DVector<f64>,
) -> Result<DVector<f64>, i64> {
    let (n, p) = (a.ncols(), b.nrows());
    if p > n {
        return Err(1);
    }
    // A complete orthonormal basis whose first p columns span B's rows: the QR factors of
    // [B' I] (n x (p + n)) give a square Q.
    let mut stacked = DMatrix::zeros(n, p + n);
    stacked.columns_mut(0, p).copy_from(&b.transpose());
    stacked
        .columns_mut(p, n)
        .copy_from(&DMatrix::<f64>::identity(n, n));
    let qr = stacked.qr();
    let q = qr.q();
    let r = qr.r();
    let scale = b.amax().max(f64::MIN_POSITIVE);
    let tiny = scale * f64::EPSILON * (n.max(1) as f64) * 4.0;
    let r11 = r.view((0, 0), (p, p)).into_owned();
    if (0..p).any(|i| r11[(i, i)].abs() <= tiny) {
        return Err(1);
    }
    let y1 = r11.transpose().solve_lower_triangular(d).ok_or(1_i64)?;
    let q1 = q.columns(0, p);
    let q2 = q.columns(p, n - p);
    let x1 = q1 * &y1;
    let aq2 = a * q2;
    let rhs = c - a * &x1;
    if n == p {
        return Ok(x1);
    }
    if aq2.nrows() < n - p {
        return Err(2);
    }
    let qr2 = aq2.clone().qr();
    let r2 = qr2.r();
    let atiny = a.amax().max(f64::MIN_POSITIVE) * f64::EPSILON * (n as f64) * 4.0;
    if (0..n - p).any(|i| r2[(i, i)].abs() <= atiny) {
        return Err(2);
    }
    let qtr = qr2.q().transpose() * rhs;
    let y2 = r2
        .view((0, 0), (n - p, n - p))
        .into_owned()
        .solve_upper_triangular(&qtr.rows(0, n - p).into_owned())
        .ok_or(2_i64)?;
    Ok(x1 + q2 * y2)
}

fn real(name: &str, v: &Value) -> Result<f64, String> {
    v.data
        .first()
        .and_then(Val::as_f64)
        .ok_or_else(|| format!("`{name}`: expected a Real argument"))
}

fn reals(name: &str, v: &Value) -> Result<Vec<f64>, String> {
    v.data
        .iter()
        .map(|x| {
            x.as_f64()
                .ok_or_else(|| format!("`{name}`: expected Real arguments"))
        })
        .collect()
}

fn matrix(name: &str, v: &Value) -> Result<DMatrix<f64>, String> {
    let [m, n] = v.dims[..] else {
        return Err(format!(
            "`{name}`: expected a matrix, got an argument of {} dimensions",
            v.dims.len()
        ));
    };
    Ok(DMatrix::from_row_slice(m, n, &reals(name, v)?))
}

fn square(name: &str, v: &Value) -> Result<DMatrix<f64>, String> {
    let a = matrix(name, v)?;
    if a.nrows() != a.ncols() {
        return Err(format!(
            "`{name}`: the matrix must be square, it is {}x{}",
            a.nrows(),
            a.ncols()
        ));
    }
    Ok(a)
}

fn vector(name: &str, v: &Value) -> Result<DVector<f64>, String> {
    if v.dims.len() != 1 {
        return Err(format!("`{name}`: expected a vector argument"));
    }
    Ok(DVector::from_vec(reals(name, v)?))
}

/// A right-hand side with `rows` rows, as a matrix, and the shape to return the solution in
/// (a vector for the `_vec` wrappers).
fn rhs(name: &str, v: &Value, rows: usize) -> Result<(DMatrix<f64>, Vec<usize>), String> {
    let b = match v.dims.len() {
        1 => DMatrix::from_column_slice(v.dims[0], 1, &reals(name, v)?),
        2 => matrix(name, v)?,
        _ => {
            return Err(format!(
                "`{name}`: the right-hand side must be a vector or a matrix"
            ));
        }
    };
    if b.nrows() != rows {
        return Err(format!(
            "`{name}`: the right-hand side has {} rows, the matrix {rows}",
            b.nrows()
        ));
    }
    Ok((b, v.dims.clone()))
}

/// 1-based pivot rows of `dgetrf`, checked, as 0-based rows.
fn pivots(name: &str, v: &Value, n: usize) -> Result<Vec<usize>, String> {
    let p: Vec<usize> = v
        .data
        .iter()
        .map(|x| {
            x.as_int()
                .filter(|&i| i >= 1 && i as usize <= n)
                .map(|i| i as usize - 1)
                .ok_or_else(|| format!("`{name}`: pivot {x:?} is not a row number in 1..{n}"))
        })
        .collect::<Result<_, _>>()?;
    if p.len() != n {
        return Err(format!("`{name}`: {} pivots for {n} rows", p.len()));
    }
    Ok(p)
}

fn from_matrix(a: &DMatrix<f64>) -> Value {
    shaped(a, &[a.nrows(), a.ncols()])
}

/// `a` in row-major order with dimensions `dims` (`[rows]` for a one-column result).
fn shaped(a: &DMatrix<f64>, dims: &[usize]) -> Value {
    let data = (0..a.nrows())
        .flat_map(|i| (0..a.ncols()).map(move |j| (i, j)))
        .map(|(i, j)| Val::Real(a[(i, j)]))
        .collect();
    Tensor::new(dims.to_vec(), data)
}

fn ints(v: &[i64]) -> Value {
    Tensor::vector(v.iter().map(|&i| Val::Int(i)).collect())
}

fn int(i: i64) -> Value {
    Tensor::scalar(Val::Int(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: usize, cols: usize, v: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, cols, v)
    }

    #[test]
    fn getrf_pivots_on_the_largest_entry_and_reconstructs_a() {
        let a = m(3, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0]);
        let (lu, piv, info) = getrf(a.clone());
        assert_eq!(info, 0);
        assert_eq!(piv[0], 3, "first pivot is row 3 (|7| largest)");
        let x = getrs(
            &lu,
            &piv.iter().map(|&p| p as usize - 1).collect::<Vec<_>>(),
            m(3, 1, &[6.0, 15.0, 25.0]),
        );
        // A [1 1 1]' = [6 15 25]'.
        for i in 0..3 {
            assert!((x[(i, 0)] - 1.0).abs() < 1e-13, "{x}");
        }
    }

    #[test]
    fn getrf_reports_the_first_zero_pivot() {
        let (_, _, info) = getrf(m(2, 2, &[1.0, 2.0, 2.0, 4.0]));
        assert_eq!(info, 2);
    }

    #[test]
    fn gelsy_fits_a_line_and_gives_the_minimum_norm_solution() {
        // y = 1 + 2 t at t = 0, 1, 2, 3: exact fit.
        let a = m(4, 2, &[1.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0]);
        let (x, rank) = gelsy(&a, &m(4, 1, &[1.0, 3.0, 5.0, 7.0]), 1e-12);
        assert_eq!(rank, 2);
        assert!((x[(0, 0)] - 1.0).abs() < 1e-12 && (x[(1, 0)] - 2.0).abs() < 1e-12);
        // x1 + x2 = 2 has the minimum-norm solution (1, 1).
        let (x, rank) = gelsy(&m(1, 2, &[1.0, 1.0]), &m(1, 1, &[2.0]), 1e-12);
        assert_eq!(rank, 1);
        assert!((x[(0, 0)] - 1.0).abs() < 1e-12 && (x[(1, 0)] - 1.0).abs() < 1e-12);
        // Two equal columns: rank 1, the weight split evenly.
        let (x, rank) = gelsy(
            &m(2, 2, &[1.0, 1.0, 2.0, 2.0]),
            &m(2, 1, &[2.0, 4.0]),
            1e-12,
        );
        assert_eq!(rank, 1);
        assert!((x[(0, 0)] - 1.0).abs() < 1e-12 && (x[(1, 0)] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn gglse_meets_the_constraint_and_minimises_the_rest() {
        // Minimise (x1 - 1)^2 + (x2 - 3)^2 subject to x1 + x2 = 2: x = (0, 2).
        let a = DMatrix::identity(2, 2);
        let x = gglse(
            &a,
            &DVector::from_vec(vec![1.0, 3.0]),
            &m(1, 2, &[1.0, 1.0]),
            &DVector::from_vec(vec![2.0]),
        )
        .unwrap();
        assert!(
            (x[0] - 0.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12,
            "{x}"
        );
        // A zero constraint row has not full rank.
        let e = gglse(
            &a,
            &DVector::from_vec(vec![1.0, 3.0]),
            &m(1, 2, &[0.0, 0.0]),
            &DVector::from_vec(vec![2.0]),
        );
        assert_eq!(e, Err(1));
    }
}
