//! A function called for its effect (`check(x);` as an equation or statement) with arguments
//! known only during the run.
//!
//! A Modelica function has no side effects except the `assert`s and `terminate`s it runs (and
//! what it prints), so the call's whole meaning is "fail when the body fails". It becomes an
//! `assert` whose condition is a call of a generated wrapper: the function's own body with one
//! extra Boolean output set to `true` before the body runs. A failing assert inside the body
//! makes the wrapper's call fail (false at run time), which fails the assert with the body's
//! message; the assert is checked where the call stands (at each accepted step, or at the
//! event of the `when` around it). Dropping the call instead ran none of its asserts.
//!
//! The run evaluates every branch of an `if` (the tape is straight-line code), so a call in a
//! branch is guarded inside the wrapper: its last input `active` says whether the branch is
//! taken ([`guarded`]), and the body runs only then (a print in a branch not taken prints
//! nothing).

use crate::dae::{BinOp, Expr, Function, FunctionVar, ScalarType};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;
use std::collections::BTreeMap;

/// How a wrapper's name ends.
pub const SUFFIX: &str = ".__effect";

/// How the message of a call's assert ends (the run replaces it by the call's own message).
pub const FAILED: &str = "for its effect failed";

/// The message of the assert of a call of `name` for its effect.
pub fn message(name: &str) -> String {
    format!("the call of `{name}` {FAILED}")
}

/// The name of the wrapper of `fname`, generated into `functions` on first use.
pub fn wrapper(
    functions: &mut BTreeMap<String, Function>,
    fname: &str,
    span: Span,
) -> Result<String, Diagnostic> {
    let name = format!("{fname}{SUFFIX}");
    if functions.contains_key(&name) {
        return Ok(name);
    }
    let f = functions
        .get(fname)
        .ok_or_else(|| Diagnostic::error(span, format!("internal: function `{fname}` missing")))?;
    let taken = |n: &str| {
        f.inputs
            .iter()
            .chain(&f.outputs)
            .chain(&f.locals)
            .any(|v| v.name == n)
    };
    let fresh = |base: &str| {
        let mut n = base.to_string();
        while taken(&n) {
            n.push('_');
        }
        n
    };
    let (ok, active) = (fresh("done"), fresh("active"));
    let boolean = |name: &str| FunctionVar {
        name: name.to_string(),
        ty: ScalarType::Boolean,
        dims: Vec::new(),
        default: None,
    };
    let set_ok = statement(
        ast::StatementKind::Assign {
            target: ast::ComponentRef::single(&ok, span),
            value: ast::Expr {
                kind: ast::ExprKind::Boolean(true),
                span,
            },
        },
        span,
    );
    let body = if f.native.is_some() {
        // An external function has no body to copy: the wrapper calls it.
        vec![statement(call_of(f, span)?, span)]
    } else {
        f.body.clone()
    };
    let run_if_active = statement(
        ast::StatementKind::If {
            branches: vec![(
                ast::Expr {
                    kind: ast::ExprKind::Ref(ast::ComponentRef::single(&active, span)),
                    span,
                },
                body,
            )],
            else_: Vec::new(),
        },
        span,
    );
    let mut locals = f.locals.clone();
    locals.extend(f.outputs.iter().cloned());
    let mut inputs = f.inputs.clone();
    inputs.push(boolean(&active));
    let mut input_groups = f.input_groups.clone();
    if !input_groups.is_empty() {
        input_groups.push(crate::dae::ArgGroup {
            name: active.clone(),
            first: f.inputs.len(),
            fields: None,
            record_dims: 0,
        });
    }
    let w = Function {
        name: name.clone(),
        inputs,
        outputs: vec![boolean(&ok)],
        locals,
        body: vec![set_ok, run_if_active],
        span: f.span,
        native: None,
        derivative: None,
        input_groups,
        output_groups: Vec::new(),
        folded: Vec::new(),
        inline_after_index_reduction: false,
    };
    functions.insert(name.clone(), w);
    Ok(name)
}

/// The condition of a call's assert under the branch condition `taken`: the wrapper's call
/// with `taken` added to its `active` input. `None` for any other condition.
pub fn guarded(condition: &Expr, taken: &Expr) -> Option<Expr> {
    let Expr::UserCall {
        function,
        args,
        output,
        element,
    } = condition
    else {
        return None;
    };
    if !function.ends_with(SUFFIX) {
        return None;
    }
    let mut args = args.clone();
    let active = args.pop()?;
    args.push(Expr::binary(BinOp::And, active, taken.clone()));
    Some(Expr::UserCall {
        function: function.clone(),
        args,
        output: *output,
        element: *element,
    })
}

fn statement(kind: ast::StatementKind, span: Span) -> ast::Statement {
    ast::Statement {
        kind,
        comment: Default::default(),
        span,
    }
}

/// `f(in1, in2, ...)` with the inputs of `f` by name (an external function's inputs are
/// plain names: records are not passed to external functions field by field).
fn call_of(f: &Function, span: Span) -> Result<ast::StatementKind, Diagnostic> {
    if let Some(v) = f.inputs.iter().find(|v| v.name.contains('.')) {
        return Err(Diagnostic::error(
            span,
            format!(
                "calling the external function `{}` for its effect with a record input (`{}`) known only during the run is not supported",
                f.name, v.name
            ),
        ));
    }
    let positional = f
        .inputs
        .iter()
        .map(|v| ast::Expr {
            kind: ast::ExprKind::Ref(ast::ComponentRef::single(&v.name, span)),
            span,
        })
        .collect();
    Ok(ast::StatementKind::Call {
        func: super::functional_args::name_ref(&f.name, span),
        args: ast::FunctionArgs {
            positional,
            named: Vec::new(),
            iterators: Vec::new(),
            span,
        },
    })
}
