//! What a component redeclaration keeps from the declaration it replaces (MLS 7.3.2): the type
//! prefixes (`flow`, `stream`, `discrete`, `parameter`, `constant`, `input`, `output`) and the
//! array dimensions the new declaration does not give itself. Without this,
//! `redeclare Real x` would turn `replaceable parameter Real x` into a continuous variable,
//! `replaceable flow Real f` into a potential, and `replaceable Integer x[3]` into a scalar.

use crate::syntax::ast::{Causality, ComponentClause, Connection, Subscript, Variability};

/// The redeclaring clause `new` with the prefixes (and, when `dims_too`, the dimensions) of the
/// original clause `orig` filled in where `new` leaves them out.
pub(super) fn keep_original(
    orig: &ComponentClause,
    new: &ComponentClause,
    dims_too: bool,
) -> ComponentClause {
    let mut out = new.clone();
    if out.prefix.connection == Connection::None {
        out.prefix.connection = orig.prefix.connection;
    }
    if out.prefix.variability == Variability::Continuous {
        out.prefix.variability = orig.prefix.variability;
    }
    if out.prefix.causality == Causality::None {
        out.prefix.causality = orig.prefix.causality;
    }
    if let (Some(o), [d]) = (orig.components.first(), out.components.as_mut_slice())
        && d.condition.is_none()
    {
        d.condition = o.condition.clone();
    }
    let gives_dims = !out.type_dims.is_empty() || out.components.iter().any(|d| !d.dims.is_empty());
    if dims_too
        && !gives_dims
        && let (Some(o), [d]) = (orig.components.first(), out.components.as_mut_slice())
    {
        d.dims = o.dims.clone();
        out.type_dims = orig.type_dims.clone();
    }
    out
}

/// Whether the dimensions of `c` name nothing (literals and `:` only), so they mean the same
/// wherever they are evaluated.
pub(super) fn dims_name_free(c: &ComponentClause) -> bool {
    let dims: Vec<&Subscript> = c
        .type_dims
        .iter()
        .chain(c.components.iter().flat_map(|d| d.dims.iter()))
        .collect();
    let v = serde_json::to_value(&dims).unwrap_or_default();
    !names_something(&v)
}

fn names_something(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .any(|(k, x)| k == "Ref" || k == "Call" || names_something(x)),
        serde_json::Value::Array(a) => a.iter().any(names_something),
        _ => false,
    }
}
