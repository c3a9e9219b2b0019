//! How many potential variables an overdetermined type or record counts for in the balance of
//! a connector (MLS 9.3.1): the size of the output of its `equalityConstraint` function, not
//! its number of scalars (a 3x3 orientation matrix with a 3-element residue counts 3).

use crate::flatten::Flattener;
use crate::flatten::instance::InstId;
use crate::syntax::ast::{Causality, ExprKind, Subscript};

impl Flattener<'_> {
    /// The nearest instance from `p` up to (not including) the connector `top` whose type has
    /// an `equalityConstraint` function.
    pub(super) fn overdetermined_within(&self, p: InstId, top: InstId) -> Option<InstId> {
        let mut cur = Some(p);
        while let Some(x) = cur {
            if x == top {
                return None;
            }
            if self.insts[x].exp.classes.contains_key("equalityConstraint") {
                return Some(x);
            }
            cur = self.insts[x].parent;
        }
        None
    }

    /// The number of scalars of the output of the `equalityConstraint` function of instance
    /// `od`'s type, when its dimensions are written as literals (`residue[3]`); `None` when
    /// they are not known here.
    pub(super) fn residue_size(&mut self, od: InstId) -> Option<usize> {
        let f = self.insts[od].exp.classes.get("equalityConstraint")?.id;
        let exp = self.expanded(f).ok()?;
        let mut outputs = exp
            .components
            .iter()
            .filter(|c| c.clause.prefix.causality == Causality::Output);
        let out = outputs.next()?;
        if outputs.next().is_some() {
            return None;
        }
        let mut n = 1usize;
        for d in out.clause.type_dims.iter().chain(&out.decl().dims) {
            match d {
                Subscript::Expr(e) => match e.kind {
                    ExprKind::Integer(k) if k >= 0 => n = n.checked_mul(k as usize)?,
                    _ => return None,
                },
                Subscript::Colon(_) => return None,
            }
        }
        Some(n)
    }
}
