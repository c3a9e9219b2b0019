//! Expandable connectors (MLS 9.1.3), elaborated on the instance tree before any equation
//! is generated, so that the connection equations then treat them as ordinary connectors.
//!
//! 1. The non-parameter components declared in an expandable connector are only *potentially
//!    present*; a component declared with an unknown size (`Real x[:]`) has no instance yet.
//! 2. Every `connect` (from `connect_scan.rs`) is resolved. A side naming an undeclared
//!    element of an expandable connector (`bus.speed`, `bus.cyl[i]`) *augments* the connector:
//!    a new component copied from the other side's type and size (an array for subscripted
//!    elements, as large as the largest index used), `input` or `output` as the other side
//!    is for an inside connector (the opposite for an outside one). A side naming a potentially
//!    present component makes it present. Two connected expandable connectors join one
//!    *augmentation set*.
//! 3. Every member of an augmentation set gets every element present in any member (copies
//!    without `input`/`output`); nested expandable connectors of the same name join a set too.
//!    Steps 2 and 3 repeat until nothing changes (a new element can make another `connect`
//!    resolvable).
//! 4. Potentially present components that nothing made present are removed (reading one is
//!    then an error, MLS 9.1.3).
//!
//! Errors: a `flow` component directly in an expandable connector, a modifier binding a
//! potentially present component, an expandable connector connected to a non-expandable one,
//! a `connect` with no declared side, and an element that is `input` in its augmentation set
//! without a non-input anywhere in it (nothing provides the signal).

use super::Flattener;
use super::connect::UnionFind;
use super::connect_scan::{Scan, Scanned};
use super::instance::{Inst, InstId, InstKind, State};
use super::modifier::Mod;
use super::scalarize::{FCtx, Mode, Node};
use super::tensor::Tensor;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, Causality, ClassKind, Variability};
use std::collections::{BTreeMap, HashMap, HashSet};

/// One side of a `connect` during the elaboration.
enum Side {
    Nodes(Tensor<Node>),
    /// An undeclared element `name[subs]` of expandable connector `parent` (or a declared
    /// one of unknown size).
    Undeclared {
        parent: InstId,
        name: String,
        subs: Vec<usize>,
    },
    /// Not resolvable now (perhaps after more augmentation); reported by equation generation.
    Unresolved,
}

/// A request to add element `name` to an expandable connector.
struct Request {
    template: Tensor<Node>,
    causality: Causality,
    /// 0-based element indices (subscripted elements), else empty.
    subs: Vec<Vec<usize>>,
    span: Span,
}

#[derive(Default)]
struct Elab {
    /// Potentially present components of expandable connectors.
    potential: HashSet<InstId>,
    /// Components of expandable connectors that are present (declared and connected, or added).
    present: HashSet<InstId>,
    /// Per (augmentation set member, element name): whether some `connect` made it an input
    /// and whether one made it a non-input.
    causal: HashMap<(InstId, String), (bool, bool, Span)>,
}

impl Flattener<'_> {
    /// Elaborates the expandable connectors below `root` (see the module documentation).
    pub(super) fn augment_expandable(
        &mut self,
        root: InstId,
        scan: &Scan,
    ) -> Result<(), Vec<Diagnostic>> {
        let mut exps = self.expandable_instances(root);
        if exps.is_empty() {
            return Ok(());
        }
        let mut st = Elab::default();
        for &e in &exps {
            self.check_expandable(e).map_err(|d| vec![d])?;
            for c in self.children(e).map_err(|d| vec![d])? {
                if !matches!(
                    self.variability(c),
                    Variability::Parameter | Variability::Constant
                ) {
                    st.potential.insert(c);
                }
            }
        }
        let mut errors: Vec<Diagnostic> = Vec::new();
        let mut sets;
        let mut rounds = 0;
        loop {
            rounds += 1;
            errors.clear();
            sets = AugSets::default();
            let mut requests: BTreeMap<(InstId, String), Vec<Request>> = BTreeMap::new();
            for item in &scan.items {
                let ast::EquationKind::Connect { a, b } = &item.eq.kind else {
                    continue;
                };
                let sa = self.expandable_side(item, a);
                let sb = self.expandable_side(item, b);
                match (sa, sb) {
                    (Side::Nodes(na), Side::Nodes(nb)) => {
                        for n in na.data.iter().chain(&nb.data) {
                            self.mark_present(*n, &mut st);
                        }
                        for (x, y) in na.data.iter().zip(&nb.data) {
                            let (ex, ey) = (self.node_expandable(*x), self.node_expandable(*y));
                            match (ex, ey) {
                                (Some(x), Some(y)) => sets.union(x, y),
                                (None, None) => {}
                                (Some(e), None) | (None, Some(e)) => {
                                    let other = if ex.is_some() { *y } else { *x };
                                    errors.push(self.not_expandable(e, other, item.eq.span));
                                }
                            }
                        }
                        self.note_causality(&na, &nb, a, b, item, &mut st);
                    }
                    (Side::Undeclared { parent, name, subs }, Side::Nodes(t)) => {
                        let causality = self.deduced_causality(&t, item, b);
                        requests.entry((parent, name)).or_default().push(Request {
                            template: t,
                            causality,
                            subs: if subs.is_empty() { vec![] } else { vec![subs] },
                            span: item.eq.span,
                        });
                    }
                    (Side::Nodes(t), Side::Undeclared { parent, name, subs }) => {
                        let causality = self.deduced_causality(&t, item, a);
                        requests.entry((parent, name)).or_default().push(Request {
                            template: t,
                            causality,
                            subs: if subs.is_empty() { vec![] } else { vec![subs] },
                            span: item.eq.span,
                        });
                    }
                    (Side::Undeclared { .. }, Side::Undeclared { .. }) => {
                        errors.push(
                            Diagnostic::error(
                                item.eq.span,
                                "neither side of this `connect` is a declared component",
                            )
                            .with_note(
                                "one side of a connection with an expandable connector must name a declared component (MLS 9.1.3)",
                            ),
                        );
                    }
                    _ => {}
                }
            }
            let mut changed = false;
            for ((parent, name), reqs) in requests {
                if self.apply_requests(parent, &name, reqs, &mut st, &mut exps)? {
                    changed = true;
                }
            }
            if self.unite_sets(&mut sets, &mut st, &mut exps)? {
                changed = true;
            }
            if !changed || rounds > 50 {
                break;
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        self.check_inputs(&mut sets, &st, root)?;
        // Potentially present components nothing made present are not there.
        for c in st.potential.iter().copied().collect::<Vec<_>>() {
            if !st.present.contains(&c) {
                self.insts[c].kind = InstKind::Removed;
            }
        }
        Ok(())
    }

    /// The expandable connector instances below `root`.
    fn expandable_instances(&self, root: InstId) -> Vec<InstId> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            match &self.insts[i].kind {
                InstKind::Struct {
                    children: Some(c), ..
                } => {
                    if self.insts[i].exp.kind == ClassKind::ExpandableConnector {
                        out.push(i);
                    }
                    stack.extend(c.iter().rev());
                }
                InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                _ => {}
            }
        }
        out
    }

    fn is_expandable(&self, i: InstId) -> bool {
        self.insts[i].exp.kind == ClassKind::ExpandableConnector
            && matches!(self.insts[i].kind, InstKind::Struct { .. })
    }

    fn node_expandable(&self, n: Node) -> Option<InstId> {
        match n {
            Node::Inst(i) if self.is_expandable(i) => Some(i),
            _ => None,
        }
    }

    /// No `flow` component directly in an expandable connector; no modifier binding one of
    /// its potentially present components.
    fn check_expandable(&mut self, e: InstId) -> Result<(), Diagnostic> {
        for c in self.children(e)? {
            if self.insts[c].prefix.connection == ast::Connection::Flow {
                return Err(Diagnostic::error(
                    self.insts[c].span,
                    format!(
                        "`{}` is a `flow` component directly in expandable connector `{}`",
                        self.insts[c].path, self.insts[e].path
                    ),
                )
                .with_note("an expandable connector may hold flow variables only inside non-expandable connectors (MLS 9.1.3)"));
            }
        }
        let subs: Vec<(String, Option<Span>)> = self.insts[e]
            .mods
            .subs
            .iter()
            .filter(|(_, m)| m.binding.is_some())
            .map(|(n, m)| (n.clone(), m.span))
            .collect();
        for (name, span) in subs {
            if let Some(c) = self.child(e, &name)?
                && !matches!(
                    self.variability(c),
                    Variability::Parameter | Variability::Constant
                )
            {
                return Err(Diagnostic::error(
                    span.unwrap_or(self.insts[e].span),
                    format!(
                        "cannot modify `{}`: a component of an expandable connector is only potentially present",
                        self.insts[c].path
                    ),
                )
                .with_note("only parameters and constants of an expandable connector can be given values (MLS 9.1.3)"));
            }
        }
        Ok(())
    }

    /// Resolves one side of a `connect` for the elaboration.
    fn expandable_side(&mut self, item: &Scanned, c: &ast::ComponentRef) -> Side {
        let resolved = {
            let mut fc = FCtx::new(self, item.scope, Mode::Structural);
            fc.locals = item.locals.clone();
            fc.resolve(c)
        };
        match resolved {
            Ok(Some(t)) => return Side::Nodes(t),
            Ok(None) => return Side::Unresolved,
            Err(_) => {}
        }
        let n = c.parts.len();
        if n < 2 {
            return Side::Unresolved;
        }
        let prefix = ast::ComponentRef {
            global: c.global,
            parts: c.parts[..n - 1].to_vec(),
            span: c.span,
        };
        let t = {
            let mut fc = FCtx::new(self, item.scope, Mode::Structural);
            fc.locals = item.locals.clone();
            fc.resolve(&prefix)
        };
        let Ok(Some(t)) = t else {
            return Side::Unresolved;
        };
        let ([Node::Inst(e)], true) = (t.data.as_slice(), t.dims.is_empty()) else {
            return Side::Unresolved;
        };
        let e = *e;
        if !self.is_expandable(e) {
            return Side::Unresolved;
        }
        let last = &c.parts[n - 1];
        match self.child(e, &last.ident.name) {
            Ok(Some(ch)) if self.sizeless.contains(&ch) => {}
            Ok(Some(_)) | Err(_) => return Side::Unresolved,
            Ok(None) => {}
        }
        let mut subs = Vec::new();
        for s in &last.subscripts {
            let ast::Subscript::Expr(x) = s else {
                return Side::Unresolved;
            };
            let v = self.eval_structural_with(x, item.scope, &item.locals);
            match v
                .ok()
                .and_then(|v| v.into_scalar().ok())
                .and_then(|v| v.as_int())
            {
                Some(k) if k >= 1 => subs.push(k as usize - 1),
                _ => return Side::Unresolved,
            }
        }
        Side::Undeclared {
            parent: e,
            name: last.ident.name.clone(),
            subs,
        }
    }

    /// Marks the potentially present components on the way to node `n` present.
    fn mark_present(&mut self, n: Node, st: &mut Elab) {
        let (Node::Inst(i) | Node::Var(i, _)) = n;
        let mut cur = Some(i);
        while let Some(x) = cur {
            if st.potential.contains(&x) {
                st.present.insert(x);
            }
            let p = self.insts[x].parent;
            // An element of an array of components: the array is the declared component.
            if let Some(p) = p
                && let Some(a) = self.child_named_like(p, x)
                && st.potential.contains(&a)
            {
                st.present.insert(a);
            }
            cur = p.filter(|p| self.insts[*p].is_connector());
        }
    }

    /// The array instance whose element `i` is (`c[2]` -> `c`), among the children of `p`.
    fn child_named_like(&self, p: InstId, i: InstId) -> Option<InstId> {
        let name = self.insts[i].name.split('[').next()?.to_string();
        if name == self.insts[i].name {
            return None;
        }
        match &self.insts[p].kind {
            InstKind::Struct { index, .. } => index.get(&name).copied(),
            _ => None,
        }
    }

    /// The causality a new element gets from the other side of its `connect` (MLS 9.1.3):
    /// the same as an inside connector's, the opposite of an outside connector's.
    fn deduced_causality(
        &mut self,
        t: &Tensor<Node>,
        item: &Scanned,
        other: &ast::ComponentRef,
    ) -> Causality {
        let Some(Node::Var(i, _)) = t.data.first().copied() else {
            return Causality::None;
        };
        let mut c = self.insts[i].prefix.causality;
        if c == Causality::None {
            // `input`/`output` of an enclosing connector (`input Pin p`).
            let mut cur = self.insts[i].parent;
            while let Some(p) = cur
                && self.insts[p].is_connector()
            {
                if self.insts[p].prefix.causality != Causality::None {
                    c = self.insts[p].prefix.causality;
                    break;
                }
                cur = self.insts[p].parent;
            }
        }
        let inst = item.scope.inst.unwrap_or(0);
        if self.is_outside(inst, other) {
            c = match c {
                Causality::Input => Causality::Output,
                Causality::Output => Causality::Input,
                Causality::None => Causality::None,
            };
        }
        c
    }

    /// Records, for the elements of expandable connectors in a declared-to-declared `connect`,
    /// whether the connection makes them inputs or non-inputs.
    fn note_causality(
        &mut self,
        na: &Tensor<Node>,
        nb: &Tensor<Node>,
        a: &ast::ComponentRef,
        b: &ast::ComponentRef,
        item: &Scanned,
        st: &mut Elab,
    ) {
        for (mine, theirs, other) in [(na, nb, b), (nb, na, a)] {
            for n in &mine.data {
                let Node::Var(i, _) = *n else { continue };
                let Some(p) = self.insts[i].parent else {
                    continue;
                };
                if !self.is_expandable(p) {
                    continue;
                }
                let c = match self.insts[i].prefix.causality {
                    Causality::None => self.deduced_causality(theirs, item, other),
                    c => c,
                };
                if self.insts[i].prefix.causality == Causality::None && c != Causality::None {
                    // MLS 9.1.3: the prefix is added to a declaration without one.
                    self.insts[i].prefix.causality = c;
                }
                let name = self.insts[i].name.clone();
                let e = st
                    .causal
                    .entry((p, name))
                    .or_insert((false, false, item.eq.span));
                if c == Causality::Input {
                    e.0 = true;
                    e.2 = item.eq.span;
                } else {
                    e.1 = true;
                }
            }
        }
    }

    fn not_expandable(&self, e: InstId, other: Node, span: Span) -> Diagnostic {
        let (Node::Inst(o) | Node::Var(o, _)) = other;
        Diagnostic::error(
            span,
            format!(
                "expandable connector `{}` is connected to `{}`, which is not an expandable connector",
                self.insts[e].path, self.insts[o].path
            ),
        )
        .with_secondary(self.insts[o].span, "declared here")
        .with_note("an expandable connector can only be connected to another expandable connector, or an element of it to a connector (MLS 9.1.3)")
    }

    /// Adds (or sizes) element `name` of expandable connector `parent`. Returns whether
    /// something changed.
    fn apply_requests(
        &mut self,
        parent: InstId,
        name: &str,
        reqs: Vec<Request>,
        st: &mut Elab,
        exps: &mut Vec<InstId>,
    ) -> Result<bool, Vec<Diagnostic>> {
        let Some(first) = reqs.first() else {
            return Ok(false);
        };
        let span = first.span;
        let causality = first.causality;
        // Causality bookkeeping for the input check.
        for r in &reqs {
            let e = st
                .causal
                .entry((parent, name.to_string()))
                .or_insert((false, false, r.span));
            if r.causality == Causality::Input {
                e.0 = true;
                e.2 = r.span;
            } else {
                e.1 = true;
            }
        }
        let indexed: Vec<&Vec<usize>> = reqs.iter().flat_map(|r| r.subs.iter()).collect();
        let template = first.template.clone();
        let Some(&t0) = template.data.first() else {
            return Ok(false);
        };
        if !indexed.is_empty() {
            if indexed.len() != reqs.len() {
                return Err(vec![Diagnostic::error(
                    span,
                    format!(
                        "`{}.{name}` is connected both as a whole and by element",
                        self.insts[parent].path
                    ),
                )]);
            }
            let rank = indexed[0].len();
            if indexed.iter().any(|s| s.len() != rank) || !template.dims.is_empty() {
                return Err(vec![Diagnostic::error(
                    span,
                    format!(
                        "the elements of `{}.{name}` are connected with different numbers of subscripts, or to arrays",
                        self.insts[parent].path
                    ),
                )]);
            }
            let mut dims = vec![0usize; rank];
            for s in &indexed {
                for (d, k) in dims.iter_mut().zip(s.iter()) {
                    *d = (*d).max(k + 1);
                }
            }
            let n: usize = dims.iter().product();
            let tpl = Tensor {
                dims: dims.clone(),
                data: vec![t0; n],
            };
            return self
                .materialize(parent, name, &tpl, causality, st, exps)
                .map_err(|d| vec![d]);
        }
        self.materialize(parent, name, &template, causality, st, exps)
            .map_err(|d| vec![d])
    }

    /// Creates element `name` of `parent` shaped like `template` (or gives a declared
    /// element of unknown size its size). Returns whether something changed.
    fn materialize(
        &mut self,
        parent: InstId,
        name: &str,
        template: &Tensor<Node>,
        causality: Causality,
        st: &mut Elab,
        exps: &mut Vec<InstId>,
    ) -> Result<bool, Diagnostic> {
        if let Some(c) = self.child(parent, name)? {
            if !self.sizeless.contains(&c) {
                // Already there (declared, or added in an earlier round): arrays do not grow.
                let have = match &self.insts[c].kind {
                    InstKind::Prim { dims, .. } | InstKind::Array { dims, .. } => dims.clone(),
                    _ => Vec::new(),
                };
                if have.len() == template.dims.len()
                    && have.iter().zip(&template.dims).any(|(h, t)| t > h)
                {
                    return Err(Diagnostic::error(
                        self.insts[c].span,
                        format!(
                            "`{}` would need to grow after its size was fixed by earlier connections",
                            self.insts[c].path
                        ),
                    ));
                }
                let new = st.present.insert(c);
                return Ok(new);
            }
            // A declared element of unknown size: sized by the connection.
            let Some(prim) = self.insts[c].exp.prim.clone() else {
                return Err(Diagnostic::error(
                    self.insts[c].span,
                    "an element of unknown size of an expandable connector must be of a built-in type",
                ));
            };
            self.insts[c].kind = InstKind::Prim {
                ty: prim.scalar_type(),
                dims: template.dims.clone(),
            };
            if self.insts[c].prefix.causality == Causality::None {
                self.insts[c].prefix.causality = causality;
            }
            self.sizeless.remove(&c);
            st.potential.insert(c);
            st.present.insert(c);
            return Ok(true);
        }
        let t0 = template.data[0];
        let id = match t0 {
            Node::Var(i, _) => {
                let InstKind::Prim { ty, dims } = &self.insts[i].kind else {
                    return Ok(false);
                };
                let (ty, whole) = (*ty, *dims == template.dims);
                let id = self.copy_inst(i, parent, name.to_string(), whole)?;
                self.insts[id].kind = InstKind::Prim {
                    ty,
                    dims: template.dims.clone(),
                };
                self.insts[id].prefix.causality = causality;
                id
            }
            Node::Inst(i) => {
                if template.dims.is_empty() {
                    self.copy_inst(i, parent, name.to_string(), true)?
                } else {
                    // An array of structured components, one copy per element.
                    let id = self.copy_inst(i, parent, name.to_string(), true)?;
                    let mut elems = Vec::with_capacity(template.data.len());
                    for (k, n) in template.data.iter().enumerate() {
                        let (Node::Inst(e) | Node::Var(e, _)) = *n;
                        let idx = super::instance::unflatten(k, &template.dims);
                        let sub = idx
                            .iter()
                            .map(|x| (x + 1).to_string())
                            .collect::<Vec<_>>()
                            .join(",");
                        let el = self.copy_inst(e, parent, format!("{name}[{sub}]"), true)?;
                        elems.push(el);
                    }
                    self.insts[id].kind = InstKind::Array {
                        dims: template.dims.clone(),
                        elems,
                    };
                    id
                }
            }
        };
        if let InstKind::Struct { children, index } = &mut self.insts[parent].kind {
            children.get_or_insert_with(Vec::new).push(id);
            index.insert(name.to_string(), id);
        }
        self.build_all(id).map_err(|mut e| e.remove(0))?;
        st.present.insert(id);
        // New expandable connectors (a copied bus) take part in the elaboration.
        for e in self.expandable_instances(id) {
            if !exps.contains(&e) {
                exps.push(e);
            }
        }
        Ok(true)
    }

    /// A new instance `name` below `parent` of the type of `t`, without `t`'s bindings of
    /// non-parameters (its parameters keep their values). The kind is set by the caller for
    /// primitive and array instances.
    fn copy_inst(
        &mut self,
        t: InstId,
        parent: InstId,
        name: String,
        whole: bool,
    ) -> Result<InstId, Diagnostic> {
        let mods = if whole {
            self.strip_bindings(&self.insts[t].mods.clone(), t)?
        } else {
            Mod::default()
        };
        let src = &self.insts[t];
        let path = if self.insts[parent].path.is_empty() {
            name.clone()
        } else {
            format!("{}.{name}", self.insts[parent].path)
        };
        let kind = match &src.kind {
            InstKind::Prim { ty, dims } => InstKind::Prim {
                ty: *ty,
                dims: dims.clone(),
            },
            _ => InstKind::Struct {
                children: None,
                index: HashMap::new(),
            },
        };
        let mut prefix = src.prefix.clone();
        if matches!(kind, InstKind::Prim { .. }) {
            prefix.causality = Causality::None;
        }
        let inst = Inst {
            name,
            path,
            parent: Some(parent),
            class: src.class,
            exp: src.exp.clone(),
            mods,
            elem: src.elem.clone(),
            prefix,
            kind,
            state: State::Ready,
            span: src.span,
            package: false,
            overrides: HashMap::new(),
            var0: 0,
            split: None,
            dim_types: src.dim_types.clone(),
        };
        self.insts.push(inst);
        Ok(self.insts.len() - 1)
    }

    /// `m` (the modifier of instance `t`) without the bindings of non-parameters.
    fn strip_bindings(&mut self, m: &Mod, t: InstId) -> Result<Mod, Diagnostic> {
        let mut out = m.clone();
        if !matches!(
            self.variability(t),
            Variability::Parameter | Variability::Constant
        ) {
            out.binding = None;
        }
        if matches!(self.insts[t].kind, InstKind::Struct { .. }) {
            for (name, sub) in out.subs.iter_mut() {
                if let Some(c) = self.child(t, name)? {
                    *sub = self.strip_bindings(sub, c)?;
                }
            }
        }
        Ok(out)
    }

    /// Step 3: every member of an augmentation set gets the elements present in any member.
    fn unite_sets(
        &mut self,
        sets: &mut AugSets,
        st: &mut Elab,
        exps: &mut Vec<InstId>,
    ) -> Result<bool, Vec<Diagnostic>> {
        let mut changed = false;
        loop {
            let mut round = false;
            for members in sets.groups() {
                if members.len() < 2 {
                    continue;
                }
                // name -> a present element (the template)
                let mut names: BTreeMap<String, InstId> = BTreeMap::new();
                for &m in &members {
                    for c in self.children(m).map_err(|d| vec![d])? {
                        if st.present.contains(&c) {
                            names.entry(self.insts[c].name.clone()).or_insert(c);
                        }
                    }
                }
                for (name, t) in names {
                    let mut elems = Vec::new();
                    for &m in &members {
                        let have = self.child(m, &name).map_err(|d| vec![d])?;
                        match have {
                            Some(c) if st.present.contains(&c) => elems.push(c),
                            Some(c) if !self.sizeless.contains(&c) => {
                                st.present.insert(c);
                                round = true;
                                elems.push(c);
                            }
                            _ => {
                                let template = self.whole_template(t);
                                if self
                                    .materialize(m, &name, &template, Causality::None, st, exps)
                                    .map_err(|d| vec![d])?
                                {
                                    round = true;
                                }
                                if let Some(c) = self.child(m, &name).map_err(|d| vec![d])? {
                                    elems.push(c);
                                }
                            }
                        }
                    }
                    // Nested expandable connectors of the same name form a set too.
                    let nested: Vec<InstId> = elems
                        .iter()
                        .copied()
                        .filter(|e| self.is_expandable(*e))
                        .collect();
                    for w in nested.windows(2) {
                        if sets.union_new(w[0], w[1]) {
                            round = true;
                        }
                    }
                }
            }
            if !round {
                break;
            }
            changed = true;
        }
        Ok(changed)
    }

    /// The whole of instance `t` as a template.
    fn whole_template(&self, t: InstId) -> Tensor<Node> {
        match &self.insts[t].kind {
            InstKind::Prim { dims, .. } => Tensor {
                dims: dims.clone(),
                data: (0..dims.iter().product())
                    .map(|k| Node::Var(t, k))
                    .collect(),
            },
            InstKind::Array { dims, elems } => Tensor {
                dims: dims.clone(),
                data: elems.iter().map(|e| Node::Inst(*e)).collect(),
            },
            _ => Tensor::scalar(Node::Inst(t)),
        }
    }

    /// MLS 9.1.3: an element that is an input in its augmentation set must be a non-input
    /// somewhere in it, unless the set reaches a public expandable connector of the model
    /// itself (its environment provides the signal).
    fn check_inputs(
        &mut self,
        sets: &mut AugSets,
        st: &Elab,
        root: InstId,
    ) -> Result<(), Vec<Diagnostic>> {
        let mut by_set: HashMap<(InstId, String), (bool, bool, Span)> = HashMap::new();
        for ((m, name), (inp, non, span)) in &st.causal {
            let key = (sets.find(*m), name.clone());
            let e = by_set.entry(key).or_insert((false, false, *span));
            e.0 |= *inp;
            e.1 |= *non;
            if *inp {
                e.2 = *span;
            }
        }
        // Sets reaching a public expandable connector of the model itself.
        let mut open: HashSet<InstId> = HashSet::new();
        let public_top = |f: &Self, m: InstId| {
            f.insts[m].parent == Some(root)
                && !f.insts[m].elem.as_ref().is_some_and(|e| e.protected)
        };
        for (m, _) in st.causal.keys() {
            if public_top(self, *m) {
                open.insert(sets.find(*m));
            }
        }
        for members in sets.groups() {
            if members.iter().any(|m| public_top(self, *m)) {
                open.insert(sets.find(members[0]));
            }
        }
        // An input element of a public bus of the model itself is an input of the model
        // (its environment provides it) only when nothing in its set provides it.
        for e in self.expandable_instances(root) {
            let mut top = e;
            while let Some(p) = self.insts[top].parent
                && p != root
            {
                top = p;
            }
            if self.insts[top].parent != Some(root) || !public_top(self, top) {
                continue;
            }
            let set = sets.find(e);
            for c in self.children(e).map_err(|d| vec![d])? {
                if self.insts[c].prefix.causality == Causality::Input
                    && matches!(self.insts[c].kind, InstKind::Prim { .. })
                    && by_set
                        .get(&(set, self.insts[c].name.clone()))
                        .is_some_and(|x| x.1)
                {
                    self.insts[c].prefix.causality = Causality::Output;
                }
            }
        }
        let mut errors = Vec::new();
        let mut keys: Vec<_> = by_set.into_iter().collect();
        keys.sort_by_key(|((m, n), _)| (*m, n.clone()));
        for ((set, name), (inp, non, span)) in keys {
            if inp && !non && !open.contains(&set) {
                errors.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "`{name}` is only an input of the expandable connector `{}` and the ones connected to it: nothing provides it",
                            self.insts[set].path
                        ),
                    )
                    .with_note("an input element of an expandable connector must be a non-input in at least one connector of its augmentation set (MLS 9.1.3)"),
                );
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// Augmentation sets: union-find over expandable connector instances.
struct AugSets {
    index: HashMap<InstId, usize>,
    insts: Vec<InstId>,
    uf: UnionFind,
}

impl Default for AugSets {
    fn default() -> Self {
        AugSets {
            index: HashMap::new(),
            insts: Vec::new(),
            uf: UnionFind::new(0),
        }
    }
}

impl AugSets {
    fn id(&mut self, i: InstId) -> usize {
        if let Some(k) = self.index.get(&i) {
            return *k;
        }
        let k = self.uf.push();
        self.index.insert(i, k);
        self.insts.push(i);
        k
    }
    fn union(&mut self, a: InstId, b: InstId) {
        self.union_new(a, b);
    }
    /// Unites the sets of `a` and `b`; whether they were apart.
    fn union_new(&mut self, a: InstId, b: InstId) -> bool {
        let (x, y) = (self.id(a), self.id(b));
        if self.uf.find(x) == self.uf.find(y) {
            return false;
        }
        self.uf.union(x, y);
        true
    }
    /// The representative instance of `i`'s set (`i` itself when alone).
    fn find(&mut self, i: InstId) -> InstId {
        match self.index.get(&i).copied() {
            Some(k) => self.insts[self.uf.find(k)],
            None => i,
        }
    }
    /// The sets, members in order of first appearance.
    fn groups(&mut self) -> Vec<Vec<InstId>> {
        let mut by_root: BTreeMap<usize, Vec<InstId>> = BTreeMap::new();
        for k in 0..self.insts.len() {
            by_root
                .entry(self.uf.find(k))
                .or_default()
                .push(self.insts[k]);
        }
        by_root.into_values().collect()
    }
}
