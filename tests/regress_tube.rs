//! The tube comparison of `minimo regress` (`regress::tube`) on curves whose shape between the
//! reference's rows is known: what it must accept (a correct result the reference's rows
//! under-resolve) and what it must still refuse.

use minimo::regress::table::Table;
use minimo::regress::tube::{Tolerance, compare};

/// A table with one signal `x` sampled at `times`.
fn table(times: &[f64], f: impl Fn(f64) -> f64) -> Table {
    Table {
        names: vec!["time".into(), "x".into()],
        time: times.to_vec(),
        columns: vec![times.iter().map(|&t| f(t)).collect()],
    }
}

/// Rows every 0.01 on [0, 1] with two rows at the event time 0.5, as reference tools write
/// an event.
fn reference_times() -> Vec<f64> {
    let mut t: Vec<f64> = (0..=100).map(|k| f64::from(k) / 100.0).collect();
    t.insert(51, 0.5);
    t
}

/// Rows every 0.0005 on [0, 1], with the event's two rows.
fn dense_times() -> Vec<f64> {
    let mut t: Vec<f64> = (0..=2000).map(|k| f64::from(k) / 2000.0).collect();
    t.insert(1001, 0.5);
    t
}

/// A temperature rising slowly (as `t`), with a pressure step at t = 0.5: the compression
/// peaks at 1 above it after 1 ms and has relaxed by the next reference row (0.51), where it
/// is 0.001 above it.
fn transient(t: f64) -> f64 {
    if t <= 0.5 {
        t
    } else {
        let s = (t - 0.5) / 0.001;
        t + s * (1.0 - s).exp()
    }
}

#[test]
fn a_transient_faster_than_the_rows_after_an_event_passes() {
    let r = table(&reference_times(), transient);
    let g = table(&dense_times(), transient);
    let failures = compare(&r, &g, Tolerance::default());
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn a_wrong_value_at_the_rows_after_an_event_still_fails() {
    let r = table(&reference_times(), transient);
    // Right peak, but it relaxes to 0.2 instead of 0: wrong at the rows 0.51 and later.
    let g = table(&dense_times(), |t| {
        transient(t) + if t > 0.5 { 0.2 } else { 0.0 }
    });
    assert!(!compare(&r, &g, Tolerance::default()).is_empty());
}

#[test]
fn the_same_peak_without_an_event_in_the_reference_still_fails() {
    // No event rows: the peak between the rows 0.5 and 0.51 is not explained by anything
    // the reference shows, so the result's samples there are still judged.
    let times: Vec<f64> = (0..=100).map(|k| f64::from(k) / 100.0).collect();
    let r = table(&times, transient);
    let dense: Vec<f64> = (0..=2000).map(|k| f64::from(k) / 2000.0).collect();
    let g = table(&dense, transient);
    assert!(!compare(&r, &g, Tolerance::default()).is_empty());
    // Nor does an event excuse a spike in the segment before it.
    let r = table(&reference_times(), transient);
    let spiky = table(&dense_times(), |t| {
        transient(t)
            + if (0.494..0.496).contains(&t) {
                0.5
            } else {
                0.0
            }
    });
    assert!(!compare(&r, &spiky, Tolerance::default()).is_empty());
}

#[test]
fn a_result_sampled_coarser_than_the_transient_after_its_event_passes() {
    // The other way round: the reference resolves the peak, the result has only its event
    // rows at 0.5 and its next output row at 0.51, so its chord says nothing in between.
    let r = table(&dense_times(), transient);
    let g = table(&reference_times(), transient);
    let failures = compare(&r, &g, Tolerance::default());
    assert!(failures.is_empty(), "{failures:?}");
    // Wrong at its own rows after the event, it still fails.
    let g = table(&reference_times(), |t| {
        transient(t) + if t > 0.5 { 0.2 } else { 0.0 }
    });
    assert!(!compare(&r, &g, Tolerance::default()).is_empty());
}

#[test]
fn a_transient_at_the_start_faster_than_the_rows_passes() {
    // Initial values that are not a steady state: the start is the first event.
    let from_start = |t: f64| transient(t + 0.5);
    let times: Vec<f64> = (0..=100).map(|k| f64::from(k) / 100.0).collect();
    let dense: Vec<f64> = (0..=2000).map(|k| f64::from(k) / 2000.0).collect();
    let failures = compare(
        &table(&times, from_start),
        &table(&dense, from_start),
        Tolerance::default(),
    );
    assert!(failures.is_empty(), "{failures:?}");
}
