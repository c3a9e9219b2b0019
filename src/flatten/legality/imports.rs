//! Import clauses (MLS 13.2.1, 5.3.1): what an import may name and how imported names are
//! found.
//!
//! - the imported name is looked up globally, with the rules of composite names (protected
//!   elements and non-package classes are closed);
//! - what is imported must be a package or an element of a package: `import A.B.C` and
//!   `import D = A.B.C` need `A.B` to be a package (or `C` itself one), `import A.B.*` and
//!   `import A.B.{C, D}` need `A.B` to be a package;
//! - a protected element cannot be imported, and an unqualified import does not see protected
//!   elements;
//! - in one class, qualified imports (`import A.B.C`, `import D = A.B.C`, `import A.B.{C}`) are
//!   searched before unqualified ones (`import A.B.*`); two qualified imports of the same name,
//!   or a name found through two unqualified imports, is an error.

use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::classtree::ClassId;
use crate::syntax::ast::{self, ClassKind, ImportKind};

/// What a name found through the imports of a class stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Imported {
    Class(ClassId),
    /// A component (a constant) `name` of a package.
    Constant(ClassId, String),
}

impl Flattener<'_> {
    /// The imports written in `class` (none for a short class).
    fn class_imports(&self, class: ClassId) -> Vec<ast::Import> {
        self.tree
            .get(class)
            .long()
            .map(|b| b.imports.clone())
            .unwrap_or_default()
    }

    /// Resolves the global class path `parts` of an import written in `class`, with the rules
    /// of composite names. `Ok(None)` when it names no class.
    fn import_class_path(
        &mut self,
        class: ClassId,
        parts: &[ast::Ident],
    ) -> Result<Option<ClassId>, Diagnostic> {
        let Some(first) = parts.first() else {
            return Ok(None);
        };
        let Some(mut cur) = self.root_class(&first.name) else {
            return Ok(None);
        };
        for p in &parts[1..] {
            let Some(c) = self.member_class(cur, &p.name) else {
                return Ok(None);
            };
            self.check_member_access(cur, &p.name, Some(c), class, p.span)?;
            cur = c;
        }
        Ok(Some(cur))
    }

    fn is_package(&self, c: ClassId) -> bool {
        matches!(self.tree.get(c).kind, ClassKind::Package)
    }

    fn not_a_package(&self, c: ClassId, span: Span, what: &str) -> Diagnostic {
        let n = self.tree.get(c);
        Diagnostic::error(
            span,
            format!("cannot import {what}: `{}` is not a package", n.full),
        )
        .with_label("import")
        .with_note("an import must name a package or an element of a package (MLS 13.2.1)")
    }

    /// The package whose elements `import A.B.*` or `import A.B.{C, D}` (written in `class`)
    /// imports.
    fn import_package(
        &mut self,
        class: ClassId,
        imp: &ast::Import,
    ) -> Result<Option<ClassId>, Diagnostic> {
        let Some(pkg) = self.import_class_path(class, &imp.name.parts)? else {
            return Ok(None);
        };
        if !self.is_package(pkg) {
            return Err(self.not_a_package(pkg, imp.name.span, "from it"));
        }
        Ok(Some(pkg))
    }

    /// What the qualified import `imp` (`import A.B.C`, `import D = A.B.C`) written in `class`
    /// stands for.
    fn named_import_target(
        &mut self,
        class: ClassId,
        imp: &ast::Import,
        parts: &[ast::Ident],
    ) -> Result<Option<Imported>, Diagnostic> {
        let Some((last, prefix)) = parts.split_last() else {
            return Ok(None);
        };
        if prefix.is_empty() {
            // A top-level class (`import Modelica;`).
            return Ok(self.root_class(&last.name).map(Imported::Class));
        }
        let Some(scope) = self.import_class_path(class, prefix)? else {
            return Ok(None);
        };
        let found = self.member_class(scope, &last.name);
        if self.member_protected(scope, &last.name) {
            let full = self.tree.get(scope).full.clone();
            return Err(Diagnostic::error(
                last.span,
                format!(
                    "cannot import `{}`: it is a protected element of `{full}`",
                    last.name
                ),
            )
            .with_label("protected")
            .with_note("protected elements cannot be imported (MLS 5.3.1)"));
        }
        let is_pkg = found.is_some_and(|c| self.is_package(c));
        if !is_pkg && !self.is_package(scope) {
            return Err(self.not_a_package(scope, imp.name.span, &format!("`{}`", last.name)));
        }
        match found {
            Some(c) => {
                self.check_member_access(scope, &last.name, Some(c), class, last.span)?;
                Ok(Some(Imported::Class(c)))
            }
            None => Ok(Some(Imported::Constant(scope, last.name.clone()))),
        }
    }

    /// The name `name` as introduced by the imports of `class` (MLS 13.2.1): qualified imports
    /// first, then unqualified ones; `want_class` selects unqualified matches that are classes
    /// (else constants).
    pub fn lookup_in_imports(
        &mut self,
        class: ClassId,
        name: &str,
        want_class: bool,
    ) -> Result<Option<Imported>, Diagnostic> {
        let imports = self.class_imports(class);
        if imports.is_empty() {
            return Ok(None);
        }
        // Qualified imports of this name.
        let mut found: Option<(Imported, Span)> = None;
        for imp in &imports {
            let target = match &imp.kind {
                ImportKind::Named { alias } => {
                    let local = alias.as_ref().map(|a| a.name.as_str()).or(imp
                        .name
                        .parts
                        .last()
                        .map(|p| p.name.as_str()));
                    if local != Some(name) {
                        continue;
                    }
                    self.named_import_target(class, imp, &imp.name.parts)?
                }
                ImportKind::Multiple(names) => {
                    let Some(n) = names.iter().find(|n| n.name == name) else {
                        continue;
                    };
                    if self.import_package(class, imp)?.is_none() {
                        continue;
                    }
                    let mut parts = imp.name.parts.clone();
                    parts.push(n.clone());
                    self.named_import_target(class, imp, &parts)?
                }
                ImportKind::Unqualified => continue,
            };
            if let Some((prev, prev_span)) = &found {
                if target.as_ref() != Some(prev) {
                    return Err(Diagnostic::error(
                        imp.span,
                        format!("two imports introduce the name `{name}`"),
                    )
                    .with_label("second import")
                    .with_secondary(*prev_span, "first import")
                    .with_note("a name may be imported only once in a class (MLS 13.2.1)"));
                }
                continue;
            }
            if let Some(t) = target {
                found = Some((t, imp.span));
            }
        }
        if let Some((t, _)) = found {
            return Ok(Some(t));
        }
        // Unqualified imports: the public elements of the packages.
        let mut hits: Vec<(Imported, Span)> = Vec::new();
        for imp in &imports {
            if !matches!(imp.kind, ImportKind::Unqualified) {
                continue;
            }
            let Some(pkg) = self.import_package(class, imp)? else {
                continue;
            };
            if self.member_protected(pkg, name) {
                continue;
            }
            let hit = if want_class {
                self.member_class(pkg, name).map(Imported::Class)
            } else {
                let has = !self.expanding.contains(&pkg)
                    && self
                        .expanded(pkg)
                        .is_ok_and(|e| e.component(name).is_some());
                has.then(|| Imported::Constant(pkg, name.to_string()))
            };
            if let Some(h) = hit
                && !hits.iter().any(|(x, _)| *x == h)
            {
                hits.push((h, imp.span));
            }
        }
        match hits.len() {
            0 => Ok(None),
            1 => Ok(hits.pop().map(|h| h.0)),
            _ => Err(Diagnostic::error(
                hits[1].1,
                format!("`{name}` is found through two unqualified imports"),
            )
            .with_label("second import")
            .with_secondary(hits[0].1, "first import")
            .with_note(
                "a name found in more than one package imported with `.*` is ambiguous \
                 (MLS 13.2.1)",
            )),
        }
    }
}
