//! The time scale of a run, and the tolerance within which two times are one instant.
//!
//! Event times (sample instants, delayed jumps, located roots) carry rounding, so times
//! closer than a tolerance are taken as one instant. The tolerance is relative: 1e-12 of
//! `unit + |t|`, about 4500 floating-point spacings of `t` once `|t| >= unit`. The unit is
//! 1 s for runs that reach 1 s or more (as it always was), and the largest time of the run
//! for shorter ones: a circuit simulated for 1e-11 s has pulses of 1e-13 s, which an absolute
//! 1e-12 s would merge into one event.

/// The time unit of a run from `t0` to `t_end`: the largest `|t|` of the run, at most 1.
pub fn unit(t0: f64, t_end: f64) -> f64 {
    let m = t0.abs().max(t_end.abs());
    if m > 0.0 && m < 1.0 { m } else { 1.0 }
}

/// Times within this of `t` are the same instant.
pub fn same_instant(t: f64, unit: f64) -> f64 {
    1e-12 * (unit + t.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_runs_keep_the_second_as_unit() {
        assert_eq!(unit(0.0, 10.0), 1.0);
        assert_eq!(same_instant(0.0, unit(0.0, 10.0)), 1e-12);
    }

    #[test]
    fn short_runs_scale_the_tolerance() {
        let u = unit(0.0, 1e-11);
        assert_eq!(u, 1e-11);
        // Consecutive pulse edges 1e-13 s apart are distinct instants.
        assert!(same_instant(5e-12, u) < 1e-13 * 1e-3);
    }
}
