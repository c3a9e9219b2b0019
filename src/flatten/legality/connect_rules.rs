//! Restrictions of connections and connectors (MLS 9.3):
//!
//! - matched primitive components have the same primitive type; flow connects to flow, stream
//!   to stream, causal (`input`/`output`) to causal; parameters to parameters and constants to
//!   constants (these get no connection equations);
//! - a connection set of causal variables holds at most one source of the signal: one inside
//!   `output` or one public outside `input`;
//! - a `connect` does not connect two `outer` elements;
//! - balanced connectors (MLS 9.3.1): in a connector class that is neither partial, simple
//!   nor expandable, the number of flow variables equals the number of potential variables.

use crate::dae::ScalarType;
use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::equations::Connect;
use crate::flatten::instance::{InstId, InstKind};
use crate::flatten::scalarize::Node;
use crate::syntax::ast::{Causality, ClassKind, Connection, Variability};
use std::collections::{HashMap, HashSet};

/// A primitive scalar of a connector, with what the rules need to know about it.
#[derive(Clone, Debug)]
struct Prim {
    rel: String,
    inst: InstId,
    k: usize,
    ty: ScalarType,
    connection: Connection,
    causality: Causality,
    variability: Variability,
    /// Inside an expandable connector (its elements take their causality from connections).
    expandable: bool,
}

impl Flattener<'_> {
    /// The effective causality of instance `i` (its own prefix, else that of the nearest
    /// enclosing structured component that has one), and whether an expandable connector
    /// encloses it.
    fn causal_context(&self, i: InstId) -> (Causality, bool) {
        let mut c = self.insts[i].prefix.causality;
        let mut expandable = false;
        let mut cur = Some(i);
        while let Some(x) = cur {
            let inst = &self.insts[x];
            if inst.parent.is_none() {
                break;
            }
            if c == Causality::None {
                c = inst.prefix.causality;
            }
            if inst.exp.kind == ClassKind::ExpandableConnector {
                expandable = true;
            }
            cur = inst.parent;
        }
        (c, expandable)
    }

    fn prims_of(&mut self, n: Node, rel: &str, out: &mut Vec<Prim>) -> Result<(), Diagnostic> {
        match n {
            Node::Var(i, k) => {
                let InstKind::Prim { ty, .. } = self.insts[i].kind else {
                    return Ok(());
                };
                let (causality, expandable) = self.causal_context(i);
                out.push(Prim {
                    rel: rel.to_string(),
                    inst: i,
                    k,
                    ty,
                    connection: self.insts[i].prefix.connection,
                    causality,
                    variability: self.variability(i),
                    expandable,
                });
            }
            Node::Inst(i) => {
                for c in self.children(i)? {
                    let name = self.insts[c].name.clone();
                    let sub = if rel.is_empty() {
                        name
                    } else {
                        format!("{rel}.{name}")
                    };
                    match &self.insts[c].kind {
                        InstKind::Prim { dims, .. } => {
                            let n: usize = dims.iter().product();
                            for k in 0..n {
                                self.prims_of(Node::Var(c, k), &format!("{sub}[{k}]"), out)?;
                            }
                        }
                        InstKind::Array { elems, .. } => {
                            for e in elems.clone() {
                                let en = self.insts[e].name.clone();
                                let esub = if rel.is_empty() {
                                    en
                                } else {
                                    format!("{rel}.{en}")
                                };
                                self.prims_of(Node::Inst(e), &esub, out)?;
                            }
                        }
                        InstKind::Struct { .. } => self.prims_of(Node::Inst(c), &sub, out)?,
                        InstKind::Removed | InstKind::Stub => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks every `connect` of the model against the rules of MLS 9.3 (before the connection
    /// sets are formed).
    pub fn check_connects(&mut self, connects: &[Connect]) -> Result<(), Vec<Diagnostic>> {
        let mut errors = Vec::new();
        // Causal connection sets: (variable element, inside) -> set member.
        let mut keys: HashMap<(InstId, usize, bool), usize> = HashMap::new();
        let mut members: Vec<(Prim, bool, Span)> = Vec::new();
        let mut parent: Vec<usize> = Vec::new();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for c in connects {
            for (na, nb) in c.a.iter().zip(&c.b) {
                if !self.is_connector_node(*na) || !self.is_connector_node(*nb) {
                    continue; // reported by the connection equations
                }
                if let Err(d) = self.check_no_two_outer(*na, *nb, c.span) {
                    errors.push(d);
                    continue;
                }
                let (mut la, mut lb) = (Vec::new(), Vec::new());
                if let Err(d) = self
                    .prims_of(*na, "", &mut la)
                    .and_then(|_| self.prims_of(*nb, "", &mut lb))
                {
                    errors.push(d);
                    continue;
                }
                if la.len() != lb.len() {
                    continue; // a structural mismatch, reported by the connection equations
                }
                la.sort_by(|x, y| x.rel.cmp(&y.rel));
                lb.sort_by(|x, y| x.rel.cmp(&y.rel));
                for (x, y) in la.iter().zip(&lb) {
                    if x.rel != y.rel {
                        break;
                    }
                    if let Err(d) = self.check_matched(x, y, c) {
                        errors.push(d);
                        break;
                    }
                    if x.causality == Causality::None || x.expandable || y.expandable {
                        continue;
                    }
                    let mut key = |p: &Prim, inside: bool, span: Span| -> usize {
                        *keys.entry((p.inst, p.k, inside)).or_insert_with(|| {
                            members.push((p.clone(), inside, span));
                            parent.push(parent.len());
                            members.len() - 1
                        })
                    };
                    let ka = key(x, !c.a_outside, c.a_span);
                    let kb = key(y, !c.b_outside, c.b_span);
                    let (ra, rb) = (find(&mut parent, ka), find(&mut parent, kb));
                    if ra != rb {
                        parent[ra.max(rb)] = ra.min(rb);
                    }
                }
            }
            if errors.len() > 20 {
                break;
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // At most one source per causal set.
        let mut sources: HashMap<usize, Vec<usize>> = HashMap::new();
        for (m, (p, inside, _)) in members.iter().enumerate() {
            let source = if *inside {
                p.causality == Causality::Output
            } else {
                p.causality == Causality::Input && !self.outside_protected(p.inst)
            };
            if source {
                let r = find(&mut parent, m);
                sources.entry(r).or_default().push(m);
            }
        }
        let mut roots: Vec<usize> = sources.keys().copied().collect();
        roots.sort();
        for r in roots {
            let s = &sources[&r];
            if s.len() < 2 {
                continue;
            }
            let describe = |f: &Self, m: usize| {
                let (p, inside, _) = &members[m];
                let what = if *inside {
                    "an output of a component"
                } else {
                    "an input of the model"
                };
                format!("`{}` is {what}", f.insts[p.inst].path)
            };
            let mut d = Diagnostic::error(
                members[s[1]].2,
                "this connection joins two sources of the same signal",
            )
            .with_label("second source")
            .with_secondary(members[s[0]].2, "first source");
            for &m in s.iter().take(3) {
                d = d.with_note(describe(self, m));
            }
            errors.push(d.with_note(
                "a connection set of inputs and outputs may contain at most one inside output \
                 or one public outside input (MLS 9.3)",
            ));
        }
        crate::flatten::ok_or_errors((), errors)
    }

    /// The form of a `connect` argument (MLS 9.1): `c`, `m.c` or `c.sub`: only the first part
    /// may be a component that is not a connector, every part after it is a connector.
    pub fn check_connect_form(
        &mut self,
        inst: InstId,
        c: &crate::syntax::ast::ComponentRef,
    ) -> Result<(), Diagnostic> {
        let n = c.parts.len();
        let mut cur = inst;
        for (k, part) in c.parts.iter().enumerate().take(n.saturating_sub(1)) {
            if let InstKind::Array { elems, .. } = &self.insts[cur].kind {
                match elems.first() {
                    Some(&e) => cur = e,
                    None => return Ok(()),
                }
            }
            let Ok(Some(ch)) = self.child(cur, &part.ident.name) else {
                return Ok(()); // unknown names are reported when the reference is resolved
            };
            let first_elem = match &self.insts[ch].kind {
                InstKind::Array { elems, .. } => elems.first().copied().unwrap_or(ch),
                _ => ch,
            };
            if k >= 1 && !self.insts[first_elem].is_connector() {
                return Err(Diagnostic::error(
                    part.ident.span,
                    format!(
                        "`{}` is not a connector: a connect argument is a connector `c`, a \
                         connector `m.c` of a component `m`, or a connector inside a connector \
                         (MLS 9.1)",
                        part.ident.name
                    ),
                )
                .with_help("connect to a connector of the component one level down, or add a connector there that is connected inside"));
            }
            cur = ch;
        }
        Ok(())
    }

    fn is_connector_node(&self, n: Node) -> bool {
        let i = match n {
            Node::Var(i, _) | Node::Inst(i) => i,
        };
        self.insts[i].is_connector()
    }

    /// Whether the outside connector holding `i` is declared protected.
    fn outside_protected(&self, i: InstId) -> bool {
        let mut cur = Some(i);
        let mut protected = false;
        while let Some(x) = cur {
            if let Some(e) = &self.insts[x].elem {
                protected |= e.protected;
            }
            cur = self.insts[x].parent;
            if cur.is_some_and(|p| !self.insts[p].is_connector()) {
                break;
            }
        }
        protected
    }

    fn check_matched(&mut self, x: &Prim, y: &Prim, c: &Connect) -> Result<(), Diagnostic> {
        let name = |f: &Self, p: &Prim| f.insts[p.inst].path.clone();
        let err = |f: &Self, what: String, note: &str| {
            Diagnostic::error(c.span, what)
                .with_label("cannot connect these")
                .with_secondary(
                    f.insts[x.inst].span,
                    format!("`{}` is declared here", name(f, x)),
                )
                .with_secondary(
                    f.insts[y.inst].span,
                    format!("`{}` is declared here", name(f, y)),
                )
                .with_note(note.to_string())
        };
        if x.ty != y.ty {
            return Err(err(
                self,
                format!(
                    "`{}` ({:?}) and `{}` ({:?}) have different types",
                    name(self, x),
                    x.ty,
                    name(self, y),
                    y.ty
                ),
                "connected variables must have the same primitive type (MLS 9.3)",
            ));
        }
        if (x.connection == Connection::Stream) != (y.connection == Connection::Stream) {
            return Err(err(
                self,
                format!(
                    "a stream variable can only be connected to a stream variable: `{}` and `{}`",
                    name(self, x),
                    name(self, y)
                ),
                "stream variables connect only to stream variables (MLS 9.3)",
            ));
        }
        let causal = |p: &Prim| p.causality != Causality::None;
        if !x.expandable && !y.expandable && causal(x) != causal(y) {
            let (cz, other) = if causal(x) { (x, y) } else { (y, x) };
            return Err(err(
                self,
                format!(
                    "`{}` is an {} but `{}` is neither input nor output",
                    name(self, cz),
                    match cz.causality {
                        Causality::Input => "input",
                        _ => "output",
                    },
                    name(self, other)
                ),
                "input and output variables connect only to input and output variables (MLS 9.3)",
            ));
        }
        let fixed = |v: Variability| matches!(v, Variability::Parameter | Variability::Constant);
        if (fixed(x.variability) || fixed(y.variability)) && x.variability != y.variability {
            let word = |v: Variability| match v {
                Variability::Parameter => "a parameter",
                Variability::Constant => "a constant",
                _ => "a variable",
            };
            return Err(err(
                self,
                format!(
                    "`{}` is {} but `{}` is {}",
                    name(self, x),
                    word(x.variability),
                    name(self, y),
                    word(y.variability)
                ),
                "connections may only join parameters to parameters and constants to constants \
                 (MLS 9.3)",
            ));
        }
        if fixed(x.variability) {
            // No equation joins them: their values must agree (MLS 9.3).
            let (vx, vy) = (self.param_value(x.inst)?, self.param_value(y.inst)?);
            let (a, b) = (vx.data.get(x.k).cloned(), vy.data.get(y.k).cloned());
            let same = match (&a, &b) {
                (Some(a), Some(b)) => match (a.as_f64(), b.as_f64()) {
                    (Some(p), Some(q)) => p == q,
                    _ => a == b,
                },
                _ => true,
            };
            if !same {
                return Err(err(
                    self,
                    format!(
                        "connected {} `{}` and `{}` have different values: {} and {}",
                        if x.variability == Variability::Constant {
                            "constants"
                        } else {
                            "parameters"
                        },
                        name(self, x),
                        name(self, y),
                        fmt_val(a.as_ref()),
                        fmt_val(b.as_ref())
                    ),
                    "parameters and constants of connected connectors must have equal values \
                     (MLS 9.3)",
                ));
            }
        }
        Ok(())
    }

    /// `connect(a, b)` where an element of `a` and the same element of `b` are both `outer`.
    fn check_no_two_outer(&mut self, a: Node, b: Node, span: Span) -> Result<(), Diagnostic> {
        let (Node::Inst(ia), Node::Inst(ib)) = (a, b) else {
            return Ok(());
        };
        let (ea, eb) = (self.insts[ia].exp.clone(), self.insts[ib].exp.clone());
        for c in &ea.components {
            let outer = |x: &crate::flatten::expand::CompElem| {
                x.clause.element_prefixes.outer && !x.clause.element_prefixes.inner
            };
            if outer(c) && eb.component(&c.name).is_some_and(outer) {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "this connects `{}.{n}` and `{}.{n}`, which are both `outer` elements",
                        self.insts[ia].path,
                        self.insts[ib].path,
                        n = c.name
                    ),
                )
                .with_label("connects two outer elements")
                .with_secondary(c.decl().name.span, "declared outer here")
                .with_note("a connect-equation shall not connect two outer elements (MLS 9.3)"));
            }
        }
        Ok(())
    }

    /// The balancing restriction (MLS 9.3.1) for every connector class instantiated below
    /// `root`, checked once per class.
    pub fn check_connector_balance(&mut self, root: InstId) -> Result<(), Vec<Diagnostic>> {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut errors = Vec::new();
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            match &self.insts[i].kind {
                InstKind::Struct {
                    children: Some(c), ..
                } => {
                    let c = c.clone();
                    if self.insts[i].is_connector() && i != root {
                        let exp = self.insts[i].exp.clone();
                        if seen.insert(exp.id)
                            && let Err(d) = self.connector_balanced(i)
                        {
                            errors.push(d);
                        }
                    }
                    stack.extend(c.iter().rev());
                }
                InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                _ => {}
            }
        }
        crate::flatten::ok_or_errors((), errors)
    }

    fn connector_balanced(&mut self, i: InstId) -> Result<(), Diagnostic> {
        let exp = self.insts[i].exp.clone();
        if exp.partial || exp.kind == ClassKind::ExpandableConnector {
            return Ok(());
        }
        let overdetermined = self.has_overdetermined(i, 0);
        if overdetermined && self.insts[i].exp.classes.contains_key("equalityConstraint") {
            return Ok(()); // the connector itself is the overdetermined record
        }
        let mut prims = Vec::new();
        self.prims_of(Node::Inst(i), "", &mut prims)?;
        if prims.iter().any(|p| p.expandable) {
            return Ok(());
        }
        // Overdetermined types and records count as many potentials as their
        // `equalityConstraint` has residues (MLS 9.3.1).
        let mut counted: Vec<InstId> = Vec::new();
        let mut od_potentials = 0usize;
        if overdetermined {
            let mut rest = Vec::new();
            for p in prims {
                match self.overdetermined_within(p.inst, i) {
                    Some(od) => {
                        if !counted.contains(&od) {
                            counted.push(od);
                            let Some(n) = self.residue_size(od) else {
                                return Ok(()); // size not known here: not checked
                            };
                            od_potentials += n;
                        }
                    }
                    None => rest.push(p),
                }
            }
            prims = rest;
        }
        // Causality relative to the connector: a prefix on the connector component itself (an
        // `input` connector of a record type) does not count.
        let mut flows = 0usize;
        let mut potentials = od_potentials;
        let mut other = false;
        for p in &prims {
            if matches!(
                p.variability,
                Variability::Parameter | Variability::Constant
            ) {
                continue;
            }
            let causal = self.causal_below(p.inst, i);
            match (self.connection_below(p.inst, i), causal) {
                (Connection::Flow, _) => flows += 1,
                (Connection::Stream, _) => other = true,
                (_, true) => other = true,
                (Connection::None, false) => potentials += 1,
            }
        }
        // A simple connector (only potential variables) is not balanced by design.
        let simple = flows == 0 && !other;
        if simple || flows == potentials {
            return Ok(());
        }
        let full = self.tree.get(exp.id).full.clone();
        Err(Diagnostic::error(
            exp.span,
            format!(
                "connector `{full}` is not balanced: {flows} flow variable(s) but {potentials} \
                 potential variable(s)"
            ),
        )
        .with_label("unbalanced connector")
        .with_note(
            "a connector that is neither partial, simple nor expandable must have as many flow \
             variables as potential variables (variables that are neither parameter, constant, \
             input, output, stream nor flow; MLS 9.3.1)",
        ))
    }

    /// Whether `p` or an enclosing component below connector instance `top` is declared
    /// `input` or `output`.
    fn causal_below(&self, p: InstId, top: InstId) -> bool {
        let mut cur = Some(p);
        while let Some(x) = cur {
            if x == top {
                return false;
            }
            if self.insts[x].prefix.causality != Causality::None {
                return true;
            }
            cur = self.insts[x].parent;
        }
        false
    }

    /// The `flow`/`stream` prefix declared on `p` or an enclosing component below connector
    /// instance `top` (a prefix on the connector component itself does not count).
    fn connection_below(&self, p: InstId, top: InstId) -> Connection {
        let mut cur = Some(p);
        while let Some(x) = cur {
            if x == top {
                break;
            }
            let inst = &self.insts[x];
            let declared = inst
                .elem
                .as_ref()
                .map(|e| e.clause.prefix.connection)
                .filter(|c| *c != Connection::None)
                .unwrap_or(inst.exp.type_prefix.connection);
            if declared != Connection::None {
                return declared;
            }
            cur = inst.parent;
        }
        Connection::None
    }

    /// Whether instance `i` holds (at any depth) a component of an overdetermined type or
    /// record (one with an `equalityConstraint` function).
    fn has_overdetermined(&mut self, i: InstId, depth: usize) -> bool {
        if self.insts[i].exp.classes.contains_key("equalityConstraint") {
            return true;
        }
        if depth > 8 {
            return false;
        }
        let Ok(kids) = self.children(i) else {
            return false;
        };
        for c in kids {
            let c = match &self.insts[c].kind {
                InstKind::Array { elems, .. } => match elems.first() {
                    Some(e) => *e,
                    None => continue,
                },
                _ => c,
            };
            if self.insts[c].exp.classes.contains_key("equalityConstraint") {
                return true;
            }
            if matches!(self.insts[c].kind, InstKind::Struct { .. })
                && self.has_overdetermined(c, depth + 1)
            {
                return true;
            }
        }
        false
    }
}

fn fmt_val(v: Option<&crate::flatten::Val>) -> String {
    match v {
        Some(crate::flatten::Val::Real(x)) => format!("{x}"),
        Some(crate::flatten::Val::Int(i)) => format!("{i}"),
        Some(crate::flatten::Val::Bool(b)) => format!("{b}"),
        Some(crate::flatten::Val::Str(s)) => format!("{s:?}"),
        None => "?".to_string(),
    }
}
