//! Type prefixes of components (MLS 4.4.2.2, 9.3):
//!
//! - `flow`, `stream`, `discrete`, `parameter`, `constant`, `input`, `output` apply to
//!   components of types, records, operator records and connectors (and, for functional
//!   arguments, `input` to functions), never to models, blocks or packages;
//! - a connector component is neither `parameter` nor `constant`;
//! - an `input` is neither `parameter` nor `constant`;
//! - a primitive `flow` or `stream` variable is a `Real`; a structured `stream` component is
//!   a record of `Real`s;
//! - `flow`/`stream` on a structured component: none of its elements (at any depth) is
//!   `flow` or `stream`; `input`/`output` on a structured component: none of its elements is
//!   `input` or `output` (the prefix is then applied to all of them).

use crate::dae::ScalarType;
use crate::diag::{Diagnostic, Span};
use crate::flatten::Flattener;
use crate::flatten::expand::{CompElem, Expanded, Prim, merge_prefix};
use crate::syntax::ast::{Causality, ClassKind, Connection, TypePrefix, Variability};
use std::rc::Rc;

/// The prefixes found on the elements of a structured component.
#[derive(Default)]
struct Inside {
    /// (element path, prefix word) of the first `flow`/`stream` element.
    flow_or_stream: Option<(String, &'static str)>,
    /// (element path, prefix word) of the first `input`/`output` element.
    causal: Option<(String, &'static str)>,
    /// The first primitive element that is not a `Real`.
    non_real: Option<String>,
}

fn connection_word(c: Connection) -> &'static str {
    match c {
        Connection::Flow => "flow",
        Connection::Stream => "stream",
        Connection::None => "",
    }
}

fn causality_word(c: Causality) -> &'static str {
    match c {
        Causality::Input => "input",
        Causality::Output => "output",
        Causality::None => "",
    }
}

fn variability_word(v: Variability) -> &'static str {
    match v {
        Variability::Discrete => "discrete",
        Variability::Parameter => "parameter",
        Variability::Constant => "constant",
        Variability::Continuous => "",
    }
}

impl Flattener<'_> {
    /// Checks the type prefixes of declaration `e` whose type expands to `exp`.
    pub fn check_type_prefixes(
        &mut self,
        e: &CompElem,
        exp: &Rc<Expanded>,
    ) -> Result<(), Diagnostic> {
        let pre = merge_prefix(&e.clause.prefix, &exp.type_prefix);
        let span = e.decl().name.span;
        let tname = self.tree.get(exp.id).full.clone();
        let words: Vec<&'static str> = [
            connection_word(pre.connection),
            variability_word(pre.variability),
            causality_word(pre.causality),
        ]
        .into_iter()
        .filter(|w| !w.is_empty())
        .collect();
        if words.is_empty() {
            return Ok(());
        }
        let prefix_err = |msg: String, note: &str| {
            Diagnostic::error(span, msg)
                .with_label("type prefix")
                .with_note(note.to_string())
        };
        // Models, blocks and packages take no type prefix.
        if matches!(
            exp.kind,
            ClassKind::Model | ClassKind::Block | ClassKind::Package
        ) {
            let kind = match exp.kind {
                ClassKind::Model => "model",
                ClassKind::Block => "block",
                _ => "package",
            };
            return Err(prefix_err(
                format!(
                    "`{}` cannot be declared `{}`: its type `{tname}` is a {kind}",
                    e.name, words[0]
                ),
                "type prefixes (flow, stream, discrete, parameter, constant, input, output) \
                 only apply to components of types, records and connectors (MLS 4.4.2.2)",
            ));
        }
        if exp.is_function() {
            // A functional input argument (MLS 12.4.2); anything else is refused elsewhere.
            return Ok(());
        }
        if exp.is_connector()
            && matches!(
                pre.variability,
                Variability::Parameter | Variability::Constant
            )
        {
            return Err(prefix_err(
                format!(
                    "the connector component `{}` cannot be declared `{}`",
                    e.name,
                    variability_word(pre.variability)
                ),
                "a connector component shall not be declared parameter or constant (MLS 9.3)",
            ));
        }
        if pre.causality == Causality::Input
            && matches!(
                pre.variability,
                Variability::Parameter | Variability::Constant
            )
        {
            return Err(prefix_err(
                format!(
                    "`{}` cannot be both `input` and `{}`",
                    e.name,
                    variability_word(pre.variability)
                ),
                "an input is provided from outside; it cannot also be a parameter or constant \
                 (MLS 4.4.2.2)",
            ));
        }
        if pre.connection == Connection::None && pre.causality == Causality::None {
            return Ok(());
        }
        // `flow`/`stream`/`input`/`output` on a primitive component.
        if let Some(prim) = &exp.prim {
            let real = matches!(prim, Prim::Scalar(ScalarType::Real));
            if pre.connection != Connection::None && !real {
                let word = connection_word(pre.connection);
                return Err(prefix_err(
                    format!(
                        "`{}` cannot be declared `{word}`: its type `{tname}` is not a subtype of Real",
                        e.name
                    ),
                    "flow and stream variables are Real (MLS 4.4.2.2)",
                ));
            }
            return Ok(());
        }
        if matches!(exp.kind, ClassKind::OperatorRecord) {
            if pre.connection == Connection::Flow {
                self.check_flow_operator_record(exp.id, span, &e.name)?;
            }
            return Ok(());
        }
        let mut inside = Inside::default();
        self.prefixes_inside(exp, "", &mut inside, 0);
        if pre.connection != Connection::None {
            let word = connection_word(pre.connection);
            if let Some((path, w)) = &inside.flow_or_stream {
                return Err(conflict(span, &e.name, word, path, w, &tname));
            }
            if pre.connection == Connection::Stream {
                if !matches!(exp.kind, ClassKind::Record) {
                    return Err(prefix_err(
                        format!(
                            "`{}` cannot be declared `stream`: its type `{tname}` is neither a \
                             subtype of Real nor a record",
                            e.name
                        ),
                        "stream variables are Real, or records of Reals (MLS 4.4.2.2)",
                    ));
                }
                if let Some(path) = &inside.non_real {
                    return Err(prefix_err(
                        format!(
                            "`{}` cannot be declared `stream`: its element `{path}` is not a Real",
                            e.name
                        ),
                        "a stream record has only Real elements (MLS 4.4.2.2)",
                    ));
                }
            }
        }
        if pre.causality != Causality::None {
            let word = causality_word(pre.causality);
            if let Some((path, w)) = &inside.causal {
                return Err(conflict(span, &e.name, word, path, w, &tname));
            }
        }
        Ok(())
    }

    /// Collects the prefixes declared on the elements of `exp`, recursively.
    fn prefixes_inside(&mut self, exp: &Expanded, base: &str, out: &mut Inside, depth: usize) {
        if depth > 16 {
            return;
        }
        for c in &exp.components {
            let path = if base.is_empty() {
                c.name.clone()
            } else {
                format!("{base}.{}", c.name)
            };
            let Ok(ty) = self.lookup_class_name(&c.clause.type_name, c.lex, None) else {
                continue;
            };
            let Ok(cexp) = self.expanded(ty) else {
                continue;
            };
            let pre: TypePrefix = merge_prefix(&c.clause.prefix, &cexp.type_prefix);
            if pre.connection != Connection::None && out.flow_or_stream.is_none() {
                out.flow_or_stream = Some((path.clone(), connection_word(pre.connection)));
            }
            if pre.causality != Causality::None && out.causal.is_none() {
                out.causal = Some((path.clone(), causality_word(pre.causality)));
            }
            match &cexp.prim {
                Some(p)
                    if !matches!(p, Prim::Scalar(ScalarType::Real))
                        && pre.variability != Variability::Constant
                        && out.non_real.is_none() =>
                {
                    out.non_real = Some(path);
                }
                Some(_) => {}
                None if !cexp.is_function() && cexp.id != exp.id => {
                    self.prefixes_inside(&cexp, &path, out, depth + 1);
                }
                None => {}
            }
        }
    }
}

fn conflict(span: Span, name: &str, word: &str, path: &str, w: &str, tname: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("`{name}` cannot be declared `{word}`: its element `{path}` is already `{w}`"),
    )
    .with_label("conflicting type prefix")
    .with_note(format!(
        "`{word}` on a component of `{tname}` would apply to all its elements; that is only \
         allowed when none of them has a prefix of the same kind (flow/stream, input/output; \
         MLS 4.4.2.2)"
    ))
}
