//! The compiled form of a function (see the module above): a frame layout and typed code.

use crate::dae::BinOp;
use std::sync::Arc;

/// The type of a value held in the frame (all are stored as `f64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Real,
    Int,
    Bool,
}

/// A compiled function, for one set of input sizes.
pub struct Code {
    /// Slots of the frame: inputs, outputs and locals, then loop iterators.
    pub(super) frame: usize,
    /// Where each input lies, with its type (arguments are converted as the interpreter's
    /// caller converts them).
    pub(super) inputs: Vec<(Place, Ty)>,
    pub(super) outputs: Vec<(Place, Ty)>,
    /// The sizes of each output.
    pub(super) output_dims: Vec<Vec<usize>>,
    /// Bindings of outputs and locals, in declaration order (not counted as statements).
    pub(super) init: Vec<Init>,
    pub(super) body: Vec<St>,
}

/// A run of slots of the frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Place {
    pub(super) at: u32,
    pub(super) len: u32,
}

/// A binding of an output or local.
pub(super) enum Init {
    Scalar(u32, Ex),
    Array(Place, Src),
}

/// A scalar expression, with the type of its value.
pub(super) struct Ex {
    pub(super) ty: Ty,
    pub(super) kind: ExKind,
}

pub(super) enum ExKind {
    Const(f64),
    Var(u32),
    Elem(Box<Element>),
    Unary(crate::dae::UnOp, Box<Ex>),
    Binary(BinOp, Box<Ex>, Box<Ex>),
    /// `and` / `or`, evaluated left to right with the right side skipped when the left
    /// decides (as the interpreter does).
    Logic(BinOp, Box<Ex>, Box<Ex>),
    If(Vec<(Ex, Ex)>, Box<Ex>),
    Builtin(crate::dae::Builtin, Vec<Ex>),
    /// The first element of a call's first output.
    Call(Box<Call>),
    /// `sum`, `product`, `min` or `max` of an array or of `e for i in a:b`.
    Reduce(Box<Reduce>),
}

/// A reduction, folded from the first element as `flatten::tensor::reduce` folds it.
pub(super) struct Reduce {
    pub(super) fold: Fold,
    pub(super) over: Over,
    /// The type of the elements.
    pub(super) ty: Ty,
}

#[derive(Clone, Copy)]
pub(super) enum Fold {
    /// `sum` (`Add`) or `product` (`Mul`): 0 or 1 when there is no element.
    Op(BinOp),
    /// `min` or `max`: no element is an error.
    Builtin(crate::dae::Builtin),
}

pub(super) enum Over {
    Array(Place),
    Range {
        var: u32,
        start: Ex,
        step: Option<Ex>,
        stop: Ex,
        body: Ex,
    },
}

/// An element of an array variable: `at` is the first slot, `dims` the sizes, `subs` the
/// 1-based subscripts (checked against the sizes at run time).
pub(super) struct Element {
    pub(super) at: u32,
    pub(super) dims: Vec<u32>,
    pub(super) subs: Vec<Ex>,
}

/// Where the elements of an array come from.
pub(super) enum Src {
    /// A scalar argument.
    Scalar(Ex),
    /// Numbers known when compiling (a folded binding).
    Const(Arc<[f64]>),
    /// A whole variable.
    Copy(Place),
    /// A slice of a variable, in row-major order.
    Slice(Box<Slice>),
    /// A literal vector or matrix, row-major.
    List(Vec<Ex>),
}

pub(super) struct Slice {
    pub(super) at: u32,
    pub(super) dims: Vec<u32>,
    pub(super) sels: Vec<Sel>,
}

/// One subscript of a slice.
pub(super) enum Sel {
    One(Ex),
    /// `a:b` with both known when compiling: the first index and the count.
    Range(i64, u32),
    All,
}

/// A call of a compiled function with one source per input.
pub(super) struct Call {
    pub(super) code: Arc<Code>,
    pub(super) args: Vec<Src>,
}

/// Where a multiple assignment puts one output.
pub(super) enum Target {
    Var(Place),
    Elem(Box<Element>),
}

pub(super) enum St {
    Set(u32, Ex),
    SetElem(Box<Element>, Ex),
    SetArray(Place, Src),
    /// `(a, b) := f(x)` and `y := f(x)` with `y` an array.
    Outputs(Box<Call>, Vec<Option<Target>>),
    /// A call for its effect (its asserts).
    Run(Box<Call>),
    Assert(Ex),
    If(Vec<(Ex, Vec<St>)>, Vec<St>),
    For {
        var: u32,
        start: Ex,
        step: Option<Ex>,
        stop: Ex,
        body: Vec<St>,
    },
    While(Ex, Vec<St>),
    Return,
    Break,
    /// A call statement outside the subset: the interpreter makes the whole call.
    GiveUp,
}

impl Code {
    /// The outputs for these argument registers followed by `defaults` (the inputs a call
    /// leaves out; Integer and Boolean inputs read as the interpreter's caller reads them),
    /// or `None` where the interpreter must make the call (it then gives the same numbers,
    /// or the error this code gave up on).
    pub fn run(&self, args: &[f64], defaults: &[f64]) -> Option<Vec<Vec<f64>>> {
        super::exec::run(self, args, defaults)
    }
}
