//! Conversion of pest pairs into the typed syntax tree (declarations, equations, statements).
//! Expressions are in [`super::expr`].
//!
//! The grammar guarantees the shape of each pair, so a pair of an unexpected rule is an internal
//! error; it is still reported as a diagnostic rather than a panic.

use super::ast::*;
use super::parser::Rule;
use super::prefixes::{Place, PrefixSet};
use crate::diag::{Diagnostic, FileId, Span};
use pest::iterators::Pair;
use std::cell::Cell;

pub(crate) type P<'i> = Pair<'i, Rule>;
/// Builder results: a diagnostic is boxed because errors are rare and `Diagnostic` is large.
pub(crate) type R<T> = Result<T, Box<Diagnostic>>;

/// An error result.
pub(crate) fn err<T>(d: Diagnostic) -> R<T> {
    Err(Box::new(d))
}

/// Deepest nesting of classes, equations, statements and expressions the builder accepts. The
/// tree is recursive (and so are later stages, and dropping it), so absurd nesting is refused
/// with a message instead of overflowing the stack.
pub(crate) const MAX_DEPTH: u32 = 300;

pub(crate) struct Builder {
    pub(crate) file: FileId,
    /// Where the parsed text starts in its file (a class parsed on its own, see `skeleton.rs`):
    /// added to every position so spans refer to the whole file.
    offset: usize,
    depth: Cell<u32>,
}

/// Decrements the nesting depth when a nested construct is finished.
pub(crate) struct DepthGuard<'b>(&'b Cell<u32>);

impl Drop for DepthGuard<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get().saturating_sub(1));
    }
}

impl Builder {
    pub(crate) fn new(file: FileId, offset: usize) -> Self {
        Builder {
            file,
            offset,
            depth: Cell::new(0),
        }
    }

    /// Enter a nested construct; an error when the nesting is absurdly deep.
    pub(crate) fn enter(&self, p: &P) -> R<DepthGuard<'_>> {
        let d = self.depth.get() + 1;
        if d > MAX_DEPTH {
            return err(
                Diagnostic::error(self.span(p), "the model is nested too deeply")
                    .with_label(format!("more than {MAX_DEPTH} nested levels"))
                    .with_help("split the expression or the nested blocks"),
            );
        }
        self.depth.set(d);
        Ok(DepthGuard(&self.depth))
    }

    /// The span of a pair without the whitespace pest's implicit `WHITESPACE` may leave at
    /// the end of a rule that ends in an optional part.
    pub(crate) fn span(&self, p: &P) -> Span {
        let start = p.as_span().start() + self.offset;
        let trimmed = p.as_str().trim_end_matches([' ', '\t', '\r', '\n']).len();
        Span::new(self.file, start, start + trimmed)
    }

    /// A pair the grammar should never produce at this place.
    pub(crate) fn unexpected(&self, p: &P) -> Diagnostic {
        Diagnostic::error(
            self.span(p),
            format!("internal parser error: unexpected {:?}", p.as_rule()),
        )
        .with_note("this is a bug in minimo's front end; please report it with the model")
    }

    pub(crate) fn ident(&self, p: P) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(&p),
        }
    }

    pub(crate) fn name(&self, p: P) -> Name {
        let span = self.span(&p);
        let global = p.as_str().starts_with('.');
        let parts = p.into_inner().map(|i| self.ident(i)).collect();
        Name {
            global,
            parts,
            span,
        }
    }

    // ------------------------------------------------------------------ files and classes

    pub(crate) fn stored_definition(&self, p: P) -> R<StoredDefinition> {
        let span = self.span(&p);
        let mut within = None;
        let mut classes = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::within_clause => {
                    let wspan = self.span(&c);
                    let name = c
                        .into_inner()
                        .find(|x| x.as_rule() == Rule::name)
                        .map(|n| self.name(n));
                    within = Some(Within { name, span: wspan });
                }
                Rule::top_class => {
                    let mut words = Vec::new();
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::prefix_word => words.push(x),
                            Rule::class_definition => {
                                let set = self.prefix_set(std::mem::take(&mut words))?;
                                set.check(Place::TopClass, true)?;
                                classes.push(self.class_definition(x, &set)?);
                            }
                            _ => return err(self.unexpected(&x)),
                        }
                    }
                }
                Rule::EOI => {}
                _ => return err(self.unexpected(&c)),
            }
        }
        Ok(StoredDefinition {
            within,
            classes,
            span,
        })
    }

    fn class_kind(&self, p: P) -> ClassKind {
        let words: Vec<&str> = p.as_str().split_whitespace().collect();
        match words.as_slice() {
            ["operator", "record"] => ClassKind::OperatorRecord,
            ["operator", "function"] => ClassKind::OperatorFunction,
            ["expandable", "connector"] => ClassKind::ExpandableConnector,
            ["pure", ..] => ClassKind::PureFunction,
            ["impure", ..] => ClassKind::ImpureFunction,
            ["model"] => ClassKind::Model,
            ["record"] => ClassKind::Record,
            ["block"] => ClassKind::Block,
            ["connector"] => ClassKind::Connector,
            ["type"] => ClassKind::Type,
            ["package"] => ClassKind::Package,
            ["function"] => ClassKind::Function,
            ["operator"] => ClassKind::Operator,
            _ => ClassKind::Class,
        }
    }

    /// `class_definition`, or the `class_kind short_class_specifier` pair of a redeclaration.
    pub(crate) fn class_definition(&self, p: P, set: &PrefixSet) -> R<ClassDef> {
        let span = self.span(&p);
        self.class_from_parts(p.into_inner().collect(), set, span)
    }

    fn class_from_parts(&self, parts: Vec<P>, set: &PrefixSet, span: Span) -> R<ClassDef> {
        let mut kind = ClassKind::Class;
        let mut spec = None;
        for c in parts {
            match c.as_rule() {
                Rule::class_kind => kind = self.class_kind(c),
                Rule::class_specifier | Rule::short_class_specifier => spec = Some(c),
                _ => return err(self.unexpected(&c)),
            }
        }
        let Some(spec) = spec else {
            return err(Diagnostic::error(
                span,
                "internal parser error: class without specifier",
            ));
        };
        let _guard = self.enter(&spec)?;
        let (name, body, comment) = self.class_specifier(spec)?;
        Ok(ClassDef {
            prefixes: set.class_prefixes(),
            kind,
            name,
            body,
            constrainedby: None,
            comment,
            span,
        })
    }

    fn class_specifier(&self, p: P) -> R<(Ident, ClassBody, Comment)> {
        let mut inner = p.into_inner();
        let Some(first) = inner.next() else {
            return err(Diagnostic::error(
                Span::DUMMY,
                "internal parser error: empty class specifier",
            ));
        };
        if first.as_rule() == Rule::extends_specifier {
            let mut base = None;
            let mut modification = None;
            let mut description = None;
            let mut body = None;
            for c in first.into_inner() {
                match c.as_rule() {
                    Rule::kw_extends => {}
                    Rule::IDENT => base = Some(self.ident(c)),
                    Rule::class_modification => modification = Some(self.class_modification(c)?),
                    Rule::string_comment => description = self.string_comment(c)?,
                    Rule::composition => body = Some(c),
                    Rule::end_clause => {
                        let (Some(b), Some(comp)) = (&base, body.take()) else {
                            return err(self.unexpected(&c));
                        };
                        let long = self.long_class(b, description.take(), comp, c)?;
                        return Ok((
                            b.clone(),
                            ClassBody::Extends(ExtendsClass {
                                base_name: b.clone(),
                                modification,
                                body: long,
                            }),
                            Comment::default(),
                        ));
                    }
                    _ => return err(self.unexpected(&c)),
                }
            }
            return err(Diagnostic::error(
                Span::DUMMY,
                "internal parser error: incomplete class extends",
            ));
        }
        let name = self.ident(first);
        let Some(rest) = inner.next() else {
            return err(Diagnostic::error(
                name.span,
                "internal parser error: class without body",
            ));
        };
        match rest.as_rule() {
            Rule::long_rest => {
                let mut description = None;
                let mut comp = None;
                for c in rest.into_inner() {
                    match c.as_rule() {
                        Rule::string_comment => description = self.string_comment(c)?,
                        Rule::composition => comp = Some(c),
                        Rule::end_clause => {
                            let Some(comp) = comp.take() else {
                                return err(self.unexpected(&c));
                            };
                            let long = self.long_class(&name, description.take(), comp, c)?;
                            return Ok((name, ClassBody::Long(long), Comment::default()));
                        }
                        _ => return err(self.unexpected(&c)),
                    }
                }
                err(Diagnostic::error(
                    name.span,
                    "internal parser error: incomplete class",
                ))
            }
            Rule::short_rhs => {
                let Some(spec) = rest.into_inner().next() else {
                    return err(Diagnostic::error(
                        name.span,
                        "internal parser error: empty short class",
                    ));
                };
                let (body, comment) = self.short_rhs(spec)?;
                Ok((name, body, comment))
            }
            _ => err(self.unexpected(&rest)),
        }
    }

    fn short_rhs(&self, p: P) -> R<(ClassBody, Comment)> {
        let rule = p.as_rule();
        let mut comment = Comment::default();
        match rule {
            Rule::short_spec => {
                let mut words = Vec::new();
                let mut base = None;
                let mut array_dims = Vec::new();
                let mut modification = None;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::prefix_word => words.push(c),
                        Rule::name => base = Some(self.name(c)),
                        Rule::array_subscripts => array_dims = self.subscripts(c)?,
                        Rule::class_modification => {
                            modification = Some(self.class_modification(c)?)
                        }
                        Rule::comment => comment = self.comment(c)?,
                        _ => return err(self.unexpected(&c)),
                    }
                }
                let Some(base) = base else {
                    return err(Diagnostic::error(
                        Span::DUMMY,
                        "internal parser error: short class without base",
                    ));
                };
                let set = self.prefix_set(words)?;
                set.check(Place::ShortClassBase, false)?;
                let prefixes = set.type_prefix;
                Ok((
                    ClassBody::Short(ShortClass {
                        prefixes,
                        base,
                        array_dims,
                        modification,
                    }),
                    comment,
                ))
            }
            Rule::enum_spec => {
                let mut literals = Vec::new();
                let mut colon = false;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::kw_enumeration => {}
                        Rule::enum_colon => colon = true,
                        Rule::enum_literal => {
                            let mut name = None;
                            let mut lit_comment = Comment::default();
                            for x in c.into_inner() {
                                match x.as_rule() {
                                    Rule::IDENT => name = Some(self.ident(x)),
                                    Rule::comment => lit_comment = self.comment(x)?,
                                    _ => return err(self.unexpected(&x)),
                                }
                            }
                            let Some(name) = name else {
                                return err(Diagnostic::error(
                                    Span::DUMMY,
                                    "internal parser error: enum literal",
                                ));
                            };
                            literals.push(EnumLiteral {
                                name,
                                comment: lit_comment,
                            });
                        }
                        Rule::comment => comment = self.comment(c)?,
                        _ => return err(self.unexpected(&c)),
                    }
                }
                Ok((
                    ClassBody::Enumeration(EnumerationClass { literals, colon }),
                    comment,
                ))
            }
            Rule::der_spec => {
                let mut function = None;
                let mut vars = Vec::new();
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::kw_der => {}
                        Rule::name => function = Some(self.name(c)),
                        Rule::IDENT => vars.push(self.ident(c)),
                        Rule::comment => comment = self.comment(c)?,
                        _ => return err(self.unexpected(&c)),
                    }
                }
                let Some(function) = function else {
                    return err(Diagnostic::error(
                        Span::DUMMY,
                        "internal parser error: der class",
                    ));
                };
                Ok((ClassBody::Der(DerClass { function, vars }), comment))
            }
            _ => err(self.unexpected(&p)),
        }
    }

    /// The body of a long class and the check that `end Name` repeats the class name.
    fn long_class(
        &self,
        name: &Ident,
        description: Option<StringLit>,
        comp: P,
        end: P,
    ) -> R<LongClass> {
        let end_name = match end.into_inner().find(|c| c.as_rule() == Rule::IDENT) {
            Some(i) => self.ident(i),
            None => {
                return err(Diagnostic::error(
                    name.span,
                    "internal parser error: end clause",
                ));
            }
        };
        if end_name.name != name.name {
            return err(Diagnostic::error(
                end_name.span,
                format!(
                    "`end {}` does not match the class name `{}`",
                    end_name.name, name.name
                ),
            )
            .with_label("this should repeat the class name")
            .with_secondary(name.span, format!("the class `{}` starts here", name.name))
            .with_help(format!("write `end {};`", name.name)));
        }
        let mut sections = Vec::new();
        let mut external = None;
        let mut annotation = None;
        for c in comp.into_inner() {
            match c.as_rule() {
                Rule::element_list => {
                    let span = self.span(&c);
                    let elements = self.element_list(c)?;
                    if !elements.is_empty() {
                        sections.push(Section::Elements {
                            visibility: Visibility::Public,
                            elements,
                            span,
                        });
                    }
                }
                Rule::public_section | Rule::protected_section => {
                    let visibility = if c.as_rule() == Rule::public_section {
                        Visibility::Public
                    } else {
                        Visibility::Protected
                    };
                    let span = self.span(&c);
                    let mut elements = Vec::new();
                    for x in c.into_inner() {
                        if x.as_rule() == Rule::element_list {
                            elements = self.element_list(x)?;
                        }
                    }
                    sections.push(Section::Elements {
                        visibility,
                        elements,
                        span,
                    });
                }
                Rule::equation_section => {
                    let span = self.span(&c);
                    let (initial, equations) =
                        self.section_items(c, Rule::kw_equation, Rule::equation, Self::equation)?;
                    sections.push(Section::Equations {
                        initial,
                        equations,
                        span,
                    });
                }
                Rule::algorithm_section => {
                    let span = self.span(&c);
                    let (initial, statements) = self.section_items(
                        c,
                        Rule::kw_algorithm,
                        Rule::statement,
                        Self::statement,
                    )?;
                    sections.push(Section::Algorithm {
                        initial,
                        statements,
                        span,
                    });
                }
                Rule::external_clause => {
                    if let Some(body) = c.into_inner().find(|x| x.as_rule() == Rule::external_body)
                    {
                        external = Some(External {
                            text: body.as_str().to_string(),
                            span: self.span(&body),
                        });
                    }
                }
                Rule::annotation_clause => annotation = Some(self.annotation(c)?),
                _ => return err(self.unexpected(&c)),
            }
        }
        Ok(LongClass {
            description,
            sections,
            external,
            annotation,
            end_name,
        })
    }

    // ------------------------------------------------------------------ elements

    fn element_list(&self, p: P) -> R<Vec<Element>> {
        let mut out = Vec::new();
        for e in p.into_inner() {
            let Some(inner) = e.into_inner().next() else {
                continue;
            };
            out.push(self.element(inner)?);
        }
        Ok(out)
    }

    fn element(&self, p: P) -> R<Element> {
        match p.as_rule() {
            Rule::import_clause => self.import(p).map(Element::Import),
            Rule::extends_clause => {
                let span = self.span(&p);
                let mut base = None;
                let mut modification = None;
                let mut annotation = None;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::kw_extends => {}
                        Rule::name => base = Some(self.name(c)),
                        Rule::class_modification => {
                            modification = Some(self.class_modification(c)?)
                        }
                        Rule::annotation_clause => annotation = Some(self.annotation(c)?),
                        _ => return err(self.unexpected(&c)),
                    }
                }
                let Some(base) = base else {
                    return err(Diagnostic::error(
                        span,
                        "internal parser error: extends without name",
                    ));
                };
                Ok(Element::Extends(Extends {
                    base,
                    modification,
                    annotation,
                    span,
                }))
            }
            Rule::element_decl => {
                let mut words = Vec::new();
                let mut el = None;
                let mut cons: Option<Constrainedby> = None;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::prefix_word => words.push(c),
                        Rule::class_definition => {
                            let set = self.prefix_set(std::mem::take(&mut words))?;
                            set.check(Place::Class, true)?;
                            el = Some(Element::Class(Box::new(self.class_definition(c, &set)?)))
                        }
                        Rule::component_clause => {
                            let set = self.prefix_set(std::mem::take(&mut words))?;
                            set.check(Place::Component, false)?;
                            el = Some(Element::Component(self.component_clause(c, &set)?))
                        }
                        Rule::constraining_clause => cons = Some(self.constraining_clause(c)?),
                        Rule::comment => {
                            if let Some(cb) = cons.as_mut() {
                                cb.comment = self.comment(c)?;
                            }
                        }
                        _ => return err(self.unexpected(&c)),
                    }
                }
                match el {
                    Some(Element::Class(mut cd)) => {
                        cd.constrainedby = cons;
                        Ok(Element::Class(cd))
                    }
                    Some(Element::Component(mut cc)) => {
                        cc.constrainedby = cons;
                        Ok(Element::Component(cc))
                    }
                    Some(other) => Ok(other),
                    None => err(Diagnostic::error(
                        Span::DUMMY,
                        "internal parser error: empty element",
                    )),
                }
            }
            _ => err(self.unexpected(&p)),
        }
    }

    fn import(&self, p: P) -> R<Import> {
        let span = self.span(&p);
        let mut name = None;
        let mut kind = ImportKind::Named { alias: None };
        let mut comment = Comment::default();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::kw_import => {}
                Rule::import_alias => {
                    let mut it = c.into_inner();
                    if let (Some(a), Some(n)) = (it.next(), it.next()) {
                        kind = ImportKind::Named {
                            alias: Some(self.ident(a)),
                        };
                        name = Some(self.name(n));
                    }
                }
                Rule::import_path => {
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::name => name = Some(self.name(x)),
                            Rule::import_star => kind = ImportKind::Unqualified,
                            Rule::import_list => {
                                kind = ImportKind::Multiple(
                                    x.into_inner().map(|i| self.ident(i)).collect(),
                                )
                            }
                            _ => return err(self.unexpected(&x)),
                        }
                    }
                }
                Rule::comment => comment = self.comment(c)?,
                _ => return err(self.unexpected(&c)),
            }
        }
        let Some(name) = name else {
            return err(Diagnostic::error(
                span,
                "internal parser error: import without name",
            ));
        };
        Ok(Import {
            name,
            kind,
            comment,
            span,
        })
    }

    fn constraining_clause(&self, p: P) -> R<Constrainedby> {
        let span = self.span(&p);
        let mut name = None;
        let mut modification = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::kw_constrainedby => {}
                Rule::name => name = Some(self.name(c)),
                Rule::class_modification => modification = Some(self.class_modification(c)?),
                _ => return err(self.unexpected(&c)),
            }
        }
        let Some(name) = name else {
            return err(Diagnostic::error(
                span,
                "internal parser error: constrainedby without name",
            ));
        };
        Ok(Constrainedby {
            name,
            modification,
            comment: Comment::default(),
            span,
        })
    }

    /// `component_clause`, or the `name component_declaration1` pair of a redeclaration
    /// (`parts` are the children).
    fn component_clause(&self, p: P, set: &PrefixSet) -> R<ComponentClause> {
        let span = self.span(&p);
        self.component_from_parts(p.into_inner().collect(), set, span)
    }

    fn component_from_parts(
        &self,
        parts: Vec<P>,
        set: &PrefixSet,
        span: Span,
    ) -> R<ComponentClause> {
        let mut type_name = None;
        let mut type_dims = Vec::new();
        let mut components = Vec::new();
        for c in parts {
            match c.as_rule() {
                Rule::name => type_name = Some(self.name(c)),
                Rule::array_subscripts => type_dims = self.subscripts(c)?,
                Rule::component_declaration | Rule::component_declaration1 => {
                    components.push(self.component_declaration(c)?)
                }
                _ => return err(self.unexpected(&c)),
            }
        }
        let Some(type_name) = type_name else {
            return err(Diagnostic::error(
                span,
                "internal parser error: component without type",
            ));
        };
        Ok(ComponentClause {
            element_prefixes: set.element.clone(),
            prefix: set.type_prefix.clone(),
            type_name,
            type_dims,
            components,
            constrainedby: None,
            span,
        })
    }

    fn component_declaration(&self, p: P) -> R<ComponentDecl> {
        let span = self.span(&p);
        let mut name = None;
        let mut dims = Vec::new();
        let mut modification = None;
        let mut condition = None;
        let mut comment = Comment::default();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::IDENT => name = Some(self.ident(c)),
                Rule::array_subscripts => dims = self.subscripts(c)?,
                Rule::modification => modification = Some(self.modification(c)?),
                Rule::condition_attribute => {
                    if let Some(e) = c.into_inner().nth(1) {
                        condition = Some(self.expr(e)?);
                    }
                }
                Rule::comment => comment = self.comment(c)?,
                _ => return err(self.unexpected(&c)),
            }
        }
        let Some(name) = name else {
            return err(Diagnostic::error(
                span,
                "internal parser error: declaration without name",
            ));
        };
        Ok(ComponentDecl {
            name,
            dims,
            modification,
            condition,
            comment,
            span,
        })
    }

    // ------------------------------------------------------------------ modifications

    pub(crate) fn modification(&self, p: P) -> R<Modification> {
        let span = self.span(&p);
        let mut args = None;
        let mut binding = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::class_modification => args = Some(self.class_modification(c)?),
                Rule::binding => binding = Some(self.first_expr(c)?),
                Rule::assign_binding => {
                    let expr = self.first_expr(c)?;
                    return Ok(Modification::Assign { expr, span });
                }
                _ => return err(self.unexpected(&c)),
            }
        }
        match (args, binding) {
            (Some(args), binding) => Ok(Modification::Class {
                args,
                binding,
                span,
            }),
            (None, Some(expr)) => Ok(Modification::Binding { expr, span }),
            (None, None) => err(Diagnostic::error(
                span,
                "internal parser error: empty modification",
            )),
        }
    }

    /// The first expression child of a pair (`binding`, `assign_rhs`...).
    pub(crate) fn first_expr(&self, p: P) -> R<Expr> {
        let span = self.span(&p);
        match p
            .into_inner()
            .find(|c| matches!(c.as_rule(), Rule::simple_expression | Rule::if_expression))
        {
            Some(e) => self.expr(e),
            None => err(Diagnostic::error(
                span,
                "internal parser error: missing expression",
            )),
        }
    }

    pub(crate) fn class_modification(&self, p: P) -> R<ClassModification> {
        let span = self.span(&p);
        let mut args = Vec::new();
        for a in p.into_inner() {
            args.push(self.argument(a)?);
        }
        Ok(ClassModification { args, span })
    }

    fn argument(&self, p: P) -> R<Argument> {
        let span = self.span(&p);
        let mut words = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::prefix_word => words.push(c),
                Rule::element_modification => {
                    let set = self.prefix_set(std::mem::take(&mut words))?;
                    set.check(Place::Argument, false)?;
                    if let Some(w) = set.first_of(&[
                        "redeclare",
                        "replaceable",
                        "flow",
                        "stream",
                        "discrete",
                        "parameter",
                        "constant",
                        "input",
                        "output",
                    ]) {
                        return err(Diagnostic::error(
                            w.1,
                            format!("`{}` must be followed by a declaration", w.0),
                        )
                        .with_help(
                            "write e.g. `redeclare model L = Coulomb` or `redeclare Real x = 1`",
                        ));
                    }
                    let mut name = None;
                    let mut modification = None;
                    let mut description = None;
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::name => name = Some(self.name(x)),
                            Rule::modification => modification = Some(self.modification(x)?),
                            Rule::string_comment => description = self.string_comment(x)?,
                            _ => return err(self.unexpected(&x)),
                        }
                    }
                    let Some(name) = name else {
                        return err(Diagnostic::error(
                            span,
                            "internal parser error: modifier without name",
                        ));
                    };
                    return Ok(Argument::Modify {
                        each: set.each,
                        final_: set.element.final_,
                        name,
                        modification,
                        description,
                        span,
                    });
                }
                Rule::redeclaration => {
                    let rspan = self.span(&c);
                    let mut parts = Vec::new();
                    let mut cons = None;
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::constraining_clause => cons = Some(self.constraining_clause(x)?),
                            _ => parts.push(x),
                        }
                    }
                    let is_class = parts
                        .first()
                        .is_some_and(|x| x.as_rule() == Rule::class_kind);
                    let set = self.prefix_set(std::mem::take(&mut words))?;
                    set.check(Place::Argument, is_class)?;
                    if !set.element.redeclare && !set.element.replaceable {
                        return err(Diagnostic::error(
                            rspan,
                            "a declaration in a modifier needs `redeclare`",
                        )
                        .with_help(
                            "write `redeclare` before it, or use `name = value` to modify",
                        ));
                    }
                    let element_set = PrefixSet {
                        element: ElementPrefixes {
                            redeclare: set.element.redeclare,
                            final_: set.element.final_,
                            replaceable: set.element.replaceable,
                            ..Default::default()
                        },
                        type_prefix: set.type_prefix.clone(),
                        encapsulated: set.encapsulated,
                        partial: set.partial,
                        ..Default::default()
                    };
                    let element = if is_class {
                        let mut cd = self.class_from_parts(parts, &element_set, rspan)?;
                        cd.constrainedby = cons;
                        RedeclaredElement::Class(Box::new(cd))
                    } else {
                        let mut cc = self.component_from_parts(parts, &element_set, rspan)?;
                        cc.constrainedby = cons;
                        RedeclaredElement::Component(Box::new(cc))
                    };
                    return Ok(Argument::Redeclare {
                        redeclare: set.element.redeclare,
                        each: set.each,
                        final_: set.element.final_,
                        replaceable: set.element.replaceable,
                        element,
                        span,
                    });
                }
                _ => return err(self.unexpected(&c)),
            }
        }
        err(Diagnostic::error(
            span,
            "internal parser error: empty argument",
        ))
    }

    // ------------------------------------------------------------------ comments, strings

    pub(crate) fn comment(&self, p: P) -> R<Comment> {
        let mut out = Comment::default();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::string_comment => out.description = self.string_comment(c)?,
                Rule::annotation_clause => out.annotation = Some(self.annotation(c)?),
                _ => return err(self.unexpected(&c)),
            }
        }
        Ok(out)
    }

    /// `"a" + "b"` joined into one literal; `None` when there is no string.
    fn string_comment(&self, p: P) -> R<Option<StringLit>> {
        let span = self.span(&p);
        let mut value = String::new();
        let mut any = false;
        for s in p.into_inner() {
            value.push_str(&self.string_value(&s)?);
            any = true;
        }
        Ok(any.then_some(StringLit { value, span }))
    }

    fn annotation(&self, p: P) -> R<Annotation> {
        let span = self.span(&p);
        match p
            .into_inner()
            .find(|c| c.as_rule() == Rule::class_modification)
        {
            Some(m) => Ok(Annotation {
                modification: self.class_modification(m)?,
                span,
            }),
            None => err(Diagnostic::error(span, "internal parser error: annotation")),
        }
    }

    /// The value of a `STRING` token with escapes resolved.
    pub(crate) fn string_value(&self, p: &P) -> R<String> {
        let raw = p.as_str();
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
        let base = p.as_span().start() + self.offset + 1;
        let mut out = String::with_capacity(body.len());
        let mut chars = body.char_indices();
        while let Some((i, ch)) = chars.next() {
            if ch != '\\' {
                out.push(ch);
                continue;
            }
            let Some((j, e)) = chars.next() else { break };
            out.push(match e {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '"' => '"',
                '\'' => '\'',
                '\\' => '\\',
                '?' => '?',
                'a' => '\u{7}',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'v' => '\u{b}',
                _ => {
                    return err(Diagnostic::error(
                        Span::new(self.file, base + i, base + j + e.len_utf8()),
                        format!("unknown escape `\\{e}` in string"),
                    )
                    .with_help("the escapes are \\\" \\' \\\\ \\? \\a \\b \\f \\n \\r \\t \\v"));
                }
            });
        }
        Ok(out)
    }

    // ------------------------------------------------------------------ equations

    /// An equation or algorithm section: whether it is `initial`, and its items (pairs of
    /// `item_rule` built by `item`) after the section keyword `section_kw`.
    fn section_items<B>(
        &self,
        p: P,
        section_kw: Rule,
        item_rule: Rule,
        item: impl Fn(&Self, P) -> R<B>,
    ) -> R<(bool, Vec<B>)> {
        let mut initial = false;
        let mut items = Vec::new();
        for x in p.into_inner() {
            match x.as_rule() {
                Rule::kw_initial => initial = true,
                r if r == section_kw => {}
                r if r == item_rule => items.push(item(self, x)?),
                _ => return err(self.unexpected(&x)),
            }
        }
        Ok((initial, items))
    }

    /// An equation or a statement: its kind (built by `kind`), then an optional comment.
    fn commented<K>(
        &self,
        p: P,
        what: &str,
        kind: impl Fn(&Self, P) -> R<K>,
    ) -> R<(K, Comment, Span)> {
        let _guard = self.enter(&p)?;
        let span = self.span(&p);
        let mut built = None;
        let mut comment = Comment::default();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::comment => comment = self.comment(c)?,
                _ => built = Some(kind(self, c)?),
            }
        }
        match built {
            Some(kind) => Ok((kind, comment, span)),
            None => err(Diagnostic::error(
                span,
                format!("internal parser error: empty {what}"),
            )),
        }
    }

    /// The body of a `for` equation or statement: its indices and the block of `block_rule`.
    fn for_parts<B>(
        &self,
        p: P,
        block_rule: Rule,
        block: impl Fn(&Self, P) -> R<Vec<B>>,
    ) -> R<(Vec<ForIndex>, Vec<B>)> {
        let mut indices = Vec::new();
        let mut body = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::for_indices => indices = self.for_indices(c)?,
                r if r == block_rule => body = block(self, c)?,
                _ => {}
            }
        }
        Ok((indices, body))
    }

    /// The branches of an `if` or `when` equation or statement (condition and block of
    /// `block_rule`) and its `else` block (empty when absent).
    #[allow(clippy::type_complexity)]
    fn branch_parts<B>(
        &self,
        p: P,
        block_rule: Rule,
        block: impl Fn(&Self, P) -> R<Vec<B>>,
    ) -> R<(Vec<(Expr, Vec<B>)>, Vec<B>)> {
        let mut branches = Vec::new();
        let mut else_ = Vec::new();
        let mut cond = None;
        let mut in_else = false;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::kw_else => in_else = true,
                r if r == block_rule => {
                    let b = block(self, c)?;
                    if in_else {
                        else_ = b;
                    } else if let Some(cnd) = cond.take() {
                        branches.push((cnd, b));
                    }
                }
                Rule::simple_expression | Rule::if_expression => cond = Some(self.expr(c)?),
                _ => {}
            }
        }
        Ok((branches, else_))
    }

    fn equation(&self, p: P) -> R<Equation> {
        let (kind, comment, span) = self.commented(p, "equation", Self::equation_kind)?;
        Ok(Equation {
            kind,
            comment,
            span,
        })
    }

    fn equations(&self, p: P) -> R<Vec<Equation>> {
        p.into_inner().map(|e| self.equation(e)).collect()
    }

    fn equation_kind(&self, p: P) -> R<EquationKind> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::simple_equation => {
                let mut it = p.into_inner();
                let Some(l) = it.next() else {
                    return err(Diagnostic::error(
                        span,
                        "internal parser error: empty equation",
                    ));
                };
                let lhs = self.expr(l)?;
                match it.next() {
                    Some(r) => Ok(EquationKind::Simple {
                        lhs,
                        rhs: self.expr(r)?,
                    }),
                    None => {
                        match lhs.kind {
                            ExprKind::Call { func, args } => Ok(EquationKind::Call { func, args }),
                            _ => {
                                let end = lhs.span.end as usize;
                                err(Diagnostic::error(
                                Span::new(self.file, end, end),
                                "expected `=` in the equation: an equation has the form `a = b`",
                            )
                            .with_label("expected `=` here")
                            .with_secondary(lhs.span, "this expression is not an equation on its own"))
                            }
                        }
                    }
                }
            }
            Rule::connect_clause => {
                let refs: Vec<P> = p
                    .into_inner()
                    .filter(|c| c.as_rule() == Rule::component_reference)
                    .collect();
                let mut it = refs.into_iter();
                match (it.next(), it.next()) {
                    (Some(a), Some(b)) => Ok(EquationKind::Connect {
                        a: self.component_reference(a)?,
                        b: self.component_reference(b)?,
                    }),
                    _ => err(Diagnostic::error(span, "internal parser error: connect")),
                }
            }
            Rule::for_equation => {
                let (indices, body) = self.for_parts(p, Rule::equation_block, Self::equations)?;
                Ok(EquationKind::For { indices, body })
            }
            Rule::if_equation | Rule::when_equation => {
                let is_if = p.as_rule() == Rule::if_equation;
                let (branches, else_) =
                    self.branch_parts(p, Rule::equation_block, Self::equations)?;
                Ok(if is_if {
                    EquationKind::If { branches, else_ }
                } else {
                    EquationKind::When { branches }
                })
            }
            _ => err(self.unexpected(&p)),
        }
    }

    pub(crate) fn for_indices(&self, p: P) -> R<Vec<ForIndex>> {
        let mut out = Vec::new();
        for i in p.into_inner() {
            let mut name = None;
            let mut range = None;
            for c in i.into_inner() {
                match c.as_rule() {
                    Rule::IDENT => name = Some(self.ident(c)),
                    Rule::kw_in => {}
                    _ => range = Some(self.expr(c)?),
                }
            }
            if let Some(name) = name {
                out.push(ForIndex { name, range });
            }
        }
        Ok(out)
    }

    // ------------------------------------------------------------------ statements

    fn statement(&self, p: P) -> R<Statement> {
        let (kind, comment, span) = self.commented(p, "statement", Self::statement_kind)?;
        Ok(Statement {
            kind,
            comment,
            span,
        })
    }

    fn statements(&self, p: P) -> R<Vec<Statement>> {
        p.into_inner().map(|s| self.statement(s)).collect()
    }

    fn statement_kind(&self, p: P) -> R<StatementKind> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::kw_break => Ok(StatementKind::Break),
            Rule::kw_return => Ok(StatementKind::Return),
            Rule::statement_ref => {
                let mut it = p.into_inner();
                let (Some(r), Some(rest)) = (it.next(), it.next()) else {
                    return err(Diagnostic::error(span, "internal parser error: statement"));
                };
                let target = self.component_reference(r)?;
                if rest.as_rule() == Rule::assign_rhs {
                    Ok(StatementKind::Assign {
                        target,
                        value: self.first_expr(rest)?,
                    })
                } else {
                    Ok(StatementKind::Call {
                        func: target,
                        args: self.function_call_args(rest)?,
                    })
                }
            }
            Rule::multi_assign => {
                let mut targets = Vec::new();
                let mut func = None;
                let mut args = None;
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::out_item => match c.into_inner().next() {
                            None => targets.push(None),
                            Some(e) => {
                                let e = self.expr(e)?;
                                match e.kind {
                                    ExprKind::Ref(r) => targets.push(Some(r)),
                                    _ => {
                                        return err(Diagnostic::error(
                                            e.span,
                                            "only variables may appear on the left of `:=`",
                                        ));
                                    }
                                }
                            }
                        },
                        Rule::component_reference => func = Some(self.component_reference(c)?),
                        Rule::function_call_args => args = Some(c),
                        _ => return err(self.unexpected(&c)),
                    }
                }
                let (Some(func), Some(args)) = (func, args) else {
                    return err(Diagnostic::error(
                        span,
                        "internal parser error: multiple assignment",
                    ));
                };
                let call_span = func.span.to(self.span(&args));
                let args = self.function_call_args(args)?;
                Ok(StatementKind::MultiAssign {
                    targets,
                    value: Expr {
                        kind: ExprKind::Call { func, args },
                        span: call_span,
                    },
                })
            }
            Rule::for_statement => {
                let (indices, body) = self.for_parts(p, Rule::statement_block, Self::statements)?;
                Ok(StatementKind::For { indices, body })
            }
            Rule::while_statement => {
                let mut condition = None;
                let mut body = Vec::new();
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::statement_block => body = self.statements(c)?,
                        Rule::simple_expression | Rule::if_expression => {
                            condition = Some(self.expr(c)?)
                        }
                        _ => {}
                    }
                }
                let Some(condition) = condition else {
                    return err(Diagnostic::error(span, "internal parser error: while"));
                };
                Ok(StatementKind::While { condition, body })
            }
            Rule::if_statement | Rule::when_statement => {
                let is_if = p.as_rule() == Rule::if_statement;
                let (branches, else_) =
                    self.branch_parts(p, Rule::statement_block, Self::statements)?;
                Ok(if is_if {
                    StatementKind::If { branches, else_ }
                } else {
                    StatementKind::When { branches }
                })
            }
            _ => err(self.unexpected(&p)),
        }
    }
}
