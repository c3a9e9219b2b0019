//! Name lookup for classes (MLS 5.3): the instance's own (possibly redeclared) class
//! elements, then the enclosing classes from the inside out with their imports, stopping at
//! an `encapsulated` class, then the top level (loaded files, libraries, built-in types).

use super::Flattener;
use super::classtree::ClassId;
use crate::diag::Diagnostic;
use crate::syntax::ast::{self, ImportKind};

impl Flattener<'_> {
    /// Resolves a class name written in class `lex` (and instance `inst`, whose redeclared
    /// classes take precedence).
    pub fn lookup_class_name(
        &mut self,
        name: &ast::Name,
        lex: ClassId,
        inst: Option<usize>,
    ) -> Result<ClassId, Diagnostic> {
        let parts: Vec<&str> = name.parts.iter().map(|p| p.name.as_str()).collect();
        let Some(first) = parts.first() else {
            return Err(Diagnostic::error(name.span, "empty class name"));
        };
        let start = if name.global {
            self.root_class(first)
        } else {
            self.lookup_first(first, lex, inst)
        };
        let Some(mut cur) = start else {
            let mut d = Diagnostic::error(name.parts[0].span, format!("unknown class `{first}`"))
                .with_label("not found");
            let cands = self.visible_class_names(lex, inst);
            if let Some(c) = crate::flatten::suggest(first, cands.iter().map(|s| s.as_str())) {
                d = d.with_help(format!("did you mean `{c}`?"));
            }
            return Err(d);
        };
        for (k, p) in parts.iter().enumerate().skip(1) {
            match self.member_class(cur, p) {
                Some(c) => cur = c,
                None => {
                    let node = self.tree.get(cur);
                    let mut cands: Vec<String> = node.children.keys().cloned().collect();
                    if let Ok(e) = self.expanded(cur) {
                        cands.extend(e.classes.keys().cloned());
                    }
                    let full = self.tree.get(cur).full.clone();
                    let mut d = Diagnostic::error(
                        name.parts[k].span,
                        format!("`{full}` has no class `{p}`"),
                    )
                    .with_label("not found");
                    if let Some(c) = crate::flatten::suggest(p, cands.iter().map(|s| s.as_str())) {
                        d = d.with_help(format!("did you mean `{c}`?"));
                    }
                    return Err(d);
                }
            }
        }
        Ok(cur)
    }

    /// A class element of `class` (nested or inherited).
    pub fn member_class(&mut self, class: ClassId, name: &str) -> Option<ClassId> {
        if let Some(c) = self.tree.get(class).children.get(name) {
            return Some(*c);
        }
        let e = self.expanded(class).ok()?;
        e.classes.get(name).map(|c| c.id)
    }

    /// The first part of a name: instance classes, then lexical scopes, then the top level.
    pub fn lookup_first(
        &mut self,
        name: &str,
        lex: ClassId,
        inst: Option<usize>,
    ) -> Option<ClassId> {
        if let Some(i) = inst
            && let Some(c) = self.inst_class_element(i, name)
        {
            return Some(c);
        }
        let mut cur = Some(lex);
        while let Some(c) = cur {
            if let Some(id) = self.tree.get(c).children.get(name) {
                return Some(*id);
            }
            // Inherited class elements of the enclosing class (only if already expanded or
            // cheap to expand; a failing expansion is reported elsewhere).
            if !self.expanding.contains(&c)
                && let Ok(e) = self.expanded(c)
                && let Some(ce) = e.classes.get(name)
            {
                return Some(ce.id);
            }
            if let Some(id) = self.lookup_import(c, name) {
                return Some(id);
            }
            let node = self.tree.get(c);
            if node.prefixes.encapsulated {
                break;
            }
            cur = node.parent;
        }
        self.root_class(name)
    }

    fn lookup_import(&mut self, class: ClassId, name: &str) -> Option<ClassId> {
        let imports: Vec<ast::Import> = self
            .tree
            .get(class)
            .long()
            .map(|b| b.imports.clone())
            .unwrap_or_default();
        for imp in &imports {
            let path: Vec<&str> = imp.name.parts.iter().map(|p| p.name.as_str()).collect();
            match &imp.kind {
                ImportKind::Named { alias } => {
                    let local = alias
                        .as_ref()
                        .map(|a| a.name.as_str())
                        .or(path.last().copied());
                    if local == Some(name) {
                        return self.resolve_global(&path);
                    }
                }
                ImportKind::Unqualified => {
                    if let Some(pkg) = self.resolve_global(&path)
                        && let Some(c) = self.member_class(pkg, name)
                    {
                        return Some(c);
                    }
                }
                ImportKind::Multiple(names) => {
                    if names.iter().any(|n| n.name == name) {
                        let mut full = path.clone();
                        full.push(name);
                        return self.resolve_global(&full);
                    }
                }
            }
        }
        None
    }

    /// A fully qualified class name from the top level.
    pub fn resolve_global(&mut self, path: &[&str]) -> Option<ClassId> {
        let mut cur = self.root_class(path.first()?)?;
        for p in &path[1..] {
            cur = self.member_class(cur, p)?;
        }
        Some(cur)
    }

    /// A top-level class, loading it from the library path on first use.
    pub fn root_class(&mut self, name: &str) -> Option<ClassId> {
        if let Some(id) = self.tree.roots.get(name) {
            return Some(*id);
        }
        self.load_root(name)
    }

    /// Where an import names a component-level entity (a constant), the package and the name.
    pub fn import_constant(&mut self, class: ClassId, name: &str) -> Option<(ClassId, String)> {
        let imports: Vec<ast::Import> = self
            .tree
            .get(class)
            .long()
            .map(|b| b.imports.clone())
            .unwrap_or_default();
        for imp in &imports {
            let path: Vec<&str> = imp.name.parts.iter().map(|p| p.name.as_str()).collect();
            if let ImportKind::Named { alias } = &imp.kind {
                let local = alias
                    .as_ref()
                    .map(|a| a.name.as_str())
                    .or(path.last().copied());
                if local == Some(name) && path.len() >= 2 {
                    let pkg = self.resolve_global(&path[..path.len() - 1])?;
                    return Some((pkg, path[path.len() - 1].to_string()));
                }
            }
            if let ImportKind::Unqualified = &imp.kind
                && let Some(pkg) = self.resolve_global(&path)
                && let Ok(e) = self.expanded(pkg)
                && e.component(name).is_some()
            {
                return Some((pkg, name.to_string()));
            }
        }
        None
    }

    /// Names visible from a scope, for "did you mean" hints.
    pub fn visible_class_names(&mut self, lex: ClassId, inst: Option<usize>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(i) = inst
            && let Some(e) = self.insts.get(i).map(|x| x.exp.clone())
        {
            out.extend(e.classes.keys().cloned());
        }
        let mut cur = Some(lex);
        while let Some(c) = cur {
            let node = self.tree.get(c);
            out.extend(node.children.keys().cloned());
            cur = node.parent;
        }
        out.extend(self.tree.roots.keys().cloned());
        out.extend(self.lib.root_names());
        out.sort();
        out.dedup();
        out
    }
}
