//! A safeguarded root of one equation in one unknown: a sign change is bracketed by growing
//! steps from the start, then narrowed by Illinois steps (regula falsi with the stale end's
//! value halved) that fall back to bisection.
//!
//! Newton's method cycles on piecewise-linear residuals: an operational amplifier written as
//! `noEvent(if V0*v_in > vps then vps else if ... else V0*v_in)` with a gain of 15000 sends
//! every step from one saturated side across the narrow linear range to the other side. A
//! bracket cannot cycle: the residual is continuous there (only its slope jumps), so a sign
//! change contains a root and bisection reaches it. Used for one-unknown loops after damped
//! Newton failed.

/// Expansions of the search interval before giving up (the step grows fourfold each time).
const MAX_EXPANSIONS: usize = 40;
/// Narrowing steps (each at least halves the bracket every second step).
const MAX_NARROWING: usize = 200;

/// A root of `f` near `x0` (where `f(x0) = f0`), or `None` when no sign change is found or
/// a value is not finite. `tol` is relative to `1 + |x|`; the root returned has `f` of the
/// smaller magnitude of the final bracket's ends.
pub fn bracketed_root(x0: f64, f0: f64, tol: f64, mut f: impl FnMut(f64) -> f64) -> Option<f64> {
    if f0 == 0.0 {
        return Some(x0);
    }
    if !(x0.is_finite() && f0.is_finite()) {
        return None;
    }
    let (mut a, mut fa) = (x0, f0);
    let (mut b, mut fb) = (f64::NAN, f64::NAN);
    let mut h = 1e-6 * (1.0 + x0.abs());
    // Both directions at each size: the root may be on either side of the start.
    'search: for _ in 0..MAX_EXPANSIONS {
        for x in [x0 + h, x0 - h] {
            let fx = f(x);
            if !fx.is_finite() {
                continue;
            }
            if fx == 0.0 {
                return Some(x);
            }
            if fx.signum() != f0.signum() {
                (b, fb) = (x, fx);
                // The other end: the last point on the start's side towards `x`.
                let inner = x0 + (x - x0) / 4.0;
                if inner != x0 {
                    let fi = f(inner);
                    if fi.is_finite() && fi.signum() == f0.signum() {
                        (a, fa) = (inner, fi);
                    }
                }
                break 'search;
            }
        }
        h *= 4.0;
    }
    if !b.is_finite() {
        return None;
    }
    // Illinois: `side` remembers which end stayed twice, whose value is then halved.
    let mut side = 0i8;
    for _ in 0..MAX_NARROWING {
        if (b - a).abs() <= tol * (1.0 + a.abs().max(b.abs())) {
            break;
        }
        let mut x = (a * fb - b * fa) / (fb - fa);
        let (lo, hi) = (a.min(b), a.max(b));
        if !(x > lo && x < hi) {
            x = 0.5 * (a + b);
        }
        let fx = f(x);
        if !fx.is_finite() {
            return None;
        }
        if fx == 0.0 {
            return Some(x);
        }
        if fx.signum() == fb.signum() {
            (b, fb) = (x, fx);
            if side == -1 {
                fa *= 0.5;
            }
            side = -1;
        } else {
            (a, fa) = (x, fx);
            if side == 1 {
                fb *= 0.5;
            }
            side = 1;
        }
    }
    // The end with the smaller residual (`fa`, `fb` may be halved: evaluate again).
    let (ra, rb) = (f(a).abs(), f(b).abs());
    Some(if ra <= rb { a } else { b })
}

#[cfg(test)]
mod tests {
    use super::bracketed_root;

    /// `x - clamp(-G (c + x))` with a gain of 15000: Newton jumps between the saturated sides.
    fn clamp_residual(x: f64, c: f64) -> f64 {
        let u = -15000.0 * (c + x);
        x - u.clamp(-15.0, 15.0)
    }

    #[test]
    fn finds_the_root_inside_a_narrow_linear_range() {
        for c in [0.0, 3e-4, -7e-4, 0.5, -20.0] {
            let x0 = -15.0;
            let x = bracketed_root(x0, clamp_residual(x0, c), 1e-12, |x| clamp_residual(x, c))
                .expect("root");
            assert!(clamp_residual(x, c).abs() < 1e-6, "c = {c}: x = {x}");
        }
    }

    #[test]
    fn no_sign_change_gives_none() {
        assert_eq!(bracketed_root(1.0, 2.0, 1e-12, |x| x * x + 1.0), None);
    }
}
