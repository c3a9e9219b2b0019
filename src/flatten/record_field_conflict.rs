//! A record component with a binding for the whole record and a value for one of its fields.
//!
//! The binding is the equation `r = R(2, 3)`: it gives every field a value, a field the
//! constructor leaves out included (its default, MLS 12.6). A field modifier is a second
//! binding equation, `r.x = 1`, for the same scalar. Which one holds follows the levels they
//! are written at (`modifier::merge` records it in `Mod::vs_record`), as an outer
//! modification overrides an inner one (MLS 7.2.4):
//!
//! - the whole-record binding further out (`comp(params = data.params)` on a class whose
//!   `extends` gave `params(wRef = ...)`): the binding gives the field its value;
//! - the field modifier further out (`h(p(y = 7))` on `Point p = Point(2, 3)`): the modifier;
//! - both at one level (`R r(x = 1) = R(2, 3)`): two values and nothing to choose one, so the
//!   model is refused, with both places shown.

use super::modifier::{Mod, ModExpr, VsRecord};
use crate::diag::Diagnostic;

/// The error for the first field of `fields` that `mods` gives a value while `binding` binds
/// the whole record `record` (its name, for the message).
pub(super) fn conflict(
    record: &str,
    mods: &Mod,
    fields: &[String],
    binding: &ModExpr,
) -> Option<Diagnostic> {
    let (field, m) = fields.iter().find_map(|f| {
        mods.sub(f)
            .filter(|m| m.binding.is_some() && m.vs_record == VsRecord::Same)
            .map(|m| (f, m))
    })?;
    let given = m.binding.as_ref()?;
    let at = m.span.unwrap_or(given.expr.span);
    Some(
        Diagnostic::error(
            at,
            format!(
                "field `{field}` of record `{record}` is given a value twice: by this modifier \
                 and by the binding of the whole record"
            ),
        )
        .with_label(format!("`{field}` set here"))
        .with_secondary(
            binding.expr.span,
            "this binding also gives every field a value",
        )
        .with_note(
            "MLS 7.2: a modification may give an element one value only; neither binding \
             overrides the other",
        )
        .with_help(format!(
            "give `{field}` its value in the record binding (a named argument `{field} = ...` of \
             the constructor), or drop the field modifier"
        )),
    )
}
