//! The flat system: what flattening produces and structural analysis consumes.
//!
//! Everything is scalar: arrays of variables and of components are expanded, so `x[3]` of a
//! component `wheels[2]` is the variable `wheels[2].x[3]`. Expressions refer to variables by
//! [`VarId`] (an index into [`FlatModel::variables`]). Parameters that are not structural stay
//! symbolic (as `Var` of a parameter), so `simulate --set` can change them.

pub mod bicubic;
mod print;
mod strfmt;
pub mod tables;

pub use print::{builtin_name, print_expr, print_flat};
pub use strfmt::{StringFormat, ValueKind, format_g};

use crate::diag::Span;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Index into [`FlatModel::variables`].
pub type VarId = usize;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlatModel {
    /// Qualified name of the flattened model.
    pub name: String,
    pub variables: Vec<Variable>,
    /// The equations (binding equations of non-parameter variables included).
    pub equations: Vec<Equation>,
    pub initial_equations: Vec<Equation>,
    /// User functions reachable from the equations, by fully qualified name.
    pub functions: BTreeMap<String, Function>,
    /// `experiment(...)` annotation of the model, if any.
    pub experiment: Experiment,
    /// Warnings of flattening (a default `inner` made for an `outer`, ...).
    #[serde(default)]
    pub warnings: Vec<crate::diag::Diagnostic>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    pub start_time: Option<f64>,
    pub stop_time: Option<f64>,
    pub interval: Option<f64>,
    pub tolerance: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variability {
    Constant,
    Parameter,
    Discrete,
    Continuous,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScalarType {
    Real,
    Integer,
    Boolean,
    String,
    /// Enumerations are integers 1..n at run time.
    Enumeration,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Causality {
    #[default]
    Local,
    Input,
    Output,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StateSelect {
    Never,
    Avoid,
    #[default]
    Default,
    Prefer,
    Always,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    /// Flat name, e.g. `wheels[2].rollers[1].v[3]`.
    pub name: String,
    pub variability: Variability,
    pub ty: ScalarType,
    pub causality: Causality,
    /// `flow` variables (kept for diagnostics: a missing ground shows up on them).
    pub flow: bool,
    /// Binding of a parameter or constant (`parameter Real k = 2*m;`). Bindings of other
    /// variables are turned into equations by flattening.
    pub binding: Option<Expr>,
    pub start: Option<Expr>,
    pub fixed: Option<bool>,
    pub nominal: Option<Expr>,
    pub min: Option<Expr>,
    pub max: Option<Expr>,
    pub unit: Option<String>,
    pub display_unit: Option<String>,
    pub state_select: StateSelect,
    pub description: Option<String>,
    /// The component instance the variable comes from (`wheels[2].rollers[1]`, empty for top level).
    pub component: String,
    /// Where it is declared.
    pub span: Span,
    /// Set by structural analysis for the variables it introduces for `der(x)`.
    #[serde(default)]
    pub derivative_of: Option<VarId>,
    /// A parameter whose value flattening used (array size, `for` range, subscript, condition):
    /// its binding is the evaluated value and changing it needs flattening again.
    #[serde(default)]
    pub structural: bool,
    /// A structural parameter evaluated at translation (`annotation(Evaluate = true)`, or bound
    /// to such parameters only): structural analysis substitutes its value into the equations.
    #[serde(default)]
    pub evaluated: bool,
}

impl Variable {
    /// A continuous Real variable with no attributes (attributes are then set field by field).
    pub fn real(name: impl Into<String>, span: Span) -> Variable {
        Variable {
            name: name.into(),
            variability: Variability::Continuous,
            ty: ScalarType::Real,
            causality: Causality::Local,
            flow: false,
            binding: None,
            start: None,
            fixed: None,
            nominal: None,
            min: None,
            max: None,
            unit: None,
            display_unit: None,
            state_select: StateSelect::Default,
            description: None,
            component: String::new(),
            span,
            derivative_of: None,
            structural: false,
            evaluated: false,
        }
    }
    pub fn is_unknown(&self) -> bool {
        matches!(
            self.variability,
            Variability::Continuous | Variability::Discrete
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Equation {
    pub kind: EquationKind,
    /// Component instance the equation comes from (empty for the top level).
    pub component: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EquationKind {
    /// `lhs = rhs`, scalar.
    Simple { lhs: Expr, rhs: Expr },
    /// An if-equation whose conditions are not parameters. Every branch has the same number of
    /// equations (checked by flattening, MLS 8.3.4).
    If {
        branches: Vec<(Expr, Vec<Equation>)>,
        else_: Vec<Equation>,
    },
    /// `when c then ... elsewhen ... end when`. Bodies hold `Simple` equations whose left side is
    /// a variable (assigned at the event), `Reinit`, `Assert` and `Terminate`.
    When {
        branches: Vec<(Expr, Vec<Equation>)>,
    },
    /// `reinit(x, value)`, only inside `When`.
    Reinit { var: VarId, value: Expr },
    /// `assert(condition, message, level)`; `warning` is `AssertionLevel.warning`.
    Assert {
        condition: Expr,
        message: Expr,
        warning: bool,
    },
    /// `terminate(message)`, only inside `When`.
    Terminate { message: Expr },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    And,
    Or,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinOp {
    /// Binding strength in Modelica's grammar (higher binds tighter); `not` sits at 3 and unary
    /// minus at 5, between these. Both flat printers use it, so they parenthesize alike.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => 4,
            BinOp::Add | BinOp::Sub => 5,
            BinOp::Mul | BinOp::Div => 6,
            BinOp::Pow => 8,
        }
    }

    /// The operator as Modelica writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "<>",
        }
    }
}

/// Built-in scalar functions and operators that survive flattening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Builtin {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Log,
    Log10,
    Sqrt,
    Abs,
    Sign,
    Min,
    Max,
    Floor,
    Ceil,
    /// `integer(x)`: largest integer not greater than x, as an Integer.
    Integer,
    /// `div(x, y)`: truncated quotient.
    Div,
    Mod,
    Rem,
    /// `semiLinear(x, k1, k2)`.
    SemiLinear,
    /// `homotopy(actual, simplified)` (MLS 3.7.4.1): `actual`, except while initialization
    /// follows the solution from `simplified` to `actual` (`sim/homotopy.rs`).
    Homotopy,
    /// `delay(expr, delayTime, delayMax)` (MLS 3.7.4.1; `delayMax = delayTime` when it was
    /// not given): `expr` at `time - delayTime`, its start value before the start
    /// (`sim/delay.rs`).
    Delay,
    /// `Clock(c)` as the condition of the `when` that runs a clocked partition on an event
    /// clock (MLS 16.3): the value of `c`. It marks the clause as a clock's: a tick, once taken
    /// at an event instant, stands for the instant, even when the partition's outputs make `c`
    /// false again (`sim/events.rs`).
    EventClock,
}

/// A scalar expression of the flat system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Real(f64),
    Integer(i64),
    Boolean(bool),
    String(String),
    Var(VarId),
    Time,
    /// `der(e)`; after flattening `e` is usually a `Var`.
    Der(Box<Expr>),
    /// `pre(v)`.
    Pre(Box<Expr>),
    /// `edge(b)` = `b and not pre(b)`.
    Edge(Box<Expr>),
    /// `change(v)` = `v <> pre(v)`.
    Change(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Call(Builtin, Vec<Expr>),
    /// A user function: `output` picks the output (0 = first), `element` the scalar element of
    /// that output in row-major order (0 for a scalar output). Array arguments are `Array`.
    UserCall {
        function: String,
        args: Vec<Expr>,
        output: usize,
        element: usize,
    },
    /// An array argument of a user function, row-major, with its dimensions.
    Array {
        dims: Vec<usize>,
        elements: Vec<Expr>,
    },
    /// `if c1 then e1 elseif c2 then e2 else e3`.
    If {
        branches: Vec<(Expr, Expr)>,
        else_: Box<Expr>,
    },
    /// `noEvent(e)`: relations inside switch without generating events.
    NoEvent(Box<Expr>),
    /// `smooth(p, e)`.
    Smooth(u32, Box<Expr>),
    Initial,
    Terminal,
    /// `sample(start, interval)`.
    Sample(Box<Expr>, Box<Expr>),
    /// `String(value, ...)` of a value known only at run time (MLS 3.7.1). A String, so only
    /// messages (`assert`, `terminate`) can use it; the simulator formats it when shown.
    ToString(Box<Expr>, StringFormat),
}

impl Expr {
    pub fn var(v: VarId) -> Expr {
        Expr::Var(v)
    }
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }
    // A constructor beside `binary`, not an operator: `-e` on trees would hide the boxing.
    #[allow(clippy::should_implement_trait)]
    pub fn neg(a: Expr) -> Expr {
        Expr::Unary(UnOp::Neg, Box::new(a))
    }
    /// Calls `f` on every sub-expression, children first.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Expr::Der(a) | Expr::Pre(a) | Expr::Edge(a) | Expr::Change(a) => a.visit(f),
            Expr::Unary(_, a) | Expr::NoEvent(a) | Expr::Smooth(_, a) | Expr::ToString(a, _) => {
                a.visit(f)
            }
            Expr::Binary(_, a, b) | Expr::Sample(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Expr::Call(_, args) | Expr::UserCall { args, .. } => {
                args.iter().for_each(|a| a.visit(f))
            }
            Expr::Array { elements, .. } => elements.iter().for_each(|a| a.visit(f)),
            Expr::If { branches, else_ } => {
                for (c, e) in branches {
                    c.visit(f);
                    e.visit(f);
                }
                else_.visit(f);
            }
            Expr::Real(_)
            | Expr::Integer(_)
            | Expr::Boolean(_)
            | Expr::String(_)
            | Expr::Var(_)
            | Expr::Time
            | Expr::Initial
            | Expr::Terminal => {}
        }
        f(self);
    }
}

/// A user function as flattening keeps it: signature plus the algorithm, in the syntax tree's
/// statement form with every called function name fully qualified.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    pub inputs: Vec<FunctionVar>,
    pub outputs: Vec<FunctionVar>,
    pub locals: Vec<FunctionVar>,
    pub body: Vec<crate::syntax::ast::Statement>,
    pub span: Span,
    /// An `external "C"` function that minimo evaluates itself (no C code can be linked).
    #[serde(default)]
    pub native: Option<Native>,
    /// `annotation(derivative(noDerivative = u) = fder)` (MLS 12.7.1), if any.
    #[serde(default)]
    pub derivative: Option<FunctionDerivative>,
    /// The declared inputs when some are records (MLS 12.6): a record is passed field by
    /// field, so `inputs` holds one entry per field (`R.T`, `R.w`) and each group names the
    /// run of `inputs` one declared input covers. Empty: one group per entry of `inputs`.
    #[serde(default)]
    pub input_groups: Vec<ArgGroup>,
    /// The same for `outputs`.
    #[serde(default)]
    pub output_groups: Vec<ArgGroup>,
    /// Bindings of outputs and locals that are closed expressions (literals and operators,
    /// no names, no calls), evaluated once when the function is built: the coefficient
    /// tables media functions declare as local constants (`Real T_coef[:, :] = {{...}}`,
    /// 1900 numbers) would otherwise be evaluated from the syntax tree at every call.
    /// In the order of `outputs ++ locals`.
    #[serde(default)]
    pub folded: Vec<FoldedBinding>,
    /// `annotation(InlineAfterIndexReduction = true)` (MLS 18.3): a call flattening kept (the
    /// function declares its derivative, which need not be the derivative of its body) is
    /// replaced by its body once index reduction has differentiated it
    /// (`structure::userfn::inline_late`).
    #[serde(default)]
    pub inline_after_index_reduction: bool,
}

/// A natively evaluated external function: the C name says what it computes; `table` is the
/// external object it reads (its first input in Modelica, removed from `inputs` once the
/// object is known at flattening).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Native {
    pub c_name: String,
    pub table: Option<tables::Table>,
    /// `external "builtin"` naming one of minimo's built-in functions, called with the
    /// function's inputs in declared order (MLS 12.9.1): evaluated as that built-in.
    #[serde(default)]
    pub builtin: bool,
}

/// A function's declared derivative: `fder(inputs..., derivatives of the differentiated
/// inputs...)` has the time derivatives of the function's outputs as its outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionDerivative {
    /// Fully qualified name of the derivative function.
    pub name: String,
    /// `order` (1 when absent): informative, each function names its own next derivative.
    pub order: u32,
    /// Inputs whose derivative is not an input of the derivative function.
    pub no_derivative: Vec<String>,
    /// Inputs whose derivative must be zero for the derivative function to apply.
    pub zero_derivative: Vec<String>,
}

/// One declared input or output of a function whose records are passed field by field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArgGroup {
    pub name: String,
    /// Index of the first field in `Function::inputs` (or `outputs`).
    pub first: usize,
    /// Sizes of the fields (a record), or `None` for a value of a non-record type (one entry).
    pub fields: Option<Vec<Vec<usize>>>,
    /// For an array of records (`input Complex v[:]`), the number of its dimensions: each
    /// field entry has them first, before the field's own sizes.
    #[serde(default)]
    pub record_dims: usize,
}

impl ArgGroup {
    /// How many entries of `inputs`/`outputs` the group covers.
    pub fn count(&self) -> usize {
        self.fields.as_ref().map_or(1, |f| f.len())
    }
    /// The number of scalars of a record (its fields in row-major order, one after the other).
    pub fn scalars(&self) -> usize {
        self.fields
            .as_ref()
            .map_or(0, |f| f.iter().map(|d| d.iter().product::<usize>()).sum())
    }
}

/// The value of a closed binding of a function's output or local (see `Function::folded`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldedBinding {
    /// Index of the variable in `outputs ++ locals`.
    pub var: usize,
    pub dims: Vec<usize>,
    /// Row-major elements; the variable's type says how to read them (Integer, Boolean 0/1).
    pub data: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionVar {
    pub name: String,
    pub ty: ScalarType,
    /// Dimensions; `None` for `:` (taken from the argument).
    pub dims: Vec<Option<crate::syntax::ast::Expr>>,
    /// Default value (inputs) or binding (outputs and locals).
    pub default: Option<crate::syntax::ast::Expr>,
}
