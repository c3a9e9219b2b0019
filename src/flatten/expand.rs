//! Class expansion: the elements of a class with everything inherited through `extends`
//! merged in (MLS 7.1), computed once per class and cached. Instance-specific parts
//! (modifiers from outside, redeclarations) are applied by `instance.rs`.

use super::Flattener;
use super::classtree::{ClassId, NodeBody};
use super::modifier::{self, Mod, Redecl};
use crate::dae::ScalarType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ClassKind, TypePrefix};
use std::collections::HashMap;
use std::rc::Rc;

/// A built-in type at the root of a type's inheritance.
#[derive(Clone, Debug)]
pub enum Prim {
    Scalar(ScalarType),
    Enum(Rc<Vec<String>>),
    /// A class extending `ExternalObject`: its instances hold no variables; flattening
    /// evaluates their constructor call (`external_object.rs`).
    ExternalObject,
}

impl Prim {
    pub fn scalar_type(&self) -> ScalarType {
        match self {
            Prim::Scalar(t) => *t,
            Prim::Enum(_) => ScalarType::Enumeration,
            // A handle, as far as function signatures are concerned.
            Prim::ExternalObject => ScalarType::Integer,
        }
    }
}

#[derive(Clone, Debug)]
pub struct CompElem {
    pub name: String,
    /// The declaring clause, reduced to this one declaration.
    pub clause: Rc<ast::ComponentClause>,
    /// The class whose body declares it (lexical scope of its type and modifiers).
    pub lex: ClassId,
    pub protected: bool,
    /// The declaration's own modifier (`Real x(start = 1) = 2`), scope relative.
    pub decl_mod: Mod,
    /// The class whose body wrote the condition (`if useHeatPort`): the original
    /// declaration's, which a redeclaration keeps together with the condition (MLS 4.4.5).
    pub cond_lex: ClassId,
}

impl CompElem {
    pub fn decl(&self) -> &ast::ComponentDecl {
        &self.clause.components[0]
    }

    /// Every dimension of the component, outermost first: its declaration's (`x[2]`), its
    /// clause's (`Real[2] x`), then those of its type `te` (`type V = Real[3]`).
    pub fn dims_with_type<'a>(
        &'a self,
        te: &'a Expanded,
    ) -> impl Iterator<Item = &'a ast::Subscript> {
        self.decl()
            .dims
            .iter()
            .chain(&self.clause.type_dims)
            .chain(te.dims.iter().map(|(d, _)| d))
    }
}

#[derive(Clone, Debug)]
pub struct ClassElem {
    pub id: ClassId,
    /// Declared (or inherited from a declaration) in a `protected` section.
    pub protected: bool,
    pub replaceable: bool,
    pub final_: bool,
    /// The class that redeclarations must stay compatible with (MLS 7.3.2): the
    /// `constrainedby` class, else the default.
    pub constraint: ClassId,
    pub constraint_mod: Mod,
    /// For `model extends B` written without `redeclare` in class `.0`: the inherited `B` it
    /// stands in front of (`.1`), which elements inherited from `.0`'s bases still use
    /// (MLS 7.3.1, the form deprecated in Modelica 3.4).
    pub shadowed: Option<(ClassId, ClassId)>,
}

#[derive(Clone, Debug)]
pub struct Expanded {
    pub id: ClassId,
    pub kind: ClassKind,
    pub partial: bool,
    pub prim: Option<Prim>,
    /// Dimensions and prefixes from short class definitions (`type V = Real[3]`,
    /// `connector RealInput = input Real`), with the class to evaluate the dimensions in.
    pub dims: Vec<(ast::Subscript, ClassId)>,
    pub type_prefix: TypePrefix,
    /// Modifiers the class applies to itself (from `extends B(...)` and short definitions).
    pub self_mod: Mod,
    pub components: Vec<CompElem>,
    pub comp_index: HashMap<String, usize>,
    pub classes: HashMap<String, ClassElem>,
    pub equations: Vec<(ClassId, Rc<ast::Equation>)>,
    pub initial_equations: Vec<(ClassId, Rc<ast::Equation>)>,
    pub algorithms: Vec<(ClassId, Rc<Vec<ast::Statement>>)>,
    /// `initial algorithm` sections whose order of execution matters (an `if` statement, a
    /// variable assigned twice): run symbolically like `algorithms`, into initial equations.
    pub initial_algorithms: Vec<(ClassId, Rc<Vec<ast::Statement>>)>,
    pub span: Span,
    /// Every class this one inherits from (directly or not, short definitions included).
    pub bases: Vec<ClassId>,
}

impl Expanded {
    pub fn is_connector(&self) -> bool {
        matches!(
            self.kind,
            ClassKind::Connector | ClassKind::ExpandableConnector
        )
    }
    pub fn is_function(&self) -> bool {
        matches!(
            self.kind,
            ClassKind::Function
                | ClassKind::PureFunction
                | ClassKind::ImpureFunction
                | ClassKind::OperatorFunction
        )
    }
    pub fn component(&self, name: &str) -> Option<&CompElem> {
        self.comp_index.get(name).map(|i| &self.components[*i])
    }
}

/// The prefixes of a declaration over those of its type: the outer one wins where it says anything.
pub(super) fn merge_prefix(outer: &TypePrefix, inner: &TypePrefix) -> TypePrefix {
    TypePrefix {
        connection: if outer.connection != ast::Connection::None {
            outer.connection
        } else {
            inner.connection
        },
        variability: if outer.variability != ast::Variability::Continuous {
            outer.variability
        } else {
            inner.variability
        },
        causality: if outer.causality != ast::Causality::None {
            outer.causality
        } else {
            inner.causality
        },
    }
}

impl Flattener<'_> {
    /// The expansion of a class, computed once.
    pub fn expanded(&mut self, id: ClassId) -> Result<Rc<Expanded>, Diagnostic> {
        if let Some(e) = self.expanded.get(&id) {
            return Ok(e.clone());
        }
        if !self.expanding.insert(id) {
            let node = self.tree.get(id);
            return Err(Diagnostic::error(
                node.span,
                format!("class `{}` inherits from itself", node.full),
            ));
        }
        let r = self.expand_uncached(id);
        self.expanding.remove(&id);
        let e = Rc::new(r?);
        self.op_records_seen |= e.kind == ClassKind::OperatorRecord;
        self.expanded.insert(id, e.clone());
        // Checked with the expansion cached, so that the checks' own look-ups can use it.
        if let Err(d) = self.check_class_legality(&e) {
            self.expanded.remove(&id);
            return Err(d);
        }
        Ok(e)
    }

    /// The expansion of a base class: with all of its nested classes, which a package's own
    /// expansion may lack (see `expand_long`), since a class extending it inherits them.
    pub(super) fn expanded_base(&mut self, id: ClassId) -> Result<Rc<Expanded>, Diagnostic> {
        if self.load_pending_children(id) {
            self.expanded.remove(&id);
        }
        self.expanded(id)
    }

    fn expand_uncached(&mut self, id: ClassId) -> Result<Expanded, Diagnostic> {
        if let Some(&(orig, _)) = self.view_of.get(&id) {
            return self.expand_view(id, orig);
        }
        let mut out = self.blank(id);
        let node = self.tree.get(id);
        let span = node.span;
        match &node.body {
            NodeBody::Builtin(t) => {
                out.prim = Some(Prim::Scalar(*t));
                Ok(out)
            }
            NodeBody::Enumeration(lits) => {
                out.prim = Some(Prim::Enum(Rc::new(lits.clone())));
                Ok(out)
            }
            NodeBody::ExternalObject => {
                out.prim = Some(Prim::ExternalObject);
                Ok(out)
            }
            NodeBody::Unsupported => Err(Diagnostic::error(
                span,
                format!(
                    "class `{}` uses a definition form that is not supported",
                    node.full
                ),
            )),
            NodeBody::Short(s) => {
                let s = s.clone();
                let parent = node.parent;
                let base_lex = parent.unwrap_or(id);
                let base = self.lookup_class_name(&s.base, base_lex, None)?;
                if base == id {
                    return Err(Diagnostic::error(
                        span,
                        "a class cannot be defined as itself",
                    ));
                }
                let b = self.expanded_base(base)?;
                self.short_from(&mut out, &s, base_lex, &b)?;
                Ok(out)
            }
            NodeBody::Long(_) | NodeBody::ExtendsClass { .. } => {
                self.expand_long(id, &mut out)?;
                Ok(out)
            }
        }
    }

    /// Fills `out` for the short class `A = B(mod)[dims]` from the expansion of its base.
    fn blank(&self, id: ClassId) -> Expanded {
        let node = self.tree.get(id);
        Expanded {
            id,
            kind: node.kind,
            partial: node.prefixes.partial,
            prim: None,
            dims: Vec::new(),
            type_prefix: TypePrefix::default(),
            self_mod: Mod::default(),
            components: Vec::new(),
            comp_index: HashMap::new(),
            classes: HashMap::new(),
            equations: Vec::new(),
            initial_equations: Vec::new(),
            algorithms: Vec::new(),
            initial_algorithms: Vec::new(),
            span: node.span,
            bases: Vec::new(),
        }
    }

    pub(super) fn short_from(
        &mut self,
        out: &mut Expanded,
        s: &ast::ShortClass,
        base_lex: ClassId,
        b: &Expanded,
    ) -> Result<(), Diagnostic> {
        let base = b.id;
        let mut m = match &s.modification {
            Some(cm) => modifier::convert_args(&mut self.tree, cm, base_lex),
            None => Mod::default(),
        };
        m.span = m.span.or(Some(s.base.span));
        out.self_mod = modifier::merge(&m, &b.self_mod, "")?;
        out.prim = b.prim.clone();
        out.dims = s.array_dims.iter().map(|d| (d.clone(), base_lex)).collect();
        out.dims.extend(b.dims.iter().cloned());
        out.type_prefix = merge_prefix(&s.prefixes, &b.type_prefix);
        out.components = b.components.clone();
        out.comp_index = b.comp_index.clone();
        out.classes = b.classes.clone();
        out.equations = b.equations.clone();
        out.initial_equations = b.initial_equations.clone();
        out.algorithms = b.algorithms.clone();
        out.initial_algorithms = b.initial_algorithms.clone();
        out.bases = vec![base];
        out.bases.extend(b.bases.iter().copied());
        // A short definition declared `class` stays a class, even of a function: the keyword
        // names its specialized kind (MLS 4.5.2), so `class f2 = f` cannot be called.
        out.partial = out.partial || b.partial;
        Ok(())
    }

    /// The expansion of short class `id` with its base replaced by `b` (the base name names
    /// a class that an enclosing instance redeclared).
    pub fn expanded_short_with(
        &mut self,
        id: ClassId,
        b: Rc<Expanded>,
    ) -> Result<Rc<Expanded>, Diagnostic> {
        let key = (id, Rc::as_ptr(&b) as usize);
        if let Some(e) = self.short_cache.get(&key) {
            return Ok(e.0.clone());
        }
        let NodeBody::Short(s) = &self.tree.get(id).body else {
            return self.expanded(id);
        };
        let s = s.clone();
        let base_lex = self.tree.get(id).parent.unwrap_or(id);
        let mut out = self.blank(id);
        self.short_from(&mut out, &s, base_lex, &b)?;
        let e = Rc::new(out);
        self.short_cache.insert(key, (e.clone(), b));
        Ok(e)
    }

    fn expand_long(&mut self, id: ClassId, out: &mut Expanded) -> Result<(), Diagnostic> {
        // The expansion lists every nested class: deferred ones are parsed now, except in a
        // package, where lookup asks for each by name (`child_class`) and a whole library
        // package would otherwise be parsed to find one function in it. A package used as a
        // base class gets them all first (`expanded_base`).
        if self.tree.get(id).kind != ClassKind::Package {
            self.load_pending_children(id);
        }
        let node = self.tree.get(id);
        let body = node
            .long()
            .expect("expand_long is called for long and `extends` class bodies only");
        let extends: Vec<Rc<ast::Extends>> = body.extends.clone();
        let protected_extends = body.protected_extends.clone();
        let own_components = body.components.clone();
        let equations = body.equations.clone();
        let initial_equations = body.initial_equations.clone();
        let algorithms = body.algorithms.clone();
        let initial_algorithms = body.initial_algorithms.clone();
        let children: Vec<ClassId> = node.child_order.clone();
        let class_extends = match &node.body {
            NodeBody::ExtendsClass {
                base, modification, ..
            } => Some((base.clone(), modification.clone())),
            _ => None,
        };

        // `model extends L(...)`: the base is the class being redeclared, found in the
        // enclosing class's bases (MLS 7.3.1).
        if let Some((base, modification)) = class_extends {
            self.extend_redeclared(id, out, &base, modification.as_ref())?;
        }

        self.expand_extends(id, out, &extends, &protected_extends)?;

        for cid in children {
            self.add_local_class(id, cid, out)?;
        }

        self.add_own_components(id, &own_components, out)?;
        // Components and classes share one namespace (MLS 4.2).
        self.check_one_namespace(out)?;
        out.equations.extend(equations.into_iter().map(|e| (id, e)));
        out.initial_equations
            .extend(initial_equations.into_iter().map(|e| (id, e)));
        for statements in initial_algorithms {
            // A section that is a set of equations stays one; the rest is executed.
            match super::initial_algorithm::to_equations(&statements) {
                Ok(eqs) => out
                    .initial_equations
                    .extend(eqs.into_iter().map(|e| (id, Rc::new(e)))),
                Err(_) => out.initial_algorithms.push((id, statements)),
            }
        }
        out.algorithms
            .extend(algorithms.into_iter().map(|a| (id, a)));
        Ok(())
    }

    /// `model extends L(...)` (`id`): inherits the class `L` being redeclared.
    fn extend_redeclared(
        &mut self,
        id: ClassId,
        out: &mut Expanded,
        base: &ast::Ident,
        modification: Option<&Rc<ast::ClassModification>>,
    ) -> Result<(), Diagnostic> {
        let parent = self.tree.get(id).parent.unwrap_or(id);
        let base_id = self.inherited_class(parent, &base.name).ok_or_else(|| {
            Diagnostic::error(
                base.span,
                format!(
                    "`model extends {}`: no inherited class `{}` to extend",
                    base.name, base.name
                ),
            )
        })?;
        let b = self.expanded_base(base_id)?;
        let m = match modification {
            Some(cm) => modifier::convert_args(&mut self.tree, cm, id),
            None => Mod::default(),
        };
        self.inherit(out, &b, &m, base.span)
    }

    /// The `extends` clauses of class `id`, inherited in order.
    fn expand_extends(
        &mut self,
        id: ClassId,
        out: &mut Expanded,
        extends: &[Rc<ast::Extends>],
        protected_extends: &[bool],
    ) -> Result<(), Diagnostic> {
        for (k, ext) in extends.iter().enumerate() {
            let base = self.lookup_class_name(&ext.base, id, None)?;
            let mut b = self.expanded_base(base)?;
            let m = match &ext.modification {
                Some(cm) => modifier::convert_args(&mut self.tree, cm, id),
                None => Mod::default(),
            };
            // `protected extends A`: everything inherited from `A` is protected (MLS 7.1.2).
            if protected_extends.get(k).copied().unwrap_or(false) {
                let mut hidden = (*b).clone();
                hidden
                    .components
                    .iter_mut()
                    .for_each(|c| c.protected = true);
                hidden.classes.values_mut().for_each(|c| c.protected = true);
                b = Rc::new(hidden);
            }
            self.inherit(out, &b, &m, ext.span)?;
        }

        Ok(())
    }

    /// The local class `cid` of class `id` enters `out.classes`: a redeclaration replaces
    /// the inherited class it names (checked to fit its constraint), a new name is added.
    fn add_local_class(
        &mut self,
        id: ClassId,
        cid: ClassId,
        out: &mut Expanded,
    ) -> Result<(), Diagnostic> {
        let c = self.tree.get(cid);
        let elem = ClassElem {
            id: cid,
            protected: c.protected,
            replaceable: c.prefixes.replaceable,
            final_: c.prefixes.final_,
            constraint: cid,
            constraint_mod: Mod::default(),
            shadowed: None,
        };
        let name = c.name.clone();
        let redeclare = c.prefixes.redeclare;
        let class_extends = matches!(c.body, NodeBody::ExtendsClass { .. });
        let cspan = c.span;
        let constrainedby = c.constrainedby.clone();
        let c_constrained = constrainedby.is_some();
        let mut elem = elem;
        if let Some(cb) = constrainedby {
            elem.constraint = self.lookup_class_name(&cb.name, id, None)?;
            if let Some(cm) = &cb.modification {
                elem.constraint_mod = modifier::convert_args(&mut self.tree, cm, id);
            }
        }
        reserved_name(&name, cspan)?;
        if let Some(prev) = out.classes.get(&name) {
            // `model extends B` without `redeclare` is the form deprecated in Modelica
            // 3.4: still a class extends of the inherited `B` (MLS 7.3.1).
            if redeclare || class_extends {
                if prev.final_ {
                    return Err(Diagnostic::error(
                        cspan,
                        format!("cannot redeclare `{name}`: it is final"),
                    ));
                }
                super::legality::check_class_redeclare(&self.tree, prev, cid, class_extends)?;
                self.check_plug_compatible(cid, prev.constraint, cspan, &name)?;
                // A redeclaration with its own `constrainedby` narrows the constraint for
                // later redeclarations (MLS 7.3.2); that type must fit the old constraint.
                if c_constrained {
                    self.check_plug_compatible(elem.constraint, prev.constraint, cspan, &name)?;
                } else {
                    elem.constraint = prev.constraint;
                    elem.constraint_mod = prev.constraint_mod.clone();
                }
                if !redeclare {
                    elem.shadowed = Some((id, prev.id));
                }
            } else if prev.id != cid && !self.same_short_class(prev.id, cid)? {
                let prev_span = self.tree.get(prev.id).span;
                return Err(Diagnostic::error(
                    cspan,
                    format!("class `{name}` is declared twice"),
                )
                .with_secondary(prev_span, "first declared here (possibly inherited)")
                .with_help(if class_extends {
                    "write `redeclare model extends ...` to replace the inherited class (MLS 7.3.1)"
                } else {
                    "use `redeclare` to replace an inherited replaceable class"
                }));
            }
        }
        out.classes.insert(name, elem);
        Ok(())
    }

    /// The components class `id` declares, one element per declared name.
    fn add_own_components(
        &mut self,
        id: ClassId,
        own_components: &[(Rc<ast::ComponentClause>, ast::Visibility)],
        out: &mut Expanded,
    ) -> Result<(), Diagnostic> {
        for (clause, vis) in own_components {
            for d in &clause.components {
                reserved_name(&d.name.name, d.name.span)?;
                let mut single = (**clause).clone();
                single.components = vec![d.clone()];
                let mut decl_mod = match &d.modification {
                    Some(m) => modifier::convert(&mut self.tree, m, id),
                    None => Mod::default(),
                };
                if clause.element_prefixes.final_ {
                    decl_mod.final_ = true;
                    decl_mod.span = Some(d.name.span);
                }
                let elem = CompElem {
                    name: d.name.name.clone(),
                    clause: Rc::new(single),
                    lex: id,
                    protected: *vis == ast::Visibility::Protected,
                    decl_mod,
                    cond_lex: id,
                };
                self.add_component(out, elem, clause.element_prefixes.redeclare, None)?;
            }
        }
        Ok(())
    }

    /// Components and classes share one namespace (MLS 4.2).
    fn check_one_namespace(&self, out: &Expanded) -> Result<(), Diagnostic> {
        for c in &out.components {
            if let Some(ce) = out.classes.get(&c.name) {
                let cspan = self.tree.get(ce.id).span;
                return Err(Diagnostic::error(
                    c.decl().name.span,
                    format!(
                        "`{}` is declared both as a component and as a class",
                        c.name
                    ),
                )
                .with_secondary(cspan, "the class")
                .with_note("an element name may be declared only once in a class (MLS 4.2)"));
            }
        }
        Ok(())
    }

    /// Merges a base class into `out` (MLS 7.1): its elements, equations and self modifier,
    /// with the `extends` modifier applied over it.
    fn inherit(
        &mut self,
        out: &mut Expanded,
        b: &Expanded,
        m: &Mod,
        span: Span,
    ) -> Result<(), Diagnostic> {
        if out.prim.is_none() {
            out.prim = b.prim.clone();
            out.dims = b.dims.clone();
        }
        out.type_prefix = merge_prefix(&out.type_prefix, &b.type_prefix);
        out.bases.push(b.id);
        out.bases.extend(b.bases.iter().copied());
        let merged = modifier::merge(m, &b.self_mod, "")?;
        // Components first: an element inherited twice is compared with the modifiers that
        // reach each copy, before this base's are merged with the earlier bases' (MLS 7.3.3).
        for c in &b.components {
            let outer = merged.sub(&c.name);
            self.add_component(out, c.clone(), false, outer)?;
        }
        // Each base contributes its own element names; merge the modifiers name by name.
        for (name, sm) in merged.subs {
            if let Some(existing) = out.self_mod.subs.iter_mut().find(|(n, _)| *n == name) {
                // The same modifier reaching an element inherited twice (`final
                // port_a_exposesState = ...` in two extends of a Fluid pipe) is one (MLS 7.3.3).
                if same_mod(&existing.1, &sm) {
                    continue;
                }
                existing.1 = modifier::merge(&existing.1, &sm, &name)?;
            } else {
                out.self_mod.subs.push((name, sm));
            }
        }
        if merged.binding.is_some() {
            out.self_mod.binding = merged.binding;
        }
        for (name, ce) in &b.classes {
            let prev = out.classes.get(name).map(|p| p.id);
            if let Some(p) = prev
                && p != ce.id
                && self.same_short_class(p, ce.id)?
            {
                continue;
            }
            match out.classes.get(name) {
                Some(prev) if prev.id != ce.id => {
                    let (a, c) = (self.tree.get(prev.id).span, self.tree.get(ce.id).span);
                    return Err(Diagnostic::error(
                        span,
                        format!("class `{name}` is inherited twice with different definitions"),
                    )
                    .with_secondary(a, "one definition")
                    .with_secondary(c, "the other definition"));
                }
                _ => {
                    out.classes.insert(name.clone(), ce.clone());
                }
            }
        }
        out.equations.extend(b.equations.iter().cloned());
        out.initial_equations
            .extend(b.initial_equations.iter().cloned());
        out.algorithms.extend(b.algorithms.iter().cloned());
        out.initial_algorithms
            .extend(b.initial_algorithms.iter().cloned());
        Ok(())
    }

    /// Adds `elem` to `out`; `outer` is the modifier that reaches this copy of it from the
    /// `extends` clause it is inherited through (none for a class's own declaration).
    fn add_component(
        &mut self,
        out: &mut Expanded,
        elem: CompElem,
        redeclare: bool,
        outer: Option<&Mod>,
    ) -> Result<(), Diagnostic> {
        if let Some(&i) = out.comp_index.get(&elem.name) {
            let prev = &out.components[i];
            if redeclare {
                super::legality::check_component_redeclare(prev, &elem)?;
                if prev.clause.element_prefixes.final_ {
                    return Err(Diagnostic::error(
                        elem.decl().name.span,
                        format!("cannot redeclare `{}`: it is final", elem.name),
                    ));
                }
                // MLS 7.3.2: the replaced declaration's modifiers (or its `constrainedby`
                // clause's) still apply, under the redeclaration's own.
                let kept = match &prev.clause.constrainedby {
                    Some(cb) => match &cb.modification {
                        Some(cm) => modifier::convert_args(&mut self.tree, cm, prev.lex),
                        None => Mod::default(),
                    },
                    None => prev.decl_mod.clone(),
                };
                let mut elem = elem;
                // A redeclaration in a derived class sees the base's names, so the original
                // dimensions keep their meaning there (MLS 7.3.2).
                elem.clause = Rc::new(super::redeclared::keep_original(
                    &prev.clause,
                    &elem.clause,
                    true,
                ));
                if elem.decl().condition.is_none() {
                    elem.cond_lex = prev.cond_lex;
                }
                elem.decl_mod = modifier::merge(&elem.decl_mod, &kept, &elem.name)?;
                out.components[i] = elem;
                return Ok(());
            }
            // Identical duplicates (the same declaration inherited twice) merge (MLS 7.3.3).
            if Rc::ptr_eq(&prev.clause, &elem.clause)
                || same_declaration(&prev.clause, &elem.clause)
                || same_after_modification(
                    (prev, out.self_mod.sub(&elem.name)),
                    (&elem, outer),
                    &elem.name,
                )
            {
                return Ok(());
            }
            return Err(Diagnostic::error(
                elem.decl().name.span,
                format!(
                    "`{}` is declared twice with different definitions",
                    elem.name
                ),
            )
            .with_secondary(prev.decl().name.span, "the other declaration")
            .with_help("identical inherited declarations are merged; these differ"));
        }
        out.comp_index
            .insert(elem.name.clone(), out.components.len());
        out.components.push(elem);
        Ok(())
    }

    /// A class element inherited by `class` (for `model extends L`).
    fn inherited_class(&mut self, class: ClassId, name: &str) -> Option<ClassId> {
        let node = self.tree.get(class);
        let extends: Vec<Rc<ast::Extends>> =
            node.long().map(|b| b.extends.clone()).unwrap_or_default();
        for ext in extends {
            let Ok(base) = self.lookup_class_name(&ext.base, class, None) else {
                continue;
            };
            let Ok(b) = self.expanded(base) else { continue };
            if let Some(ce) = b.classes.get(name) {
                return Some(ce.id);
            }
        }
        None
    }

    /// Plug compatibility for a redeclaration (MLS 7.3.2, simplified to what a modeler can get
    /// wrong): the new class must have every public component of the constraining class,
    /// with the same kind of type.
    pub fn check_plug_compatible(
        &mut self,
        new: ClassId,
        constraint: ClassId,
        span: Span,
        what: &str,
    ) -> Result<(), Diagnostic> {
        if new == constraint {
            return Ok(());
        }
        let n = self.expanded(new)?;
        let c = self.expanded(constraint)?;
        if c.prim.is_some() != n.prim.is_some() {
            return Err(self.incompatible(
                new,
                constraint,
                span,
                what,
                "one is a built-in type and the other is not",
            ));
        }
        for ce in c.components.iter().filter(|e| !e.protected) {
            match n.component(&ce.name) {
                None => {
                    let msg = format!("it has no component `{}`", ce.name);
                    return Err(self.incompatible(new, constraint, span, what, &msg));
                }
                Some(ne) => {
                    if ne.clause.prefix.connection != ce.clause.prefix.connection
                        || ne.clause.prefix.causality != ce.clause.prefix.causality
                    {
                        let msg = format!(
                            "component `{}` has different prefixes (flow/input/output)",
                            ce.name
                        );
                        return Err(self.incompatible(new, constraint, span, what, &msg));
                    }
                }
            }
        }
        Ok(())
    }

    fn incompatible(
        &self,
        new: ClassId,
        constraint: ClassId,
        span: Span,
        what: &str,
        why: &str,
    ) -> Diagnostic {
        let (nn, cn) = (self.tree.get(new), self.tree.get(constraint));
        Diagnostic::error(
            span,
            format!(
                "redeclaration of `{what}` is not compatible: `{}` does not fit `{}`: {why}",
                nn.full, cn.full
            ),
        )
        .with_label("incompatible redeclaration")
        .with_secondary(cn.span, "the constraining class")
        .with_help(format!(
            "a replacement for `{what}` must have the public components of `{}`",
            cn.full
        ))
    }

    /// Applies the class redeclarations of `m` on top of `exp.classes`; returns only the
    /// overridden entries. Checks `final` and plug compatibility.
    pub fn class_overrides(
        &mut self,
        exp: &Expanded,
        m: &Mod,
    ) -> Result<HashMap<String, ClassElem>, Diagnostic> {
        let mut out = HashMap::new();
        for (name, sm) in &m.subs {
            let Some(Redecl::Class { id, span }) = &sm.redeclare else {
                continue;
            };
            let Some(prev) = exp.classes.get(name) else {
                let cands: Vec<&str> = exp.classes.keys().map(|s| s.as_str()).collect();
                let mut d = Diagnostic::error(
                    *span,
                    format!(
                        "there is no class `{name}` to redeclare in `{}`",
                        self.tree.get(exp.id).full
                    ),
                );
                if let Some(c) = crate::flatten::suggest(name, cands) {
                    d = d.with_help(format!("did you mean `{c}`?"));
                }
                return Err(d);
            };
            if prev.final_ {
                return Err(Diagnostic::error(
                    *span,
                    format!("cannot redeclare `{name}`: it is final"),
                ));
            }
            if !prev.replaceable && !self.tree.get(prev.id).prefixes.replaceable {
                let pspan = self.tree.get(prev.id).span;
                return Err(Diagnostic::error(
                    *span,
                    format!("cannot redeclare `{name}`: it is not declared `replaceable`"),
                )
                .with_secondary(pspan, "declared here"));
            }
            let narrowed =
                super::redeclared_chain::replaced_class_constraint(self, sm, prev, name)?;
            let prev = narrowed.as_ref().unwrap_or(prev);
            self.check_plug_compatible(*id, prev.constraint, *span, name)?;
            let (constraint, constraint_mod) =
                super::redeclared_chain::narrowed_constraint(self, *id, prev, *span, name)?;
            out.insert(
                name.clone(),
                ClassElem {
                    id: *id,
                    protected: prev.protected,
                    replaceable: self.tree.get(*id).prefixes.replaceable,
                    final_: sm.final_,
                    constraint,
                    constraint_mod,
                    shadowed: None,
                },
            );
        }
        Ok(out)
    }
}

/// Two declarations are the same if they are equal apart from source locations.
impl Flattener<'_> {
    /// Whether two short class definitions are the same class (MLS 7.3.3: the same
    /// `replaceable package Medium = PartialMedium` declared in a class and in its base, with
    /// different annotations): same kind, prefixes and text but for spans, descriptions and
    /// annotations, and the same base class found from both places.
    fn same_short_class(&mut self, a: ClassId, b: ClassId) -> Result<bool, Diagnostic> {
        // The comparison walks nested classes: deferred ones must be parsed first.
        self.load_all_pending(a);
        self.load_all_pending(b);
        if super::identical::same_long_class(&self.tree, a, b, 0) {
            return Ok(true);
        }
        let (na, nb) = (self.tree.get(a), self.tree.get(b));
        let (NodeBody::Short(sa), NodeBody::Short(sb)) = (&na.body, &nb.body) else {
            return Ok(false);
        };
        if na.kind != nb.kind || na.prefixes != nb.prefixes {
            return Ok(false);
        }
        let json = |x: &ast::ShortClass| {
            let mut v = serde_json::to_value(x).unwrap_or_default();
            strip_spans(&mut v);
            v
        };
        let cb = |x: &Option<Rc<ast::Constrainedby>>| {
            let mut v = serde_json::to_value(x.as_deref()).unwrap_or_default();
            strip_spans(&mut v);
            v
        };
        if json(sa) != json(sb) || cb(&na.constrainedby) != cb(&nb.constrainedby) {
            return Ok(false);
        }
        let (sa, sb) = (sa.clone(), sb.clone());
        let (pa, pb) = (na.parent, nb.parent);
        let (Some(pa), Some(pb)) = (pa, pb) else {
            return Ok(false);
        };
        let ba = self.lookup_class_name(&sa.base, pa, None)?;
        let bb = self.lookup_class_name(&sb.base, pb, None)?;
        Ok(ba == bb)
    }
}

/// Whether two modifiers say the same (same bindings as written, same sub-modifiers).
fn same_mod(a: &Mod, b: &Mod) -> bool {
    let expr = |m: &Mod| {
        m.binding.as_ref().map(|x| {
            let mut v = serde_json::to_value(&*x.expr).unwrap_or_default();
            strip_spans(&mut v);
            (v, x.each, x.index.clone())
        })
    };
    a.redeclare.is_none()
        && b.redeclare.is_none()
        && a.final_ == b.final_
        && a.each == b.each
        && expr(a) == expr(b)
        && a.subs.len() == b.subs.len()
        && a.subs
            .iter()
            .all(|(n, x)| b.sub(n).is_some_and(|y| same_mod(x, y)))
}

/// Whether two declarations are the same but for where they are written and their
/// descriptions and annotations (MLS 7.3.3: `outer System system "System properties"` inherited
/// through two bases with different descriptions is one element).
fn same_declaration(a: &ast::ComponentClause, b: &ast::ComponentClause) -> bool {
    let strip = |c: &ast::ComponentClause| {
        let mut s = serde_json::to_value(c).unwrap_or_default();
        strip_spans(&mut s);
        s
    };
    strip(a) == strip(b)
}

/// Whether two copies of an element inherited twice are the same element once the modifiers
/// that reach each copy are applied (MLS 7.3.3: "identical after modification"; a Fluid fitting
/// sets `m_flow(stateSelect = ...)` through one base and the other base declares `m_flow` with
/// that `stateSelect`). The declarations must agree but for their modifications, and the
/// merged modifications must agree as text.
fn same_after_modification(
    (a, a_outer): (&CompElem, Option<&Mod>),
    (b, b_outer): (&CompElem, Option<&Mod>),
    name: &str,
) -> bool {
    let unmodified = |c: &CompElem| {
        let mut clause = (*c.clause).clone();
        for d in &mut clause.components {
            d.modification = None;
        }
        clause
    };
    if !same_declaration(&unmodified(a), &unmodified(b)) {
        return false;
    }
    let effective = |c: &CompElem, outer: Option<&Mod>| match outer {
        Some(o) => modifier::merge(o, &c.decl_mod, name).ok(),
        None => Some(c.decl_mod.clone()),
    };
    match (effective(a, a_outer), effective(b, b_outer)) {
        (Some(x), Some(y)) => same_mod(&x, &y),
        _ => false,
    }
}

fn strip_spans(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("span");
            m.remove("comment");
            for (_, x) in m.iter_mut() {
                strip_spans(x);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_spans),
        _ => {}
    }
}

/// The names of the predefined types may not be declared again (MLS 4.8): a class `Real` would
/// make every `Real` in its scope mean it, recursively.
fn reserved_name(name: &str, span: crate::diag::Span) -> Result<(), Diagnostic> {
    if matches!(name, "Real" | "Integer" | "Boolean" | "String") {
        return Err(Diagnostic::error(
            span,
            format!("`{name}` is the name of a predefined type and cannot be declared (MLS 4.8)"),
        )
        .with_help("choose another name"));
    }
    Ok(())
}
