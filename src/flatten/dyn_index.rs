//! Variable subscripts (MLS 10.5): `u[k]` with `k` a discrete Integer known only at run time.
//!
//! The flat model is scalar, so `u[k]` becomes a choice among the elements: the reference is
//! looked up once per possible index value (the subscript evaluator is told which value to use,
//! [`DynFrame`]) and the results are joined element-wise into
//! `if noEvent(k == 1) then u[1] elseif ... else <check>`. The conditions need no events: `k` is
//! discrete, it only changes at events. The last branch calls a generated function that fails
//! with "index ... is out of bounds" when `k` is outside `1..n`; the simulator reports the
//! failure (with the variable and time) only when that branch is the one taken, so `u[k]` in
//! a branch of an if-expression that is not selected does no harm (MSL's MultiSwitch reads
//! `expr[0]` behind `if k == 0`).

use crate::dae::{self, Expr, Function, FunctionVar, ScalarType};
use crate::diag::{Diagnostic, Span};
use crate::flatten::tensor::Tensor;
use crate::syntax::ast;

/// What the subscript evaluator does with variable subscripts during one lookup.
#[derive(Default)]
pub struct DynFrame {
    /// 0-based values to use for the first variable subscripts met, in order.
    pub forced: Vec<usize>,
    /// How many variable subscripts were met so far.
    pub seen: usize,
    /// The first variable subscript met beyond `forced`: its index expression, the size of
    /// its dimension, and where it is written.
    pub found: Option<(Expr, usize, Span)>,
}

impl DynFrame {
    /// The 0-based index to use now for a variable subscript of a dimension of size `n`.
    pub fn next(&mut self, index: Expr, n: usize, span: Span) -> usize {
        let k = self.seen;
        self.seen += 1;
        if let Some(&i) = self.forced.get(k) {
            return i;
        }
        if self.found.is_none() {
            self.found = Some((index, n, span));
        }
        0
    }
}

/// Joins the lookups `options[i]` (index value `i + 1`) into one choice on `index`; `check`
/// is the value of the out-of-range branch.
pub fn choose(
    index: &Expr,
    options: Vec<Tensor<Expr>>,
    check: Expr,
    span: Span,
) -> Result<Tensor<Expr>, Diagnostic> {
    let Some(first) = options.first() else {
        return Ok(Tensor::scalar(check));
    };
    let dims = first.dims.clone();
    if options.iter().any(|o| o.dims != dims) {
        return Err(Diagnostic::error(
            span,
            "the elements selected by this variable subscript have different sizes",
        ));
    }
    let n = first.data.len();
    let data = (0..n)
        .map(|j| Expr::If {
            branches: options
                .iter()
                .enumerate()
                .map(|(i, o)| {
                    let cond =
                        Expr::binary(dae::BinOp::Eq, index.clone(), Expr::Integer(i as i64 + 1));
                    (Expr::NoEvent(Box::new(cond)), o.data[j].clone())
                })
                .collect(),
            else_: Box::new(check.clone()),
        })
        .collect();
    Ok(Tensor { dims, data })
}

/// A function `minimo.subscript_<hash>(i)` that returns 0 when `1 <= i <= n` and otherwise
/// fails with a message naming the reference, the index and the bounds.
pub fn check_function(what: &str, n: usize, span: Span) -> Result<Function, Diagnostic> {
    let what = what.replace(['"', '\\'], "'");
    let message = format!(
        "subscript out of bounds: {what} has index \" + String(i) + \", but the dimension is 1..{n}"
    );
    let mut h: u64 = 0xcbf29ce484222325;
    for b in message.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    let name = format!("minimo.subscript_{h:016x}");
    let text = format!(
        "function F\n  input Integer i;\n  output Real y;\nalgorithm\n  assert(i >= 1 and i <= {n}, \"{}\");\n  y := 0;\nend F;\n",
        message
    );
    let internal = |why: String| Diagnostic::error(span, format!("internal: {why}"));
    let def = crate::syntax::parse(&text, span.file)
        .map_err(|d| internal(format!("subscript check: {}", d[0].message)))?;
    let body = def
        .classes
        .first()
        .and_then(|c| match &c.body {
            ast::ClassBody::Long(l) => l.sections.iter().find_map(|s| match s {
                ast::Section::Algorithm { statements, .. } => Some(statements.clone()),
                _ => None,
            }),
            _ => None,
        })
        .ok_or_else(|| internal("subscript check has no algorithm".into()))?;
    let var = |name: &str, ty| FunctionVar {
        name: name.into(),
        ty,
        dims: Vec::new(),
        default: None,
    };
    Ok(Function {
        name,
        inputs: vec![var("i", ScalarType::Integer)],
        outputs: vec![var("y", ScalarType::Real)],
        locals: Vec::new(),
        body,
        span,
        derivative: None,
        native: None,
        input_groups: Vec::new(),
        output_groups: Vec::new(),
        folded: Vec::new(),
        inline_after_index_reduction: false,
    })
}
