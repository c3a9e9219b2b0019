//! Sizes of function results declared `:` (MLS 12.4.1, 10.1): `output Integer y[:]` gets its
//! size from the algorithm, which may depend on the values of the inputs, not only on their
//! sizes (`y := cat(1, y, {x[i]})` for the positive `x[i]`). A size is fixed before
//! simulation, so when the arguments are parameter expressions the call is run on their
//! values, and those parameters become structural when the size depends on them.

use super::eval::{self, EResult};
use super::func_eval;
use super::scalarize::FCtx;
use super::tensor::{Elem, Tensor, Val};
use crate::dae::{Expr, Function};
use crate::syntax::ast;

impl FCtx<'_, '_> {
    /// The output sizes of a call of `f` with the argument values `vals` (written as
    /// `bound`), when `f` has an output sized by its algorithm and some argument is a
    /// parameter expression; `sample` are the sizes found with such arguments set to zero.
    /// `None` keeps `sample` (the size does not depend on the values, or they are not known
    /// before simulation).
    pub(super) fn flexible_output_dims(
        &mut self,
        f: &Function,
        vals: &[Option<Tensor<Expr>>],
        bound: &[Option<&ast::Expr>],
        sample: &[Vec<usize>],
    ) -> EResult<Option<Vec<Vec<usize>>>> {
        let flexible = f.outputs.iter().any(|o| o.dims.iter().any(Option::is_none));
        let symbolic = |t: &Tensor<Expr>| t.data.iter().any(|x| x.to_val().is_none());
        if !flexible || !vals.iter().flatten().any(symbolic) {
            return Ok(None);
        }
        let marks = self.marked.len();
        let mut args = Vec::with_capacity(vals.len());
        for (k, v) in vals.iter().enumerate() {
            let Some(t) = v else {
                args.push(None);
                continue;
            };
            let t = if symbolic(t) {
                let value = bound
                    .get(k)
                    .copied()
                    .flatten()
                    .and_then(|e| eval::eval_structural(self, e).ok())
                    .filter(|v| !symbolic(v) && v.dims == t.dims);
                let Some(value) = value else {
                    // Known only during simulation: the size cannot depend on it (the
                    // sample run decides).
                    self.marked.truncate(marks);
                    return Ok(None);
                };
                value
            } else {
                t.clone()
            };
            args.push(Some(Tensor {
                dims: t.dims.clone(),
                data: t
                    .data
                    .iter()
                    .map(|x| x.to_val().unwrap_or(Val::Real(0.0)))
                    .collect(),
            }));
        }
        let dims = func_eval::output_dims(&self.f.functions, &f.name, args);
        match dims {
            Ok(d) if d.as_slice() != sample => Ok(Some(d)),
            // The same sizes: the parameters need not be fixed.
            _ => {
                self.marked.truncate(marks);
                Ok(None)
            }
        }
    }
}
