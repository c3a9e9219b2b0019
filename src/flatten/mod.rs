//! Stage module: flatten.
