//! Where a variable assigned in a when-equation may be declared (MLS 4.5): not inside a
//! component of a `model` or `block` class. Such a component is balanced on its own; an
//! equation for its variable written outside it would count twice.

use crate::diag::Diagnostic;
use crate::flatten::Flattener;
use crate::flatten::instance::{InstId, InstKind};
use crate::syntax::ast::{self, ClassKind};

impl Flattener<'_> {
    /// `target` is the left side of an equation in a when-equation written in instance `inst`.
    pub fn check_when_target(
        &mut self,
        inst: InstId,
        target: &ast::ComponentRef,
    ) -> Result<(), Diagnostic> {
        if target.global {
            return Ok(());
        }
        let n = target.parts.len();
        let mut cur = inst;
        for part in target.parts.iter().take(n.saturating_sub(1)) {
            if let InstKind::Array { elems, .. } = &self.insts[cur].kind {
                match elems.first() {
                    Some(&e) => cur = e,
                    None => return Ok(()),
                }
            }
            let Ok(Some(ch)) = self.child(cur, &part.ident.name) else {
                return Ok(());
            };
            let elem = match &self.insts[ch].kind {
                InstKind::Array { elems, .. } => elems.first().copied().unwrap_or(ch),
                _ => ch,
            };
            let kind = self.insts[elem].exp.kind;
            if matches!(kind, ClassKind::Model | ClassKind::Block) {
                return Err(Diagnostic::error(
                    target.span,
                    format!(
                        "`{}` is assigned in a when-equation but declared inside `{}`, a component of a {} (MLS 4.5)",
                        crate::flatten::eval::cref_name(target),
                        self.insts[elem].path,
                        crate::syntax::kind_text(kind)
                    ),
                )
                .with_help("assign it in a when-equation inside that component, or make it an input set from here"));
            }
            cur = ch;
        }
        Ok(())
    }
}
