//! Stage module: sim.
