//! Classes a package inherits, seen through that package (MLS 7.2, 7.3). In
//! `package W extends Base(c = 2)`, the function `Base.f` named as `W.f` (or through
//! `replaceable package Medium = Base` redeclared to `W`) must see `c = 2`: its modification
//! environment is that of `W`, not of `Base`. A `ClassId` names only the class as written, so
//! `W.f` gets its own class node, a view: `Base.f`'s definition under the name `W.f`, whose
//! expansion is that of `Base.f`. Lookup (`derived_scope`) then takes `W` for `Base` in code
//! written in `Base.f`, for classes and for constants, and a function reached through two
//! packages is two functions, each with its own constants.

use super::Flattener;
use super::classtree::ClassId;
use super::classtree::NodeBody;
use super::expand::Expanded;
use crate::diag::Diagnostic;
use crate::syntax::ast::ClassKind;

impl Flattener<'_> {
    /// The class element `found` of package `pkg` as seen through `pkg`: a view when `pkg`
    /// inherits it from one of its bases and it holds code (a function, model, block or
    /// class); else `found` itself. Records, types and connectors stay one class, so that
    /// they remain the same type wherever they are reached from.
    pub fn through_package(&mut self, pkg: ClassId, found: ClassId) -> ClassId {
        if let Some(v) = self.views.get(&(pkg, found)) {
            return *v;
        }
        let node = self.tree.get(found);
        let holds_code = matches!(
            node.kind,
            ClassKind::Function
                | ClassKind::Model
                | ClassKind::Block
                | ClassKind::Class
                | ClassKind::Record
        );
        let Some(owner) = node.parent else {
            return found;
        };
        if !holds_code
            || owner == pkg
            || self.tree.get(pkg).kind != ClassKind::Package
            || self.view_of.contains_key(&found)
            || self.expanding.contains(&pkg)
        {
            return found;
        }
        let name = node.name.clone();
        let inherited = self.expanded(pkg).is_ok_and(|e| {
            e.bases.contains(&owner) && e.classes.get(&name).is_some_and(|c| c.id == found)
        });
        if !inherited {
            return found;
        }
        // A plain alias of a function (`function heatCapacity_cp = specificHeatCapacityCp`,
        // no modifier) seen through `pkg` is the function its name finds in `pkg`, which may
        // be `pkg`'s redeclaration (MLS 7.1): the same function, with the package's constants.
        let node = self.tree.get(found);
        let alias = match &node.body {
            NodeBody::Short(s)
                if node.kind == ClassKind::Function
                    && s.modification.is_none()
                    && s.array_dims.is_empty() =>
            {
                Some(s.base.clone())
            }
            _ => None,
        };
        if let Some(base) = alias
            && let Ok(f) = self.lookup_class_name(&base, pkg, None)
            && f != found
        {
            return self.through_package(pkg, f);
        }
        // The view copies the nested classes of `found`; those of a library file not parsed
        // yet must be there first.
        self.load_pending_children(found);
        let full = format!("{}.{name}", self.tree.get(pkg).full);
        let v = self.tree.add_view(found, full);
        self.views.insert((pkg, found), v);
        self.view_of.insert(v, (found, pkg));
        v
    }

    /// Class `found`, nested in the class that view `lex` shows (`T_hX.f_nonlinear`, a
    /// protected function of a function a medium package inherits), as seen through that
    /// view: a view of its own, for the same package, so that code written in it also takes
    /// the package for the base (`data` of the medium, not the base's unbound `data[:]`).
    /// Named after the enclosing view (`W.T_hX.f_nonlinear`), so that two packages, or two
    /// functions of one package each with a nested `f_nonlinear`, give distinct functions.
    /// Anything else: `found` itself.
    pub fn nested_through_view(&mut self, lex: ClassId, found: ClassId) -> ClassId {
        let Some(&(orig, pkg)) = self.view_of.get(&lex) else {
            return found;
        };
        if self.tree.get(found).parent != Some(orig) {
            return found;
        }
        if let Some(v) = self.views.get(&(lex, found)) {
            return *v;
        }
        let full = format!("{}.{}", self.tree.get(lex).full, self.tree.get(found).name);
        let v = self.tree.add_view(found, full);
        self.views.insert((lex, found), v);
        self.view_of.insert(v, (found, pkg));
        v
    }

    /// The package a view was made for (`through_package`), standing for the enclosing
    /// class of the code it inherits.
    pub fn view_package(&self, class: ClassId) -> Option<ClassId> {
        self.view_of.get(&class).map(|v| v.1)
    }

    /// The expansion of view `id` of class `orig`: that of `orig`, under the view's id, with
    /// `orig` as its base. A short class (`function g = f` in a base package) names its base
    /// as the package it is seen through has it (MLS 7.1: inherited elements are looked up in
    /// the derived class), so a medium's `heatCapacity_cp = specificHeatCapacityCp` is the
    /// medium's redeclared function, not the base's partial one.
    pub fn expand_view(&mut self, id: ClassId, orig: ClassId) -> Result<Expanded, Diagnostic> {
        if let Some(out) = self.short_view(id, orig)? {
            return Ok(out);
        }
        let b = self.expanded(orig)?;
        let mut out = (*b).clone();
        out.id = id;
        out.bases = std::iter::once(orig)
            .chain(b.bases.iter().copied())
            .collect();
        Ok(out)
    }

    /// For a view `id` of short class `orig`, its expansion with the base name looked up in
    /// the view's package, when that finds another class than `orig`'s own lookup.
    fn short_view(&mut self, id: ClassId, orig: ClassId) -> Result<Option<Expanded>, Diagnostic> {
        let NodeBody::Short(s) = &self.tree.get(orig).body else {
            return Ok(None);
        };
        let s = s.clone();
        let Some(pkg) = self.view_package(id) else {
            return Ok(None);
        };
        let own = self.expanded(orig)?;
        let Ok(found) = self.lookup_class_name(&s.base, pkg, None) else {
            return Ok(None);
        };
        let base = self.through_package(pkg, found);
        if own.bases.first() == Some(&base) || base == orig || base == id {
            return Ok(None);
        }
        let b = self.expanded_base(base)?;
        let mut out = (*own).clone();
        out.id = id;
        let base_lex = self.tree.get(orig).parent.unwrap_or(orig);
        self.short_from(&mut out, &s, base_lex, &b)?;
        out.partial = self.tree.get(orig).prefixes.partial || b.partial;
        out.bases.insert(0, orig);
        Ok(Some(out))
    }
}
