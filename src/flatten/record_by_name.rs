//! A record passed to a record input is matched to it field by field by **name** (MLS 6.4:
//! a record type is a subtype of another when it has all its elements, by name, whatever
//! their order; MLS 12.4.1 passes the argument by that type compatibility). Records reach
//! functions split into their fields in declaration order, so an argument of another record
//! class (`record B(y, x)` given to `input A a` with `A(x, y)`, or a subtype with more fields)
//! has to be permuted before it is split, or `a.x` silently reads the argument's `y`.

use super::Flattener;
use super::classtree::ClassId;
use crate::dae::ArgGroup;
use crate::diag::{Diagnostic, Span};

/// Where each field of a record input comes from in the argument.
pub struct FieldMap {
    /// For each field of the input, the index of the argument's field of the same name.
    pub pick: Vec<usize>,
    /// Scalar count of each of the argument's fields, in its order.
    pub arg_sizes: Vec<usize>,
}

impl FieldMap {
    /// The argument's scalars (its fields one after the other, in its own order) as the
    /// input's fields in the input's order.
    pub fn permute_scalars<T: Clone>(&self, data: &[T]) -> Vec<T> {
        let mut starts = Vec::with_capacity(self.arg_sizes.len());
        let mut at = 0;
        for n in &self.arg_sizes {
            starts.push(at);
            at += n;
        }
        self.pick
            .iter()
            .flat_map(|&k| {
                data[starts[k]..starts[k] + self.arg_sizes[k]]
                    .iter()
                    .cloned()
            })
            .collect()
    }

    /// The argument's fields (one value each, in its order) in the input's order.
    pub fn permute_fields<T: Clone>(&self, fields: &[T]) -> Vec<T> {
        self.pick.iter().map(|&k| fields[k].clone()).collect()
    }
}

impl Flattener<'_> {
    /// How a value of record class `arg` fills the record input `g` (whose field variables are
    /// entries of `inputs`, the function's input names); `None` when the
    /// fields already line up by position and name (the same class, or one declared alike).
    /// An argument that lacks a field of the input, or has it with other sizes, is an error.
    pub(super) fn record_field_map(
        &mut self,
        arg: ClassId,
        g: &ArgGroup,
        inputs: &[String],
        span: Span,
    ) -> Result<Option<FieldMap>, Diagnostic> {
        let Some(input_dims) = &g.fields else {
            return Ok(None);
        };
        let prefix = format!("{}.", g.name);
        let input_names: Vec<&str> = inputs[g.first..g.first + g.count()]
            .iter()
            .map(|v| v.strip_prefix(&prefix).unwrap_or(v))
            .collect();
        let arg_fields = self.record_fields(arg, "", &mut Vec::new())?;
        let same = arg_fields.len() == input_names.len()
            && arg_fields
                .iter()
                .zip(&input_names)
                .all(|(a, n)| a.name == *n);
        if same {
            return Ok(None);
        }
        let mut pick = Vec::with_capacity(input_names.len());
        for (name, dims) in input_names.iter().zip(input_dims) {
            let Some(k) = arg_fields.iter().position(|a| a.name == *name) else {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "the argument for record input `{}` is a `{}`, which has no field `{name}`",
                        g.name,
                        self.tree.get(arg).full
                    ),
                )
                .with_note(
                    "a record argument must have every field of the input's record type, by name (MLS 6.4)",
                ));
            };
            if arg_fields[k].dims != *dims {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "field `{name}` of the argument for record input `{}` has sizes {:?}, the input's has {:?}",
                        g.name, arg_fields[k].dims, dims
                    ),
                ));
            }
            pick.push(k);
        }
        let arg_sizes = arg_fields.iter().map(|a| a.dims.iter().product()).collect();
        Ok(Some(FieldMap { pick, arg_sizes }))
    }
}

#[cfg(test)]
mod tests {
    use super::FieldMap;

    #[test]
    fn fields_are_picked_by_name_with_their_sizes() {
        // Argument fields: y (1 scalar), v (2 scalars), x (1 scalar); input wants x, v.
        let m = FieldMap {
            pick: vec![2, 1],
            arg_sizes: vec![1, 2, 1],
        };
        assert_eq!(m.permute_scalars(&[10, 20, 21, 30]), vec![30, 20, 21]);
        assert_eq!(m.permute_fields(&["y", "v", "x"]), vec!["x", "v"]);
    }
}
