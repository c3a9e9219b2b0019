//! The right-hand side of examples/chain.mo written by hand (masses m = 1, springs k = 100,
//! dampers d = 0.5, the first spring fixed to the wall, a pull of 1 N on the last mass), with
//! y = [x (n), v (n)]: the reference of the chain test and the hand-written side of the RHS bench.

pub fn chain_rhs(n: usize, y: &[f64], out: &mut [f64]) {
    let (m, k, d, f_pull) = (1.0, 100.0, 0.5, 1.0);
    let spring = |i: usize| {
        let (xl, vl) = if i == 0 {
            (0.0, 0.0)
        } else {
            (y[i - 1], y[n + i - 1])
        };
        k * (y[i] - xl) + d * (y[n + i] - vl)
    };
    for i in 0..n {
        out[i] = y[n + i];
        let right = if i + 1 < n { spring(i + 1) } else { f_pull };
        out[n + i] = (right - spring(i)) / m;
    }
}
