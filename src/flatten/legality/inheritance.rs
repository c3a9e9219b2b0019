//! What a class may extend: the kind table of MLS 7.1.3, transitively non-replaceable base
//! classes (MLS 7.1.4), the restriction on combining an array, prefixed or simple-type base
//! with other contents (MLS 4.5.2), and the inheritance rules of `operator record` (MLS 4.7).

use super::{base_kind, kind_name};
use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::classtree::{ClassId, NodeBody};
use crate::flatten::expand::{Expanded, Prim};
use crate::syntax::ast::{Causality, ClassKind, Connection, Variability};
use std::rc::Rc;

/// One direct base class: the class, where the `extends` (or short definition) names it, and
/// whether it comes from a short class definition.
struct Base {
    id: ClassId,
    exp: Rc<Expanded>,
    span: Span,
}

impl Flattener<'_> {
    pub(super) fn check_bases(&mut self, e: &Expanded) -> Result<(), Diagnostic> {
        let id = e.id;
        let node = self.tree.get(id);
        let kind = base_kind(node.kind);
        let short = matches!(node.body, NodeBody::Short(_));
        let own_name = node.name.clone();
        let bases = self.direct_bases(id);
        for b in &bases {
            let bnode = self.tree.get(b.id);
            let bkind = base_kind(b.exp.kind);
            if !may_extend(kind, bkind) {
                let allowed: Vec<&str> =
                    allowed_bases(kind).iter().map(|k| kind_name(*k)).collect();
                return Err(Diagnostic::error(
                    b.span,
                    format!(
                        "a {} cannot extend the {} `{}` (MLS 7.1.3)",
                        kind_name(kind),
                        kind_name(bkind),
                        bnode.full
                    ),
                )
                .with_label("base class of the wrong kind")
                .with_secondary(
                    bnode.span,
                    format!("`{}` is a {}", bnode.name, kind_name(bkind)),
                )
                .with_help(format!(
                    "a {} may only extend: {}",
                    kind_name(kind),
                    allowed.join(", ")
                )));
            }
            // A short class definition may name a replaceable class: that is how a choice is
            // passed down (`redeclare model L = L`, `redeclare package Medium = Medium`).
            if bnode.prefixes.replaceable && !short {
                return Err(Diagnostic::error(
                    b.span,
                    format!(
                        "the base class `{}` is replaceable; a base class must not be (MLS 7.1.4)",
                        bnode.full
                    ),
                )
                .with_secondary(bnode.span, "declared replaceable here")
                .with_help(
                    "extend a non-replaceable class, or use `redeclare model extends` to extend a replaceable one",
                ));
            }
            // MLS 4.7: only a short `operator record` or `connector` may extend an operator
            // record (`connector ComplexInput = input Complex`).
            let from_operator_record = bkind == ClassKind::OperatorRecord
                || (bkind == ClassKind::Connector && self.inherits_operator_record(&b.exp));
            if from_operator_record
                && !(short && matches!(kind, ClassKind::OperatorRecord | ClassKind::Connector))
            {
                return Err(Diagnostic::error(
                    b.span,
                    format!(
                        "cannot extend the operator record `{}` here: only a short definition of an operator record or connector may (MLS 4.7)",
                        bnode.full
                    ),
                )
                .with_help(format!("write `{} {own_name} = {}(...)`", kind_name(kind), bnode.name)));
            }
            if let Some(or) = self.nested_operator_record(b.id) {
                let o = self.tree.get(or);
                return Err(Diagnostic::error(
                    b.span,
                    format!(
                        "cannot extend `{}`: it encloses the operator record `{}`, and no class may extend an enclosing scope of an operator record (MLS 4.7)",
                        bnode.full, o.full
                    ),
                )
                .with_secondary(o.span, "the operator record"));
            }
        }
        if !short {
            self.check_special_bases(id, &bases)?;
        }
        Ok(())
    }

    /// The direct base classes of `id` that resolve (the others are reported by expansion).
    fn direct_bases(&mut self, id: ClassId) -> Vec<Base> {
        let node = self.tree.get(id);
        let names: Vec<(crate::syntax::ast::Name, ClassId)> = match &node.body {
            NodeBody::Short(s) => vec![(s.base.clone(), node.parent.unwrap_or(id))],
            _ => node
                .long()
                .map(|b| b.extends.iter().map(|x| (x.base.clone(), id)).collect())
                .unwrap_or_default(),
        };
        let mut out = Vec::new();
        for (name, lex) in names {
            let Ok(b) = self.lookup_class_name(&name, lex, None) else {
                continue;
            };
            if b == id {
                continue;
            }
            let Ok(exp) = self.expanded(b) else { continue };
            out.push(Base {
                id: b,
                exp,
                span: name.span,
            });
        }
        out
    }

    /// MLS 4.5.2: an extends from an array class, a class with a base prefix
    /// (`input`, `flow`, `parameter`...) or a simple type may not be combined with
    /// components, equations, algorithms, protected elements or other non-empty bases.
    fn check_special_bases(&mut self, id: ClassId, bases: &[Base]) -> Result<(), Diagnostic> {
        let Some(special) = bases.iter().find(|b| special_reason(&b.exp).is_some()) else {
            return Ok(());
        };
        let why = special_reason(&special.exp).unwrap_or_default();
        let bname = self.tree.get(special.id).full.clone();
        let node = self.tree.get(id);
        let body = node.long();
        let conflict: Option<(Span, String)> = if let Some(other) = bases
            .iter()
            .find(|b| b.id != special.id && !is_empty_class(&b.exp))
        {
            Some((
                other.span,
                format!(
                    "another non-empty base class `{}`",
                    self.tree.get(other.id).full
                ),
            ))
        } else if let Some(body) = body {
            if let Some((c, _)) = body.components.first() {
                let what = if body
                    .components
                    .iter()
                    .any(|(_, v)| *v == crate::syntax::ast::Visibility::Protected)
                {
                    "components (and protected elements)"
                } else {
                    "components"
                };
                Some((c.span, what.to_string()))
            } else if let Some(eq) = body.equations.first().or(body.initial_equations.first()) {
                Some((eq.span, "equations".to_string()))
            } else {
                let alg = body
                    .algorithms
                    .iter()
                    .chain(&body.initial_algorithms)
                    .next();
                alg.map(|a| {
                    (
                        a.first().map(|s| s.span).unwrap_or(node.span),
                        "algorithms".to_string(),
                    )
                })
            }
        } else {
            None
        };
        if let Some((span, what)) = conflict {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`{}` extends `{bname}`, which is {why}, so it cannot also have {what} (MLS 4.5.2)",
                    node.name
                ),
            )
            .with_secondary(special.span, "extended here")
            .with_help("declare a component of that class instead of extending it"));
        }
        Ok(())
    }

    /// Whether a connector class inherits from an operator record.
    fn inherits_operator_record(&self, e: &Expanded) -> bool {
        e.bases
            .iter()
            .any(|b| self.tree.get(*b).kind == ClassKind::OperatorRecord)
    }

    /// An operator record defined (at any depth) inside `id`, among the loaded classes.
    fn nested_operator_record(&self, id: ClassId) -> Option<ClassId> {
        let mut stack: Vec<ClassId> = self.tree.get(id).child_order.clone();
        while let Some(c) = stack.pop() {
            let n = self.tree.get(c);
            if n.kind == ClassKind::OperatorRecord {
                return Some(c);
            }
            stack.extend(n.child_order.iter().copied());
        }
        None
    }
}

/// Why extending `b` excludes other contents: it is an array class, has a base prefix, or is
/// a simple type.
fn special_reason(b: &Expanded) -> Option<String> {
    if !b.dims.is_empty() {
        return Some("an array class".to_string());
    }
    let p = &b.type_prefix;
    if p.causality != Causality::None
        || p.connection != Connection::None
        || p.variability != Variability::Continuous
    {
        return Some(
            "declared with a prefix (`input`, `output`, `flow`, `parameter`...)".to_string(),
        );
    }
    match b.prim {
        Some(Prim::Scalar(_)) => Some("a simple type".to_string()),
        Some(Prim::Enum(_)) => Some("an enumeration type".to_string()),
        _ => None,
    }
}

/// MLS 4.5.2: a class without equations, algorithms or components whose bases are empty too
/// (its expansion holds everything inherited).
fn is_empty_class(b: &Expanded) -> bool {
    b.components.is_empty()
        && b.equations.is_empty()
        && b.initial_equations.is_empty()
        && b.algorithms.is_empty()
        && special_reason(b).is_none()
}

/// The kinds a class of kind `derived` may extend besides `class` (MLS 7.1.3, table 7.1).
fn allowed_bases(derived: ClassKind) -> &'static [ClassKind] {
    use ClassKind::*;
    match derived {
        Package => &[Package, Class],
        Operator => &[Operator, Class],
        Function => &[Function, Class],
        OperatorFunction => &[Function, OperatorFunction, Class],
        Type => &[Type, Class],
        Record => &[Record, Class],
        OperatorRecord => &[OperatorRecord, Class],
        ExpandableConnector => &[ExpandableConnector, Class],
        Connector => &[Type, Record, OperatorRecord, Connector, Class],
        Block => &[Record, Block, Class],
        Model => &[Record, Block, Model, Class],
        // The table allows `class` to extend only `class`, but MLS 7.1.3 only deprecates a
        // `class` with contents of other kinds, and libraries write `class X extends SomeModel`.
        Class => &[
            Package,
            Operator,
            Function,
            OperatorFunction,
            Type,
            Record,
            OperatorRecord,
            ExpandableConnector,
            Connector,
            Block,
            Model,
            Class,
        ],
        PureFunction | ImpureFunction => &[Function, Class],
    }
}

fn may_extend(derived: ClassKind, base: ClassKind) -> bool {
    allowed_bases(derived).contains(&base)
}
