//! Whether two long class definitions are identical (MLS 7.3.3 / 5.6.1.4): a class inherited
//! from a base and declared again in the derived class, or inherited through two bases, is one
//! element when both definitions are the same text but for where they are written, their
//! descriptions and their annotations.

use super::classtree::{ClassId, ClassTree, LongBody, NodeBody};
use serde::Serialize;
use std::rc::Rc;

/// Both classes are long definitions (not `extends B` redeclarations) with the same kind,
/// prefixes, contents and nested classes. Bounded by `depth` so a pathological nesting cannot
/// recurse without end.
pub(super) fn same_long_class(tree: &ClassTree, a: ClassId, b: ClassId, depth: usize) -> bool {
    if a == b {
        return true;
    }
    if depth > 64 {
        return false;
    }
    let (na, nb) = (tree.get(a), tree.get(b));
    let (NodeBody::Long(la), NodeBody::Long(lb)) = (&na.body, &nb.body) else {
        return false;
    };
    if na.kind != nb.kind
        || na.prefixes != nb.prefixes
        || na.name != nb.name
        || na.protected != nb.protected
        || text(&na.constrainedby.as_deref()) != text(&nb.constrainedby.as_deref())
        || !same_body(la, lb)
        || na.child_order.len() != nb.child_order.len()
    {
        return false;
    }
    na.child_order
        .iter()
        .zip(&nb.child_order)
        .all(|(&x, &y)| same_long_class(tree, x, y, depth + 1) || same_short_text(tree, x, y))
}

fn same_body(a: &LongBody, b: &LongBody) -> bool {
    let comps = |l: &LongBody| {
        let v: Vec<_> = l.components.iter().map(|(c, vis)| (&**c, *vis)).collect();
        text(&v)
    };
    comps(a) == comps(b)
        && all(&a.extends) == all(&b.extends)
        && text(&a.imports) == text(&b.imports)
        && all(&a.equations) == all(&b.equations)
        && all(&a.initial_equations) == all(&b.initial_equations)
        && all(&a.algorithms) == all(&b.algorithms)
        && all(&a.initial_algorithms) == all(&b.initial_algorithms)
        && a.protected_extends == b.protected_extends
        && a.external_name == b.external_name
}

fn all<T: Serialize>(xs: &[Rc<T>]) -> serde_json::Value {
    let v: Vec<&T> = xs.iter().map(|x| &**x).collect();
    text(&v)
}

/// Nested short classes (`type T = Real`) compared as text; they sit in the same relative
/// place in both definitions, so the same text names the same classes.
fn same_short_text(tree: &ClassTree, a: ClassId, b: ClassId) -> bool {
    let (na, nb) = (tree.get(a), tree.get(b));
    match (&na.body, &nb.body) {
        (NodeBody::Short(x), NodeBody::Short(y)) => {
            let (x, y) = (&**x, &**y);
            na.name == nb.name
                && na.kind == nb.kind
                && na.prefixes == nb.prefixes
                && text(x) == text(y)
        }
        (NodeBody::Enumeration(x), NodeBody::Enumeration(y)) => na.name == nb.name && x == y,
        _ => false,
    }
}

/// The syntax as JSON without spans, descriptions and annotations.
fn text<T: Serialize>(x: &T) -> serde_json::Value {
    let mut v = serde_json::to_value(x).unwrap_or_default();
    strip(&mut v);
    v
}

fn strip(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("span");
            m.remove("comment");
            m.remove("annotation");
            for (_, x) in m.iter_mut() {
                strip(x);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}
