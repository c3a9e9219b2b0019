//! The tube comparison of a signal with its reference, after the Modelica Association's
//! regression checks (csv-compare): around each reference point a rectangle of half-width
//! `time_width` (a fraction of the time span) and half-height `value_width` (a fraction of the
//! signal's range) is drawn; the result passes when, at every result sample and at every
//! reference time (result interpolated linearly), it lies between the lowest and highest
//! reference value found within the time window, widened by the value width.
//!
//! Looking at both sets of times matters: the result's own samples catch a wrong value between
//! reference points, the reference times catch a result that skips a narrow feature.
//!
//! Thinned references: the reference files keep a row only every span/2000 or so, so a crest
//! of a smooth signal can fall between two kept rows, above both. The straight line between
//! them is then not the reference curve, and a correct result leaves a tube built on it. The
//! tube therefore widens each segment between reference rows by the most a smooth curve can
//! bulge away from its chord there, `|v''| h^2 / 8` (h the segment's length), with `v''`
//! estimated from the second differences at the segment's two end rows. At the rows themselves
//! nothing changes, and the widening vanishes as h^2 for dense references.
//!
//! After an event, and after the start, a curve may do anything between its next two rows (a
//! transient faster than the rows): the other curve is not judged strictly inside that
//! segment, only at the rows at its ends (`after_event_unresolved`). This holds both ways:
//! result samples inside such a segment of the reference, reference rows inside such a
//! segment of the result. Where both curves have a row at the same time, it is compared.

use super::table::Table;

/// Tube widths, as fractions of the reference's time span and of each signal's value range.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub time: f64,
    pub value: f64,
}

impl Default for Tolerance {
    /// The widths of the issue and of the MSL regression tests: 2e-3 of the span and range.
    fn default() -> Tolerance {
        Tolerance {
            time: 2e-3,
            value: 2e-3,
        }
    }
}

/// Why one signal failed.
#[derive(Clone, Debug, PartialEq)]
pub enum SignalFailure {
    /// The result has no column of that name.
    Missing(String),
    /// The result leaves the tube; the first time it does, its value and the tube there.
    Outside {
        name: String,
        time: f64,
        value: f64,
        low: f64,
        high: f64,
    },
    /// The result does not cover the reference's time span.
    Span {
        result: (f64, f64),
        reference: (f64, f64),
    },
}

impl std::fmt::Display for SignalFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignalFailure::Missing(n) => write!(f, "`{n}` is not in the result"),
            SignalFailure::Outside {
                name,
                time,
                value,
                low,
                high,
            } => write!(
                f,
                "`{name}` leaves the tube at t = {time}: {value} not in [{low}, {high}]"
            ),
            SignalFailure::Span { result, reference } => write!(
                f,
                "the result covers [{}, {}], the reference [{}, {}]",
                result.0, result.1, reference.0, reference.1
            ),
        }
    }
}

/// Compares every signal of `reference` with the same-named column of `result`.
pub fn compare(reference: &Table, result: &Table, tol: Tolerance) -> Vec<SignalFailure> {
    let (Some(&t0), Some(&t1)) = (reference.time.first(), reference.time.last()) else {
        return Vec::new();
    };
    let (Some(&r0), Some(&r1)) = (result.time.first(), result.time.last()) else {
        return vec![SignalFailure::Span {
            result: (f64::NAN, f64::NAN),
            reference: (t0, t1),
        }];
    };
    let span = t1 - t0;
    let tw = tol.time * span;
    if r0 > t0 + tw || r1 < t1 - tw {
        return vec![SignalFailure::Span {
            result: (r0, r1),
            reference: (t0, t1),
        }];
    }
    let floors = noise_floors(reference);
    let mut out = Vec::new();
    for (k, name) in reference.names.iter().enumerate().skip(1) {
        let refv = &reference.columns[k - 1];
        let Some(got) = result.column(name) else {
            out.push(SignalFailure::Missing(name.clone()));
            continue;
        };
        let scale = Scale {
            tw,
            floor: floors[k - 1],
        };
        if let Some(f) = signal(name, &reference.time, refv, &result.time, got, scale, tol) {
            out.push(f);
        }
    }
    out
}

/// The smallest value range each signal is compared at: 1e-4 of the largest magnitude of
/// the signal itself or, for an array element, of any element of its array (`w_a[1]` is
/// measured against all of `w_a`), so the tube is at least 2e-7 of that magnitude wide,
/// below the tolerance (1e-6 or looser) the reference itself was computed with. Variation
/// below that is integration noise, and a range made of it says nothing: a tank temperature
/// that drifts by 1e-4 K around 323.15 K in the reference and stays exactly at 323.15 K here
/// (both tanks at the same temperature), a joint angle held at pi/2 that wanders by 1e-14, an
/// angular velocity component at 1e-15 next to 2.5 in its sibling, the imaginary parts of a
/// real FFT at 1e-16 next to 5. The elements of one array share their unit, so their largest
/// magnitude says what "small" means for each; one huge unrelated signal widens nothing.
/// Scalars that are rounding noise (`r_rel_a_3` at 1e-18 among O(1) signals) have no array:
/// every signal's floor is at least 1e-12 of the file's upper-quartile magnitude, the
/// rounding level of double arithmetic on the file's typical values (a quartile, so that a
/// few huge signals move nothing, and files that are half structural zeros still measure
/// against their real signals).
fn noise_floors(reference: &Table) -> Vec<f64> {
    let array_of = |name: &str| -> Option<String> {
        let open = name.strip_suffix(']')?.rfind('[')?;
        Some(name[..open].to_string())
    };
    let magnitude = |c: &[f64]| {
        let m = c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if m.is_finite() { m } else { 0.0 }
    };
    let mut largest: std::collections::HashMap<String, f64> = Default::default();
    let names = &reference.names[1..];
    for (name, column) in names.iter().zip(&reference.columns) {
        if let Some(array) = array_of(name) {
            let entry = largest.entry(array).or_insert(0.0);
            *entry = entry.max(magnitude(column));
        }
    }
    let mut magnitudes: Vec<f64> = reference
        .columns
        .iter()
        .map(|c| magnitude(c))
        .filter(|m| *m > 0.0)
        .collect();
    magnitudes.sort_by(f64::total_cmp);
    let file = magnitudes
        .get(magnitudes.len() * 3 / 4)
        .map_or(0.0, |m| 1e-12 * m);
    names
        .iter()
        .zip(&reference.columns)
        .map(|(n, c)| {
            let array = array_of(n).map_or(0.0, |a| largest[&a]);
            (1e-4 * magnitude(c).max(array)).max(file)
        })
        .collect()
}

/// The time half-width of the tube and the noise floor of its value range.
#[derive(Clone, Copy)]
struct Scale {
    tw: f64,
    floor: f64,
}

fn signal(
    name: &str,
    rt: &[f64],
    rv: &[f64],
    gt: &[f64],
    gv: &[f64],
    Scale { tw, floor }: Scale,
    tol: Tolerance,
) -> Option<SignalFailure> {
    let lo = rv.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rv.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = hi - lo;
    // A constant signal gets a width relative to its magnitude (csv-compare does the same).
    let scale = if range > 1e-14 * hi.abs().max(lo.abs()) {
        range
    } else {
        hi.abs().max(lo.abs()).max(1e-10)
    };
    let vw = tol.value * scale.max(floor);
    let (t_first, t_last) = (rt[0], rt[rt.len() - 1]);
    let bulge = bulges(rt, rv);
    let check = |t: f64, v: f64| -> Option<SignalFailure> {
        if t < t_first || t > t_last {
            return None;
        }
        let (a, b) = window(rt, rv, t - tw, t + tw);
        let w = vw + widest_bulge(rt, &bulge, t - tw, t + tw);
        if !(v >= a - w && v <= b + w) {
            return Some(SignalFailure::Outside {
                name: name.to_string(),
                time: t,
                value: v,
                low: a - w,
                high: b + w,
            });
        }
        None
    };
    // Rows at the start time before the last one are the initial system's values, before the
    // event at the start time (`initial()` true: a friction element's `startForward = ... or
    // initial() and w > 0`); the reference tools write only the values after that event.
    let skip = gt
        .iter()
        .take_while(|&&t| t == gt[0])
        .count()
        .saturating_sub(1);
    // Rows at the stop time are the values before and after an event there. Whether a state
    // event lands on the stop time or a rounding error after it (and so is not processed) is
    // a coincidence of the last bits (a self-resetting integrator reaching its threshold
    // exactly at the stop time), so either limit passes there.
    let gl = gt[gt.len() - 1];
    let tail = gt.partition_point(|&t| t < gl);
    let at_end = |t: f64| -> Option<SignalFailure> {
        let mut first = None;
        for &v in &gv[tail..] {
            match check(t, v) {
                None => return None,
                Some(f) => first = first.or(Some(f)),
            }
        }
        first
    };
    for (&t, &v) in gt[..tail].iter().zip(gv).skip(skip) {
        if after_event_unresolved(rt, t) {
            continue;
        }
        if let Some(f) = check(t, v) {
            return Some(f);
        }
    }
    if let Some(f) = at_end(gl) {
        return Some(f);
    }
    for &t in rt {
        let f = if t >= gl {
            at_end(t)
        } else if after_event_unresolved(gt, t) {
            None
        } else {
            check(t, interpolate(gt, gv, t))
        };
        if f.is_some() {
            return f;
        }
    }
    None
}

/// Whether `t` lies strictly inside the first segment of a curve (its row times `ts`) after
/// an event (two rows at the segment's left time) or after the start. An event, or the start
/// from initial values that are not a steady state, starts a transient (a pressure step
/// compresses a gas volume, whose temperature peaks and relaxes within a millisecond) that may
/// be faster than the curve's rows: there the rows say nothing about the curve between them,
/// neither its chord nor a bulge estimated from curvature (the curvature changes sign within
/// the segment). The other curve cannot be judged there; both curves are still compared at
/// the rows at the segment's ends.
fn after_event_unresolved(ts: &[f64], t: f64) -> bool {
    let k = ts.partition_point(|&s| s <= t);
    if k == 0 || k >= ts.len() || ts[k - 1] >= t || t >= ts[k] {
        return false;
    }
    ts[k - 1] == ts[0] || (k >= 2 && ts[k - 2] == ts[k - 1])
}

/// For each segment `k` (rows `k - 1` to `k`; entry 0 unused), how far a smooth curve through
/// the rows may bulge away from the chord: `max(|v''|) h^2 / 8`, with `v''` the second
/// difference at each end row. A row next to an event (two rows at one time) or next to rows
/// spaced unlike the segment has none: a jump is not curvature.
fn bulges(t: &[f64], v: &[f64]) -> Vec<f64> {
    let n = t.len();
    let curvature = |j: usize, h: f64| -> f64 {
        if j == 0 || j + 1 >= n {
            return 0.0;
        }
        let (hl, hr) = (t[j] - t[j - 1], t[j + 1] - t[j]);
        // Only where the rows are evenly spaced, as thinning leaves them: next to a short
        // segment (rows packed around an event or a steep edge) a second difference measures
        // the edge, not the curvature of the long segment.
        let even = |x: f64| x >= 0.5 * h && x <= 2.0 * h;
        if !(even(hl) && even(hr)) {
            return 0.0;
        }
        let left = (v[j] - v[j - 1]) / hl;
        let right = (v[j + 1] - v[j]) / hr;
        2.0 * (right - left).abs() / (hl + hr)
    };
    let mut out = vec![0.0; n];
    for k in 1..n {
        let h = t[k] - t[k - 1];
        if h > 0.0 {
            out[k] = curvature(k - 1, h).max(curvature(k, h)) * h * h / 8.0;
        }
    }
    out
}

/// The largest bulge of the segments that meet [a, b].
fn widest_bulge(t: &[f64], bulge: &[f64], a: f64, b: f64) -> f64 {
    let first = t.partition_point(|&x| x < a).max(1);
    let last = t.partition_point(|&x| x <= b).min(t.len() - 1);
    (first..=last).map(|k| bulge[k]).fold(0.0, f64::max)
}

/// Lowest and highest value of the piecewise-linear curve (t, v) over [a, b].
fn window(t: &[f64], v: &[f64], a: f64, b: f64) -> (f64, f64) {
    let mut lo = interpolate(t, v, a).min(interpolate(t, v, b));
    let mut hi = interpolate(t, v, a).max(interpolate(t, v, b));
    // At an event the curve has two samples at one time: both count.
    let first = t.partition_point(|&x| x < a);
    for k in first..t.len() {
        if t[k] > b {
            break;
        }
        lo = lo.min(v[k]);
        hi = hi.max(v[k]);
    }
    (lo, hi)
}

/// The piecewise-linear curve at `x` (held constant outside; the right limit at a jump).
fn interpolate(t: &[f64], v: &[f64], x: f64) -> f64 {
    let k = t.partition_point(|&s| s <= x);
    if k == 0 {
        return v[0];
    }
    if k >= t.len() {
        return v[t.len() - 1];
    }
    let (t0, t1) = (t[k - 1], t[k]);
    if t1 <= t0 {
        return v[k];
    }
    v[k - 1] + (v[k] - v[k - 1]) * (x - t0) / (t1 - t0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[&str], rows: &[&[f64]]) -> Table {
        let mut t = Table {
            names: names.iter().map(|s| s.to_string()).collect(),
            time: Vec::new(),
            columns: vec![Vec::new(); names.len() - 1],
        };
        for r in rows {
            t.time.push(r[0]);
            for (c, v) in r[1..].iter().enumerate() {
                t.columns[c].push(*v);
            }
        }
        t
    }

    fn ramp(n: usize, f: impl Fn(f64) -> f64) -> Table {
        let rows: Vec<Vec<f64>> = (0..=n)
            .map(|k| {
                let t = k as f64 / n as f64;
                vec![t, f(t)]
            })
            .collect();
        let r: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
        table(&["time", "x"], &r)
    }

    #[test]
    fn identical_and_slightly_off_signals_pass() {
        let r = ramp(100, |t| t * t);
        assert!(compare(&r, &r, Tolerance::default()).is_empty());
        let g = ramp(77, |t| t * t + 1e-4);
        assert!(compare(&r, &g, Tolerance::default()).is_empty());
    }

    #[test]
    fn a_value_outside_the_tube_fails_with_its_time() {
        let r = ramp(100, |t| t);
        let g = ramp(100, |t| {
            if (0.5..0.52).contains(&t) {
                t + 0.01
            } else {
                t
            }
        });
        let f = compare(&r, &g, Tolerance::default());
        match &f[..] {
            [SignalFailure::Outside { time, .. }] => assert!((time - 0.5).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_jump_shifted_within_the_time_width_passes_and_beyond_it_fails() {
        let step = |at: f64| ramp(1000, move |t| if t >= at { 1.0 } else { 0.0 });
        let r = step(0.5);
        assert!(compare(&r, &step(0.5015), Tolerance::default()).is_empty());
        assert!(!compare(&r, &step(0.51), Tolerance::default()).is_empty());
    }

    #[test]
    fn only_the_last_row_at_the_start_time_is_compared() {
        // Two rows at t = 0: the initial system's value (1), then the value after the event
        // at the start time (0), which is what the reference holds.
        let r = table(&["time", "x"], &[&[0.0, 0.0], &[0.5, 0.0], &[1.0, 0.0]]);
        let g = table(
            &["time", "x"],
            &[&[0.0, 1.0], &[0.0, 0.0], &[0.5, 0.0], &[1.0, 0.0]],
        );
        assert!(compare(&r, &g, Tolerance::default()).is_empty());
        // A wrong value after the start event still fails.
        let bad = table(&["time", "x"], &[&[0.0, 0.0], &[0.0, 1.0], &[1.0, 0.0]]);
        assert!(!compare(&r, &bad, Tolerance::default()).is_empty());
    }

    #[test]
    fn either_limit_of_an_event_at_the_stop_time_passes() {
        // A sawtooth reset at its threshold: here the reset lands on the stop time (rows 1
        // then 0 at t = 1), in the reference a rounding error after it (only 1 at t = 1).
        let r = ramp(100, |t| t);
        let mut g = ramp(100, |t| t);
        g.time.push(1.0);
        g.columns[0].push(0.0);
        assert!(compare(&r, &g, Tolerance::default()).is_empty());
        // Neither limit in the tube still fails.
        let mut bad = ramp(100, |t| t);
        bad.columns[0][100] = 0.5;
        bad.time.push(1.0);
        bad.columns[0].push(0.0);
        assert!(!compare(&r, &bad, Tolerance::default()).is_empty());
    }

    #[test]
    fn a_crest_between_thinned_reference_rows_passes_but_a_spike_does_not() {
        // The reference keeps 100 rows (14 a period) of a fast sine, so its crests fall between rows; the
        // result, sampled 50 times more densely, reaches them.
        let w = 2.0 * std::f64::consts::PI * 7.3;
        let r = ramp(100, |t| (w * t).sin());
        let g = ramp(2000, |t| (w * t).sin());
        assert!(compare(&r, &g, Tolerance::default()).is_empty());
        // The case needs the allowance: the crests rise above the chords' tube (value width
        // 2e-3 of the range 2) by far more than the time width can make up.
        let above = (0..=2000)
            .map(|k| k as f64 / 2000.0)
            .map(|t| {
                let (_, hi) = window(&r.time, &r.columns[0], t - 2e-3, t + 2e-3);
                (w * t).sin() - hi
            })
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(above > 0.02, "{above}");
        // A spike of 0.3 on the dense result still fails.
        let spiky = ramp(2000, |t| {
            (w * t).sin() + if (0.5..0.502).contains(&t) { 0.3 } else { 0.0 }
        });
        assert!(!compare(&r, &spiky, Tolerance::default()).is_empty());
    }

    #[test]
    fn a_missing_signal_and_a_short_run_are_reported() {
        let r = ramp(10, |t| t);
        let g = table(&["time", "y"], &[&[0.0, 0.0], &[1.0, 1.0]]);
        assert_eq!(
            compare(&r, &g, Tolerance::default()),
            vec![SignalFailure::Missing("x".into())]
        );
        let short = table(&["time", "x"], &[&[0.0, 0.0], &[0.5, 0.5]]);
        assert!(matches!(
            compare(&r, &short, Tolerance::default())[..],
            [SignalFailure::Span { .. }]
        ));
    }

    /// Rows of time, `w[1]` made of rounding noise, `w[2]` of order one, and a scalar `z`
    /// with the same noise as `w[1]`.
    fn with_noise(noise: impl Fn(f64) -> f64) -> Table {
        let rows: Vec<Vec<f64>> = (0..=100)
            .map(|k| {
                let t = k as f64 / 100.0;
                vec![t, noise(t), 2.0 * t, noise(t)]
            })
            .collect();
        let r: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
        table(&["time", "w[1]", "w[2]", "z"], &r)
    }

    #[test]
    fn rounding_noise_of_an_array_element_is_compared_at_its_arrays_scale() {
        let r = with_noise(|t| 1e-21 * (40.0 * t).sin());
        // Another tool's noise, far larger yet still noise next to w[2]: w[1] passes; the
        // scalar z, measured against the file's upper-quartile magnitude (w[2], 2), passes below
        // 1e-12 of it and fails above.
        let g = with_noise(|t| 1e-15 * (13.0 * t).cos());
        assert!(compare(&r, &g, Tolerance::default()).is_empty());
        let g = with_noise(|t| 1e-13 * (13.0 * t).cos());
        match &compare(&r, &g, Tolerance::default())[..] {
            [SignalFailure::Outside { name, .. }] => assert_eq!(name, "z"),
            other => panic!("{other:?}"),
        }
        // 1e-5 of w[2] is no longer noise: w[1] leaves the tube too.
        let g = with_noise(|t| if t > 0.5 { 2e-5 } else { 0.0 });
        assert_eq!(compare(&r, &g, Tolerance::default()).len(), 2);
    }

    #[test]
    fn a_signal_that_wanders_by_rounding_around_a_large_value_passes() {
        let r = ramp(100, |t| std::f64::consts::FRAC_PI_2 + 5e-12 * t);
        let g = ramp(100, |_| std::f64::consts::FRAC_PI_2 + 2.5e-14 + 5e-12);
        assert!(compare(&r, &g, Tolerance::default()).is_empty());
        // 1e-6 off (above the reference's own tolerance) is not rounding.
        let g = ramp(100, |t| std::f64::consts::FRAC_PI_2 + 5e-12 * t + 1e-6);
        assert!(!compare(&r, &g, Tolerance::default()).is_empty());
    }
}
