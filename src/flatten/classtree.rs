//! The class tree: every class definition of every loaded file and library in one arena, with
//! its lexical parent, so that name lookup (MLS 5) can walk enclosing scopes.
//!
//! Nested class definitions are moved out of their parent's body into their own node; the
//! parent keeps a name -> id map. Class definitions written inside modifiers
//! (`redeclare model L = Coulomb(mu = 0.3)`) get anonymous nodes when the modifier is first
//! converted (see `modifier.rs`), with the class holding the modifier as lexical parent.

use crate::dae::ScalarType;
use crate::diag::Span;
use crate::syntax::ast::{self, ClassBody, ClassKind, Element, Section, Visibility};
use std::collections::HashMap;
use std::rc::Rc;

pub type ClassId = usize;

/// What a class node holds once its nested classes are moved out.
#[derive(Clone, Debug)]
pub enum NodeBody {
    Long(LongBody),
    /// `A = B(mod)[dims]`.
    Short(Rc<ast::ShortClass>),
    /// `model extends B(...) ... end B;` (redeclaration extending the replaced class).
    ExtendsClass {
        base: ast::Ident,
        modification: Option<Rc<ast::ClassModification>>,
        body: LongBody,
    },
    Enumeration(Vec<String>),
    /// The built-in types `Real`, `Integer`, `Boolean`, `String` and the built-in enumerations.
    Builtin(ScalarType),
    /// A class we parse but cannot use (`der` function classes).
    Unsupported,
    /// The predefined `ExternalObject` (MLS 12.9.7) that external object classes extend.
    ExternalObject,
}

#[derive(Clone, Debug, Default)]
pub struct LongBody {
    pub components: Vec<(Rc<ast::ComponentClause>, Visibility)>,
    pub extends: Vec<Rc<ast::Extends>>,
    /// Whether each `extends` of `extends` is in a `protected` section: what it inherits is
    /// then protected (MLS 7.1.2).
    pub protected_extends: Vec<bool>,
    pub imports: Vec<ast::Import>,
    pub equations: Vec<Rc<ast::Equation>>,
    pub initial_equations: Vec<Rc<ast::Equation>>,
    pub algorithms: Vec<Rc<Vec<ast::Statement>>>,
    pub initial_algorithms: Vec<Rc<Vec<ast::Statement>>>,
    pub annotation: Option<ast::Annotation>,
    /// The name of the foreign function an `external` clause calls (`None` without a clause;
    /// the class's own name when the clause names none).
    pub external_name: Option<String>,
    /// For `external "builtin"` (MLS 12.9.1), the names the call passes (`None`: the
    /// clause names no call, so the inputs in declared order).
    pub builtin_args: Option<Option<Vec<String>>>,
}

#[derive(Debug)]
pub struct ClassNode {
    pub name: String,
    /// Fully qualified name (`Minimo.Mechanics.Mass`).
    pub full: String,
    pub parent: Option<ClassId>,
    pub kind: ClassKind,
    pub prefixes: ast::ClassPrefixes,
    pub constrainedby: Option<Rc<ast::Constrainedby>>,
    pub body: NodeBody,
    /// Nested classes by name, in declaration order in `child_order`.
    pub children: HashMap<String, ClassId>,
    pub child_order: Vec<ClassId>,
    pub span: Span,
    /// Declared in a `protected` section of its parent (MLS 4.1; redeclarations keep the
    /// visibility, MLS 7.3.3).
    pub protected: bool,
}

impl ClassNode {
    pub fn long(&self) -> Option<&LongBody> {
        match &self.body {
            NodeBody::Long(b) | NodeBody::ExtendsClass { body: b, .. } => Some(b),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct ClassTree {
    pub nodes: Vec<ClassNode>,
    /// Top-level classes by name (files, libraries, the built-in library).
    pub roots: HashMap<String, ClassId>,
    pub root_order: Vec<ClassId>,
}

impl ClassTree {
    pub fn new() -> ClassTree {
        let mut t = ClassTree::default();
        for (name, ty) in [
            ("Real", ScalarType::Real),
            ("Integer", ScalarType::Integer),
            ("Boolean", ScalarType::Boolean),
            ("String", ScalarType::String),
            // MLS 16.3: a clock variable holds no value minimo stores; clock inference
            // (`clock_inference.rs`) removes it from the flat model.
            ("Clock", ScalarType::Boolean),
        ] {
            let id = t.push_builtin(name, ClassKind::Type, NodeBody::Builtin(ty));
            t.roots.insert(name.to_string(), id);
        }
        for (name, lits) in [
            (
                "StateSelect",
                &["never", "avoid", "default", "prefer", "always"][..],
            ),
            ("AssertionLevel", &["error", "warning"][..]),
        ] {
            let body = NodeBody::Enumeration(lits.iter().map(|s| s.to_string()).collect());
            let id = t.push_builtin(name, ClassKind::Type, body);
            t.roots.insert(name.to_string(), id);
        }
        let id = t.push_builtin("ExternalObject", ClassKind::Class, NodeBody::ExternalObject);
        t.roots.insert("ExternalObject".to_string(), id);
        t
    }

    fn push_builtin(&mut self, name: &str, kind: ClassKind, body: NodeBody) -> ClassId {
        self.nodes.push(ClassNode {
            name: name.to_string(),
            full: name.to_string(),
            parent: None,
            kind,
            prefixes: ast::ClassPrefixes::default(),
            constrainedby: None,
            body,
            children: HashMap::new(),
            child_order: Vec::new(),
            span: Span::DUMMY,
            protected: false,
        });
        self.nodes.len() - 1
    }

    pub fn get(&self, id: ClassId) -> &ClassNode {
        &self.nodes[id]
    }

    /// A copy of class `orig` named `full`, with `orig`'s lexical parent and nested classes:
    /// `orig` as seen through a package that inherits it (`derived_view.rs`).
    pub fn add_view(&mut self, orig: ClassId, full: String) -> ClassId {
        let o = &self.nodes[orig];
        let node = ClassNode {
            name: o.name.clone(),
            full,
            parent: o.parent,
            kind: o.kind,
            prefixes: o.prefixes.clone(),
            constrainedby: o.constrainedby.clone(),
            body: o.body.clone(),
            children: o.children.clone(),
            child_order: o.child_order.clone(),
            span: o.span,
            protected: o.protected,
        };
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Marks a class parsed on its own (a deferred library class) as written in a `protected`
    /// section of its parent.
    pub fn set_protected(&mut self, id: ClassId, protected: bool) {
        self.nodes[id].protected = protected;
    }

    /// Adds a class definition under `parent` (or at the top level); returns its id. With
    /// `attach`, the class becomes a named child of the parent (an element); without, it is
    /// anonymous (a class written in a modifier).
    pub fn add(&mut self, def: ast::ClassDef, parent: Option<ClassId>, attach: bool) -> ClassId {
        let full = match parent {
            Some(p) => format!("{}.{}", self.nodes[p].full, def.name.name),
            None => def.name.name.clone(),
        };
        let id = self.nodes.len();
        self.nodes.push(ClassNode {
            name: def.name.name.clone(),
            full,
            parent,
            kind: def.kind,
            prefixes: def.prefixes.clone(),
            constrainedby: def.constrainedby.map(Rc::new),
            body: NodeBody::Unsupported,
            children: HashMap::new(),
            child_order: Vec::new(),
            span: def.name.span,
            protected: false,
        });
        if attach {
            match parent {
                Some(p) => {
                    // A later definition with the same name (a package folder entry and a
                    // nested class) keeps the first; duplicates in one class are reported by
                    // the element checks.
                    self.nodes[p]
                        .children
                        .entry(def.name.name.clone())
                        .or_insert(id);
                    self.nodes[p].child_order.push(id);
                }
                None => {
                    self.roots.entry(def.name.name.clone()).or_insert(id);
                    self.root_order.push(id);
                }
            }
        }
        let body = match def.body {
            ClassBody::Long(l) => NodeBody::Long(self.add_long(l, id)),
            ClassBody::Short(s) => NodeBody::Short(Rc::new(s)),
            ClassBody::Extends(e) => NodeBody::ExtendsClass {
                base: e.base_name,
                modification: e.modification.map(Rc::new),
                body: self.add_long(e.body, id),
            },
            ClassBody::Enumeration(e) => {
                NodeBody::Enumeration(e.literals.into_iter().map(|l| l.name.name).collect())
            }
            ClassBody::Der(_) => NodeBody::Unsupported,
        };
        self.nodes[id].body = body;
        id
    }

    fn add_long(&mut self, l: ast::LongClass, id: ClassId) -> LongBody {
        let def_name = self.nodes[id].name.clone();
        let mut body = LongBody {
            annotation: l.annotation,
            external_name: l
                .external
                .as_ref()
                .map(|e| foreign_name(&e.text).unwrap_or_else(|| def_name.clone())),
            builtin_args: l.external.as_ref().and_then(|e| builtin_args(&e.text)),
            ..Default::default()
        };
        for section in l.sections {
            match section {
                Section::Elements {
                    visibility,
                    elements,
                    ..
                } => {
                    for e in elements {
                        match e {
                            Element::Import(i) => body.imports.push(i),
                            Element::Extends(x) => {
                                body.extends.push(Rc::new(x));
                                body.protected_extends
                                    .push(visibility == Visibility::Protected);
                            }
                            Element::Class(c) => {
                                let cid = self.add(*c, Some(id), true);
                                self.nodes[cid].protected = visibility == Visibility::Protected;
                            }
                            Element::Component(c) => body.components.push((Rc::new(c), visibility)),
                        }
                    }
                }
                Section::Equations {
                    initial, equations, ..
                } => {
                    let target = if initial {
                        &mut body.initial_equations
                    } else {
                        &mut body.equations
                    };
                    target.extend(equations.into_iter().map(Rc::new));
                }
                Section::Algorithm {
                    initial,
                    statements,
                    ..
                } => {
                    let target = if initial {
                        &mut body.initial_algorithms
                    } else {
                        &mut body.algorithms
                    };
                    target.push(Rc::new(statements));
                }
            }
        }
        body
    }

    /// Adds a stored definition (one file) under the class named by its `within` clause.
    /// Returns the ids of the classes it defines.
    pub fn add_file(
        &mut self,
        def: ast::StoredDefinition,
        within_parent: Option<ClassId>,
    ) -> Vec<ClassId> {
        def.classes
            .into_iter()
            .map(|c| self.add(c, within_parent, true))
            .collect()
    }
}

/// The foreign function named in an external clause's text (`"C" y = f(a, b) annotation(...)`):
/// the identifier before the first `(`, unless that is `annotation` (no call written).
/// The arguments of an `external "builtin"` clause: `Some(None)` for a clause without a call,
/// `Some(Some(names))` for `[y =] f(a, b)` whose arguments are all plain names; `None` for
/// another language or arguments minimo does not map (then the call fails with its name).
fn builtin_args(text: &str) -> Option<Option<Vec<String>>> {
    let rest = text.trim_start().strip_prefix("\"builtin\"")?;
    let call = rest.split("annotation").next().unwrap_or("").trim();
    if call.is_empty() {
        return Some(None);
    }
    let inner = call.split_once('(')?.1.strip_suffix(')')?;
    let names: Vec<String> = inner
        .split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    let plain = |a: &String| a.chars().all(|c| c.is_alphanumeric() || c == '_');
    names.iter().all(plain).then_some(Some(names))
}

fn foreign_name(text: &str) -> Option<String> {
    let head = &text[..text.find('(')?];
    let name: String = head
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (!name.is_empty() && name != "annotation").then_some(name)
}
