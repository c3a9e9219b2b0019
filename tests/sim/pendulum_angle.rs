//! Independent reference for the Cartesian pendulum tests: the same pendulum in its angle
//! coordinate, phi'' = -(g/L) sin(phi) with g = 9.81 and L = 1, started at rest.

/// phi(t) by classical RK4 with a step of about 2e-5 s (global error far below the tests'
/// tolerances, which are 1e-4 and looser).
#[allow(dead_code)]
pub fn pendulum_angle(phi0: f64, t: f64) -> f64 {
    let (mut p, mut w) = (phi0, 0.0);
    let n = (t / 2e-5).round().max(1.0) as usize;
    let h = t / n as f64;
    for _ in 0..n {
        (p, w) = rk4_step(p, w, h, |p| -9.81 * p.sin());
    }
    p
}

/// One classical RK4 step of `p'' = f(p)` written as `p' = w, w' = f(p)`.
pub fn rk4_step(p: f64, w: f64, h: f64, f: impl Fn(f64) -> f64) -> (f64, f64) {
    let (k1p, k1w) = (w, f(p));
    let (k2p, k2w) = (w + 0.5 * h * k1w, f(p + 0.5 * h * k1p));
    let (k3p, k3w) = (w + 0.5 * h * k2w, f(p + 0.5 * h * k2p));
    let (k4p, k4w) = (w + h * k3w, f(p + h * k3p));
    (
        p + h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p),
        w + h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w),
    )
}
