//! Benchmark: structure (criterion). Filled in with the structure stage.
fn main() {}
