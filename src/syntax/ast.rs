//! The typed syntax tree of a Modelica file. Every node carries a [`Span`].
//!
//! It follows MLS 3.6 Appendix A closely enough that the pretty-printer can write it back as
//! Modelica text and a re-parse gives the same tree (spans aside).

use crate::diag::Span;
use serde::{Deserialize, Serialize};

/// An identifier with its location. Quoted identifiers keep their quotes in `name`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `A.B.C` (a type or class name); `global` is a leading dot (`.Modelica.Blocks`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Name {
    pub global: bool,
    pub parts: Vec<Ident>,
    pub span: Span,
}

/// One parsed file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredDefinition {
    pub within: Option<Within>,
    pub classes: Vec<ClassDef>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Within {
    /// `None` for a bare `within;`.
    pub name: Option<Name>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClassKind {
    Class,
    Model,
    Record,
    OperatorRecord,
    Block,
    Connector,
    ExpandableConnector,
    Type,
    Package,
    Function,
    PureFunction,
    ImpureFunction,
    OperatorFunction,
    Operator,
}

/// Prefixes that may precede a class definition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassPrefixes {
    pub partial: bool,
    pub encapsulated: bool,
    pub final_: bool,
    pub redeclare: bool,
    pub replaceable: bool,
    pub inner: bool,
    pub outer: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassDef {
    pub prefixes: ClassPrefixes,
    pub kind: ClassKind,
    pub name: Ident,
    pub body: ClassBody,
    /// `constrainedby` clause of a replaceable class.
    pub constrainedby: Option<Constrainedby>,
    pub comment: Comment,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ClassBody {
    /// `model A "doc" ... end A;`
    Long(LongClass),
    /// `model A = B(k = 2);`, `type Angle = Real[3](unit = "rad");`
    Short(ShortClass),
    /// `model A extends B(...) "doc" ... end A;` (class extends, for redeclare)
    Extends(ExtendsClass),
    /// `type E = enumeration(a, b "doc", c);` or `enumeration(:)`
    Enumeration(EnumerationClass),
    /// `function f = der(g, x);` — parsed only.
    Der(DerClass),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LongClass {
    pub description: Option<StringLit>,
    pub sections: Vec<Section>,
    /// `external ...;` clause of functions (parsed, kept verbatim).
    pub external: Option<External>,
    /// The class annotation (`annotation(experiment(...))`).
    pub annotation: Option<Annotation>,
    /// The identifier after `end`.
    pub end_name: Ident,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShortClass {
    pub prefixes: TypePrefix,
    pub base: Name,
    pub array_dims: Vec<Subscript>,
    pub modification: Option<ClassModification>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtendsClass {
    pub base_name: Ident,
    pub modification: Option<ClassModification>,
    pub body: LongClass,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnumerationClass {
    /// Empty with `colon = true` for `enumeration(:)`.
    pub literals: Vec<EnumLiteral>,
    pub colon: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnumLiteral {
    pub name: Ident,
    pub comment: Comment,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DerClass {
    pub function: Name,
    pub vars: Vec<Ident>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct External {
    /// The text between `external` and `;`, verbatim.
    pub text: String,
    pub span: Span,
}

/// A part of a long class body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Section {
    /// Elements; the first section of a class is public, later ones follow `public`/`protected`.
    Elements {
        visibility: Visibility,
        elements: Vec<Element>,
        span: Span,
    },
    Equations {
        initial: bool,
        equations: Vec<Equation>,
        span: Span,
    },
    Algorithm {
        initial: bool,
        statements: Vec<Statement>,
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Visibility {
    Public,
    Protected,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Element {
    Import(Import),
    Extends(Extends),
    Class(Box<ClassDef>),
    Component(ComponentClause),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ImportKind {
    /// `import A.B.C;` or `import D = A.B.C;` (`alias` is `Some` in the second form).
    Named { alias: Option<Ident> },
    /// `import A.B.*;`
    Unqualified,
    /// `import A.B.{C, D};`
    Multiple(Vec<Ident>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Import {
    pub name: Name,
    pub kind: ImportKind,
    pub comment: Comment,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Extends {
    pub base: Name,
    pub modification: Option<ClassModification>,
    pub annotation: Option<Annotation>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Constrainedby {
    pub name: Name,
    pub modification: Option<ClassModification>,
    pub comment: Comment,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Connection {
    #[default]
    None,
    Flow,
    Stream,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variability {
    #[default]
    Continuous,
    Discrete,
    Parameter,
    Constant,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Causality {
    #[default]
    None,
    Input,
    Output,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TypePrefix {
    pub connection: Connection,
    pub variability: Variability,
    pub causality: Causality,
}

/// Prefixes of an element (component or class) in a composition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementPrefixes {
    pub redeclare: bool,
    pub final_: bool,
    pub inner: bool,
    pub outer: bool,
    pub replaceable: bool,
}

/// `parameter Real[3] a = ..., b(start = 1);` — one type, several declarations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComponentClause {
    pub element_prefixes: ElementPrefixes,
    pub prefix: TypePrefix,
    pub type_name: Name,
    /// Dimensions written on the type (`Real[3] x`).
    pub type_dims: Vec<Subscript>,
    pub components: Vec<ComponentDecl>,
    /// `constrainedby` of a replaceable component.
    pub constrainedby: Option<Constrainedby>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComponentDecl {
    pub name: Ident,
    /// Dimensions written on the name (`Real x[3]`).
    pub dims: Vec<Subscript>,
    pub modification: Option<Modification>,
    /// `if cond` of a conditional component.
    pub condition: Option<Expr>,
    pub comment: Comment,
    pub span: Span,
}

/// Description string and annotation after a declaration, equation or statement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    pub description: Option<StringLit>,
    pub annotation: Option<Annotation>,
}

/// A string literal; `value` has escapes resolved, concatenations (`"a" + "b"`) joined.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StringLit {
    pub value: String,
    pub span: Span,
}

/// `annotation(...)`, kept as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    pub modification: ClassModification,
    pub span: Span,
}

/// `(k = 2, redeclare model L = Coulomb, each x(start = 0))` or `= expr` or `:= expr`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Modification {
    /// `(args) [= expr]`
    Class {
        args: ClassModification,
        binding: Option<Expr>,
        span: Span,
    },
    /// `= expr`
    Binding { expr: Expr, span: Span },
    /// `:= expr` (in algorithm-like contexts)
    Assign { expr: Expr, span: Span },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassModification {
    pub args: Vec<Argument>,
    pub span: Span,
}

// `Modify` is the common, small case; boxing `Redeclare` would change the tree's API.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Argument {
    /// `[each] [final] a.b(...) = expr "doc"`
    Modify {
        each: bool,
        final_: bool,
        name: Name,
        modification: Option<Modification>,
        description: Option<StringLit>,
        span: Span,
    },
    /// `redeclare [each] [final] model L = Coulomb(...)` or `redeclare Foo c(...)`;
    /// also `[each] [final] replaceable ...` in a modifier.
    Redeclare {
        redeclare: bool,
        each: bool,
        final_: bool,
        replaceable: bool,
        element: RedeclaredElement,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RedeclaredElement {
    Class(Box<ClassDef>),
    Component(Box<ComponentClause>),
}

/// An array subscript or dimension: an expression or `:`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Subscript {
    Colon(Span),
    Expr(Expr),
}

/// `a.b[1].c`: each part is a name with optional subscripts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComponentRef {
    pub global: bool,
    pub parts: Vec<RefPart>,
    pub span: Span,
}

impl ComponentRef {
    /// A reference of one part without subscripts (`name` may contain dots: generated code
    /// names a model variable or a function by its flat name this way).
    pub fn single(name: &str, span: Span) -> ComponentRef {
        ComponentRef {
            global: false,
            parts: vec![RefPart {
                ident: Ident {
                    name: name.to_string(),
                    span,
                },
                subscripts: vec![],
            }],
            span,
        }
    }

    /// The reference read as a class name (a called function or record), subscripts dropped.
    pub fn as_name(&self) -> Name {
        Name {
            global: self.global,
            parts: self.parts.iter().map(|p| p.ident.clone()).collect(),
            span: self.span,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefPart {
    pub ident: Ident,
    pub subscripts: Vec<Subscript>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    ElemAdd,
    ElemSub,
    ElemMul,
    ElemDiv,
    ElemPow,
    And,
    Or,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnOp {
    Neg,
    Plus,
    ElemNeg,
    ElemPlus,
    Not,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    /// Integer literal (kept as written when it overflows i64: see `Real`).
    Integer(i64),
    Real(f64),
    String(String),
    Boolean(bool),
    /// `end` inside a subscript.
    End,
    /// A component reference (`time` is a `Ref` named `time`).
    Ref(ComponentRef),
    /// `f(args)`, `der(x)`, `initial()`, `Real(x)`... `func` is the called name.
    Call {
        func: ComponentRef,
        args: FunctionArgs,
    },
    /// `{a, b, c}` (each inner `Vec` is one argument list) or `{f(i) for i in 1:n}`.
    Array(FunctionArgs),
    /// `[a, b; c, d]`: rows of expressions.
    Matrix(Vec<Vec<Expr>>),
    /// `(a, b, , d)` output expression list; a single parenthesised expression is just that
    /// expression with `paren = true` not needed: the printer adds parentheses by precedence.
    Tuple(Vec<Option<Expr>>),
    /// `start : stop` or `start : step : stop`.
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        stop: Box<Expr>,
    },
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `if c1 then e1 elseif c2 then e2 else e3`.
    If {
        branches: Vec<(Expr, Expr)>,
        else_: Box<Expr>,
    },
    /// `f(x).name` style member access on a call result is not supported; kept minimal.
    /// `function f(...)` partial application (parsed only).
    PartialFunction {
        func: Name,
        args: FunctionArgs,
    },
}

/// Arguments of a call or array constructor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionArgs {
    pub positional: Vec<Expr>,
    pub named: Vec<NamedArg>,
    /// `for i in 1:n, j in ...` of a reduction or array comprehension.
    pub iterators: Vec<ForIndex>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedArg {
    pub name: Ident,
    pub value: Expr,
}

/// `i in 1:n` (the range may be omitted: `for i loop`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForIndex {
    pub name: Ident,
    pub range: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Equation {
    pub kind: EquationKind,
    pub comment: Comment,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EquationKind {
    /// `lhs = rhs`
    Simple { lhs: Expr, rhs: Expr },
    /// `connect(a, b)`
    Connect { a: ComponentRef, b: ComponentRef },
    /// `for i in 1:n, j in 1:m loop ... end for`
    For {
        indices: Vec<ForIndex>,
        body: Vec<Equation>,
    },
    /// `if c then ... elseif ... else ... end if`
    If {
        branches: Vec<(Expr, Vec<Equation>)>,
        else_: Vec<Equation>,
    },
    /// `when c then ... elsewhen ... end when`
    When {
        branches: Vec<(Expr, Vec<Equation>)>,
    },
    /// A call used as an equation: `reinit(x, 0)`, `assert(c, "msg")`, `terminate("msg")`, `f(x)`.
    Call {
        func: ComponentRef,
        args: FunctionArgs,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    pub kind: StatementKind,
    pub comment: Comment,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StatementKind {
    /// `x := e`
    Assign {
        target: ComponentRef,
        value: Expr,
    },
    /// `(a, , b) := f(x)`
    MultiAssign {
        targets: Vec<Option<ComponentRef>>,
        value: Expr,
    },
    /// `f(x);` (incl. `assert`, `terminate`, `reinit`)
    Call {
        func: ComponentRef,
        args: FunctionArgs,
    },
    If {
        branches: Vec<(Expr, Vec<Statement>)>,
        else_: Vec<Statement>,
    },
    For {
        indices: Vec<ForIndex>,
        body: Vec<Statement>,
    },
    While {
        condition: Expr,
        body: Vec<Statement>,
    },
    When {
        branches: Vec<(Expr, Vec<Statement>)>,
    },
    Return,
    Break,
}
