//! Regression against reference results: the Modelica Association's way of checking a
//! simulator on a library's examples (each comparison signal inside a tube around the
//! reference curve).
//!
//! - [`table`]: result tables (CSV with a header of signal names, `time` first);
//! - [`tube`]: the tube comparison of one result with its reference;
//! - [`runner`]: finding the reference models of a library, simulating each in its own
//!   process (with a time limit) and tallying loaded / simulated / matched per package
//!   against a list of known failures.
//!
//! - [`compliance`]: the Modelica compliance suite (legal models must simulate, illegal ones be
//!   refused).
//!
//! `minimo regress` / `minimo compliance` (`src/cli/regress.rs`) and `tests/msl_examples.rs`
//! drive it.

pub mod compliance;
pub mod runner;
pub mod table;
pub mod tube;
