//! Benchmark: flatten (criterion). Filled in with the flatten stage.
fn main() {}
