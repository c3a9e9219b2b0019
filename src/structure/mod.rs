//! Structural analysis: from the flat DAE to a sorted index-1 system.
//!
//! Alias elimination, matching, Pantelides index reduction, dummy-derivative state selection
//! and BLT sorting. The result is a [`SortedSystem`].

mod system;

pub use system::*;
