//! The largest array the flattener builds, checked before the memory is asked for.
//!
//! `Real x[1000000000]`, `fill(1.0, 2000000000)` or `for i in 1:2000000000 loop` used to run
//! until the allocation failed and the process aborted (found by `fuzz/`); a flat model that
//! large could not be simulated anyway. Ten million elements is far beyond any model minimo
//! simulates and still small enough to allocate.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The most elements one array, range or declaration may have, by default.
pub const MAX_ELEMENTS: usize = 10_000_000;

static LIMIT: AtomicUsize = AtomicUsize::new(MAX_ELEMENTS);

/// Lowers (or restores) the limit for the whole process. The fuzz harness runs under a memory
/// limit of 2 GB, which a legal chain of a million masses (three arrays of 10^6 elements, 3
/// million variables and equations) already exceeds while it is flattened.
pub fn set_max_elements(n: usize) {
    LIMIT.store(n, Ordering::Relaxed);
}

fn max_elements() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

/// The number of elements of an array of size `dims`, or the message saying it is too large
/// (also when the product overflows).
pub fn element_count(dims: &[usize]) -> Result<usize, String> {
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= max_elements())
        .ok_or_else(|| {
            format!(
                "an array of size {} is larger than the {} elements supported",
                super::tensor::fmt_dims(dims),
                max_elements()
            )
        })
}

/// The same for a range of `n` values, where `n` may be a huge or non-finite count.
pub fn range_count(n: f64) -> Result<usize, String> {
    if n.is_finite() && n <= max_elements() as f64 {
        Ok(n.max(0.0) as usize)
    } else {
        Err(format!(
            "this range has {n:.3e} values; at most {} are supported",
            max_elements()
        ))
    }
}
