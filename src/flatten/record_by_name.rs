//! A record passed to a record input is matched to it field by field by **name** (MLS 6.4:
//! a record type is a subtype of another when it has all its elements, by name, whatever
//! their order; MLS 12.4.1 passes the argument by that type compatibility). Records reach
//! functions split into their fields in declaration order, so an argument of another record
//! class (`record B(y, x)` given to `input A a` with `A(x, y)`, or a subtype with more fields)
//! has to be permuted before it is split, or `a.x` silently reads the argument's `y`.

use super::Flattener;
use super::classtree::ClassId;
use super::modifier::Scope;
use super::scalarize::{FCtx, Mode, Node};
use super::tensor::Tensor;
use crate::dae::{ArgGroup, Expr};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;

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

/// The field names of the record input (or output) `g` among the function's `names`
/// (`a.x` -> `x`), in its order.
pub(super) fn group_field_names<'n>(g: &ArgGroup, names: &'n [String]) -> Vec<&'n str> {
    field_names_under(&g.name, &names[g.first..g.first + g.count()])
}

/// `names` of the fields of record variable `record` (`a.x`, `a.sub.y`) relative to it.
pub(super) fn field_names_under<'n>(record: &str, names: &'n [String]) -> Vec<&'n str> {
    let prefix = format!("{record}.");
    names
        .iter()
        .map(|v| v.strip_prefix(&prefix).unwrap_or(v))
        .collect()
}

impl Flattener<'_> {
    /// How a record value (`from`) fills the record input `g` (whose field variables are
    /// entries of `inputs`, the function's input names); `None` when the fields already line
    /// up by position and name (the same class, or one declared alike). An argument that
    /// lacks a field of the input, or has it with other sizes, is an error.
    pub(super) fn record_field_map(
        &mut self,
        from: &RecordValue,
        g: &ArgGroup,
        inputs: &[String],
        span: Span,
    ) -> Result<Option<FieldMap>, Diagnostic> {
        let Some(input_dims) = &g.fields else {
            return Ok(None);
        };
        let wanted: Vec<(&str, &[usize])> = group_field_names(g, inputs)
            .into_iter()
            .zip(input_dims)
            .map(|(n, d)| (n, d.as_slice()))
            .collect();
        let what = format!("the argument for record input `{}`", g.name);
        field_map(from, &wanted, &what, span)
    }

    /// How a value of record class `from` becomes a value of record class `to` (a record
    /// assignment in a function body); `None` when the fields line up.
    pub(super) fn record_class_map(
        &mut self,
        from: ClassId,
        to: ClassId,
        span: Span,
    ) -> Result<Option<FieldMap>, Diagnostic> {
        if from == to {
            return Ok(None);
        }
        let from = self.record_class_value(from)?;
        self.record_value_map(&from, to, span)
    }

    /// How a record value becomes a value of record class `to` (a record equation or a
    /// record bound as a whole); `None` when the fields line up.
    pub(super) fn record_value_map(
        &mut self,
        from: &RecordValue,
        to: ClassId,
        span: Span,
    ) -> Result<Option<FieldMap>, Diagnostic> {
        if from.class == Some(to) {
            return Ok(None);
        }
        let to_fields = self.record_fields(to, "", &mut Vec::new())?;
        let wanted: Vec<(&str, &[usize])> = to_fields
            .iter()
            .map(|f| (f.name.as_str(), f.dims.as_slice()))
            .collect();
        let what = format!("this value for a `{}`", self.tree.get(to).full);
        field_map(from, &wanted, &what, span)
    }

    /// The fields of a value of record class `class`.
    pub(super) fn record_class_value(&mut self, class: ClassId) -> Result<RecordValue, Diagnostic> {
        Ok(RecordValue {
            class: Some(class),
            what: format!("a `{}`", self.tree.get(class).full),
            fields: self
                .record_fields(class, "", &mut Vec::new())?
                .into_iter()
                .map(|f| (f.name, f.dims))
                .collect(),
        })
    }

    /// The record class of a record-valued expression at model level, where it can be told
    /// without evaluating: a record component or a record constructor call.
    pub(super) fn record_expr_class(
        &mut self,
        e: &ast::Expr,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
    ) -> Option<ClassId> {
        let class = match &e.kind {
            ast::ExprKind::Ref(c) => {
                let mut fc = FCtx::new(self, scope, Mode::Symbolic);
                fc.locals = locals.to_vec();
                let inst = match fc.resolve(c) {
                    Ok(Some(nodes)) if nodes.dims.is_empty() => match nodes.data.first() {
                        Some(Node::Inst(i)) => Some(*i),
                        _ => None,
                    },
                    _ => None,
                };
                drop(fc);
                inst.map(|i| self.insts[i].class)
            }
            ast::ExprKind::Call { func, .. } if !self.is_plain_call(func, scope) => {
                let mut fc = FCtx::new(self, scope, Mode::Symbolic);
                let class = fc.function_class(func).ok().map(|(c, _)| c);
                drop(fc);
                class
            }
            _ => None,
        }?;
        self.is_record(class).ok()?.then_some(class)
    }

    /// Whether a call is certainly not a record constructor nor a user function: `der(x)`,
    /// `pre(x)`, built-ins. Asking `function_class` would build an "unknown name" error with
    /// its spelling suggestions for every such equation.
    fn is_plain_call(&mut self, func: &ast::ComponentRef, scope: Scope) -> bool {
        func.parts.len() == 1
            && (super::scalarize::is_event_or_state_operator(&func.parts[0].ident.name)
                || self.is_builtin_call(func, scope.lex, scope.inst))
    }

    /// The fields of a record-valued expression at model level, in the order its scalars
    /// come in, where they can be told without evaluating: a record component, a record
    /// constructor call, or a call of a function whose first output is a record. For a
    /// function, the fields are those of its flattened output (its declared type may be a
    /// replaceable record seen from the function's own package, `PartialMedium.
    /// ThermodynamicState`, whose fields are not those of the medium the call is made for).
    pub(super) fn record_expr_value(
        &mut self,
        e: &ast::Expr,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
    ) -> Result<Option<RecordValue>, Diagnostic> {
        let ast::ExprKind::Call { func, .. } = &e.kind else {
            return match self.record_expr_class(e, scope, locals) {
                Some(class) => self.record_class_value(class).map(Some),
                None => Ok(None),
            };
        };
        if self.is_plain_call(func, scope) {
            return Ok(None);
        }
        // The called class is resolved once: a record constructor or a function.
        let mut fc = FCtx::new(self, scope, Mode::Symbolic);
        let class = fc.function_class(func).ok().map(|(c, _)| c);
        drop(fc);
        let Some(class) = class else {
            return Ok(None);
        };
        if self.is_record(class).unwrap_or(false) {
            return self.record_class_value(class).map(Some);
        }
        if !self.expanded(class)?.is_function() || self.has_functional_inputs(class)? {
            return Ok(None);
        }
        let fname = self.function(class)?;
        let Some(f) = self.functions.get(&fname) else {
            return Ok(None);
        };
        let Some(g) = f.output_groups.first() else {
            return Ok(None);
        };
        let (Some(dims), 0) = (&g.fields, g.record_dims) else {
            return Ok(None);
        };
        let names: Vec<String> = f.outputs.iter().map(|v| v.name.clone()).collect();
        let fields = group_field_names(g, &names)
            .into_iter()
            .map(str::to_string)
            .zip(dims.iter().cloned())
            .collect();
        Ok(Some(RecordValue {
            class: None,
            what: format!("the result of `{fname}`"),
            fields,
        }))
    }
}

/// A record value's primitive fields (`x`, `sub.y`) with their sizes, in the order its
/// scalars come in.
pub struct RecordValue {
    /// Its record class, when the value is of one the caller can name.
    pub class: Option<ClassId>,
    /// What it is, for messages: "a `P.R`", "the result of `P.f`".
    pub what: String,
    pub fields: Vec<(String, Vec<usize>)>,
}

/// For each `(name, sizes)` of `wanted`, the field of `from` with that name; `None` when the
/// fields already line up.
fn field_map(
    from: &RecordValue,
    wanted: &[(&str, &[usize])],
    what: &str,
    span: Span,
) -> Result<Option<FieldMap>, Diagnostic> {
    let fields = &from.fields;
    let same =
        fields.len() == wanted.len() && fields.iter().zip(wanted).all(|(a, (n, _))| a.0 == *n);
    if same {
        return Ok(None);
    }
    let mut pick = Vec::with_capacity(wanted.len());
    for (name, dims) in wanted {
        let Some(k) = fields.iter().position(|a| a.0 == *name) else {
            return Err(Diagnostic::error(
                span,
                format!("{what} is {}, which has no field `{name}`", from.what),
            )
            .with_note(
                "a record value must have every field of the record type it is used as, by name (MLS 6.4)",
            ));
        };
        if fields[k].1 != *dims {
            return Err(Diagnostic::error(
                span,
                format!(
                    "field `{name}` of {what} has sizes {:?}, the record it is used as has {:?}",
                    fields[k].1, dims
                ),
            ));
        }
        pick.push(k);
    }
    let arg_sizes = fields.iter().map(|a| a.1.iter().product()).collect();
    Ok(Some(FieldMap { pick, arg_sizes }))
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
