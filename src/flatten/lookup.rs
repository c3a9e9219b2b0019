//! Name lookup for classes (MLS 5.3): the instance's own (possibly redeclared) class
//! elements, then the enclosing classes from the inside out with their imports, stopping at
//! an `encapsulated` class, then the top level (loaded files, libraries, built-in types).

use super::Flattener;
use super::classtree::ClassId;
use super::legality::Imported;
use crate::diag::Diagnostic;
use crate::syntax::ast;

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
            self.lookup_first(first, lex, inst)?
        };
        let Some(mut cur) = start else {
            let mut d = Diagnostic::error(name.parts[0].span, format!("unknown class `{first}`"))
                .with_label("not found");
            let cands = self.visible_class_names(lex, inst);
            let local = crate::flatten::suggest(first, cands.iter().map(|s| s.as_str()));
            // A class of that exact name inside some package is the likelier intent (`Resistor`
            // for `Minimo.Electrical.Analog.Basic.Resistor`) than a visible near-miss.
            let last = parts[parts.len() - 1];
            let hint = match (self.nested_classes(last, None, true), local) {
                (exact, _) if !exact.is_empty() => Some(did_you_mean(&exact)),
                (_, Some(c)) => Some(format!("did you mean `{c}`?")),
                _ => {
                    let close = self.nested_classes(last, None, false);
                    (!close.is_empty()).then(|| did_you_mean(&close))
                }
            };
            if let Some(h) = hint {
                d = d.with_help(h);
            }
            return Err(d);
        };
        for (k, p) in parts.iter().enumerate().skip(1) {
            if let Some(c) = self.redeclared_member(cur, p)? {
                self.check_member_access(cur, p, Some(c), lex, name.parts[k].span)?;
                cur = c;
                continue;
            }
            match self.member_class(cur, p) {
                Some(c) => {
                    self.check_member_access(cur, p, Some(c), lex, name.parts[k].span)?;
                    cur = c;
                }
                None => {
                    let node = self.tree.get(cur);
                    let mut cands: Vec<String> = node.children.keys().cloned().collect();
                    cands.extend(self.pending_names(cur));
                    if let Ok(e) = self.expanded(cur) {
                        cands.extend(e.classes.keys().cloned());
                    }
                    let full = self.tree.get(cur).full.clone();
                    let mut d = Diagnostic::error(
                        name.parts[k].span,
                        format!("`{full}` has no class `{p}`"),
                    )
                    .with_label("not found");
                    // The rest of the name inside a nested package of `cur` (a level left out:
                    // `Analog.Resistor` for `Analog.Basic.Resistor`), then a near-miss among
                    // `cur`'s own classes, then anywhere.
                    let last = parts[parts.len() - 1];
                    let inside = self.nested_classes(last, Some(cur), true);
                    let local = crate::flatten::suggest(p, cands.iter().map(|s| s.as_str()));
                    let hint = if !inside.is_empty() {
                        Some(did_you_mean(&inside))
                    } else if let Some(c) = local {
                        Some(format!("did you mean `{full}.{c}`?"))
                    } else {
                        let anywhere = self.nested_classes(last, None, true);
                        (!anywhere.is_empty()).then(|| did_you_mean(&anywhere))
                    };
                    if let Some(h) = hint {
                        d = d.with_help(h);
                    }
                    return Err(d);
                }
            }
        }
        Ok(cur)
    }

    /// A class element of `class` (nested or inherited).
    pub fn member_class(&mut self, class: ClassId, name: &str) -> Option<ClassId> {
        if let Some(c) = self.child_class(class, name) {
            return Some(c);
        }
        let e = self.expanded(class).ok()?;
        let found = e.classes.get(name)?.id;
        Some(self.through_package(class, found))
    }

    /// A class element of `class` that an `extends` modifier of `class` redeclares
    /// (`extends D(redeclare model X = B2)`): `class.X` names the new class (MLS 7.3), after
    /// the plug-compatibility and `final` checks of the redeclaration.
    fn redeclared_member(
        &mut self,
        class: ClassId,
        name: &str,
    ) -> Result<Option<ClassId>, Diagnostic> {
        if self.child_class(class, name).is_some() {
            return Ok(None);
        }
        let Ok(e) = self.expanded(class) else {
            return Ok(None);
        };
        let redeclared = e.self_mod.subs.iter().any(|(n, m)| {
            n == name && matches!(m.redeclare, Some(super::modifier::Redecl::Class { .. }))
        });
        if !redeclared {
            return Ok(None);
        }
        let overrides = self.class_overrides(&e, &e.self_mod)?;
        Ok(overrides.get(name).map(|c| c.id))
    }

    /// The first part of a name: instance classes, then lexical scopes, then the top level.
    pub fn lookup_first(
        &mut self,
        name: &str,
        lex: ClassId,
        inst: Option<usize>,
    ) -> Result<Option<ClassId>, Diagnostic> {
        if let Some(i) = inst
            && let Some(c) = self.inst_class_element(i, name)
        {
            return Ok(Some(self.unshadowed(i, name, lex).unwrap_or(c)));
        }
        let context = self.derived_context(lex, inst);
        let mut cur = Some(lex);
        while let Some(c) = cur {
            if let Some(d) = self.derived_scope(context, c)
                && let Some(id) = self.class_element(d, name)?
            {
                return Ok(Some(id));
            }
            if let Some(id) = self.class_element(c, name)? {
                return Ok(Some(id));
            }
            if let Some(id) = self.lookup_import(c, name)? {
                return Ok(Some(id));
            }
            let node = self.tree.get(c);
            if node.prefixes.encapsulated {
                break;
            }
            cur = node.parent;
        }
        Ok(self.root_class(name))
    }

    /// The enclosing class of the function being built that extends `c`, when code the
    /// function inherits was written inside `c`. MLS 7.3.1: `redeclare function extends f`
    /// in package `Q` (which extends `P`) inherits `input S s` from `P.f`, and `S` there means
    /// the `S` that `Q` redeclares (`redeclare record extends S`), not `P`'s partial one: the
    /// base's enclosing package stands for the derived package it is part of (Modelica.Media:
    /// `PartialSimpleMedium.dynamicViscosity` takes the medium's `ThermodynamicState`).
    /// A view (`derived_view.rs`) stands inside the package it was made for.
    pub fn derived_scope(&mut self, context: Option<ClassId>, c: ClassId) -> Option<ClassId> {
        let context = context?;
        let mut cur = self.view_package(context).or(self.tree.get(context).parent);
        if self.encloses(cur, c) {
            return None;
        }
        while let Some(d) = cur {
            cur = self.tree.get(d).parent;
            if self.expanding.contains(&d) {
                continue;
            }
            if self.expanded(d).is_ok_and(|e| e.bases.contains(&c)) {
                return Some(d);
            }
        }
        None
    }

    /// Whether `c` is `from` or one of its enclosing classes.
    fn encloses(&self, mut from: Option<ClassId>, c: ClassId) -> bool {
        while let Some(d) = from {
            if d == c {
                return true;
            }
            from = self.tree.get(d).parent;
        }
        false
    }

    /// The class whose enclosing classes stand for those of inherited code written in `lex`:
    /// the function being built, or, for code an instance inherits from a base class, the
    /// instance's class (`medium.state` of a medium's `BaseProperties`, declared in
    /// `PartialMedium.BaseProperties` as a `ThermodynamicState` that the medium's package
    /// redeclares).
    pub fn derived_context(&self, lex: ClassId, inst: Option<usize>) -> Option<ClassId> {
        if self.building_function.is_some() {
            return self.building_function;
        }
        let x = self.insts.get(inst?)?;
        (x.exp.id != lex).then_some(x.exp.id)
    }

    /// The class element `name` of class `c`: declared in it or inherited (the inherited
    /// ones only if `c` is not being expanded; a failing expansion is reported elsewhere).
    /// An inherited class that an `extends` modifier of `c` redeclares is the new class
    /// (`extends PartialMedium(redeclare record ThermodynamicState = ...)`): code inherited
    /// from the base and looked up through `c` sees it (MLS 7.3).
    fn class_element(&mut self, c: ClassId, name: &str) -> Result<Option<ClassId>, Diagnostic> {
        if let Some(id) = self.child_class(c, name) {
            return Ok(Some(id));
        }
        if self.expanding.contains(&c) {
            return Ok(None);
        }
        if let Some(id) = self.redeclared_member(c, name)? {
            return Ok(Some(id));
        }
        let Some(found) = self
            .expanded(c)
            .ok()
            .and_then(|e| e.classes.get(name).map(|ce| ce.id))
        else {
            return Ok(None);
        };
        Ok(Some(self.through_package(c, found)))
    }

    /// Whether the call of `func` written in class `lex` (instance `inst`) is minimo's
    /// built-in of that name. MLS 5.3: a function class in scope (local, inherited, imported,
    /// enclosing, top level) comes first; the built-ins are found only when that lookup fails,
    /// so `import Modelica.ComplexMath.abs; abs(z)` calls the imported function. A class that
    /// is the same built-in (`Modelica.Math.sin`, `external "builtin"` calling `sin`, found
    /// from inside `Modelica.Math`) stays the built-in.
    pub fn is_builtin_call(
        &mut self,
        func: &ast::ComponentRef,
        lex: ClassId,
        inst: Option<usize>,
    ) -> bool {
        if func.parts.len() != 1 {
            return false;
        }
        let name = &func.parts[0].ident.name;
        if !super::eval::is_generic_builtin(name) {
            return false;
        }
        if func.global {
            // `.sqrt(x)`: only a top-level class of that name comes before the built-in.
            return self
                .root_class(name)
                .is_none_or(|c| !self.is_other_function(c, name));
        }
        self.shadowing_function(name, lex, inst).is_none()
    }

    /// The function class a one-word name finds before the built-in of that name, if any.
    pub fn shadowing_function(
        &mut self,
        name: &str,
        lex: ClassId,
        inst: Option<usize>,
    ) -> Option<ClassId> {
        let c = self.lookup_first(name, lex, inst).ok().flatten()?;
        self.is_other_function(c, name).then_some(c)
    }

    /// Whether class `c` is a function other than the built-in `name` (not `external
    /// "builtin"` calling `name`).
    fn is_other_function(&mut self, c: ClassId, name: &str) -> bool {
        let same_builtin =
            self.tree.get(c).long().is_some_and(|b| {
                b.builtin_args.is_some() && b.external_name.as_deref() == Some(name)
            });
        !same_builtin && self.expanded(c).is_ok_and(|e| e.is_function())
    }

    /// Whether the element `name` of instance `inst` can be named from code written in class
    /// `lex`. Code written in a base class sees only the elements of that base (MLS 5.3.1,
    /// 7.1): `x = y` in `Base` cannot mean the `y` a class extending `Base` declares.
    pub fn element_in_scope(&mut self, inst: usize, lex: ClassId, name: &str) -> bool {
        let exp = &self.insts[inst].exp;
        if exp.id == lex || !exp.bases.contains(&lex) || self.expanding.contains(&lex) {
            return true;
        }
        match self.expanded(lex) {
            Ok(b) => b.component(name).is_some() || b.classes.contains_key(name),
            Err(_) => true,
        }
    }

    /// The inherited class that a `model extends B` without `redeclare` stands in front of,
    /// when the name is written in one of the bases of the class holding that class extends:
    /// their elements keep the original (MLS 7.3.1).
    fn unshadowed(&mut self, i: usize, name: &str, lex: ClassId) -> Option<ClassId> {
        if self.insts[i].overrides.contains_key(name) {
            return None;
        }
        let ce = self.insts[i].exp.classes.get(name)?;
        let (owner, orig) = ce.shadowed?;
        if self.expanding.contains(&owner) {
            return None;
        }
        let bases = self.expanded(owner).ok()?.bases.clone();
        let mut cur = Some(lex);
        while let Some(c) = cur {
            if c == owner {
                return None;
            }
            if bases.contains(&c) {
                return Some(orig);
            }
            cur = self.tree.get(c).parent;
        }
        None
    }

    fn lookup_import(&mut self, class: ClassId, name: &str) -> Result<Option<ClassId>, Diagnostic> {
        Ok(match self.lookup_in_imports(class, name, true)? {
            Some(Imported::Class(c)) => Some(c),
            _ => None,
        })
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
    pub fn import_constant(
        &mut self,
        class: ClassId,
        name: &str,
    ) -> Result<Option<(ClassId, String)>, Diagnostic> {
        Ok(match self.lookup_in_imports(class, name, false)? {
            Some(Imported::Constant(pkg, n)) => Some((pkg, n)),
            _ => None,
        })
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
            out.extend(self.pending_names(c));
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

    /// Full names of the classes reachable through packages (every enclosing class a package)
    /// whose own name is `name` (`exact`) or close to it, inside `within` or anywhere (then the
    /// top of every library is loaded; files not parsed yet count by their names: this only runs
    /// to explain an error). Sorted, so hints are stable.
    pub fn nested_classes(
        &mut self,
        name: &str,
        within: Option<ClassId>,
        exact: bool,
    ) -> Vec<String> {
        if within.is_none() {
            // Libraries loaded only for the hint must not add their own problems to the report.
            let n_errors = self.lib.errors.len();
            let roots: Vec<String> = self.lib.root_names().collect();
            for r in roots {
                self.load_root(&r);
            }
            self.load_pending_builtin();
            self.lib.errors.truncate(n_errors);
        }
        // Whether `id` is reached from the top level through packages only, and lies inside
        // `within` (when given); `nested` says whether `id` itself must be below a root.
        let reachable = |t: &super::classtree::ClassTree, id: ClassId, nested: bool| -> bool {
            let mut cur = id;
            let mut inside = within.is_none() || (!nested && Some(id) == within);
            while let Some(p) = t.get(cur).parent {
                let pn = t.get(p);
                let named = pn.children.get(&t.get(cur).name) == Some(&cur);
                if !named || !matches!(pn.kind, ast::ClassKind::Package) {
                    return false;
                }
                inside |= Some(p) == within;
                cur = p;
            }
            inside && (!nested || id != cur)
        };
        // (own name, full name) of loaded classes, then of pending library files.
        let mut cands: Vec<(String, String)> = (0..self.tree.nodes.len())
            .filter(|&id| reachable(&self.tree, id, true))
            .map(|id| {
                let n = self.tree.get(id);
                (n.name.clone(), n.full.clone())
            })
            .collect();
        for (pkg, names) in self.pending_by_package() {
            if matches!(self.tree.get(pkg).kind, ast::ClassKind::Package)
                && reachable(&self.tree, pkg, false)
            {
                let full = self.tree.get(pkg).full.clone();
                cands.extend(
                    names
                        .into_iter()
                        .map(|n| (n.clone(), format!("{full}.{n}"))),
                );
            }
        }
        let best = if exact {
            Some(name.to_string())
        } else {
            crate::flatten::suggest(name, cands.iter().map(|c| c.0.as_str())).map(str::to_string)
        };
        let mut out: Vec<String> = cands
            .into_iter()
            .filter(|c| Some(&c.0) == best.as_ref())
            .map(|c| c.1)
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// "did you mean `A`?" or "did you mean one of `A`, `B`?" (at most four names).
pub fn did_you_mean(names: &[String]) -> String {
    match names {
        [one] => format!("did you mean `{one}`?"),
        _ => {
            let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
            let more = if names.len() > 4 { ", ..." } else { "" };
            format!("did you mean one of {}{more}?", shown.join(", "))
        }
    }
}
