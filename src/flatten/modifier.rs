//! Modifications (MLS 7.2): a tree of bindings, attribute values and redeclarations, merged
//! outer-over-inner. Every binding remembers the scope it was written in, because a modifier's
//! expression is evaluated where the modifier is written, not inside the modified component.

use super::classtree::{ClassId, ClassTree};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;
use std::rc::Rc;

/// Where names of a modifier expression are looked up: the instance whose components are
/// visible (`None` = the instance the modifier is applied to, filled in at instantiation) and
/// the class for lexical look-ups.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scope {
    pub inst: Option<usize>,
    pub lex: ClassId,
}

#[derive(Clone, Debug)]
pub struct ModExpr {
    pub expr: Rc<ast::Expr>,
    pub scope: Scope,
    /// Element selection (0-based) applied to the value: a modifier without `each` on an array
    /// of components gives element `i` of its value to component `i`.
    pub index: Vec<usize>,
    /// Whether the binding is given with `each` (the same value for every array element).
    pub each: bool,
}

#[derive(Clone, Debug)]
pub enum Redecl {
    /// `redeclare model L = X(...)`: the class written in the modifier.
    Class { id: ClassId, span: Span },
    /// `redeclare X comp(...)`.
    /// `inst` is the instance the redeclaration is written in (filled in like binding scopes).
    Component {
        clause: Rc<ast::ComponentClause>,
        lex: ClassId,
        span: Span,
        inst: Option<usize>,
    },
}

#[derive(Clone, Debug, Default)]
pub struct Mod {
    pub binding: Option<ModExpr>,
    /// Modifiers of sub-elements and attributes, in the order written.
    pub subs: Vec<(String, Mod)>,
    pub redeclare: Option<Redecl>,
    pub each: bool,
    pub final_: bool,
    /// Where the modifier is written (for "cannot modify a final element").
    pub span: Option<Span>,
    /// The redeclaration that `redeclare` overrides (written deeper: in a base class's
    /// `extends` modifier): its `constrainedby` type still constrains the new one and, for a
    /// component, its modifiers still apply (MLS 7.3.2, `redeclared_chain.rs`).
    pub replaced: Option<Box<Redecl>>,
    /// For a field modifier of a record component: how its binding stands to a binding of
    /// the whole record (`record_field_conflict.rs`).
    pub vs_record: VsRecord,
}

/// How a field's binding stands to the binding of its whole record, from the levels they are
/// written at (MLS 7.2.4: an outer modification overrides an inner one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VsRecord {
    /// Written at the same level (`R r(x = 1) = R(2, 3)`): two values, neither overrides.
    #[default]
    Same,
    /// The whole-record binding is written further out: it gives the field its value.
    RecordWins,
    /// The field modifier is written further out: it overrides the record binding's value.
    FieldWins,
}

impl Mod {
    /// Marks this modifier and everything below it as overridden by an outer record binding.
    pub fn mark_record_wins(&mut self) {
        self.vs_record = VsRecord::RecordWins;
        for (_, m) in &mut self.subs {
            m.mark_record_wins();
        }
    }
}

impl Mod {
    pub fn is_empty(&self) -> bool {
        self.binding.is_none() && self.subs.is_empty() && self.redeclare.is_none()
    }
    pub fn sub(&self, name: &str) -> Option<&Mod> {
        self.subs.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }
    pub(super) fn sub_mut(&mut self, name: &str) -> &mut Mod {
        let i = match self.subs.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.subs.push((name.to_string(), Mod::default()));
                self.subs.len() - 1
            }
        };
        &mut self.subs[i].1
    }

    /// Fills in the instance of every binding scope that is still relative (`inst: None`).
    pub fn bind_self(&mut self, inst: usize) {
        if let Some(b) = &mut self.binding {
            b.scope.inst.get_or_insert(inst);
        }
        if let Some(Redecl::Component { inst: i, .. }) = &mut self.redeclare {
            i.get_or_insert(inst);
        }
        for (_, m) in &mut self.subs {
            m.bind_self(inst);
        }
    }

    /// Fills in relative scopes with the instance `f` picks for the class the modifier was
    /// written in (the nearest enclosing instance of that class).
    pub fn bind_with(&mut self, f: &mut impl FnMut(ClassId) -> usize) {
        if let Some(b) = &mut self.binding
            && b.scope.inst.is_none()
        {
            b.scope.inst = Some(f(b.scope.lex));
        }
        if let Some(Redecl::Component {
            inst: i @ None,
            lex,
            ..
        }) = &mut self.redeclare
        {
            *i = Some(f(*lex));
        }
        for (_, m) in &mut self.subs {
            m.bind_with(f);
        }
    }

    /// Moves scopes that refer to instance `from` to instance `to` (an array's modifiers
    /// written inside its own class refer to each element).
    pub fn rebind(&mut self, from: usize, to: usize) {
        if let Some(b) = &mut self.binding
            && b.scope.inst == Some(from)
        {
            b.scope.inst = Some(to);
        }
        if let Some(Redecl::Component { inst: i, .. }) = &mut self.redeclare
            && *i == Some(from)
        {
            *i = Some(to);
        }
        for (_, m) in &mut self.subs {
            m.rebind(from, to);
        }
    }

    /// The modifier for element `i` of an array of components: bindings without `each` select
    /// their `i`-th element.
    pub fn for_element(&self, i: usize) -> Mod {
        let mut m = self.clone();
        m.select(i, false);
        m
    }
    fn select(&mut self, i: usize, each: bool) {
        let each = each || self.each;
        if let Some(b) = &mut self.binding
            && !each
            && !b.each
        {
            b.index.push(i);
        }
        for (_, m) in &mut self.subs {
            m.select(i, each);
        }
    }
}

/// Merges `outer` over `inner` (MLS 7.2.4): the outer binding wins, sub-modifiers merge by
/// name. Modifying an element that the inner modifier declares `final` is an error.
pub fn merge(outer: &Mod, inner: &Mod, what: &str) -> Result<Mod, Diagnostic> {
    if outer.is_empty() {
        return Ok(inner.clone());
    }
    if inner.is_empty() && !inner.final_ {
        return Ok(outer.clone());
    }
    if inner.final_ && (outer.binding.is_some() || outer.redeclare.is_some()) {
        return Err(final_error(outer, inner, what));
    }
    if outer.redeclare.is_some() {
        super::legality::check_redeclare_again(outer, inner, what)?;
    }
    let mut m = inner.clone();
    if outer.binding.is_some() {
        m.binding = outer.binding.clone();
        // The inner level's field values are under this binding of the whole (a record).
        for (_, s) in &mut m.subs {
            s.mark_record_wins();
        }
    }
    if outer.redeclare.is_some() {
        if let Some(r) = &inner.redeclare {
            m.replaced = Some(Box::new(r.clone()));
        }
        m.redeclare = outer.redeclare.clone();
    }
    m.each = outer.each || (inner.each && outer.binding.is_none());
    m.final_ = outer.final_ || inner.final_;
    if outer.span.is_some() {
        m.span = outer.span;
    }
    for (name, om) in &outer.subs {
        let sub_what = if what.is_empty() {
            name.clone()
        } else {
            format!("{what}.{name}")
        };
        let im = m.sub_mut(name);
        if inner.final_ && !om.is_empty() {
            return Err(final_error(om, inner, &sub_what));
        }
        *im = merge(om, im, &sub_what)?;
        if om.binding.is_some() {
            im.vs_record = if outer.binding.is_some() {
                VsRecord::Same
            } else if inner.binding.is_some() {
                VsRecord::FieldWins
            } else {
                om.vs_record
            };
        }
    }
    Ok(m)
}

fn final_error(outer: &Mod, inner: &Mod, what: &str) -> Diagnostic {
    let span = outer.span.unwrap_or(Span::DUMMY);
    let mut d = Diagnostic::error(
        span,
        format!("cannot modify `{what}`: it is declared `final`"),
    )
    .with_label("this modifier changes a final element");
    if let Some(s) = inner.span {
        d = d.with_secondary(s, "declared final here");
    }
    d.with_help("remove the modifier, or remove `final` where the element is declared")
}

/// Converts the syntax of a modification into a [`Mod`]; classes written in redeclarations are
/// added to the class tree with `lex` as lexical parent.
pub fn convert(tree: &mut ClassTree, m: &ast::Modification, lex: ClassId) -> Mod {
    match m {
        ast::Modification::Class {
            args,
            binding,
            span,
        } => {
            let mut out = convert_args(tree, args, lex);
            out.binding = binding.as_ref().map(|e| mod_expr(e, lex));
            out.span = Some(*span);
            out
        }
        ast::Modification::Binding { expr, span } | ast::Modification::Assign { expr, span } => {
            Mod {
                binding: Some(mod_expr(expr, lex)),
                span: Some(*span),
                ..Mod::default()
            }
        }
    }
}

fn mod_expr(e: &ast::Expr, lex: ClassId) -> ModExpr {
    ModExpr {
        expr: Rc::new(e.clone()),
        scope: Scope { inst: None, lex },
        index: Vec::new(),
        each: false,
    }
}

pub fn convert_args(tree: &mut ClassTree, args: &ast::ClassModification, lex: ClassId) -> Mod {
    let mut out = Mod {
        span: Some(args.span),
        ..Mod::default()
    };
    for a in &args.args {
        match a {
            ast::Argument::Modify {
                each,
                final_,
                name,
                modification,
                span,
                ..
            } => {
                let mut m = match modification {
                    Some(mm) => convert(tree, mm, lex),
                    None => Mod::default(),
                };
                m.each = *each;
                m.final_ = *final_;
                m.span = Some(*span);
                if let Some(b) = &mut m.binding {
                    b.each = *each;
                }
                // `a.b.c = 1` is `a(b(c = 1))`.
                let parts: Vec<&str> = name.parts.iter().map(|p| p.name.as_str()).collect();
                insert_path(&mut out, &parts, m);
            }
            ast::Argument::Redeclare {
                each,
                final_,
                replaceable,
                element,
                span,
                ..
            } => match element {
                ast::RedeclaredElement::Class(c) => {
                    let name = c.name.name.clone();
                    let id = tree.add((**c).clone(), Some(lex), false);
                    tree.nodes[id].prefixes.replaceable |= *replaceable;
                    let m = Mod {
                        redeclare: Some(Redecl::Class { id, span: *span }),
                        each: *each,
                        final_: *final_,
                        span: Some(*span),
                        ..Mod::default()
                    };
                    insert_path(&mut out, &[name.as_str()], m);
                }
                ast::RedeclaredElement::Component(cc) => {
                    for d in &cc.components {
                        let mut single = (**cc).clone();
                        single.components = vec![d.clone()];
                        single.element_prefixes.replaceable |= *replaceable;
                        let m = Mod {
                            redeclare: Some(Redecl::Component {
                                clause: Rc::new(single),
                                lex,
                                span: *span,
                                inst: None,
                            }),
                            each: *each,
                            final_: *final_,
                            span: Some(*span),
                            ..Mod::default()
                        };
                        insert_path(&mut out, &[d.name.name.as_str()], m);
                    }
                }
            },
        }
    }
    out
}

fn insert_path(out: &mut Mod, parts: &[&str], m: Mod) {
    match parts {
        [] => {}
        [last] => {
            let slot = out.sub_mut(last);
            // Two modifiers of the same element in one list: the later one's parts win.
            if slot.is_empty() {
                *slot = m;
            } else if let Ok(merged) = merge(&m, slot, last) {
                *slot = merged;
            }
        }
        [first, rest @ ..] => insert_path(out.sub_mut(first), rest, m),
    }
}
