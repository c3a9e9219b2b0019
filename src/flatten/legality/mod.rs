//! Legality rules of the language that the flattening pipeline checks on the way: each module
//! holds the rules of one area of the specification, called from the stage that has the
//! information they need (lookup, instantiation, connection sets).
//!
//! - `visibility`: protected elements (MLS 4.1) and what dot-notation may look inside (MLS 5.3.2);
//! - `imports`: import clauses (MLS 13.2.1);
//! - `prefixes`: type prefixes of components (MLS 4.4.2.2, 4.5, 9.3);
//! - `connect_rules`: what may be connected and balanced connectors (MLS 9.3);
//! - `inner_outer`: `inner`/`outer` matching (MLS 5.4, 5.5).

mod connect_rules;
mod imports;
mod inner_outer;
mod prefixes;
mod visibility;

pub use imports::Imported;
