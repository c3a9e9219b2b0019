//! Partial derivatives of user functions.
//!
//! On the flat level a user function is an algorithm (syntax-tree statements) that cannot be
//! inlined into a scalar expression. Its partial derivative with respect to scalar input `k` is
//! therefore a generated function, added to `FlatModel::functions`, that evaluates the original
//! function twice and takes the central difference
//! `(f(.., x_k + h, ..) - f(.., x_k - h, ..)) / (2 h)` with `h = 6.1e-6 * max(|x_k|, 1)`
//! (about the cube root of the machine epsilon, which balances truncation and rounding error:
//! relative accuracy near 1e-10 for smooth functions). The simulator runs it like any user
//! function. Record inputs and outputs are passed field by field (`flatten::fn_records`), so `k`
//! and the output number count fields. A Real vector input that changes with time gets one such
//! function per element that changes (`partial_element_call`: the MoistAir enthalpy of
//! `{Xi[1]}`); matrix inputs and array outputs are refused with a message.

use crate::dae::{Expr, FlatModel, Function, FunctionVar, ScalarType};
use crate::diag::Span;
use crate::syntax::ast;

/// Name of the generated partial derivative of output `output` of `function` w.r.t. input `k`.
pub fn partial_name(function: &str, output: usize, k: usize) -> String {
    format!("{function}.__pder_out{}_in{}", output + 1, k + 1)
}

/// The expression `∂ function(args)[output] / ∂ args[k]`, generating the derivative function.
pub fn partial_call(
    model: &mut FlatModel,
    function: &str,
    args: &[Expr],
    output: usize,
    element: usize,
    k: usize,
) -> Result<Expr, String> {
    let name = partial_name(function, output, k);
    if !model.functions.contains_key(&name) {
        let f = model.functions.get(function).ok_or_else(|| {
            format!("the function `{function}` is called but its definition is missing")
        })?;
        let generated = generate(f, &name, output, element, k)?;
        model.functions.insert(name.clone(), generated);
    }
    Ok(Expr::UserCall {
        function: name,
        args: args.to_vec(),
        output: 0,
        element: 0,
    })
}

/// Input `k` of `f`, after checking that output `output` is a scalar (`element` 0): what a
/// generated partial derivative differentiates with respect to.
fn scalar_output_and_input(
    f: &Function,
    (output, element): (usize, usize),
    k: usize,
) -> Result<&FunctionVar, String> {
    let out = f.outputs.get(output).ok_or_else(|| {
        format!(
            "the function `{}` has no output number {}",
            f.name,
            output + 1
        )
    })?;
    if !out.dims.is_empty() || element > 0 {
        return Err(format!(
            "cannot differentiate the function `{}`: its output `{}` is an array (only scalar outputs are supported)",
            f.name, out.name
        ));
    }
    let input = f.inputs.get(k).ok_or_else(|| {
        format!(
            "the function `{}` is called with more arguments than inputs",
            f.name
        )
    })?;
    Ok(input)
}

fn generate(
    f: &Function,
    name: &str,
    output: usize,
    element: usize,
    k: usize,
) -> Result<Function, String> {
    let input = scalar_output_and_input(f, (output, element), k)?;
    if !input.dims.is_empty() {
        return Err(format!(
            "cannot differentiate the function `{}` with respect to its array input `{}`",
            f.name, input.name
        ));
    }
    let sp = f.span;
    let local = |n: &str| FunctionVar {
        name: n.to_string(),
        ty: ScalarType::Real,
        dims: Vec::new(),
        default: None,
    };
    let (h, fp, fm, d) = ("__h", "__fplus", "__fminus", "__dfdx");
    let shifted = |op: ast::BinOp| -> ast::Expr {
        let args = f
            .inputs
            .iter()
            .enumerate()
            .map(|(i, inp)| {
                if i == k {
                    bin(op, var(&inp.name, sp), var(h, sp), sp)
                } else {
                    var(&inp.name, sp)
                }
            })
            .collect();
        call(&f.name, args, sp)
    };
    let body = vec![
        assign(cref(h, sp), step_size(var(&input.name, sp), sp), sp),
        assign_output(output, fp, shifted(ast::BinOp::Add), sp),
        assign_output(output, fm, shifted(ast::BinOp::Sub), sp),
        assign(cref(d, sp), central_difference((fp, fm, h), sp), sp),
    ];
    Ok(Function {
        name: name.to_string(),
        inputs: f.inputs.clone(),
        outputs: vec![local(d)],
        locals: vec![local(h), local(fp), local(fm)],
        body,
        span: sp,
        native: None,
        derivative: None,
        input_groups: vec![],
        output_groups: vec![],
        folded: Vec::new(),
        inline_after_index_reduction: false,
    })
}

/// Name of the generated partial derivative of output `output` of `function` w.r.t. element
/// `j` (0-based) of its vector input `k`.
pub fn partial_element_name(function: &str, output: usize, k: usize, j: usize) -> String {
    format!(
        "{function}.__pder_out{}_in{}_el{}",
        output + 1,
        k + 1,
        j + 1
    )
}

/// The expression `∂ function(args)[output] / ∂ args[k][j]` for a vector input `k` (the mass
/// fractions `X[:]` of a medium function called with `{Xi[1]}`), generating the derivative
/// function: the central difference in that one element, as [`partial_call`] does for a
/// scalar input.
pub fn partial_element_call(
    model: &mut FlatModel,
    function: &str,
    args: &[Expr],
    (output, element): (usize, usize),
    k: usize,
    j: usize,
) -> Result<Expr, String> {
    let name = partial_element_name(function, output, k, j);
    if !model.functions.contains_key(&name) {
        let f = model.functions.get(function).ok_or_else(|| {
            format!("the function `{function}` is called but its definition is missing")
        })?;
        let generated = generate_element(f, &name, (output, element), k, j)?;
        model.functions.insert(name.clone(), generated);
    }
    Ok(Expr::UserCall {
        function: name,
        args: args.to_vec(),
        output: 0,
        element: 0,
    })
}

/// The body of [`partial_element_call`]'s function: a copy `__xs` of the vector input whose
/// element `j` is moved by `±h`, the function called with it twice.
fn generate_element(
    f: &Function,
    name: &str,
    (output, element): (usize, usize),
    k: usize,
    j: usize,
) -> Result<Function, String> {
    let input = scalar_output_and_input(f, (output, element), k)?;
    if input.dims.len() != 1 || input.ty != ScalarType::Real {
        return Err(format!(
            "cannot differentiate the function `{}` with respect to its input `{}` (only scalars and Real vectors are supported)",
            f.name, input.name
        ));
    }
    let sp = f.span;
    let (xs, h, fp, fm, d) = ("__xs", "__h", "__fplus", "__fminus", "__dfdx");
    let elem = |n: &str| indexed(n, j, sp);
    let elem_expr = |n: &str| ast::Expr {
        kind: ast::ExprKind::Ref(indexed(n, j, sp)),
        span: sp,
    };
    let moved = |op: ast::BinOp| {
        assign(
            elem(xs),
            bin(op, elem_expr(&input.name), var(h, sp), sp),
            sp,
        )
    };
    let with_xs = || {
        let args = f
            .inputs
            .iter()
            .enumerate()
            .map(|(i, inp)| var(if i == k { xs } else { &inp.name }, sp))
            .collect();
        call(&f.name, args, sp)
    };
    let body = vec![
        assign(cref(h, sp), step_size(elem_expr(&input.name), sp), sp),
        assign(cref(xs, sp), var(&input.name, sp), sp),
        moved(ast::BinOp::Add),
        assign_output(output, fp, with_xs(), sp),
        moved(ast::BinOp::Sub),
        assign_output(output, fm, with_xs(), sp),
        assign(cref(d, sp), central_difference((fp, fm, h), sp), sp),
    ];
    let local = |n: &str, dims: Vec<Option<ast::Expr>>| FunctionVar {
        name: n.to_string(),
        ty: ScalarType::Real,
        dims,
        default: None,
    };
    let size = call("size", vec![var(&input.name, sp), integer(1, sp)], sp);
    Ok(Function {
        name: name.to_string(),
        inputs: f.inputs.clone(),
        outputs: vec![local(d, Vec::new())],
        locals: vec![
            local(h, Vec::new()),
            local(fp, Vec::new()),
            local(fm, Vec::new()),
            local(xs, vec![Some(size)]),
        ],
        body,
        span: sp,
        native: None,
        derivative: None,
        input_groups: vec![],
        output_groups: vec![],
        folded: Vec::new(),
        inline_after_index_reduction: false,
    })
}

/// `h := 6.1e-6 * max(abs(x), 1.0)`: the step of a central difference at `x` (about the cube
/// root of the machine epsilon, relative).
fn step_size(x: ast::Expr, sp: Span) -> ast::Expr {
    bin(
        ast::BinOp::Mul,
        real(6.1e-6, sp),
        call("max", vec![call("abs", vec![x], sp), real(1.0, sp)], sp),
        sp,
    )
}

/// `(fp - fm) / (2 * h)` of the variables named `(fp, fm, h)`.
fn central_difference((fp, fm, h): (&str, &str, &str), sp: Span) -> ast::Expr {
    bin(
        ast::BinOp::Div,
        bin(ast::BinOp::Sub, var(fp, sp), var(fm, sp), sp),
        bin(ast::BinOp::Mul, real(2.0, sp), var(h, sp), sp),
        sp,
    )
}

/// `target := value`.
fn assign(target: ast::ComponentRef, value: ast::Expr, sp: Span) -> ast::Statement {
    ast::Statement {
        kind: ast::StatementKind::Assign { target, value },
        comment: ast::Comment::default(),
        span: sp,
    }
}

/// `target := value` for output number `output` of the call `value` (`(, , target) := f(..)`).
fn assign_output(output: usize, target: &str, value: ast::Expr, sp: Span) -> ast::Statement {
    let kind = if output == 0 {
        ast::StatementKind::Assign {
            target: cref(target, sp),
            value,
        }
    } else {
        let mut targets: Vec<Option<ast::ComponentRef>> = vec![None; output + 1];
        targets[output] = Some(cref(target, sp));
        ast::StatementKind::MultiAssign { targets, value }
    };
    ast::Statement {
        kind,
        comment: ast::Comment::default(),
        span: sp,
    }
}

/// `n[j + 1]`: element `j` (0-based) of the function's vector variable `n`.
fn indexed(n: &str, j: usize, sp: Span) -> ast::ComponentRef {
    let mut r = ast::ComponentRef::single(n, sp);
    if let Some(part) = r.parts.first_mut() {
        part.subscripts = vec![ast::Subscript::Expr(integer(j as i64 + 1, sp))];
    }
    r
}

fn integer(v: i64, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Integer(v),
        span,
    }
}

fn ident(n: &str, span: Span) -> ast::Ident {
    ast::Ident {
        name: n.to_string(),
        span,
    }
}

fn cref(n: &str, span: Span) -> ast::ComponentRef {
    ast::ComponentRef {
        global: false,
        parts: n
            .split('.')
            .map(|p| ast::RefPart {
                ident: ident(p, span),
                subscripts: Vec::new(),
            })
            .collect(),
        span,
    }
}

/// A reference to a variable of the function. A record input or output is passed field by
/// field (`fn_records`), its fields being variables named `R.T`: one name, not a path, so the
/// reference is a single part (as `fn_records` writes them), never split at the dots.
fn var(n: &str, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Ref(ast::ComponentRef::single(n, span)),
        span,
    }
}

fn real(v: f64, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Real(v),
        span,
    }
}

fn bin(op: ast::BinOp, a: ast::Expr, b: ast::Expr, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        span,
    }
}

fn call(f: &str, positional: Vec<ast::Expr>, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Call {
            func: cref(f, span),
            args: ast::FunctionArgs {
                positional,
                named: Vec::new(),
                iterators: Vec::new(),
                span,
            },
        },
        span,
    }
}

/// The call `function(args)[output]` as an expression when the function body is one
/// assignment of a scalar output from arithmetic on its inputs (`sder1 := u[2];`, MSL's
/// adaptor functions): differentiating the expression is then exact, where the central
/// difference cannot handle array arguments. `None` for any other body.
pub fn inline_call(
    model: &FlatModel,
    function: &str,
    args: &[Expr],
    output: usize,
) -> Option<Expr> {
    let f = model.functions.get(function)?;
    let out = f.outputs.get(output)?;
    if f.body.len() != 1 || !out.dims.is_empty() || args.len() != f.inputs.len() {
        return None;
    }
    let ast::StatementKind::Assign { target, value } = &f.body[0].kind else {
        return None;
    };
    if target.parts.len() != 1
        || target.parts[0].ident.name != out.name
        || !target.parts[0].subscripts.is_empty()
    {
        return None;
    }
    inline_expr(value, f, args)
}

fn inline_expr(e: &ast::Expr, f: &Function, args: &[Expr]) -> Option<Expr> {
    use ast::ExprKind as K;
    Some(match &e.kind {
        K::Integer(i) => Expr::Real(*i as f64),
        K::Real(x) => Expr::Real(*x),
        K::Ref(r) if r.parts.len() == 1 && !r.global => {
            let k = f
                .inputs
                .iter()
                .position(|i| i.name == r.parts[0].ident.name)?;
            let subs = &r.parts[0].subscripts;
            match (&args[k], subs.as_slice()) {
                (a, []) if !matches!(a, Expr::Array { .. }) => a.clone(),
                (Expr::Array { dims, elements }, subs) if subs.len() == dims.len() => {
                    let mut flat = 0;
                    for (s, d) in subs.iter().zip(dims) {
                        let ast::Subscript::Expr(ast::Expr {
                            kind: K::Integer(i),
                            ..
                        }) = s
                        else {
                            return None;
                        };
                        let i = usize::try_from(*i).ok()?.checked_sub(1)?;
                        if i >= *d {
                            return None;
                        }
                        flat = flat * d + i;
                    }
                    elements.get(flat)?.clone()
                }
                _ => return None,
            }
        }
        K::Unary {
            op: ast::UnOp::Neg,
            operand,
        } => Expr::neg(inline_expr(operand, f, args)?),
        K::Binary { op, lhs, rhs } => {
            use crate::dae::BinOp as B;
            let op = match op {
                ast::BinOp::Add => B::Add,
                ast::BinOp::Sub => B::Sub,
                ast::BinOp::Mul => B::Mul,
                ast::BinOp::Div => B::Div,
                _ => return None,
            };
            Expr::binary(op, inline_expr(lhs, f, args)?, inline_expr(rhs, f, args)?)
        }
        _ => return None,
    })
}

/// `e` with every call of a function annotated `InlineAfterIndexReduction = true` (MLS 18.3)
/// replaced by its body, where [`inline_call`] can write the body as an expression; `None`
/// when nothing changed. Index reduction differentiates such a call by its declared derivative
/// (MSL `Sources.Move`'s `position` returns `u[1]` and declares `u[2]`), so the call is kept
/// for differentiation; everything else must see what the call depends on, which only the body
/// tells: `state1({f, fder}, time)` reads `f` alone, and an equation matched to `fder` through
/// it would have a zero Jacobian.
pub fn inline_late(model: &FlatModel, e: &Expr) -> Option<Expr> {
    let late = |f: &str| {
        model
            .functions
            .get(f)
            .is_some_and(|f| f.inline_after_index_reduction)
    };
    let mut found = false;
    e.visit(&mut |x| {
        found |= matches!(x, Expr::UserCall { function, .. } if late(function));
    });
    if !found {
        return None;
    }
    Some(super::expr::rewrite(e, &mut |x| match x {
        Expr::UserCall {
            function,
            args,
            output,
            element: 0,
        } if late(&function) => {
            inline_call(model, &function, &args, output).unwrap_or(Expr::UserCall {
                function,
                args,
                output,
                element: 0,
            })
        }
        other => other,
    }))
}
