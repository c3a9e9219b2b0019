//! `delay(expr, delayTime, delayMax)` (MLS 3.7.4.1) at simulation time.
//!
//! Each occurrence is a [`DelayLine`]: the history of `expr` at the points the run has accepted
//! (each integrator step and each recorded row, events twice: before and after), never at the
//! trial points of the right-hand side, which a step may reject. The value at `time` is the
//! history interpolated linearly at `time - delayTime`; between the last accepted point and
//! `time` (a delay shorter than the step) between that point and the current value; before the
//! start, the value at the start; a delay of zero is the value itself.
//!
//! A jump of `expr` at an event (two points at one time) reappears `delayTime` later: that
//! instant is a time event ([`next_event`]), so a delayed discrete signal (a transport delay of
//! a logic value) changes exactly then, not at the next output point.
//!
//! The tape reads a line as a call site (`Op::Call`, `funcall.rs`) with the arguments `time`,
//! `expr`, `delayTime`, `delayMax` in consecutive registers; the driver appends to the history
//! from the register holding `expr` after each accepted point ([`record`]).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Points older than the maximum delay are dropped once the history holds this many.
const PRUNE_AT: usize = 4096;

#[derive(Debug)]
pub struct DelayLine {
    /// The register holding the copy of `expr` the call reads (its second argument).
    pub expr_reg: u32,
    /// The call's arguments as written (`delay(x, 0.5, 1)`): identifies the line when the
    /// program is compiled again after a change of states.
    pub key: String,
    history: Mutex<Vec<(f64, f64)>>,
    /// The times at which jumps of `expr` come out of the delay (time events).
    jumps: Mutex<Vec<f64>>,
    /// The run's time unit ([`super::time_scale::unit`]) as f64 bits, set when the run
    /// starts: the same instants as the event code's.
    time_unit: AtomicU64,
}

impl DelayLine {
    pub fn new(expr_reg: u32, key: String) -> DelayLine {
        DelayLine {
            expr_reg,
            key,
            history: Mutex::new(Vec::new()),
            jumps: Mutex::new(Vec::new()),
            time_unit: AtomicU64::new(1f64.to_bits()),
        }
    }

    /// Sets the run's time unit (`EventState::new`, from the run's start and stop times).
    pub fn set_time_unit(&self, unit: f64) {
        self.time_unit.store(unit.to_bits(), Ordering::Relaxed);
    }

    /// Times closer than this are one instant (`time - delayTime` at a jump's delayed event).
    fn time_eps(&self, t: f64) -> f64 {
        super::time_scale::same_instant(t, f64::from_bits(self.time_unit.load(Ordering::Relaxed)))
    }

    /// Appends the accepted point `(t, x)`; points after `t` (a phase restarted earlier) go.
    fn push(&self, t: f64, x: f64, delay: f64, max_delay: f64) {
        let Ok(mut h) = self.history.lock() else {
            return;
        };
        while h.last().is_some_and(|&(s, _)| s > t) {
            h.pop();
        }
        if h.last() == Some(&(t, x)) {
            return;
        }
        if h.last().is_some_and(|&(s, _)| s == t)
            && delay > 0.0
            && let Ok(mut j) = self.jumps.lock()
        {
            j.push(t + delay);
        }
        h.push((t, x));
        if h.len() >= PRUNE_AT && max_delay.is_finite() {
            // Keep one point before the oldest time a delay can reach.
            let keep = h.partition_point(|&(s, _)| s < t - max_delay);
            if keep > 1 {
                h.drain(..keep - 1);
            }
        }
    }

    /// Copies the history of `other` (the same delay in the program before a change of states)
    /// and the run's time unit.
    pub fn take_history(&self, other: &DelayLine) {
        self.time_unit
            .store(other.time_unit.load(Ordering::Relaxed), Ordering::Relaxed);
        if let (Ok(mut h), Ok(o)) = (self.history.lock(), other.history.lock()) {
            h.clone_from(&o);
        }
    }

    /// The delayed value for the arguments `[time, expr, delayTime, delayMax]`, or why not.
    pub fn value(&self, args: &[f64]) -> Result<f64, String> {
        let &[t, x, d, dmax] = args else {
            return Err("internal: `delay` takes four argument registers".into());
        };
        if !(0.0..=dmax).contains(&d) {
            return Err(format!(
                "the delay time of `delay` is {d} at time {t}: it must be between 0 and the maximum delay {dmax} (MLS 3.7.4.1)"
            ));
        }
        if d == 0.0 {
            return Ok(x);
        }
        let tau = t - d;
        let h = self
            .history
            .lock()
            .map_err(|_| "internal: the history of `delay` is unavailable")?;
        let (Some(&(t0, x0)), Some(&(tl, xl))) = (h.first(), h.last()) else {
            // No accepted point yet: the start, where `time - delayTime` is before it.
            return Ok(x);
        };
        // A point within rounding after `tau` counts as reached (the event of a delayed
        // jump, at `t_jump + delayTime`, sees the value after the jump).
        let eps = self.time_eps(t);
        if tau + eps < t0 {
            return Ok(x0);
        }
        if tau + eps >= tl {
            let tau = tau.max(tl);
            return Ok(if t > tl {
                xl + (x - xl) * (tau - tl) / (t - tl)
            } else {
                x
            });
        }
        // The last point at or before tau and the one after it (later than tau, so the two
        // times differ; at an event the value after it is taken).
        let i = h.partition_point(|&(s, _)| s <= tau + eps) - 1;
        Ok(interpolate(&h, i, tau.max(h[i].0)))
    }

    /// The tangent for argument tangents `targs`: central differences in `expr` and the delay
    /// time (the step of `funcall.rs`).
    pub fn tangent(&self, args: &[f64], targs: &[f64]) -> f64 {
        let mut d = 0.0;
        let mut x = args.to_vec();
        for k in [1, 2] {
            let (Some(&a), Some(&ta)) = (args.get(k), targs.get(k)) else {
                return f64::NAN;
            };
            if ta == 0.0 {
                continue;
            }
            let h = 6.1e-6 * a.abs().max(1.0);
            x[k] = a + h;
            let up = self.value(&x).unwrap_or(f64::NAN);
            x[k] = a - h;
            let down = self.value(&x).unwrap_or(f64::NAN);
            x[k] = a;
            d += (up - down) / (2.0 * h) * ta;
        }
        d
    }
}

/// The history at `tau`, between points `i` and `i + 1`: the cubic through the points
/// `i - 1 ..= i + 2` (error of order h^4, as the integrator's steps are long) when their times
/// increase strictly, else (next to an event or an end) the straight line.
fn interpolate(h: &[(f64, f64)], i: usize, tau: f64) -> f64 {
    let ((ta, xa), (tb, xb)) = (h[i], h[i + 1]);
    let linear = xa + (xb - xa) * (tau - ta) / (tb - ta);
    let Some(window) = i.checked_sub(1).and_then(|s| h.get(s..s + 4)) else {
        return linear;
    };
    if window.windows(2).any(|w| w[1].0 <= w[0].0) {
        return linear;
    }
    let mut sum = 0.0;
    for (j, &(tj, xj)) in window.iter().enumerate() {
        let mut w = xj;
        for (m, &(tm, _)) in window.iter().enumerate() {
            if m != j {
                w *= (tau - tm) / (tj - tm);
            }
        }
        sum += w;
    }
    sum
}

/// Appends the point the engine's registers hold at time `t` to every delay line of its
/// program (the registers of a line's arguments: time, expr, delayTime, delayMax).
pub fn record(lines: &[std::sync::Arc<DelayLine>], t: f64, regs: &[f64]) {
    for l in lines {
        let r = l.expr_reg as usize;
        // The copy of time tells whether the line's code ran for this point.
        if let (Some(&tc), Some(&x), Some(&d), Some(&dmax)) = (
            regs.get(r.wrapping_sub(1)),
            regs.get(r),
            regs.get(r + 1),
            regs.get(r + 2),
        ) && tc == t
        {
            l.push(t, x, d, dmax);
        }
    }
}

/// The first time after `t` at which a jump comes out of one of the delay `lines`.
pub fn next_event(lines: &[std::sync::Arc<DelayLine>], t: f64) -> Option<f64> {
    let mut next: Option<f64> = None;
    for l in lines {
        let after = t + l.time_eps(t);
        let Ok(mut j) = l.jumps.lock() else { continue };
        j.retain(|&s| s > after);
        if let Some(m) = j.iter().copied().reduce(f64::min) {
            next = Some(next.map_or(m, |n| n.min(m)));
        }
    }
    next
}

/// The earlier of two optional times.
pub fn earlier(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
