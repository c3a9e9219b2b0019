//! Akima's bivariate interpolation (1974) as ModelicaStandardTables does it for a 2-D table with
//! smoothness `ContinuousDerivative`: the grid is extended by two extrapolated rows and columns
//! on each side, the partial derivatives z_u1, z_u2 and z_u1u2 at every node are weighted means
//! of the neighbouring divided differences, and each cell is the bicubic Hermite patch through
//! the values and these derivatives at its four corners (the C code stores the patch as 16
//! polynomial coefficients; the polynomial is the same).

use serde::{Deserialize, Serialize};

/// The partial derivatives at every node `[i][j]` of the grid (u1[i], u2[j]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Partials {
    pub z1: Vec<Vec<f64>>,
    pub z2: Vec<Vec<f64>>,
    pub z12: Vec<Vec<f64>>,
}

/// Value and partial derivatives of a surface at a point: `d[m][n]` is the derivative of order
/// m in u1 and n in u2 (m, n <= 2, m + n <= 3 used).
pub type Derivs = [[f64; 3]; 3];

/// The abscissas `v` (at least 2) with two more on each side: continuing the spacing of the
/// first and last three points (ModelicaStandardTables), or of the two for a 2-point axis.
fn extend_axis(v: &[f64]) -> Vec<f64> {
    let n = v.len();
    let mut e = vec![0.0; n + 4];
    e[2..n + 2].copy_from_slice(v);
    if n == 2 {
        let h = v[1] - v[0];
        e[0] = v[0] - 2.0 * h;
        e[1] = v[0] - h;
        e[4] = v[1] + h;
        e[5] = v[1] + 2.0 * h;
    } else {
        e[0] = 2.0 * v[0] - v[2];
        e[1] = v[0] + v[1] - v[2];
        e[n + 2] = v[n - 1] + v[n - 2] - v[n - 3];
        e[n + 3] = 2.0 * v[n - 1] - v[n - 3];
    }
    e
}

/// Fills the two extrapolated values at each end of `z` (data at 2..n+2, abscissas `x` from
/// [`extend_axis`]): a 2-point line continues linearly; otherwise the divided differences
/// continue linearly (the difference of the last two repeated), as Akima extends a curve.
fn extend_values(x: &[f64], z: &mut [f64]) {
    let n = z.len() - 4;
    if n == 2 {
        let dz = z[3] - z[2];
        z[0] = z[2] - 2.0 * dz;
        z[1] = z[2] - dz;
        z[4] = z[3] + dz;
        z[5] = z[3] + 2.0 * dz;
        return;
    }
    // Left end: the edge point 2 and its inner neighbours 3, 4.
    let (near, far) = continue_differences([x[2], x[3], x[4]], [z[2], z[3], z[4]], x[1], x[0]);
    z[1] = near;
    z[0] = far;
    // Right end: the edge point n+1 and its inner neighbours n, n-1.
    let (near, far) = continue_differences(
        [x[n + 1], x[n], x[n - 1]],
        [z[n + 1], z[n], z[n - 1]],
        x[n + 2],
        x[n + 3],
    );
    z[n + 2] = near;
    z[n + 3] = far;
}

/// Values at `x_near` and `x_far` beyond the edge point `x[0]` (inner points `x[1]`, `x[2]`):
/// the divided difference grows, from one interval to the next outwards, by the change between
/// the last two inner ones. Coincident abscissas give the edge value.
fn continue_differences(x: [f64; 3], z: [f64; 3], x_near: f64, x_far: f64) -> (f64, f64) {
    let (h_edge, h_inner, h_near) = (x[0] - x[1], x[1] - x[2], x_near - x[0]);
    if h_edge == 0.0 || h_inner == 0.0 || h_near == 0.0 {
        return (z[0], z[0]);
    }
    let d_edge = (z[0] - z[1]) / h_edge;
    let d_inner = (z[1] - z[2]) / h_inner;
    let d_near = 2.0 * d_edge - d_inner;
    let near = z[0] + h_near * d_near;
    let far = near + (x_far - x_near) * (d_near + d_edge - d_inner);
    (near, far)
}

/// Akima's weighted slope at a point from the divided differences d1..d4 around it (d2 and
/// d3 on either side), with the weights (w2 for d2, w3 for d3; both 0 where the differences
/// on each side agree, and then the mean).
fn weighted_slope(d: [f64; 4]) -> (f64, f64, f64) {
    if d[0] == d[1] && d[2] == d[3] {
        return (0.5 * d[1] + 0.5 * d[2], 0.0, 0.0);
    }
    let (w2, w3) = ((d[3] - d[2]).abs(), (d[1] - d[0]).abs());
    ((w2 * d[1] + w3 * d[2]) / (w2 + w3), w2, w3)
}

/// The partial derivatives at every node of the table `y[i][j]` over (u1[i], u2[j]), each
/// axis with at least 2 and one with at least 3 points.
pub fn akima_partials(u1: &[f64], u2: &[f64], y: &[Vec<f64>]) -> Partials {
    let (n1, n2) = (u1.len(), u2.len());
    let (x, w) = (extend_axis(u1), extend_axis(u2));
    // The extended table: rows along u1, first extended along u2 then along u1.
    let mut e = vec![vec![0.0; n2 + 4]; n1 + 4];
    for i in 0..n1 {
        e[i + 2][2..n2 + 2].copy_from_slice(&y[i]);
        extend_values(&w, &mut e[i + 2]);
    }
    for s in 0..n2 + 4 {
        let mut col: Vec<f64> = e.iter().map(|row| row[s]).collect();
        extend_values(&x, &mut col);
        for (row, v) in e.iter_mut().zip(col) {
            row[s] = v;
        }
    }
    let mut p = Partials {
        z1: vec![vec![0.0; n2]; n1],
        z2: vec![vec![0.0; n2]; n1],
        z12: vec![vec![0.0; n2]; n1],
    };
    for i in 0..n1 {
        for j in 0..n2 {
            let (z1, z2, z12) = node_partials(&x, &w, &e, i + 2, j + 2);
            p.z1[i][j] = z1;
            p.z2[i][j] = z2;
            p.z12[i][j] = z12;
        }
    }
    p
}

/// z_u1, z_u2 and z_u1u2 at the node (r, s) of the extended table `e` over (x, w).
fn node_partials(x: &[f64], w: &[f64], e: &[Vec<f64>], r: usize, s: usize) -> (f64, f64, f64) {
    let dx = |a: usize, c: usize| (e[a + 1][c] - e[a][c]) / (x[a + 1] - x[a]);
    let dy = |a: usize, c: usize| (e[a][c + 1] - e[a][c]) / (w[c + 1] - w[c]);
    let (z1, mut wx2, mut wx3) =
        weighted_slope([dx(r - 2, s), dx(r - 1, s), dx(r, s), dx(r + 1, s)]);
    let (z2, mut wy2, mut wy3) =
        weighted_slope([dy(r, s - 2), dy(r, s - 1), dy(r, s), dy(r, s + 1)]);
    // Differences in u1 of the u2-differences on the four sub-cells around the node.
    let (hl, hr) = (x[r] - x[r - 1], x[r + 1] - x[r]);
    let e22 = (dy(r, s - 1) - dy(r - 1, s - 1)) / hl;
    let e23 = (dy(r, s) - dy(r - 1, s)) / hl;
    let e32 = (dy(r + 1, s - 1) - dy(r, s - 1)) / hr;
    let e33 = (dy(r + 1, s) - dy(r, s)) / hr;
    if wx2 == 0.0 && wx3 == 0.0 {
        (wx2, wx3) = (1.0, 1.0);
    }
    if wy2 == 0.0 && wy3 == 0.0 {
        (wy2, wy3) = (1.0, 1.0);
    }
    let z12 = (wx2 * (wy2 * e22 + wy3 * e23) + wx3 * (wy2 * e32 + wy3 * e33))
        / ((wx2 + wx3) * (wy2 + wy3));
    (z1, z2, z12)
}

/// The cubic Hermite basis on [x0, x1] at u, and its first and second derivatives: `b[m][k]`
/// for the value at x0, the slope at x0, the value at x1, the slope at x1.
fn hermite_basis(x0: f64, x1: f64, u: f64) -> [[f64; 4]; 3] {
    let h = x1 - x0;
    let t = (u - x0) / h;
    let (t2, t3) = (t * t, t * t * t);
    [
        [
            2.0 * t3 - 3.0 * t2 + 1.0,
            h * (t3 - 2.0 * t2 + t),
            -2.0 * t3 + 3.0 * t2,
            h * (t3 - t2),
        ],
        [
            (6.0 * t2 - 6.0 * t) / h,
            3.0 * t2 - 4.0 * t + 1.0,
            (-6.0 * t2 + 6.0 * t) / h,
            3.0 * t2 - 2.0 * t,
        ],
        [
            (12.0 * t - 6.0) / (h * h),
            (6.0 * t - 4.0) / h,
            (-12.0 * t + 6.0) / (h * h),
            (6.0 * t - 2.0) / h,
        ],
    ]
}

/// The bicubic Hermite patch of cell (i, j) at (a, b), with its derivatives up to second
/// order in each variable.
pub fn patch(
    u1: &[f64],
    u2: &[f64],
    y: &[Vec<f64>],
    p: &Partials,
    (i, j): (usize, usize),
    (a, b): (f64, f64),
) -> Derivs {
    let f = hermite_basis(u1[i], u1[i + 1], a);
    let g = hermite_basis(u2[j], u2[j + 1], b);
    // Corner data: k (resp. l) = value at the lower node, slope there, value at the upper
    // node, slope there, in u1 (resp. u2).
    let corner = |k: usize, l: usize| -> f64 {
        let (r, c) = (i + k / 2, j + l / 2);
        match (k % 2, l % 2) {
            (0, 0) => y[r][c],
            (1, 0) => p.z1[r][c],
            (0, _) => p.z2[r][c],
            _ => p.z12[r][c],
        }
    };
    let mut d = [[0.0; 3]; 3];
    for (m, fm) in f.iter().enumerate() {
        for (n, gn) in g.iter().enumerate() {
            let mut s = 0.0;
            for (k, fk) in fm.iter().enumerate() {
                for (l, gl) in gn.iter().enumerate() {
                    s += fk * corner(k, l) * gl;
                }
            }
            d[m][n] = s;
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bicubic polynomial is reproduced when the node data are its own derivatives.
    #[test]
    fn patch_reproduces_a_bicubic() {
        let f = |a: f64, b: f64| a * a * a * b - 2.0 * a * b * b + b * b * b + 3.0;
        let f1 = |a: f64, b: f64| 3.0 * a * a * b - 2.0 * b * b;
        let f2 = |a: f64, b: f64| a * a * a - 4.0 * a * b + 3.0 * b * b;
        let f12 = |a: f64, b: f64| 3.0 * a * a - 4.0 * b;
        let (u1, u2) = (vec![1.0, 2.5], vec![-1.0, 0.5]);
        let grid = |g: &dyn Fn(f64, f64) -> f64| -> Vec<Vec<f64>> {
            u1.iter()
                .map(|&a| u2.iter().map(|&b| g(a, b)).collect())
                .collect()
        };
        let y = grid(&f);
        let p = Partials {
            z1: grid(&f1),
            z2: grid(&f2),
            z12: grid(&f12),
        };
        let (a, b) = (1.7, -0.2);
        let d = patch(&u1, &u2, &y, &p, (0, 0), (a, b));
        assert!((d[0][0] - f(a, b)).abs() < 1e-12);
        assert!((d[1][0] - f1(a, b)).abs() < 1e-12);
        assert!((d[0][1] - f2(a, b)).abs() < 1e-12);
        assert!((d[1][1] - f12(a, b)).abs() < 1e-12);
        assert!((d[2][0] - 6.0 * a * b).abs() < 1e-12);
        assert!((d[0][2] - (-4.0 * a + 6.0 * b)).abs() < 1e-12);
    }
}
