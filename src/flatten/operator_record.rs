//! Operator records (MLS 14): an operator applied to an operator record (`a + b`, `-a`,
//! `a == b`, `R(x)` with an overloaded `'constructor'`) becomes a call of the operator function
//! the record defines, chosen by overload resolution (MLS 14.3, 14.4, 14.5):
//!
//! 1. the one function of `'op'` of either operand's record whose inputs the operands match
//!    exactly (Integer may become Real);
//! 2. else the one that matches when an operand of another type is first built with the
//!    record's `'constructor'` (`a + 1` -> `'+'(a, 'constructor'(1))`);
//! 3. else, over vectors, element by element (`c + {1, 2}` -> `{c[1] + 1, c[2] + 2}`).
//!
//! Two candidates at one step are an ambiguity, none at all an error naming the operator and
//! the operand types. The rewrite works on the syntax tree, so the same code serves model
//! expressions (the instance tree tells the operand types, [`super::scalarize::FCtx`]) and
//! function bodies (the function's record variables, [`FnScope`]); the calls it makes are then
//! evaluated or rewritten like any other call.

use super::Flattener;
use super::classtree::ClassId;
use super::eval::EResult;
use super::expand::Prim;
use crate::dae::ScalarType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, BinOp, ExprKind, UnOp};

/// The type of an operand, as far as overload resolution needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum OTy {
    /// An operator record (or record) class.
    Rec(ClassId),
    Real,
    Integer,
    Boolean,
    String,
    /// A value of a built-in type not known here: it matches any built-in input.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ArgTy {
    pub ty: OTy,
    pub ndims: usize,
}

impl ArgTy {
    fn scalar(ty: OTy) -> Self {
        ArgTy { ty, ndims: 0 }
    }
    fn is_rec(&self) -> bool {
        matches!(self.ty, OTy::Rec(_))
    }
}

/// One input or output of an operator function.
#[derive(Clone, Debug)]
struct Param {
    name: String,
    ty: ArgTy,
    has_default: bool,
}

struct Sig {
    inputs: Vec<Param>,
    output: Option<ArgTy>,
}

/// Where an operator expression is written: how its names are typed and sized.
pub(super) trait OpScope<'b> {
    fn flat(&mut self) -> &mut Flattener<'b>;
    /// The class names are looked up in.
    fn lex(&self) -> ClassId;
    fn inst(&self) -> Option<usize>;
    /// The type of a component reference; `None` when it is not a typed name here.
    fn ref_type(&mut self, c: &ast::ComponentRef) -> Option<ArgTy>;
    /// The size of the first dimension of a component reference, if known.
    fn ref_size(&mut self, c: &ast::ComponentRef) -> Option<usize>;
}

/// The name of the operator function of `op` (MLS 14.1); element-wise operators use the
/// function of their operator, applied element by element.
fn bin_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add | BinOp::ElemAdd => "'+'",
        BinOp::Sub | BinOp::ElemSub => "'-'",
        BinOp::Mul | BinOp::ElemMul => "'*'",
        BinOp::Div | BinOp::ElemDiv => "'/'",
        BinOp::Pow | BinOp::ElemPow => "'^'",
        BinOp::And => "'and'",
        BinOp::Or => "'or'",
        BinOp::Lt => "'<'",
        BinOp::Le => "'<='",
        BinOp::Gt => "'>'",
        BinOp::Ge => "'>='",
        BinOp::Eq => "'=='",
        BinOp::Ne => "'<>'",
    }
}

pub(super) fn call_expr(
    func: ast::ComponentRef,
    positional: Vec<ast::Expr>,
    span: Span,
) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Call {
            func,
            args: ast::FunctionArgs {
                positional,
                named: vec![],
                iterators: vec![],
                span,
            },
        },
        span,
    }
}

impl Flattener<'_> {
    /// A global reference to class `id` (its enclosing classes from the top).
    fn class_cref(&self, id: ClassId, span: Span) -> ast::ComponentRef {
        let mut names = Vec::new();
        let mut c = Some(id);
        while let Some(k) = c {
            let n = self.tree.get(k);
            names.push(n.name.clone());
            c = n.parent;
        }
        names.reverse();
        ast::ComponentRef {
            global: true,
            parts: names
                .into_iter()
                .map(|name| ast::RefPart {
                    ident: ast::Ident { name, span },
                    subscripts: vec![],
                })
                .collect(),
            span,
        }
    }

    /// The record a short class definition stands for (`operator record ComplexCurrent =
    /// Complex(...)` is `Complex` for overloading: it cannot add operators, MLS 14.2).
    pub(super) fn canonical_record(&mut self, mut id: ClassId) -> ClassId {
        for _ in 0..64 {
            if !matches!(self.tree.get(id).body, super::classtree::NodeBody::Short(_)) {
                break;
            }
            match self
                .expanded(id)
                .ok()
                .and_then(|e| e.bases.first().copied())
            {
                Some(b) => id = b,
                None => break,
            }
        }
        id
    }

    /// Whether instances of `class` are record values: a record, or a short class of one
    /// (`connector ComplexOutput = output Complex`).
    pub(super) fn is_record_valued(&mut self, class: ClassId) -> bool {
        let rec = |k| matches!(k, ast::ClassKind::Record | ast::ClassKind::OperatorRecord);
        if rec(self.tree.get(class).kind) {
            return true;
        }
        let c = self.canonical_record(class);
        c != class && rec(self.tree.get(c).kind)
    }

    /// Whether `class` is an operator record.
    pub(super) fn is_operator_record(&mut self, class: ClassId) -> bool {
        self.expanded(class)
            .is_ok_and(|e| e.kind == ast::ClassKind::OperatorRecord)
    }

    /// The functions of operator `op` of record `rec` (an `operator function`, or the
    /// functions of an `operator`), in declaration order.
    fn operator_functions(&mut self, rec: ClassId, op: &str) -> EResult<Vec<ClassId>> {
        let exp = self.expanded(rec)?;
        let Some(ce) = exp.classes.get(op) else {
            return Ok(vec![]);
        };
        let oexp = self.expanded(ce.id)?;
        if oexp.is_function() {
            return Ok(vec![ce.id]);
        }
        let mut out = Vec::new();
        for c in oexp.classes.values() {
            if self.expanded(c.id)?.is_function() {
                out.push(c.id);
            }
        }
        out.sort_unstable();
        for &f in &out {
            self.check_operator_function(rec, op, f)?;
        }
        Ok(out)
    }

    /// An operator function has one output; that of `'constructor'` and `'0'` is of the
    /// operator record itself (MLS 14.3, 14.4).
    fn check_operator_function(&mut self, rec: ClassId, op: &str, f: ClassId) -> EResult<()> {
        let exp = self.expanded(f)?;
        let outs: Vec<_> = exp
            .components
            .iter()
            .filter(|c| c.clause.prefix.causality == ast::Causality::Output)
            .cloned()
            .collect();
        let full = self.tree.get(f).full.clone();
        if outs.len() != 1 {
            return Err(Diagnostic::error(
                self.tree.get(f).span,
                format!(
                    "the operator function `{full}` has {} outputs: an operator function has exactly one (MLS 14.3, 14.4)",
                    outs.len()
                ),
            ));
        }
        if matches!(op, "'constructor'" | "'0'") {
            let t = self.comp_type(&outs[0])?;
            let want = self.canonical_record(rec);
            if t != ArgTy::scalar(OTy::Rec(want)) {
                return Err(Diagnostic::error(
                    outs[0].decl().name.span,
                    format!(
                        "the output of `{full}` must be of the operator record `{}` (MLS 14.3)",
                        self.tree.get(rec).full
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The type of a declared component of class `lex`'s body.
    fn comp_type(&mut self, c: &super::expand::CompElem) -> EResult<ArgTy> {
        let ty_class = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
        let te = self.expanded(ty_class)?;
        let ndims = c.decl().dims.len() + c.clause.type_dims.len() + te.dims.len();
        let ty = match &te.prim {
            Some(Prim::Scalar(ScalarType::Real)) => OTy::Real,
            Some(Prim::Scalar(ScalarType::Integer)) => OTy::Integer,
            Some(Prim::Scalar(ScalarType::Boolean)) => OTy::Boolean,
            Some(Prim::Scalar(ScalarType::String)) => OTy::String,
            Some(_) => OTy::Other,
            None if matches!(
                te.kind,
                ast::ClassKind::OperatorRecord | ast::ClassKind::Record
            ) =>
            {
                OTy::Rec(self.canonical_record(te.id))
            }
            None => OTy::Other,
        };
        Ok(ArgTy { ty, ndims })
    }

    fn signature(&mut self, f: ClassId) -> EResult<Sig> {
        let exp = self.expanded(f)?;
        let mut inputs = Vec::new();
        let mut output = None;
        for c in &exp.components {
            match c.clause.prefix.causality {
                ast::Causality::Input => inputs.push(Param {
                    name: c.name.clone(),
                    ty: self.comp_type(c)?,
                    has_default: c.decl().modification.as_ref().is_some_and(|m| {
                        matches!(
                            m,
                            ast::Modification::Binding { .. }
                                | ast::Modification::Class {
                                    binding: Some(_),
                                    ..
                                }
                        )
                    }),
                }),
                ast::Causality::Output if output.is_none() => {
                    output = Some(self.comp_type(c)?);
                }
                _ => {}
            }
        }
        Ok(Sig { inputs, output })
    }

    /// The candidates among `cands` that take `args` (and the named `names`) exactly.
    fn exact_matches(
        &mut self,
        cands: &[ClassId],
        args: &[ArgTy],
        names: &[&str],
    ) -> EResult<Vec<ClassId>> {
        let mut out = Vec::new();
        for &c in cands {
            let sig = self.signature(c)?;
            if args.len() > sig.inputs.len() {
                continue;
            }
            let positional_fit = args.iter().zip(&sig.inputs).all(|(a, p)| fits(a, &p.ty));
            let rest = &sig.inputs[args.len()..];
            let rest_given = rest
                .iter()
                .all(|p| p.has_default || names.contains(&p.name.as_str()));
            let names_known = names.iter().all(|n| rest.iter().any(|p| p.name == *n));
            if positional_fit && rest_given && names_known {
                out.push(c);
            }
        }
        Ok(out)
    }
}

/// Whether an argument of type `a` may be passed to an input of type `p` without conversion
/// other than Integer to Real.
fn fits(a: &ArgTy, p: &ArgTy) -> bool {
    if a.ndims != p.ndims {
        return false;
    }
    match (a.ty, p.ty) {
        (OTy::Rec(x), OTy::Rec(y)) => x == y,
        (OTy::Rec(_), _) | (_, OTy::Rec(_)) => false,
        (OTy::Other, _) | (_, OTy::Other) => true,
        (OTy::Integer, OTy::Real) => true,
        (x, y) => x == y,
    }
}

fn ty_name<'b, S: OpScope<'b>>(s: &mut S, t: &ArgTy) -> String {
    let base = match t.ty {
        OTy::Rec(c) => s.flat().tree.get(c).full.clone(),
        OTy::Real => "Real".into(),
        OTy::Integer => "Integer".into(),
        OTy::Boolean => "Boolean".into(),
        OTy::String => "String".into(),
        OTy::Other => "a built-in type".into(),
    };
    if t.ndims == 0 {
        base
    } else {
        format!("{base}[{}]", vec![":"; t.ndims].join(", "))
    }
}

fn ambiguous<'b, S: OpScope<'b>>(s: &mut S, span: Span, op: &str, c: &[ClassId]) -> Diagnostic {
    let names: Vec<String> = c
        .iter()
        .map(|k| format!("`{}`", s.flat().tree.get(*k).full))
        .collect();
    Diagnostic::error(
        span,
        format!(
            "the operator {op} is ambiguous here: {} all match (MLS 14.4)",
            names.join(", ")
        ),
    )
    .with_help("convert an operand explicitly so that exactly one operator function matches")
}

/// The type of expression `e` (records recognised; built-in types where they are evident).
pub(super) fn expr_type<'b, S: OpScope<'b>>(s: &mut S, e: &ast::Expr) -> EResult<ArgTy> {
    Ok(match &e.kind {
        ExprKind::Integer(_) => ArgTy::scalar(OTy::Integer),
        ExprKind::Real(_) => ArgTy::scalar(OTy::Real),
        ExprKind::Boolean(_) => ArgTy::scalar(OTy::Boolean),
        ExprKind::String(_) => ArgTy::scalar(OTy::String),
        ExprKind::Ref(c) => s.ref_type(c).unwrap_or(ArgTy::scalar(OTy::Other)),
        ExprKind::Call { func, .. } => {
            let (lex, inst) = (s.lex(), s.inst());
            if s.flat().is_builtin_call(func, lex, inst) {
                return Ok(ArgTy::scalar(OTy::Other));
            }
            match desugar(s, e)? {
                Some(d) if d != *e => return expr_type(s, &d),
                _ => {}
            }
            let (lex, inst) = (s.lex(), s.inst());
            let Ok(class) = s.flat().lookup_class_name(&func.as_name(), lex, inst) else {
                return Ok(ArgTy::scalar(OTy::Other));
            };
            let exp = s.flat().expanded(class)?;
            if matches!(
                exp.kind,
                ast::ClassKind::OperatorRecord | ast::ClassKind::Record
            ) {
                return Ok(ArgTy::scalar(OTy::Rec(s.flat().canonical_record(exp.id))));
            }
            if !exp.is_function() {
                return Ok(ArgTy::scalar(OTy::Other));
            }
            s.flat()
                .signature(class)?
                .output
                .unwrap_or(ArgTy::scalar(OTy::Other))
        }
        ExprKind::Array(a) if a.iterators.is_empty() => match a.positional.first() {
            Some(x) => {
                let t = expr_type(s, x)?;
                ArgTy {
                    ty: t.ty,
                    ndims: t.ndims + 1,
                }
            }
            None => ArgTy {
                ty: OTy::Other,
                ndims: 1,
            },
        },
        // `{e for i in r}`: the type of `e`, one dimension per iterator (the iterators are
        // not typed here; a body that reads them types as far as `ref_type` does).
        ExprKind::Array(a) if a.positional.len() == 1 => {
            let t = expr_type(s, &a.positional[0])?;
            ArgTy {
                ty: t.ty,
                ndims: t.ndims + a.iterators.len(),
            }
        }
        ExprKind::Tuple(items) => match items.as_slice() {
            [Some(x)] => expr_type(s, x)?,
            _ => ArgTy::scalar(OTy::Other),
        },
        ExprKind::If { branches, .. } => match branches.first() {
            Some((_, v)) => expr_type(s, v)?,
            None => ArgTy::scalar(OTy::Other),
        },
        // The operands are typed once: asking `desugar` first typed them again, twice per
        // level, so a sum of n terms cost 2^n (MSL ReferenceAir's polynomials never ended).
        ExprKind::Unary { op, operand } => {
            let t = expr_type(s, operand)?;
            match unary_typed(s, *op, operand, t, e.span)? {
                Some(d) => expr_type(s, &d)?,
                None if *op == UnOp::Not => ArgTy {
                    ty: OTy::Boolean,
                    ndims: t.ndims,
                },
                None => t,
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (expr_type(s, lhs)?, expr_type(s, rhs)?);
            if let Some(d) = binary_typed(s, *op, lhs, rhs, a, b, e.span)? {
                return expr_type(s, &d);
            }
            let ty = match op {
                BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::And
                | BinOp::Or => OTy::Boolean,
                BinOp::Div | BinOp::ElemDiv => OTy::Real,
                _ if a.ty == OTy::Integer && b.ty == OTy::Integer => OTy::Integer,
                _ if a.ty == OTy::Real || b.ty == OTy::Real => OTy::Real,
                _ => OTy::Other,
            };
            ArgTy {
                ty,
                ndims: a.ndims.max(b.ndims),
            }
        }
        _ => ArgTy::scalar(OTy::Other),
    })
}

/// `e` rewritten as a call of an operator function (or an array of them), when `e` is an
/// operator applied to an operator record or a call of an operator record's overloaded
/// constructor; `None` when no operator record is involved.
pub(super) fn desugar<'b, S: OpScope<'b>>(s: &mut S, e: &ast::Expr) -> EResult<Option<ast::Expr>> {
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } => binary(s, *op, lhs, rhs, e.span),
        ExprKind::Unary {
            op: op @ (UnOp::Neg | UnOp::ElemNeg | UnOp::Not),
            operand,
        } => unary(s, *op, operand, e.span),
        ExprKind::Call { func, args } => constructor(s, func, args, e.span),
        _ => Ok(None),
    }
}

/// `R(args)` with `R` an operator record that has a `'constructor'`: the overloaded
/// constructor that takes the arguments (MLS 14.3); `None` leaves the record's own constructor.
fn constructor<'b, S: OpScope<'b>>(
    s: &mut S,
    func: &ast::ComponentRef,
    args: &ast::FunctionArgs,
    span: Span,
) -> EResult<Option<ast::Expr>> {
    let (lex, inst) = (s.lex(), s.inst());
    if !args.iterators.is_empty() || s.flat().is_builtin_call(func, lex, inst) {
        return Ok(None);
    }
    let Ok(class) = s.flat().lookup_class_name(&func.as_name(), lex, inst) else {
        return Ok(None);
    };
    if !s.flat().is_operator_record(class) {
        return Ok(None);
    }
    let rec = s.flat().expanded(class)?.id;
    let cands = s.flat().operator_functions(rec, "'constructor'")?;
    if cands.is_empty() {
        return Ok(None);
    }
    let mut tys = Vec::new();
    for a in &args.positional {
        tys.push(expr_type(s, a)?);
    }
    let names: Vec<&str> = args.named.iter().map(|n| n.name.name.as_str()).collect();
    let m = s.flat().exact_matches(&cands, &tys, &names)?;
    match m.as_slice() {
        [] => Ok(None),
        [c] => {
            let f = s.flat().class_cref(*c, func.span);
            Ok(Some(ast::Expr {
                kind: ExprKind::Call {
                    func: f,
                    args: args.clone(),
                },
                span,
            }))
        }
        _ => Err(ambiguous(s, span, "'constructor'", &m)),
    }
}

/// The record classes among the operand types, each once.
fn records(tys: &[ArgTy]) -> Vec<ClassId> {
    let mut out = Vec::new();
    for t in tys {
        if let OTy::Rec(c) = t.ty
            && !out.contains(&c)
        {
            out.push(c);
        }
    }
    out
}

fn unary<'b, S: OpScope<'b>>(
    s: &mut S,
    op: UnOp,
    operand: &ast::Expr,
    span: Span,
) -> EResult<Option<ast::Expr>> {
    let t = expr_type(s, operand)?;
    unary_typed(s, op, operand, t, span)
}

/// [`unary`] with the operand's type known.
fn unary_typed<'b, S: OpScope<'b>>(
    s: &mut S,
    op: UnOp,
    operand: &ast::Expr,
    t: ArgTy,
    span: Span,
) -> EResult<Option<ast::Expr>> {
    if !matches!(op, UnOp::Neg | UnOp::ElemNeg | UnOp::Not) {
        return Ok(None);
    }
    let OTy::Rec(rec) = t.ty else {
        return Ok(None);
    };
    if !s.flat().is_operator_record(rec) {
        return Ok(None);
    }
    let name = if op == UnOp::Not { "'not'" } else { "'-'" };
    let cands = s.flat().operator_functions(rec, name)?;
    let m = s.flat().exact_matches(&cands, &[t], &[])?;
    match m.as_slice() {
        [c] => {
            let f = s.flat().class_cref(*c, span);
            return Ok(Some(call_expr(f, vec![operand.clone()], span)));
        }
        [] => {}
        _ => return Err(ambiguous(s, span, name, &m)),
    }
    if t.ndims == 1
        && let Some(elems) = elements(s, operand)?
    {
        let items = elems
            .into_iter()
            .map(|x| ast::Expr {
                kind: ExprKind::Unary {
                    op,
                    operand: Box::new(x),
                },
                span,
            })
            .collect();
        return Ok(Some(array(items, span)));
    }
    let tn = ty_name(s, &t);
    Err(Diagnostic::error(
        span,
        format!("no function of the operator {name} takes an operand of type `{tn}` (MLS 14.5)"),
    ))
}

/// The array constructor `{items}` as an expression.
pub(super) fn array(items: Vec<ast::Expr>, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Array(ast::FunctionArgs {
            positional: items,
            named: vec![],
            iterators: vec![],
            span,
        }),
        span,
    }
}

/// The elements of a vector expression, when they can be written: a component reference
/// without subscripts (`c[1]`, `c[2]`, ...) or an array constructor.
fn elements<'b, S: OpScope<'b>>(s: &mut S, e: &ast::Expr) -> EResult<Option<Vec<ast::Expr>>> {
    match &e.kind {
        ExprKind::Array(a) if a.iterators.is_empty() && a.named.is_empty() => {
            Ok(Some(a.positional.clone()))
        }
        ExprKind::Ref(c) if c.parts.last().is_some_and(|p| p.subscripts.is_empty()) => {
            let Some(n) = s.ref_size(c) else {
                return Ok(None);
            };
            let at = indexed_part(s, c);
            Ok(Some(
                (1..=n)
                    .map(|k| {
                        let mut r = c.clone();
                        if let Some(p) = r.parts.get_mut(at) {
                            p.subscripts = vec![ast::Subscript::Expr(ast::Expr {
                                kind: ExprKind::Integer(k as i64),
                                span: e.span,
                            })];
                        }
                        ast::Expr {
                            kind: ExprKind::Ref(r),
                            span: e.span,
                        }
                    })
                    .collect(),
            ))
        }
        ExprKind::Tuple(items) => match items.as_slice() {
            [Some(x)] => elements(s, x),
            _ => Ok(None),
        },
        // An operator on a vector of records (`i2/n12` in `i1 + i2/n12`) is itself applied
        // element by element: its elements are those of the array it becomes.
        ExprKind::Binary { .. } | ExprKind::Unary { .. } => match desugar(s, e)? {
            Some(d) if matches!(&d.kind, ExprKind::Array(a) if a.iterators.is_empty()) => {
                elements(s, &d)
            }
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// Which part of vector reference `c` carries the dimension its elements are taken along:
/// `plug.pin.v` with `pin` an array of connectors is indexed as `plug.pin[k].v`. The first
/// part (the outermost dimension) whose subscript leaves a reference one dimension smaller;
/// the last part when none is known (names of a function body).
fn indexed_part<'b, S: OpScope<'b>>(s: &mut S, c: &ast::ComponentRef) -> usize {
    let last = c.parts.len().saturating_sub(1);
    let Some(whole) = s.ref_type(c) else {
        return last;
    };
    for k in 0..c.parts.len() {
        if !c.parts[k].subscripts.is_empty() {
            continue;
        }
        let mut r = c.clone();
        r.parts[k].subscripts = vec![ast::Subscript::Expr(ast::Expr {
            kind: ExprKind::Integer(1),
            span: c.span,
        })];
        if s.ref_type(&r).is_some_and(|t| t.ndims + 1 == whole.ndims) {
            return k;
        }
    }
    last
}

fn binary<'b, S: OpScope<'b>>(
    s: &mut S,
    op: BinOp,
    lhs: &ast::Expr,
    rhs: &ast::Expr,
    span: Span,
) -> EResult<Option<ast::Expr>> {
    let ta = expr_type(s, lhs)?;
    let tb = expr_type(s, rhs)?;
    binary_typed(s, op, lhs, rhs, ta, tb, span)
}

/// [`binary`] with the operands' types known.
#[allow(clippy::too_many_arguments)]
fn binary_typed<'b, S: OpScope<'b>>(
    s: &mut S,
    op: BinOp,
    lhs: &ast::Expr,
    rhs: &ast::Expr,
    ta: ArgTy,
    tb: ArgTy,
    span: Span,
) -> EResult<Option<ast::Expr>> {
    if !ta.is_rec() && !tb.is_rec() {
        return Ok(None);
    }
    let recs: Vec<ClassId> = records(&[ta, tb])
        .into_iter()
        .filter(|c| s.flat().is_operator_record(*c))
        .collect();
    if recs.is_empty() {
        return Ok(None);
    }
    let name = bin_name(op);
    // 1. An exact match among the operator functions of both records.
    let mut cands = Vec::new();
    for r in &recs {
        for c in s.flat().operator_functions(*r, name)? {
            if !cands.contains(&c) {
                cands.push(c);
            }
        }
    }
    let m = s.flat().exact_matches(&cands, &[ta, tb], &[])?;
    match m.as_slice() {
        [c] => {
            let f = s.flat().class_cref(*c, span);
            return Ok(Some(call_expr(f, vec![lhs.clone(), rhs.clone()], span)));
        }
        [] => {}
        _ => return Err(ambiguous(s, span, name, &m)),
    }
    // 2. An operand of another type built with the other operand's record's constructor.
    let mut found: Vec<(ClassId, ClassId, bool)> = Vec::new();
    for (rec_side, other, right) in [(ta, tb, true), (tb, ta, false)] {
        let OTy::Rec(r) = rec_side.ty else { continue };
        if rec_side.ndims != 0 || other.ty == rec_side.ty || !s.flat().is_operator_record(r) {
            continue;
        }
        let ctors = s.flat().operator_functions(r, "'constructor'")?;
        let built = s.flat().exact_matches(&ctors, &[other], &[])?;
        if built.is_empty() {
            continue;
        }
        let ops = s.flat().operator_functions(r, name)?;
        let as_rec = ArgTy::scalar(OTy::Rec(r));
        let ops = s.flat().exact_matches(&ops, &[as_rec, as_rec], &[])?;
        for c in &built {
            for o in &ops {
                found.push((*o, *c, right));
            }
        }
    }
    match found.as_slice() {
        [(o, c, right)] => {
            let f = s.flat().class_cref(*o, span);
            let k = s.flat().class_cref(*c, span);
            let args = if *right {
                vec![lhs.clone(), call_expr(k, vec![rhs.clone()], rhs.span)]
            } else {
                vec![call_expr(k, vec![lhs.clone()], lhs.span), rhs.clone()]
            };
            return Ok(Some(call_expr(f, args, span)));
        }
        [] => {}
        more => {
            let os: Vec<ClassId> = more.iter().map(|(o, _, _)| *o).collect();
            return Err(ambiguous(s, span, name, &os));
        }
    }
    // 3. Element by element over vectors (MLS 14.4, 10.6): + and - of equal sizes, and any
    // operator with one scalar operand.
    let elementwise = match (ta.ndims, tb.ndims) {
        (1, 1) => matches!(
            op,
            BinOp::Add
                | BinOp::Sub
                | BinOp::ElemAdd
                | BinOp::ElemSub
                | BinOp::ElemMul
                | BinOp::ElemDiv
                | BinOp::ElemPow
        ),
        (1, 0) | (0, 1) => !matches!(op, BinOp::Pow),
        _ => false,
    };
    if elementwise {
        let ea = if ta.ndims == 1 {
            elements(s, lhs)?
        } else {
            None
        };
        let eb = if tb.ndims == 1 {
            elements(s, rhs)?
        } else {
            None
        };
        let n = ea.as_ref().or(eb.as_ref()).map(Vec::len);
        let sizes_agree = match (&ea, &eb) {
            (Some(a), Some(b)) => a.len() == b.len(),
            _ => true,
        };
        let written = (ta.ndims == 0 || ea.is_some()) && (tb.ndims == 0 || eb.is_some());
        if let Some(n) = n
            && sizes_agree
            && written
        {
            let items = (0..n)
                .map(|k| {
                    let a = ea.as_ref().map_or_else(|| lhs.clone(), |v| v[k].clone());
                    let b = eb.as_ref().map_or_else(|| rhs.clone(), |v| v[k].clone());
                    ast::Expr {
                        kind: ExprKind::Binary {
                            op,
                            lhs: Box::new(a),
                            rhs: Box::new(b),
                        },
                        span,
                    }
                })
                .collect();
            return Ok(Some(array(items, span)));
        }
    }
    let (na, nb) = (ty_name(s, &ta), ty_name(s, &tb));
    Err(Diagnostic::error(
        span,
        format!(
            "no function of the operator {name} takes operands of types `{na}` and `{nb}` \
             (MLS 14.4: exact match, then a constructor of the record, then element by element)"
        ),
    )
    .with_help(format!(
        "define a function for these operand types in the operator {name} of the record"
    )))
}

/// A function body's names, for [`desugar`] in functions: record variables by their class,
/// other variables by their declaration.
pub(super) struct FnScope<'a, 'b> {
    pub f: &'a mut Flattener<'b>,
    pub class: ClassId,
}

impl<'b> OpScope<'b> for FnScope<'_, 'b> {
    fn flat(&mut self) -> &mut Flattener<'b> {
        self.f
    }
    fn lex(&self) -> ClassId {
        self.class
    }
    fn inst(&self) -> Option<usize> {
        None
    }
    fn ref_type(&mut self, c: &ast::ComponentRef) -> Option<ArgTy> {
        if c.global {
            return None;
        }
        let exp = self.f.expanded(self.class).ok()?;
        let Some(comp) = exp.component(&c.parts[0].ident.name) else {
            return self.f.outer_constant_type(c, self.class);
        };
        let mut comp = comp.clone();
        let mut t = self.f.comp_type(&comp).ok()?;
        for (k, p) in c.parts.iter().enumerate() {
            if k > 0 {
                let OTy::Rec(r) = t.ty else { return None };
                let rexp = self.f.expanded(r).ok()?;
                comp = rexp.component(&p.ident.name)?.clone();
                t = self.f.comp_type(&comp).ok()?;
            }
            // A scalar subscript removes a dimension; a range keeps it.
            let removed = p
                .subscripts
                .iter()
                .filter(|s| {
                    matches!(s, ast::Subscript::Expr(e) if !matches!(e.kind, ExprKind::Range { .. }))
                })
                .count();
            t.ndims = t.ndims.saturating_sub(removed);
        }
        Some(t)
    }
    fn ref_size(&mut self, _c: &ast::ComponentRef) -> Option<usize> {
        None
    }
}

impl Flattener<'_> {
    /// The type of a name a function body reads from outside the function: a constant of an
    /// enclosing class, an imported one or one named through packages
    /// (`Modelica.ComplexMath.j`), which a function may read (MLS 12.2).
    pub(super) fn outer_constant_type(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
    ) -> Option<ArgTy> {
        self.outer_ctx(class, |ctx| ctx.ref_type(c))
    }

    /// The size of the first dimension of such a name (see [`Self::outer_constant_type`]).
    pub(super) fn outer_constant_size(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
    ) -> Option<usize> {
        self.outer_ctx(class, |ctx| ctx.ref_size(c))
    }

    /// `f` run in a structural evaluation context of function `class`'s scope.
    fn outer_ctx<R>(
        &mut self,
        class: ClassId,
        f: impl FnOnce(&mut super::scalarize::FCtx<'_, '_>) -> R,
    ) -> R {
        let scope = super::modifier::Scope {
            inst: None,
            lex: class,
        };
        f(&mut super::scalarize::FCtx::new(
            self,
            scope,
            super::scalarize::Mode::Structural,
        ))
    }

    /// [`desugar`] for an expression of the body of function `class`.
    pub(super) fn fn_desugar(
        &mut self,
        e: &ast::Expr,
        class: ClassId,
    ) -> EResult<Option<ast::Expr>> {
        if !self.op_records_seen
            || !matches!(
                e.kind,
                ExprKind::Binary { .. } | ExprKind::Unary { .. } | ExprKind::Call { .. }
            )
        {
            return Ok(None);
        }
        desugar(&mut FnScope { f: self, class }, e)
    }
}

impl<'b> OpScope<'b> for super::scalarize::FCtx<'_, 'b> {
    fn flat(&mut self) -> &mut Flattener<'b> {
        self.f
    }
    fn lex(&self) -> ClassId {
        self.scope.lex
    }
    fn inst(&self) -> Option<usize> {
        self.scope.inst
    }
    fn ref_type(&mut self, c: &ast::ComponentRef) -> Option<ArgTy> {
        use super::instance::InstKind;
        use super::scalarize::Node;
        let first = &c.parts[0].ident.name;
        if !c.global
            && let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| n == first)
        {
            let ndims = v.dims.len();
            return (c.parts.len() == 1 && c.parts[0].subscripts.is_empty()).then_some(ArgTy {
                ty: OTy::Other,
                ndims,
            });
        }
        if first == "time" && c.parts.len() == 1 && !c.global {
            return Some(ArgTy::scalar(OTy::Real));
        }
        let nodes = self.resolve(c).ok()??;
        let ndims = nodes.dims.len();
        let ty = match nodes.data.first()? {
            Node::Inst(i) => {
                let id = self.f.insts[*i].exp.id;
                if !self.f.is_record_valued(id) {
                    return None;
                }
                OTy::Rec(self.f.canonical_record(id))
            }
            Node::Var(i, _) => match self.f.insts[*i].kind {
                InstKind::Prim { ty, .. } => match ty {
                    ScalarType::Real => OTy::Real,
                    ScalarType::Integer => OTy::Integer,
                    ScalarType::Boolean => OTy::Boolean,
                    ScalarType::String => OTy::String,
                    ScalarType::Enumeration => OTy::Other,
                },
                _ => OTy::Other,
            },
        };
        Some(ArgTy { ty, ndims })
    }
    fn ref_size(&mut self, c: &ast::ComponentRef) -> Option<usize> {
        let nodes = self.resolve(c).ok()??;
        nodes.dims.first().copied()
    }
}

/// `output R result(re = x, im = y)` in a function (the form of the MSL's `Complex`
/// constructor): the field modifiers as assignments run before the algorithm.
pub(super) fn field_modifiers(c: &super::expand::CompElem) -> Vec<ast::Statement> {
    let Some(ast::Modification::Class { args, .. }) = &c.decl().modification else {
        return vec![];
    };
    let mut out = Vec::new();
    for a in &args.args {
        let ast::Argument::Modify {
            name,
            modification: Some(ast::Modification::Binding { expr, .. }),
            ..
        } = a
        else {
            continue;
        };
        let mut parts = vec![ast::RefPart {
            ident: c.decl().name.clone(),
            subscripts: vec![],
        }];
        parts.extend(name.parts.iter().map(|p| ast::RefPart {
            ident: p.clone(),
            subscripts: vec![],
        }));
        out.push(ast::Statement {
            kind: ast::StatementKind::Assign {
                target: ast::ComponentRef {
                    global: false,
                    parts,
                    span: name.span,
                },
                value: expr.clone(),
            },
            comment: ast::Comment::default(),
            span: expr.span,
        });
    }
    out
}

impl super::scalarize::FCtx<'_, '_> {
    /// A record constructor call as a value (MLS 12.6.1): the record's scalars in declaration
    /// order (the order [`Self::lookup`] gives a record component's), from the arguments or
    /// the fields' declaration bindings (which may use the fields before them).
    pub(super) fn record_constructor_value(
        &mut self,
        class: ClassId,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Vec<super::tensor::Tensor<crate::dae::Expr>>> {
        let exp = self.f.expanded(class)?;
        let comps: Vec<_> = exp
            .components
            .iter()
            .filter(|c| c.clause.prefix.variability != ast::Variability::Constant)
            .cloned()
            .collect();
        let names: Vec<String> = comps.iter().map(|c| c.name.clone()).collect();
        let rname = self.f.tree.get(class).full.clone();
        let given = super::eval::bind_args(&names, args, &rname, span)?;
        let mut fields: Vec<(String, super::tensor::Tensor<crate::dae::Expr>)> = Vec::new();
        for (c, g) in comps.iter().zip(given) {
            let v = match g {
                Some(a) => super::eval::eval(self, a)?,
                None => {
                    // The record's own `extends` modifiers come before the declaration's.
                    let Some(b) = Flattener::field_binding(&exp, &c.name) else {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "record constructor `{rname}`: field `{}` has no value",
                                c.name
                            ),
                        ));
                    };
                    let scope = super::modifier::Scope {
                        inst: None,
                        lex: b.scope.lex,
                    };
                    let mut fc = super::scalarize::FCtx::new(self.f, scope, self.mode);
                    fc.locals = fields.clone();
                    super::eval::eval(&mut fc, &b.expr)?
                }
            };
            fields.push((c.name.clone(), v));
        }
        let data = fields
            .into_iter()
            .flat_map(|(_, t)| t.data)
            .collect::<Vec<_>>();
        Ok(vec![super::tensor::Tensor {
            dims: vec![data.len()],
            data,
        }])
    }
}

impl Flattener<'_> {
    /// A flow component of an operator record type: the connection equations sum flows and
    /// set unconnected ones to zero, so the record defines `'0'`, a binary `'+'` and a unary
    /// `'-'` (MLS 9.2).
    pub(super) fn check_flow_operator_record(
        &mut self,
        rec: ClassId,
        span: Span,
        name: &str,
    ) -> EResult<()> {
        let r = ArgTy::scalar(OTy::Rec(self.canonical_record(rec)));
        for (op, args) in [("'0'", vec![]), ("'+'", vec![r, r]), ("'-'", vec![r])] {
            let cands = self.operator_functions(rec, op)?;
            if self.exact_matches(&cands, &args, &[])?.is_empty() {
                let what = match op {
                    "'0'" => "operator '0'",
                    "'+'" => "binary operator '+'",
                    _ => "unary operator '-'",
                };
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "the flow component `{name}` has the operator record type `{}`, which defines no {what}",
                        self.tree.get(rec).full
                    ),
                )
                .with_note(
                    "a flow operator record needs '0', binary '+' and unary '-' for the connection equations (MLS 9.2)",
                ));
            }
        }
        Ok(())
    }
}
