//! An element declared `inner outer` (MLS 5.4) is two declarations with one name: the
//! `outer` one, which stands for the matching `inner` further out, and an `inner` one, which
//! the `outer` elements below it find. A reference to the name, inside the class
//! (`inner outer Boolean on = on and enabled` reads the outer `on`) or from outside
//! (`sub.on`), means the outer one; only `outer` lookups from below reach the inner one.
//!
//! So the name is indexed to the outer target, and the inner half is a child of its own,
//! under the element's path (the outer one has no variables of its own), kept in
//! `Flattener::inner_parts`. Without an enclosing `inner` the element is simply an inner.

use super::Flattener;
use super::expand::CompElem;
use super::instance::InstId;
use crate::diag::Diagnostic;
use std::collections::HashMap;

impl Flattener<'_> {
    /// For `inner outer` element `e` of instance `i`: when an enclosing `inner` exists, indexes
    /// the name to it, makes the inner half a child and returns `true`.
    pub(super) fn split_inner_outer(
        &mut self,
        i: InstId,
        e: &CompElem,
        index: &mut HashMap<String, InstId>,
        kids: &mut Vec<InstId>,
    ) -> Result<bool, Diagnostic> {
        let Some(target) = self.resolve_outer(i, e)? else {
            return Ok(false);
        };
        let inner = self.make_child(i, e)?;
        self.inner_parts.insert((i, e.name.clone()), inner);
        index.insert(e.name.clone(), target);
        kids.push(inner);
        Ok(true)
    }

    /// The element `name` of `anc` that `outer` lookups from below find: the inner half of an
    /// `inner outer` element, else the child itself.
    pub(super) fn inner_child(
        &mut self,
        anc: InstId,
        name: &str,
    ) -> Result<Option<InstId>, Diagnostic> {
        let child = self.child(anc, name)?;
        Ok(self
            .inner_parts
            .get(&(anc, name.to_string()))
            .copied()
            .or(child))
    }
}
