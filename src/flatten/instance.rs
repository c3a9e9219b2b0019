//! The instance tree (MLS 5.6): one node per component, created lazily so that structural
//! parameters (array sizes, conditions) can be evaluated while the tree is being built, even
//! when they refer to components declared later or deeper.

use super::Flattener;
use super::classtree::{ClassId, NodeBody};
use super::eval::DimType;
use super::expand::{ClassElem, CompElem, Expanded, Prim, merge_prefix};
use super::modifier::{self, Mod, Redecl, Scope};
use super::tensor::{Tensor, Val};
use crate::dae::ScalarType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, TypePrefix};
use std::collections::HashMap;
use std::rc::Rc;

pub type InstId = usize;

#[derive(Debug)]
pub enum InstKind {
    /// A variable of a built-in type (`Real x[3]`): `dims` may be empty.
    Prim { ty: ScalarType, dims: Vec<usize> },
    /// An array of structured components: one instance per element, row-major.
    Array {
        dims: Vec<usize>,
        elems: Vec<InstId>,
    },
    /// A model, block, connector, record or package; children created on first use.
    Struct {
        children: Option<Vec<InstId>>,
        index: HashMap<String, InstId>,
    },
    /// A conditional component whose condition is false.
    Removed,
    /// Declared, sizes not yet evaluated.
    Stub,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Stub,
    Busy,
    Ready,
}

#[derive(Debug)]
pub struct Inst {
    pub name: String,
    /// Flat name prefix (`wheels[2].rollers[1]`).
    pub path: String,
    pub parent: Option<InstId>,
    pub class: ClassId,
    pub exp: Rc<Expanded>,
    /// The effective modifier (outer over declaration over class), scopes filled in.
    pub mods: Mod,
    /// The declaration this instance comes from (`None` for the top level and packages).
    pub elem: Option<Rc<CompElem>>,
    pub prefix: TypePrefix,
    pub kind: InstKind,
    pub state: State,
    pub span: Span,
    /// A package used for its constants: only constant components are instantiated.
    pub package: bool,
    /// Redeclared class elements of this instance.
    pub overrides: HashMap<String, ClassElem>,
    /// First variable id (primitive instances, after numbering).
    pub var0: usize,
    /// The declaration's modifier and the class's own modifier, kept apart so that an array of
    /// components can split the first among its elements (the second applies to each whole).
    pub split: Option<Box<(Mod, Mod)>>,
    /// What indexes each dimension (`Real x[Boolean]`, `Real x[E]`, MLS 10.1); empty when
    /// all are Integer dimensions. Enumeration literals are the Integers 1..n at run time.
    pub dim_types: Vec<DimType>,
}

impl Inst {
    pub fn is_connector(&self) -> bool {
        self.exp.is_connector()
    }
}

/// Attribute names of the built-in types (MLS 4.9).
pub const ATTRIBUTES: &[&str] = &[
    "start",
    "fixed",
    "nominal",
    "min",
    "max",
    "unit",
    "displayUnit",
    "quantity",
    "stateSelect",
    "unbounded",
];

impl Flattener<'_> {
    /// Creates the root instance of a model.
    pub fn instantiate_root(&mut self, class: ClassId) -> Result<InstId, Diagnostic> {
        let exp = self.expanded(class)?;
        if exp.partial {
            let node = self.tree.get(class);
            return Err(Diagnostic::error(
                node.span,
                format!(
                    "cannot instantiate `{}`: it is declared `partial`",
                    node.full
                ),
            )
            .with_kind(crate::diag::Kind::Partial)
            .with_help("simulate a model that extends it and fills in what is missing"));
        }
        Ok(self.push_class_inst(class, &exp, String::new(), false))
    }

    /// The instance holding the constants of a package (or any class used as a lexical scope).
    pub fn package_inst(&mut self, class: ClassId) -> Result<InstId, Diagnostic> {
        if let Some(i) = self.pkg_insts.get(&class) {
            return Ok(*i);
        }
        let exp = self.expanded(class)?;
        let full = self.tree.get(class).full.clone();
        let id = self.push_class_inst(class, &exp, full, true);
        self.pkg_insts.insert(class, id);
        Ok(id)
    }

    /// A parentless instance of a whole class (a model root or a package scope), named `name`.
    fn push_class_inst(
        &mut self,
        class: ClassId,
        exp: &Rc<Expanded>,
        name: String,
        package: bool,
    ) -> InstId {
        let id = self.insts.len();
        let mut mods = exp.self_mod.clone();
        mods.bind_self(id);
        self.insts.push(Inst {
            path: name.clone(),
            name,
            parent: None,
            class,
            exp: exp.clone(),
            mods,
            elem: None,
            prefix: exp.type_prefix.clone(),
            kind: InstKind::Struct {
                children: None,
                index: HashMap::new(),
            },
            state: State::Ready,
            span: exp.span,
            package,
            overrides: HashMap::new(),
            var0: 0,
            split: None,
            dim_types: Vec::new(),
        });
        id
    }

    /// Binds the relative scopes of `m`: each to the nearest instance (the new instance
    /// `first` if given, then `p` and its ancestors) whose class is, or inherits from, the class
    /// the modifier was written in; the innermost candidate when none is.
    fn bind_rel(&mut self, m: &Mod, first: Option<(InstId, ClassId)>, p: InstId) -> Mod {
        let mut m = m.clone();
        let fallback = first.map(|f| f.0).unwrap_or(p);
        let mut cache: Vec<(ClassId, InstId)> = Vec::new();
        m.bind_with(&mut |lex| {
            if let Some((_, i)) = cache.iter().find(|(l, _)| *l == lex) {
                return *i;
            }
            let found = self.enclosing_inst(lex, first, p).unwrap_or(fallback);
            cache.push((lex, found));
            found
        });
        m
    }

    fn enclosing_inst(
        &mut self,
        lex: ClassId,
        first: Option<(InstId, ClassId)>,
        p: InstId,
    ) -> Option<InstId> {
        let matches = |f: &mut Self, class: ClassId| -> bool {
            class == lex
                || f.expanded(class)
                    .map(|e| e.bases.contains(&lex))
                    .unwrap_or(false)
        };
        if let Some((id, class)) = first
            && matches(self, class)
        {
            return Some(id);
        }
        let mut cur = Some(p);
        while let Some(i) = cur {
            let class = self.insts[i].class;
            if matches(self, class) {
                return Some(i);
            }
            cur = self.insts[i].parent;
        }
        None
    }

    /// Redeclarations of instance `i` that only pass a choice down, `redeclare package Medium
    /// = Medium` written in a class whose own `Medium` an enclosing instance redeclared, stand
    /// for that instance's choice: the name is looked up where the modifier is written, in the
    /// instance being built (MLS 7.3), not in the class as declared. Without this, `C c(redeclare
    /// package Medium = M1)` with `B b(redeclare package Medium = Medium)` inside `C` left
    /// `c.b.Medium` at C's default, and every constant read through it was silently wrong.
    fn pass_choices_down(
        &mut self,
        i: InstId,
        mut overrides: HashMap<String, ClassElem>,
    ) -> HashMap<String, ClassElem> {
        let Some(p) = self.insts[i].parent else {
            return overrides;
        };
        for ce in overrides.values_mut() {
            if let Some(c) = self.outer_choice(ce.id, p)
                && c.short.array_dims.is_empty()
                && c.short
                    .modification
                    .as_ref()
                    .is_none_or(|m| m.args.is_empty())
            {
                ce.id = c.chosen;
            }
        }
        overrides
    }

    /// For a short class `ty` = `B` with a one-word base, written in a class of which an
    /// instance enclosing `p` redeclared its class element `B`: that redeclared class.
    fn outer_choice(&mut self, ty: ClassId, p: InstId) -> Option<OuterChoice> {
        let node = self.tree.get(ty);
        let (NodeBody::Short(s), Some(lex)) = (&node.body, node.parent) else {
            return None;
        };
        if s.base.parts.len() != 1 || s.base.global {
            return None;
        }
        let short = s.clone();
        let inst = self.enclosing_inst(lex, None, p)?;
        let chosen = self.insts[inst]
            .overrides
            .get(&short.base.parts[0].name)?
            .id;
        Some(OuterChoice {
            short,
            lex,
            inst,
            chosen,
        })
    }

    /// The class element `name` as seen from instance `i` (redeclarations applied).
    pub fn inst_class_element(&mut self, i: InstId, name: &str) -> Option<ClassId> {
        let inst = &self.insts[i];
        if let Some(c) = inst.overrides.get(name) {
            return Some(c.id);
        }
        let found = inst.exp.classes.get(name)?.id;
        // A package's constant calling a function the package inherits (`h_default =
        // specificEnthalpy_pTX(...)` of `PartialMedium`, read through a medium) calls it as
        // seen through that package: its body then finds the functions the package redeclares.
        if inst.package {
            let pkg = inst.exp.id;
            return Some(self.through_package(pkg, found));
        }
        Some(found)
    }

    /// Children of a structured instance, created on first use.
    pub fn children(&mut self, i: InstId) -> Result<Vec<InstId>, Diagnostic> {
        self.ready(i)?;
        match &self.insts[i].kind {
            InstKind::Struct {
                children: Some(c), ..
            } => return Ok(c.clone()),
            InstKind::Struct { children: None, .. } => {}
            _ => return Ok(Vec::new()),
        }
        self.check_not_recursive(i)?;
        self.distribute_record_binding(i)?;
        let exp = self.insts[i].exp.clone();
        let mods = self.insts[i].mods.clone();
        let package = self.insts[i].package;
        let overrides = self.class_overrides(&exp, &mods)?;
        let overrides = self.pass_choices_down(i, overrides);
        self.insts[i].overrides = overrides;
        // Every modifier must name an element (or be an attribute of a built-in type).
        if !package {
            for (name, sm) in &mods.subs {
                if exp.component(name).is_none() && !exp.classes.contains_key(name) {
                    let span = sm.span.unwrap_or(self.insts[i].span);
                    let cands: Vec<&str> = exp.components.iter().map(|c| c.name.as_str()).collect();
                    let mut d = Diagnostic::error(
                        span,
                        format!(
                            "`{}` has no element `{name}` to modify",
                            self.tree.get(exp.id).full
                        ),
                    )
                    .with_label("unknown element");
                    if let Some(c) = crate::flatten::suggest(name, cands) {
                        d = d.with_help(format!("did you mean `{c}`?"));
                    }
                    return Err(d);
                }
            }
        }
        let mut kids = Vec::with_capacity(exp.components.len());
        let mut index = HashMap::with_capacity(exp.components.len());
        for e in &exp.components {
            if package && e.clause.prefix.variability != ast::Variability::Constant {
                continue;
            }
            let pre = &e.clause.element_prefixes;
            if pre.outer && !pre.inner {
                self.check_outer_unmodified(i, e)?;
                // An `outer` element is the matching `inner` of an enclosing instance (MLS
                // 5.4): indexed here, but not a child, so its variables and equations belong
                // to the inner alone.
                if let Some(target) = self.resolve_outer(i, e)? {
                    index.insert(e.name.clone(), target);
                    continue;
                }
            }
            if pre.outer && pre.inner && self.split_inner_outer(i, e, &mut index, &mut kids)? {
                continue;
            }
            let c = self.make_child(i, e)?;
            if pre.outer && !pre.inner {
                self.default_inner(c, e);
            }
            index.insert(e.name.clone(), c);
            kids.push(c);
        }
        self.insts[i].kind = InstKind::Struct {
            children: Some(kids.clone()),
            index,
        };
        Ok(kids)
    }

    /// A class that contains an instance of itself (`model M M m; end M;`) would have an
    /// infinite instance tree: refused before its components are created.
    fn check_not_recursive(&self, i: InstId) -> Result<(), Diagnostic> {
        let class = self.insts[i].class;
        let mut cur = self.insts[i].parent;
        while let Some(p) = cur {
            if self.insts[p].class == class && !self.insts[p].package {
                let full = &self.tree.get(class).full;
                let inst = &self.insts[i];
                return Err(Diagnostic::error(
                    inst.span,
                    format!(
                        "`{full}` contains itself: component `{}` is an instance of `{full}` \
                         inside an instance of `{full}`",
                        inst.path
                    ),
                )
                .with_label("recursive component")
                .with_note("the instance tree would be infinite (MLS 5.6)"));
            }
            cur = self.insts[p].parent;
        }
        Ok(())
    }

    /// Relative names of already built components below `root` named `name`, nearest first (for
    /// "did you mean" hints: `joint.phi` for `phi`). Nothing is instantiated for the hint; of an
    /// array of components only the first element is searched, and the search is bounded.
    pub fn nested_components(&self, root: InstId, name: &str) -> Vec<String> {
        let prefix = match self.insts[root].path.as_str() {
            "" => String::new(),
            p => format!("{p}."),
        };
        let mut out = Vec::new();
        let mut queue = std::collections::VecDeque::from([(root, 0usize)]);
        let mut visited = 0;
        while let Some((i, depth)) = queue.pop_front() {
            visited += 1;
            if visited > 20_000 || out.len() >= 4 {
                break;
            }
            match &self.insts[i].kind {
                InstKind::Struct {
                    children: Some(c), ..
                } if depth < 8 => {
                    for &ch in c {
                        let inst = &self.insts[ch];
                        if inst.name == name {
                            let rel = inst.path.strip_prefix(&prefix).unwrap_or(&inst.path);
                            out.push(rel.to_string());
                        }
                        queue.push_back((ch, depth + 1));
                    }
                }
                InstKind::Array { elems, .. } => {
                    if let Some(&first) = elems.first() {
                        queue.push_back((first, depth));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The instance an `outer` element `e` of instance `i` stands for: the nearest enclosing
    /// instance's element of the same name declared `inner`, else the default inner made
    /// for an earlier `outer` of the same name and type; `None` when there is neither.
    pub(super) fn resolve_outer(
        &mut self,
        i: InstId,
        e: &CompElem,
    ) -> Result<Option<InstId>, Diagnostic> {
        let mut a = self.insts[i].parent;
        while let Some(anc) = a {
            let is_inner = self.insts[anc]
                .exp
                .component(&e.name)
                .is_some_and(|c| c.clause.element_prefixes.inner);
            if is_inner && let Some(t) = self.inner_child(anc, &e.name)? {
                self.check_inner_matches_outer(i, e, t)?;
                return Ok(Some(t));
            }
            a = self.insts[anc].parent;
        }
        let ty = self.lookup_class_name(&e.clause.type_name, e.lex, Some(i))?;
        Ok(self.default_inners.get(&(e.name.clone(), ty)).copied())
    }

    /// Records instance `c`, made for an `outer` element without a matching `inner`, as the
    /// default inner that later `outer` elements of the same name and type share, and warns
    /// (MLS 5.4 recommends a default inner with a diagnostic).
    fn default_inner(&mut self, c: InstId, e: &CompElem) {
        let ty = self.insts[c].class;
        self.default_inners.insert((e.name.clone(), ty), c);
        let tname = self.tree.get(ty).full.clone();
        self.warnings.push(
            Diagnostic::warning(
                e.decl().name.span,
                format!(
                    "no `inner` declaration for `outer {tname} {}`: a default instance `{}` is used",
                    e.name, self.insts[c].path
                ),
            )
            .with_help(format!(
                "declare `inner {tname} {}` in the model that uses this component",
                e.name
            )),
        );
    }

    /// The child `name` of structured instance `i`.
    pub fn child(&mut self, i: InstId, name: &str) -> Result<Option<InstId>, Diagnostic> {
        self.children(i)?;
        match &self.insts[i].kind {
            InstKind::Struct { index, .. } => Ok(index.get(name).copied()),
            _ => Ok(None),
        }
    }

    pub(super) fn make_child(&mut self, p: InstId, e: &CompElem) -> Result<InstId, Diagnostic> {
        let outer = self.insts[p].mods.sub(&e.name).cloned().unwrap_or_default();
        let mut elem = e.clone();
        let mut decl_mod = self.bind_rel(&e.decl_mod, None, p);
        if let Some(Redecl::Component {
            clause,
            lex,
            span,
            inst,
        }) = &outer.redeclare
        {
            if e.clause.element_prefixes.final_ {
                return Err(Diagnostic::error(
                    *span,
                    format!("cannot redeclare `{}`: it is final", e.name),
                ));
            }
            super::legality::check_modifier_redeclare(e, *span)?;
            // A non-replaceable element may be redeclared with its own type, to change its
            // dimensions or variability (MLS 7.3.3).
            let same_type = !e.clause.element_prefixes.replaceable
                && self
                    .lookup_class_name(&e.clause.type_name, e.lex, Some(p))
                    .ok()
                    == self.lookup_class_name(&clause.type_name, *lex, None).ok();
            if !e.clause.element_prefixes.replaceable && !same_type {
                return Err(Diagnostic::error(
                    *span,
                    format!(
                        "cannot redeclare `{}`: it is not declared `replaceable`",
                        e.name
                    ),
                )
                .with_secondary(e.decl().name.span, "declared here"));
            }
            let old_t = match &e.clause.constrainedby {
                Some(cb) => self.lookup_class_name(&cb.name, e.lex, Some(p))?,
                None => self.lookup_class_name(&e.clause.type_name, e.lex, Some(p))?,
            };
            let new_t = self.lookup_class_name(&clause.type_name, *lex, None)?;
            self.check_plug_compatible(new_t, old_t, *span, &e.name)?;
            let passed_on =
                self.check_redeclare_chain(&outer, clause, *lex, new_t, old_t, *span, &e.name, p)?;
            // The dimensions of the original are evaluated where the redeclaration is
            // written, so they are kept only when that cannot change their meaning.
            let dims_too = *lex == e.lex || super::redeclared::dims_name_free(&e.clause);
            elem.clause = Rc::new(super::redeclared::keep_original(
                &e.clause, clause, dims_too,
            ));
            elem.lex = *lex;
            if clause.components[0].condition.is_none() {
                elem.cond_lex = e.cond_lex;
            } else {
                elem.cond_lex = *lex;
            }
            let d = &clause.components[0];
            let mut m = match &d.modification {
                Some(m) => modifier::convert(&mut self.tree, m, *lex),
                None => Mod::default(),
            };
            m.bind_self(inst.unwrap_or(p));
            // MLS 7.3.2: the modifiers of the original declaration (or of its `constrainedby`
            // clause, when it has one) apply to whatever replaces it, under the new ones:
            // `replaceable SignalSource signalSource(final startTime = startTime)` keeps its
            // start time when a derived class redeclares it as a `Step`.
            let kept = match (passed_on, &e.clause.constrainedby) {
                (Some(k), _) => k,
                (None, Some(cb)) => match &cb.modification {
                    Some(cm) => {
                        let c = modifier::convert_args(&mut self.tree, cm, e.lex);
                        self.bind_rel(&c, None, p)
                    }
                    None => Mod::default(),
                },
                (None, None) => decl_mod,
            };
            decl_mod = modifier::merge(&m, &kept, &e.name)?;
        } else if let Some(cm) = e
            .clause
            .constrainedby
            .as_ref()
            .and_then(|cb| cb.modification.as_ref())
        {
            // MLS 7.3.2: the modifiers of a `constrainedby` clause apply to the declaration as
            // well, under its own modifiers.
            let c = modifier::convert_args(&mut self.tree, cm, e.lex);
            let c = self.bind_rel(&c, None, p);
            decl_mod = modifier::merge(&decl_mod, &c, &e.name)?;
        }
        let mut outer = outer;
        outer.redeclare = None;
        let what = e.name.clone();
        let mut m = modifier::merge(&outer, &decl_mod, &what)?;
        self.check_type_name_not_hidden(&elem)?;
        let ty = self.lookup_class_name(&elem.clause.type_name, elem.lex, Some(p))?;
        // Modifiers of a `constrainedby` clause apply to whichever class fills the element.
        if let [only] = elem.clause.type_name.parts.as_slice() {
            let ce = self.insts[p]
                .overrides
                .get(&only.name)
                .or_else(|| self.insts[p].exp.classes.get(&only.name))
                .cloned();
            if let Some(ce) = ce
                && !ce.constraint_mod.is_empty()
            {
                let cm = self.bind_rel(&ce.constraint_mod, None, p);
                m = modifier::merge(&m, &cm, &what)?;
            }
            // A modification of the class element itself (`extends A(B(x = 4))`) applies to
            // the components of that class (MLS 7.2).
            if let Some(cm) = self.insts[p].mods.sub(&only.name).cloned()
                && cm.redeclare.is_none()
                && !cm.is_empty()
                && self.insts[p].exp.classes.contains_key(&only.name)
                && self.insts[p].exp.component(&only.name).is_none()
            {
                m = modifier::merge(&m, &cm, &what)?;
            }
        }
        let exp = self.contextual_type(ty, p)?;
        self.check_no_protected_modifier(&exp, &m)?;
        self.check_type_prefixes(&elem, &exp)?;
        let id = self.insts.len();
        let class_mod = self.bind_rel(&exp.self_mod, Some((id, ty)), p);
        let mods = modifier::merge(&m, &class_mod, &what)?;
        let split = if e.decl().dims.is_empty() && elem.clause.type_dims.is_empty() {
            None
        } else {
            Some(Box::new((m, class_mod)))
        };
        let mut prefix = merge_prefix(&elem.clause.prefix, &exp.type_prefix);
        // `flow`/`stream` of a structured component applies to its elements (MLS 4.4.2.2).
        if prefix.connection == ast::Connection::None {
            prefix.connection = self.insts[p].prefix.connection;
        }
        let path = if self.insts[p].path.is_empty() {
            e.name.clone()
        } else {
            format!("{}.{}", self.insts[p].path, e.name)
        };
        let span = elem.decl().name.span;
        self.insts.push(Inst {
            name: e.name.clone(),
            path,
            parent: Some(p),
            class: ty,
            exp,
            mods,
            elem: Some(Rc::new(elem)),
            prefix,
            kind: InstKind::Stub,
            state: State::Stub,
            span,
            package: false,
            overrides: HashMap::new(),
            var0: 0,
            split,
            dim_types: Vec::new(),
        });
        Ok(id)
    }

    /// The expansion of type `ty` used in instance `p`. A short class `A = B` whose base `B`
    /// is a class element that an enclosing instance redeclared (`redeclare model L = L`
    /// passing a choice down) takes the redeclared class as base.
    pub fn contextual_type(&mut self, ty: ClassId, p: InstId) -> Result<Rc<Expanded>, Diagnostic> {
        let Some(OuterChoice {
            short: s,
            lex: lexp,
            inst: e,
            chosen,
        }) = self.outer_choice(ty, p)
        else {
            return self.expanded(ty);
        };
        let static_base = self.lookup_class_name(&s.base, lexp, None)?;
        if chosen == static_base || chosen == ty {
            return self.expanded(ty);
        }
        // The redeclared class may itself pass a choice down from further out.
        let outer = self.insts[e].parent.unwrap_or(e);
        let b = self.contextual_type(chosen, outer)?;
        self.expanded_short_with(ty, b)
    }

    /// Evaluates the condition and sizes of a declared instance.
    pub fn ready(&mut self, i: InstId) -> Result<(), Diagnostic> {
        match self.insts[i].state {
            State::Ready => return Ok(()),
            State::Busy => {
                return Err(Diagnostic::error(
                    self.insts[i].span,
                    format!("the size of `{}` depends on itself", self.insts[i].path),
                ));
            }
            State::Stub => {}
        }
        self.insts[i].state = State::Busy;
        let r = self.ready_inner(i);
        self.insts[i].state = State::Ready;
        if r.is_err() {
            self.insts[i].kind = InstKind::Removed;
        }
        r
    }

    fn ready_inner(&mut self, i: InstId) -> Result<(), Diagnostic> {
        // Only instances of declared components start as stubs (the root and array elements
        // are created ready), and those have their declaration and a parent.
        let elem = self.insts[i]
            .elem
            .clone()
            .expect("a stub instance is a declared component");
        let p = self.insts[i]
            .parent
            .expect("a declared component has a parent instance");
        let scope = Scope {
            inst: Some(p),
            lex: elem.lex,
        };
        if let Some(c) = &elem.decl().condition {
            let cond_scope = Scope {
                inst: Some(p),
                lex: elem.cond_lex,
            };
            let v = self.eval_structural(c, cond_scope)?;
            match v.into_scalar().ok().and_then(|v| v.as_bool()) {
                Some(true) => {}
                Some(false) => {
                    self.insts[i].kind = InstKind::Removed;
                    return Ok(());
                }
                None => {
                    return Err(Diagnostic::error(
                        c.span,
                        "the condition of a conditional component must be a Boolean parameter expression",
                    ));
                }
            }
        }
        let exp = self.insts[i].exp.clone();
        self.check_instantiable(i, &elem.name, &exp)?;
        let Some((dims, dim_types)) = self.declared_dims(i, p, &elem, &exp, scope)? else {
            // In an expandable connector: sized by its connections (MLS 9.1.3).
            self.insts[i].kind = InstKind::Removed;
            self.sizeless.insert(i);
            return Ok(());
        };
        if let Err(m) = super::size_limit::element_count(&dims) {
            return Err(Diagnostic::error(
                elem.decl().span,
                format!("`{}`: {m}", elem.name),
            ));
        }
        if dim_types.iter().any(|t| *t != DimType::Integer) {
            self.insts[i].dim_types = dim_types;
        }
        if let Some(prim) = exp
            .prim
            .as_ref()
            .filter(|p| !matches!(p, Prim::ExternalObject))
        {
            self.check_attributes(i, &elem.name)?;
            self.insts[i].kind = InstKind::Prim {
                ty: prim.scalar_type(),
                dims,
            };
            return Ok(());
        }
        if dims.is_empty() {
            self.insts[i].kind = InstKind::Struct {
                children: None,
                index: HashMap::new(),
            };
            return Ok(());
        }
        let elems = self.array_elements(i, &dims)?;
        self.insts[i].kind = InstKind::Array { dims, elems };
        Ok(())
    }

    /// A component's type must be a non-partial class that is not a function.
    fn check_instantiable(&self, i: InstId, name: &str, exp: &Expanded) -> Result<(), Diagnostic> {
        if exp.partial {
            let node = self.tree.get(exp.id);
            return Err(Diagnostic::error(
                self.insts[i].span,
                format!(
                    "cannot instantiate `{}`: it is declared `partial`",
                    node.full
                ),
            )
            .with_kind(crate::diag::Kind::Partial)
            .with_label(format!("`{}` has a partial type", name))
            .with_secondary(node.span, "declared partial here")
            .with_help("use a non-partial class, or redeclare it with one"));
        }
        if exp.is_function() {
            return Err(Diagnostic::error(
                self.insts[i].span,
                format!(
                    "`{}` is a function, not a type for a component",
                    self.tree.get(exp.id).full
                ),
            ));
        }
        Ok(())
    }

    /// The sizes of instance `i` (declared in `elem`, in parent `p`) and the type of each
    /// dimension; `None` for a `[:]` element of an expandable connector without a binding.
    fn declared_dims(
        &mut self,
        i: InstId,
        p: InstId,
        elem: &CompElem,
        exp: &Expanded,
        scope: Scope,
    ) -> Result<Option<DeclaredDims>, Diagnostic> {
        let mut dims = Vec::new();
        let decl_dims: Vec<(ast::Subscript, Scope)> = elem
            .decl()
            .dims
            .iter()
            .chain(&elem.clause.type_dims)
            .map(|d| (d.clone(), scope))
            .chain(exp.dims.iter().map(|(d, lex)| {
                (
                    d.clone(),
                    Scope {
                        inst: None,
                        lex: *lex,
                    },
                )
            }))
            .collect();
        let mut dim_types = Vec::new();
        for (k, (d, sc)) in decl_dims.iter().enumerate() {
            dim_types.push(DimType::Integer);
            match d {
                ast::Subscript::Expr(e) => {
                    let sc = if sc.inst.is_none() {
                        Scope {
                            inst: Some(self.package_inst(sc.lex)?),
                            lex: sc.lex,
                        }
                    } else {
                        *sc
                    };
                    // `Real x[E]`, `Real x[Boolean]`: a dimension indexed by a type's values.
                    if let Some(values) = self.type_as_dimension(e, sc) {
                        dim_types[k] = if matches!(values.data.first(), Some(Val::Bool(_))) {
                            DimType::Boolean
                        } else {
                            DimType::Enumeration
                        };
                        dims.push(values.len());
                        continue;
                    }
                    let v = self.eval_structural(e, sc)?;
                    match v.into_scalar().ok().and_then(|v| v.as_int()) {
                        Some(n) if n >= 0 => dims.push(n as usize),
                        _ => {
                            return Err(Diagnostic::error(
                                e.span,
                                "an array size must be a non-negative Integer parameter expression",
                            ));
                        }
                    }
                }
                ast::Subscript::Colon(span) => {
                    // `Real x[:] = {1, 2, 3}`: the size comes from the binding, or, without
                    // one, from a start value that is not given to each element.
                    let start = || {
                        let m = self.insts[i].mods.sub("start")?;
                        (!m.each).then(|| m.binding.clone()).flatten()
                    };
                    let Some(b) = self.insts[i].mods.binding.clone().or_else(start) else {
                        if self.insts[p].exp.kind == ast::ClassKind::ExpandableConnector {
                            return Ok(None);
                        }
                        return Err(Diagnostic::error(
                            *span,
                            "an array declared with `:` needs a binding that gives its size",
                        ));
                    };
                    let sizes = self.binding_dims(&b)?;
                    match sizes.get(k) {
                        Some(n) => dims.push(*n),
                        None => {
                            return Err(Diagnostic::error(
                                *span,
                                "the binding has fewer dimensions than the declaration",
                            ));
                        }
                    }
                }
            }
        }
        Ok(Some((dims, dim_types)))
    }

    /// The modifiers of a component of a built-in type name only its attributes.
    fn check_attributes(&self, i: InstId, component: &str) -> Result<(), Diagnostic> {
        for (name, sm) in &self.insts[i].mods.subs {
            if !ATTRIBUTES.contains(&name.as_str()) {
                let span = sm.span.unwrap_or(self.insts[i].span);
                let mut d = Diagnostic::error(
                    span,
                    format!("`{name}` is not an attribute of `{component}`"),
                );
                if let Some(c) = crate::flatten::suggest(name, ATTRIBUTES.iter().copied()) {
                    d = d.with_help(format!("did you mean `{c}`?"));
                }
                return Err(d);
            }
        }
        Ok(())
    }

    /// An array of structured components (`i`, sizes `dims`): one instance per element, with
    /// its part of the modifiers.
    fn array_elements(&mut self, i: InstId, dims: &[usize]) -> Result<Vec<InstId>, Diagnostic> {
        let n: usize = dims.iter().product();
        let mut elems = Vec::with_capacity(n);
        let base = self.insts[i].path.clone();
        let name = self.insts[i].name.clone();
        for flat in 0..n {
            let idx = unflatten(flat, dims);
            let (decl, class) = match &self.insts[i].split {
                Some(b) => (b.0.clone(), b.1.clone()),
                None => (self.insts[i].mods.clone(), Mod::default()),
            };
            let mut d = decl;
            for k in &idx {
                d = d.for_element(*k);
            }
            let id = self.insts.len();
            let mut class = class;
            class.rebind(i, id);
            d.rebind(i, id);
            let m = modifier::merge(&d, &class, &self.insts[i].name)?;
            let sub = idx
                .iter()
                .map(|k| (k + 1).to_string())
                .collect::<Vec<_>>()
                .join(",");
            let src = &self.insts[i];
            let inst = Inst {
                name: format!("{name}[{sub}]"),
                path: format!("{base}[{sub}]"),
                parent: src.parent,
                class: src.class,
                exp: src.exp.clone(),
                mods: m,
                elem: src.elem.clone(),
                prefix: src.prefix.clone(),
                kind: InstKind::Struct {
                    children: None,
                    index: HashMap::new(),
                },
                state: State::Ready,
                span: src.span,
                package: false,
                overrides: HashMap::new(),
                var0: 0,
                split: None,
                dim_types: Vec::new(),
            };
            self.insts.push(inst);
            elems.push(id);
        }
        Ok(elems)
    }

    /// Creates every instance below `i` (depth first), evaluating all sizes and conditions.
    pub fn build_all(&mut self, root: InstId) -> Result<(), Vec<Diagnostic>> {
        let mut stack = vec![root];
        let mut errors = Vec::new();
        while let Some(i) = stack.pop() {
            if let Err(d) = self.ready(i) {
                errors.push(d);
                continue;
            }
            match &self.insts[i].kind {
                InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                InstKind::Struct { .. } => match self.children(i) {
                    Ok(c) => stack.extend(c.iter().rev()),
                    Err(d) => errors.push(d),
                },
                _ => {}
            }
            if errors.len() > super::MAX_ERRORS {
                break;
            }
        }
        super::ok_or_errors((), errors)
    }

    /// The values of an enumeration type (its literals, the Integers 1..n at run time) or of
    /// `Boolean` (`false`, `true`): what the type means as an array dimension or a `for` range
    /// (MLS 10.1, 11.2.2.1). `None` for every other class.
    pub fn type_values(&mut self, class: ClassId) -> Option<Tensor<Val>> {
        let exp = self.expanded(class).ok()?;
        if !exp.dims.is_empty() {
            return None;
        }
        match &exp.prim {
            Some(Prim::Enum(lits)) => Some(Tensor::vector(
                (1..=lits.len() as i64).map(Val::Int).collect(),
            )),
            Some(Prim::Scalar(crate::dae::ScalarType::Boolean)) => {
                Some(Tensor::vector(vec![Val::Bool(false), Val::Bool(true)]))
            }
            _ => None,
        }
    }

    /// `E` or `Boolean` written as an array dimension or range: the type's values. A name that
    /// is a component (a parameter `n`) is not a type here.
    pub fn type_as_dimension(&mut self, e: &ast::Expr, scope: Scope) -> Option<Tensor<Val>> {
        let ast::ExprKind::Ref(c) = &e.kind else {
            return None;
        };
        if c.parts.iter().any(|p| !p.subscripts.is_empty()) {
            return None;
        }
        if !c.global
            && let Some(inst) = scope.inst
            && matches!(self.child(inst, &c.parts[0].ident.name), Ok(Some(_)))
        {
            return None;
        }
        let name = c.as_name();
        let class = self.lookup_class_name(&name, scope.lex, scope.inst).ok()?;
        self.type_values(class)
    }

    /// Whether `e` is written as enumeration literals (`E.two`, `{E.one, E.two}`), which only
    /// an enumeration variable can take.
    pub fn is_enum_value(&mut self, e: &ast::Expr, scope: Scope) -> bool {
        match &e.kind {
            ast::ExprKind::Array(a) if a.iterators.is_empty() && !a.positional.is_empty() => {
                a.positional.iter().all(|x| self.is_enum_value(x, scope))
            }
            ast::ExprKind::Ref(c) if c.parts.len() >= 2 => {
                if c.parts.iter().any(|p| !p.subscripts.is_empty()) {
                    return false;
                }
                if !c.global
                    && let Some(inst) = scope.inst
                    && matches!(self.child(inst, &c.parts[0].ident.name), Ok(Some(_)))
                {
                    return false;
                }
                let n = c.parts.len();
                let name = ast::Name {
                    global: c.global,
                    parts: c.parts[..n - 1].iter().map(|p| p.ident.clone()).collect(),
                    span: c.span,
                };
                match self.lookup_class_name(&name, scope.lex, scope.inst) {
                    Ok(class) => self
                        .enum_literal(class, &c.parts[n - 1].ident.name)
                        .is_some(),
                    Err(_) => false,
                }
            }
            _ => false,
        }
    }

    /// Enumeration literal lists and values for `E.lit` references.
    pub fn enum_literal(&mut self, class: ClassId, lit: &str) -> Option<Val> {
        let exp = self.expanded(class).ok()?;
        match &exp.prim {
            Some(Prim::Enum(lits)) => lits
                .iter()
                .position(|l| l == lit)
                .map(|k| Val::Int(k as i64 + 1)),
            _ => None,
        }
    }
}

pub fn unflatten(mut flat: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        idx[k] = flat % dims[k];
        flat /= dims[k];
    }
    idx
}

/// What [`Flattener::outer_choice`] finds: the short class, the class it is written in, the
/// enclosing instance of that class and the class that instance chose for the base's name.
struct OuterChoice {
    short: Rc<ast::ShortClass>,
    lex: ClassId,
    inst: InstId,
    chosen: ClassId,
}

/// The sizes of an instance and the type of each dimension (Integer, Boolean, enumeration).
type DeclaredDims = (Vec<usize>, Vec<DimType>);
