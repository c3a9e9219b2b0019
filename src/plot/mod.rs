//! Stage module: plot.
