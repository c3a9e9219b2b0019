//! Benchmark: parse (criterion). Filled in with the parse stage.
fn main() {}
