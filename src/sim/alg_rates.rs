//! Initial rates of the error-controlled algebraic components for the BDF start.
//!
//! diffsol's consistent initialization sets the time derivative of every algebraic component
//! (zero row of the mass matrix) to zero, "to be solved for in the first step". BDF builds its
//! first predictor from that derivative, so the first error estimate of such a component is
//! its whole change over the step. For a mechanism started at rest whose dummy velocities
//! grow at once (Andrews' squeezer: 1e4 rad/s^2), that error is above a tight tolerance at
//! every step size down to the minimum, and the run stopped at t = 0 below tolerance 1.2e-10.
//! The components are functions of time and the states computed by the main pass, so their
//! rate follows from one more pass a fraction of the first step ahead along the states' rates.

use super::engine::Engine;

/// `d regs[alg[i]] / dt` at `(t, x)` where the states move at `dx`, by a forward difference
/// over a fraction of the first step `h`; zero where the difference cannot be evaluated (the
/// solver then starts as it did before).
pub fn rates(engine: &mut Engine, alg: &[u32], t: f64, x: &[f64], dx: &[f64], h: f64) -> Vec<f64> {
    let zero = vec![0.0; alg.len()];
    if engine.eval_at(t, x).is_err() {
        return zero;
    }
    let z0: Vec<f64> = alg.iter().map(|&r| engine.regs[r as usize]).collect();
    // Small against the step (the rate is wanted at t) but far above rounding of t; no
    // absolute floor: a circuit's first step can be 1e-13 s.
    let delta = (1e-3 * h.abs()).max(64.0 * f64::EPSILON * t.abs());
    if !(delta > 0.0 && delta.is_finite()) {
        return zero;
    }
    let x1: Vec<f64> = x.iter().zip(dx).map(|(xi, di)| xi + delta * di).collect();
    let out = match engine.eval_at(t + delta, &x1) {
        Ok(()) => alg
            .iter()
            .zip(&z0)
            .map(|(&r, z)| {
                let rate = (engine.regs[r as usize] - z) / delta;
                if rate.is_finite() { rate } else { 0.0 }
            })
            .collect(),
        Err(_) => zero,
    };
    // Leave the engine at the starting point, as the solver expects its cache.
    let _ = engine.eval_at(t, x);
    out
}
