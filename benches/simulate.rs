//! Benchmark: simulate (criterion). Filled in with the simulate stage.
fn main() {}
