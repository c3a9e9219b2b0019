//! From the sorted system to a [`Program`]: expressions become register instructions.
//!
//! Compilation happens once per run, after `--set` overrides: parameters are then known numbers
//! and fold into constants together with every sub-expression that depends only on them.
//! Identical sub-expressions share one register (common-subexpression elimination by
//! hash-consing `(op, operands)`), and `a*b + c` fuses into one `MulAdd` instruction.
//!
//! Relations outside `noEvent` do not compare at run time: they read a *relation register*
//! that only changes at events, and their operands define a zero-crossing function `a - b`
//! handed to the integrator's root finder. Inside `noEvent` a relation is an ordinary
//! comparison, so its branch switches inside the integrator's iterations without an event.

use super::funcall;
use super::params::{ParamValues, eval_param_expr};
use super::tape::{Instr, Op, Reg};
use crate::dae::{
    BinOp, Builtin, EquationKind, Expr, FlatModel, ScalarType, StringFormat, UnOp, ValueKind,
    VarId, Variability,
};
use crate::diag::{Diagnostic, Span};
use crate::structure::tearing::tear_block;
use crate::structure::{BlockKind, SortedSystem};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// One step of the main pass.
#[derive(Clone, Debug)]
pub enum Step {
    /// `code` computes the block's one variable.
    Explicit {
        code: Range<usize>,
        var: VarId,
        block: usize,
    },
    /// `code` computes the residuals (registers `residuals`) from the unknowns `vars`; solved
    /// by one LU (linear) or damped Newton (nonlinear). `inputs` are the registers the code reads
    /// that it does not compute (their tangents are zeroed for the block's own Jacobian).
    Implicit {
        code: Range<usize>,
        vars: Vec<VarId>,
        residuals: Vec<Reg>,
        inputs: Vec<Reg>,
        linear: bool,
        /// Torn (`structure::tearing`): the unknowns are the tearing variables, the code also
        /// assigns the block's other unknowns.
        torn: bool,
        block: usize,
    },
}

/// A relation that generates events: `a op b`, locked in register `reg` between events.
#[derive(Clone, Debug)]
pub struct Relation {
    pub op: Op,
    pub a: Reg,
    pub b: Reg,
    pub reg: Reg,
    /// The relation as written (flat names), for messages.
    pub text: String,
}

/// `sample(start, interval)`: `reg` is true only at the event at each sample instant.
#[derive(Clone, Debug)]
pub struct Sample {
    pub start: f64,
    pub interval: f64,
    pub reg: Reg,
}

#[derive(Clone, Debug)]
pub enum Action {
    /// `var := value` when the branch fires.
    Assign {
        var: VarId,
        value: Reg,
    },
    Reinit {
        var: VarId,
        value: Reg,
    },
    Assert {
        condition: Reg,
        message: Vec<MsgPart>,
        warning: bool,
        span: Span,
    },
    Terminate {
        message: Vec<MsgPart>,
    },
}

/// A piece of an `assert`/`terminate` message; the values it shows are computed in registers
/// with the rest of the event code, so any expression can be shown.
#[derive(Clone, Debug)]
pub enum MsgPart {
    Text(String),
    Value {
        reg: Reg,
        kind: ValueKind,
        format: StringFormat,
    },
    /// `if c then "a" else "b"` inside a message.
    Choice {
        branches: Vec<(Reg, Vec<MsgPart>)>,
        else_: Vec<MsgPart>,
    },
}

impl MsgPart {
    fn regs(&self, out: &mut impl FnMut(Reg)) {
        match self {
            MsgPart::Text(_) => {}
            MsgPart::Value { reg, .. } => out(*reg),
            MsgPart::Choice { branches, else_ } => {
                for (c, parts) in branches {
                    out(*c);
                    parts.iter().for_each(|p| p.regs(out));
                }
                else_.iter().for_each(|p| p.regs(out));
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct WhenClause {
    /// One condition register per branch (`when` / `elsewhen`), with the actions of that branch.
    pub branches: Vec<(Reg, Vec<Action>)>,
    /// The elements of each branch's condition: one register, or one per element of a vector
    /// condition `{c1, c2}` (the branch is activated by the rising edge of any element, MLS
    /// 8.3.5; `branches[b].0` is then their `or`, true while any is).
    pub elements: Vec<Vec<Reg>>,
    /// Whether a branch condition mentions `initial()` (then it may fire at initialization).
    pub initial: Vec<bool>,
    pub span: Span,
}

/// An initial equation that determines a discrete unknown of the initial system (MLS 8.6):
/// `v = expr` for a variable assigned in a `when` that is not active at initialization (there
/// `v = pre(v)`, so both get the value), or `pre(v) = expr`. Solved by assignment, in a
/// fixed-point loop with the rest of the initial system, because Newton cannot move an Integer
/// or Boolean.
#[derive(Clone, Debug)]
pub struct InitAssign {
    pub var: VarId,
    /// Whether the variable itself takes the value (not only its `pre`).
    pub set_var: bool,
    /// The `pre(v)` register, when `pre(v)` is used anywhere.
    pub pre: Option<Reg>,
    pub value: Reg,
    /// Index into `FlatModel::initial_equations`.
    pub eq: usize,
}

/// A dynamic state set in registers: the constraint Jacobian with respect to the candidates.
#[derive(Clone, Debug)]
pub struct SetMonitor {
    pub rows: usize,
    pub cols: usize,
    pub entries: Vec<(usize, usize, Reg)>,
    /// Columns currently chosen as dummy derivatives.
    pub dummy_cols: Vec<usize>,
    /// The variable each candidate is the derivative of.
    pub candidate_states: Vec<VarId>,
}

/// Everything the evaluator needs, in registers.
#[derive(Clone, Debug)]
pub struct Program {
    pub code: Vec<Instr>,
    /// Register file contents before the first evaluation (constants, parameters, start values).
    pub init_regs: Vec<f64>,
    pub steps: Vec<Step>,
    /// Alias and eliminated variables, computed after the main pass.
    pub eliminated: Range<usize>,
    /// When conditions, assignments, reinit values, asserts, discrete equations.
    pub event_code: Range<usize>,
    /// Residuals of the initial equations (computed after the event code).
    pub initial_code: Range<usize>,
    pub initial_residuals: Vec<(Reg, usize)>,
    /// Per initial residual, `(v, e)` when its equation is `v = e` with `e` not reading `v`
    /// (the initial values can then start from `v := e`, in the equations' order of need).
    pub initial_explicit: Vec<Option<(VarId, Reg)>>,
    /// Initial equations that give a discrete unknown its value (computed by the initial code).
    pub initial_assigns: Vec<InitAssign>,
    pub relations: Vec<Relation>,
    pub samples: Vec<Sample>,
    pub whens: Vec<WhenClause>,
    /// Assignments of discrete variables outside `when` (evaluated at events), and asserts.
    pub always: Vec<Action>,
    /// `(variable register, pre register)`.
    pub pre: Vec<(Reg, Reg)>,
    /// `pre` registers of discrete variables with `fixed = true`: at initialization
    /// `pre(v) = v.start` (MLS 8.6), whatever the initial event iteration gives `v`.
    pub pre_fixed: Vec<Reg>,
    /// Jacobians of the dynamic state sets (computed after the event code).
    pub state_set_code: Range<usize>,
    pub state_sets: Vec<SetMonitor>,
    /// `(state, derivative)` variables.
    pub states: Vec<(VarId, VarId)>,
    pub time: Reg,
    pub initial: Reg,
    pub terminal: Reg,
    /// The continuation parameter λ of `homotopy(actual, simplified)` (1 outside the
    /// homotopy phase of initialization), when the model calls it.
    pub homotopy: Option<Reg>,
    /// Which step computes each variable (for error messages).
    pub computed_by: Vec<Option<usize>>,
    /// Explicit steps of discrete variables that read a relation whose operands later steps
    /// compute: the iteration variables of a mixed continuous/discrete loop (a friction
    /// element's `startForward` reads `sa > f0_max`, and `sa` comes from the loop that
    /// `startForward` switches). The event iteration holds them at their `pre` values for the
    /// first pass of each round, as Dymola's and OpenModelica's mixed-system solvers start
    /// from the `pre` values of the discrete iteration variables.
    pub iteration_steps: Vec<usize>,
    /// Linear blocks compiled torn: (unknowns of the block, unknowns of the torn system).
    pub torn: Vec<(usize, usize)>,
}

impl Program {
    pub fn nregs(&self) -> usize {
        self.init_regs.len()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key(Op, Reg, Reg, Reg);

struct Compiler<'a> {
    model: &'a FlatModel,
    params: &'a ParamValues,
    code: Vec<Instr>,
    regs: Vec<f64>,
    /// Constant value of a register, if known at compile time.
    konst: Vec<Option<f64>>,
    consts: HashMap<u64, Reg>,
    cse: HashMap<Key, Reg>,
    /// Temporaries computed by `a - b`: `(a, b, instruction index)`, to fuse `(a - b) * c`.
    subs: HashMap<Reg, (Reg, Reg, usize)>,
    /// First instruction of the block or section being compiled: fusion only looks back to here,
    /// so a fused instruction never reads operands another block may have changed since.
    section_start: usize,
    /// How many times each register is read (for fusing `a*b + c`).
    der_of: HashMap<VarId, VarId>,
    pre: HashMap<VarId, Reg>,
    pre_list: Vec<(Reg, Reg)>,
    relations: Vec<Relation>,
    rel_index: HashMap<(Op, Reg, Reg), usize>,
    samples: Vec<Sample>,
    no_event: u32,
    time: Reg,
    initial: Reg,
    terminal: Reg,
    /// The continuation parameter of `homotopy` and whether any call uses it.
    homotopy: (Reg, bool),
    errors: Vec<Diagnostic>,
    /// Parameters the initial system determines, directly or through their bindings: not
    /// compile-time constants.
    initial_dependent: Vec<bool>,
    /// Span for error messages about the expression being compiled.
    span: Span,
    calls: funcall::Calls,
}

/// Maps a built-in function to a tape operation (checking the argument count).
pub fn builtin_op(f: Builtin, nargs: usize) -> Result<Op, String> {
    let (op, n) = match f {
        Builtin::Sin => (Op::Sin, 1),
        Builtin::Cos => (Op::Cos, 1),
        Builtin::Tan => (Op::Tan, 1),
        Builtin::Asin => (Op::Asin, 1),
        Builtin::Acos => (Op::Acos, 1),
        Builtin::Atan => (Op::Atan, 1),
        Builtin::Atan2 => (Op::Atan2, 2),
        Builtin::Sinh => (Op::Sinh, 1),
        Builtin::Cosh => (Op::Cosh, 1),
        Builtin::Tanh => (Op::Tanh, 1),
        Builtin::Exp => (Op::Exp, 1),
        Builtin::Log => (Op::Log, 1),
        Builtin::Log10 => (Op::Log10, 1),
        Builtin::Sqrt => (Op::Sqrt, 1),
        Builtin::Abs => (Op::Abs, 1),
        Builtin::Sign => (Op::Sign, 1),
        Builtin::Min => (Op::Min, 2),
        Builtin::Max => (Op::Max, 2),
        Builtin::Floor => (Op::Floor, 1),
        Builtin::Ceil => (Op::Ceil, 1),
        Builtin::Integer => (Op::Floor, 1),
        Builtin::Div => (Op::DivInt, 2),
        Builtin::Mod => (Op::Mod, 2),
        Builtin::Rem => (Op::Rem, 2),
        Builtin::SemiLinear => (Op::SemiLinear, 3),
        // Compiled with its continuation parameter (`Compiler::expr`); as a value, `actual`.
        Builtin::Homotopy => (Op::Copy, 2),
    };
    if n != nargs {
        return Err(format!("{f:?} takes {n} argument(s), got {nargs}").to_lowercase());
    }
    Ok(op)
}

fn bin_op(op: BinOp) -> Op {
    match op {
        BinOp::Add => Op::Add,
        BinOp::Sub => Op::Sub,
        BinOp::Mul => Op::Mul,
        BinOp::Div => Op::Div,
        BinOp::Pow => Op::Pow,
        BinOp::And => Op::And,
        BinOp::Or => Op::Or,
        BinOp::Lt => Op::Lt,
        BinOp::Le => Op::Le,
        BinOp::Gt => Op::Gt,
        BinOp::Ge => Op::Ge,
        BinOp::Eq => Op::Eq,
        BinOp::Ne => Op::Ne,
    }
}

fn is_relation(op: Op) -> bool {
    matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne)
}

impl Compiler<'_> {
    fn new_reg(&mut self, init: f64) -> Reg {
        self.regs.push(init);
        self.konst.push(None);
        (self.regs.len() - 1) as Reg
    }

    fn constant(&mut self, x: f64) -> Reg {
        if let Some(&r) = self.consts.get(&x.to_bits()) {
            return r;
        }
        let r = self.new_reg(x);
        self.konst[r as usize] = Some(x);
        self.consts.insert(x.to_bits(), r);
        r
    }

    fn k(&self, r: Reg) -> Option<f64> {
        self.konst[r as usize]
    }

    /// Emits `op(a, b, c)` unless it folds to a constant, simplifies, or already exists.
    fn emit(&mut self, op: Op, a: Reg, b: Reg, c: Reg) -> Reg {
        let n = op.arity();
        let (b, c) = (if n >= 2 { b } else { 0 }, if n >= 3 { c } else { 0 });
        let ops = [a, b, c];
        if ops[..n].iter().all(|&r| self.k(r).is_some()) {
            let v = |i: usize| self.k(ops[i]).unwrap_or(0.0);
            let x = super::tape::apply(
                op,
                v(0),
                if n >= 2 { v(1) } else { 0.0 },
                if n >= 3 { v(2) } else { 0.0 },
            );
            return self.constant(x);
        }
        // Algebraic identities that are exact in floating point for finite values.
        match op {
            Op::Add if self.k(a) == Some(0.0) => return b,
            Op::Add | Op::Sub if self.k(b) == Some(0.0) => return a,
            Op::Sub if self.k(a) == Some(0.0) => return self.emit(Op::Neg, b, 0, 0),
            Op::Mul | Op::Div if self.k(b) == Some(1.0) => return a,
            Op::Mul if self.k(a) == Some(1.0) => return b,
            Op::Mul if self.k(a) == Some(-1.0) => return self.emit(Op::Neg, b, 0, 0),
            Op::Mul | Op::Div if self.k(b) == Some(-1.0) => return self.emit(Op::Neg, a, 0, 0),
            Op::Pow if self.k(b) == Some(1.0) => return a,
            Op::Pow if self.k(b) == Some(2.0) => return self.emit(Op::Square, a, 0, 0),
            Op::Select if self.k(a).is_some() => {
                return if self.k(a) != Some(0.0) { b } else { c };
            }
            Op::Select if b == c => return b,
            // Division by a constant becomes a multiplication.
            Op::Div if self.k(b).is_some_and(|x| x != 0.0) => {
                let inv = 1.0 / self.k(b).unwrap_or(1.0);
                let r = self.constant(inv);
                return self.emit(Op::Mul, a, r, 0);
            }
            _ => {}
        }
        // `x*y + z` and `z + x*y` fuse when the product was just computed for this purpose.
        if matches!(op, Op::Add | Op::Sub)
            && let Some(fused) = self.try_fuse(op, a, b)
        {
            return fused;
        }
        if op == Op::Mul
            && let Some(fused) = self.try_sub_mul(a, b)
        {
            return fused;
        }
        let (a, b) =
            if matches!(op, Op::Add | Op::Mul | Op::Min | Op::Max | Op::And | Op::Or) && a > b {
                (b, a)
            } else {
                (a, b)
            };
        let key = Key(op, a, b, c);
        if let Some(&r) = self.cse.get(&key) {
            return r;
        }
        let dst = self.new_reg(0.0);
        self.code.push(Instr { op, dst, a, b, c });
        self.cse.insert(key, dst);
        if op == Op::Sub {
            self.subs.insert(dst, (a, b, self.code.len() - 1));
        }
        dst
    }

    /// `(x - y) * c` as one `SubMul` when a factor is a difference computed in this section
    /// (the `Sub` stays for other readers; dead-code elimination drops it otherwise).
    fn try_sub_mul(&mut self, a: Reg, b: Reg) -> Option<Reg> {
        let (x, y, other) = [(a, b), (b, a)].into_iter().find_map(|(d, other)| {
            let &(x, y, at) = self.subs.get(&d)?;
            (at >= self.section_start).then_some((x, y, other))
        })?;
        let key = Key(Op::SubMul, x, y, other);
        if let Some(&r) = self.cse.get(&key) {
            return Some(r);
        }
        let dst = self.new_reg(0.0);
        self.code.push(Instr {
            op: Op::SubMul,
            dst,
            a: x,
            b: y,
            c: other,
        });
        self.cse.insert(key, dst);
        Some(dst)
    }

    /// Fuses `prod + z` / `z + prod` / `prod - z` when `prod` is the last instruction (a `Mul`).
    fn try_fuse(&mut self, op: Op, a: Reg, b: Reg) -> Option<Reg> {
        let last = *self.code.last()?;
        if last.op != Op::Mul {
            return None;
        }
        let (prod, other, fop) = if last.dst == a && b != a {
            (
                a,
                b,
                if op == Op::Add {
                    Op::MulAdd
                } else {
                    Op::MulSub
                },
            )
        } else if last.dst == b && op == Op::Add && a != b {
            (b, a, Op::MulAdd)
        } else {
            return None;
        };
        let _ = prod;
        let key = Key(fop, last.a, last.b, other);
        if let Some(&r) = self.cse.get(&key) {
            return Some(r);
        }
        // Keep the product instruction (CSE may share it) and add the fused one.
        let dst = self.new_reg(0.0);
        self.code.push(Instr {
            op: fop,
            dst,
            a: last.a,
            b: last.b,
            c: other,
        });
        self.cse.insert(key, dst);
        Some(dst)
    }

    fn err(&mut self, msg: String) -> Reg {
        self.errors.push(Diagnostic::error(self.span, msg));
        self.constant(f64::NAN)
    }

    fn var(&mut self, v: VarId) -> Reg {
        let var = &self.model.variables[v];
        match var.variability {
            // Solved by initialization, so not a compile-time constant.
            Variability::Parameter if self.initial_dependent[v] => v as Reg,
            Variability::Parameter | Variability::Constant => {
                let x = self.params.values[v];
                self.constant(x)
            }
            _ => v as Reg,
        }
    }

    fn pre_reg(&mut self, v: VarId) -> Reg {
        if let Some(&r) = self.pre.get(&v) {
            return r;
        }
        let r = self.new_reg(0.0);
        self.pre.insert(v, r);
        self.pre_list.push((v as Reg, r));
        r
    }

    /// Compiles a message: string pieces stay text, the values shown go to registers.
    fn message(&mut self, e: &Expr) -> Vec<MsgPart> {
        match e {
            Expr::String(s) => vec![MsgPart::Text(s.clone())],
            Expr::Binary(BinOp::Add, a, b) => {
                let mut parts = self.message(a);
                parts.extend(self.message(b));
                parts
            }
            Expr::If { branches, else_ } => {
                let branches = branches
                    .iter()
                    .map(|(c, x)| (self.expr(c), self.message(x)))
                    .collect();
                let else_ = self.message(else_);
                vec![MsgPart::Choice { branches, else_ }]
            }
            Expr::ToString(v, format) => vec![MsgPart::Value {
                reg: self.expr(v),
                kind: value_kind(v, self.model),
                format: format.clone(),
            }],
            other => vec![MsgPart::Value {
                reg: self.expr(other),
                kind: value_kind(other, self.model),
                format: StringFormat::default(),
            }],
        }
    }

    fn expr(&mut self, e: &Expr) -> Reg {
        match e {
            Expr::Real(x) => self.constant(*x),
            Expr::Integer(i) => self.constant(*i as f64),
            Expr::Boolean(b) => self.constant(f64::from(u8::from(*b))),
            Expr::String(s) => self.err(format!("the string \"{s}\" cannot be used as a number")),
            Expr::Var(v) => self.var(*v),
            Expr::Time => self.time,
            Expr::Initial => self.initial,
            Expr::Terminal => self.terminal,
            Expr::Der(a) => match a.as_ref() {
                Expr::Var(x) => match self.der_of.get(x) {
                    Some(&d) => d as Reg,
                    None if !self.model.variables[*x].is_unknown() => self.constant(0.0),
                    None => {
                        let name = self.model.variables[*x].name.clone();
                        self.err(format!(
                            "der({name}) is used but `{name}` has no derivative variable"
                        ))
                    }
                },
                _ => self.err("der() of an expression reached the simulator".into()),
            },
            Expr::Pre(a) => match a.as_ref() {
                Expr::Var(v) if self.model.variables[*v].is_unknown() => self.pre_reg(*v),
                Expr::Var(v) => self.var(*v),
                _ => self.err("pre() applies to a variable".into()),
            },
            Expr::Edge(a) => match a.as_ref() {
                Expr::Var(v) => {
                    let cur = self.var(*v);
                    let pre = self.pre_reg(*v);
                    let not_pre = self.emit(Op::Not, pre, 0, 0);
                    self.emit(Op::And, cur, not_pre, 0)
                }
                _ => self.err("edge() applies to a Boolean variable".into()),
            },
            Expr::Change(a) => match a.as_ref() {
                Expr::Var(v) => {
                    let cur = self.var(*v);
                    let pre = self.pre_reg(*v);
                    self.emit(Op::Ne, cur, pre, 0)
                }
                _ => self.err("change() applies to a variable".into()),
            },
            Expr::Unary(UnOp::Neg, a) => {
                let a = self.expr(a);
                self.emit(Op::Neg, a, 0, 0)
            }
            Expr::Unary(UnOp::Not, a) => {
                let a = self.expr(a);
                self.emit(Op::Not, a, 0, 0)
            }
            Expr::Binary(op, a, b) => {
                let op = bin_op(*op);
                let (a, b) = (self.expr(a), self.expr(b));
                if is_relation(op)
                    && self.no_event == 0
                    && !(self.k(a).is_some() && self.k(b).is_some())
                {
                    return self.relation(op, a, b, e);
                }
                self.emit(op, a, b, 0)
            }
            Expr::Call(Builtin::Homotopy, args) if args.len() == 2 => {
                // `actual` itself at λ = 1 (a blend would round it), else
                // `simplified + λ (actual - simplified)`.
                let a = self.expr(&args[0]);
                let s = self.expr(&args[1]);
                self.homotopy.1 = true;
                let lambda = self.homotopy.0;
                let one = self.constant(1.0);
                let full = self.emit(Op::Eq, lambda, one, 0);
                let d = self.emit(Op::Sub, a, s, 0);
                let m = self.emit(Op::Mul, lambda, d, 0);
                let blend = self.emit(Op::Add, s, m, 0);
                self.emit(Op::Select, full, a, blend)
            }
            Expr::Call(f, args) => {
                let op = match builtin_op(*f, args.len()) {
                    Ok(op) => op,
                    Err(m) => return self.err(m),
                };
                let r: Vec<Reg> = args.iter().map(|a| self.expr(a)).collect();
                let get = |i: usize| r.get(i).copied().unwrap_or(0);
                self.emit(op, get(0), get(1), get(2))
            }
            Expr::UserCall {
                function,
                args,
                output,
                element,
            } => self.user_call(function, args, *output, *element),
            Expr::Array { .. } => self.err("an array value cannot be used as a scalar".into()),
            Expr::If { branches, else_ } => {
                // A condition known now (parameters are) selects its branch: the others are
                // not compiled, so a call they make that cannot be evaluated (an external
                // function for another parameter choice) is never needed.
                let mut pending = Vec::new();
                for (c, x) in branches {
                    let c = self.expr(c);
                    match self.k(c) {
                        Some(v) if v != 0.0 => {
                            if pending.is_empty() {
                                return self.expr(x);
                            }
                            let x = self.expr(x);
                            return self.fold_select(pending, x);
                        }
                        Some(_) => {}
                        None => pending.push((c, x)),
                    }
                }
                let r = self.expr(else_);
                self.fold_select(pending, r)
            }
            Expr::NoEvent(a) => {
                self.no_event += 1;
                let r = self.expr(a);
                self.no_event -= 1;
                r
            }
            Expr::Smooth(_, a) => self.expr(a),
            Expr::ToString(..) => self.err(
                "`String(...)` gives a String: it can only be used in the message of `assert` or `terminate`"
                    .to_string(),
            ),
            Expr::Sample(start, interval) => {
                let s = eval_param_expr(self.model, self.params, start);
                let i = eval_param_expr(self.model, self.params, interval);
                match (s, i) {
                    (Ok(start), Ok(interval)) if interval > 0.0 => {
                        let reg = self.new_reg(0.0);
                        self.samples.push(Sample {
                            start,
                            interval,
                            reg,
                        });
                        reg
                    }
                    (Ok(_), Ok(i)) => {
                        self.err(format!("sample interval must be positive, got {i}"))
                    }
                    (Err(m), _) | (_, Err(m)) => self.err(format!(
                        "sample(start, interval) needs parameter values: {m}"
                    )),
                }
            }
        }
    }

    /// A user-function call: its value when the arguments are known now, else an `Op::Call`
    /// reading a private copy of the arguments in consecutive registers (see `funcall.rs`).
    fn user_call(&mut self, function: &str, args: &[Expr], output: usize, element: usize) -> Reg {
        let regs: Vec<Reg> = funcall::scalar_args(args)
            .into_iter()
            .map(|a| self.expr(a))
            .collect();
        let known: Vec<Option<f64>> = regs.iter().map(|&r| self.k(r)).collect();
        let model = self.model;
        let functions = &model.functions;
        match self
            .calls
            .lower(functions, function, args, &regs, &known, output, element)
        {
            funcall::Lowered::Constant(x) => self.constant(x),
            funcall::Lowered::Error(m) => self.err(m),
            funcall::Lowered::Site(index) => {
                let site = self.constant(index);
                let first = self.regs.len() as Reg;
                for &r in &regs {
                    let dst = self.new_reg(0.0);
                    self.push_copy(dst, r);
                }
                let dst = self.new_reg(0.0);
                self.code.push(Instr {
                    op: Op::Call,
                    dst,
                    a: first,
                    b: first + regs.len() as Reg - 1,
                    c: site,
                });
                dst
            }
        }
    }

    /// `dst = src`, written even when CSE knows `src` (the copy is what places the value).
    fn push_copy(&mut self, dst: Reg, src: Reg) {
        self.code.push(Instr {
            op: Op::Copy,
            dst,
            a: src,
            b: 0,
            c: 0,
        });
    }

    /// `if c1 then x1 elseif ... else r` from the undecided branches `(c, x)`.
    fn fold_select(&mut self, pending: Vec<(Reg, &Expr)>, mut r: Reg) -> Reg {
        let values: Vec<(Reg, Reg)> = pending
            .into_iter()
            .map(|(c, x)| (c, self.expr(x)))
            .collect();
        for (c, x) in values.into_iter().rev() {
            r = self.emit(Op::Select, c, x, r);
        }
        r
    }

    fn relation(&mut self, op: Op, a: Reg, b: Reg, e: &Expr) -> Reg {
        if let Some(&i) = self.rel_index.get(&(op, a, b)) {
            return self.relations[i].reg;
        }
        let reg = self.new_reg(0.0);
        self.rel_index.insert((op, a, b), self.relations.len());
        let text = crate::structure::print::expr_text(e, &self.model.variables);
        self.relations.push(Relation {
            op,
            a,
            b,
            reg,
            text,
        });
        reg
    }

    /// Compiles `e` so that its value lands in register `dst`.
    fn expr_into(&mut self, e: &Expr, dst: Reg, segment_start: usize) {
        let r = self.expr(e);
        let n = self.code.len();
        let is_temp_of_last = n > segment_start
            && self.code[n - 1].dst == r
            && r as usize >= self.model.variables.len()
            && self.konst[r as usize].is_none();
        if is_temp_of_last {
            // Retarget the instruction that computed it; later uses find `dst` through CSE.
            let last = self.code[n - 1];
            self.code[n - 1].dst = dst;
            self.cse.insert(Key(last.op, last.a, last.b, last.c), dst);
        } else {
            self.push_copy(dst, r);
        }
    }

    fn residual(&mut self, e: &Expr) -> Reg {
        self.expr(e)
    }
}

/// The parameters whose bindings read (directly or through other bindings) a parameter with
/// `fixed = false` that the initial equations determine, in an order where each comes after
/// the ones its binding reads.
pub fn initial_dependent_parameters(model: &FlatModel) -> Vec<VarId> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Todo,
        Busy,
        No,
        Yes,
    }
    fn visit(model: &FlatModel, v: VarId, marks: &mut [Mark], order: &mut Vec<VarId>) -> bool {
        match marks[v] {
            Mark::Yes => return true,
            Mark::No | Mark::Busy => return false,
            Mark::Todo => {}
        }
        let var = &model.variables[v];
        if super::params::is_initial_unknown(var) {
            marks[v] = Mark::Yes;
            return true;
        }
        let Some(b) = var
            .binding
            .as_ref()
            .filter(|_| var.variability == Variability::Parameter)
        else {
            marks[v] = Mark::No;
            return false;
        };
        marks[v] = Mark::Busy;
        let mut reads = Vec::new();
        b.visit(&mut |x| {
            if let Expr::Var(u) = x {
                reads.push(*u);
            }
        });
        let mut dep = false;
        for u in reads {
            dep |= visit(model, u, marks, order);
        }
        marks[v] = if dep { Mark::Yes } else { Mark::No };
        if dep {
            order.push(v);
        }
        dep
    }
    let n = model.variables.len();
    let mut marks = vec![Mark::Todo; n];
    let mut order = Vec::new();
    if !model
        .variables
        .iter()
        .any(super::params::is_initial_unknown)
    {
        return order;
    }
    for v in 0..n {
        visit(model, v, &mut marks, &mut order);
    }
    order
}

/// Compiles a sorted system, with parameter values already fixed.
pub fn compile(
    sys: &SortedSystem,
    params: &ParamValues,
    start: &[f64],
) -> crate::diag::Result<Program> {
    let model = &sys.model;
    let nvars = model.variables.len();
    let mut c = Compiler {
        model,
        params,
        code: Vec::new(),
        regs: start.to_vec(),
        konst: vec![None; nvars],
        consts: HashMap::new(),
        cse: HashMap::new(),
        subs: HashMap::new(),
        section_start: 0,
        der_of: HashMap::new(),
        pre: HashMap::new(),
        pre_list: Vec::new(),
        relations: Vec::new(),
        rel_index: HashMap::new(),
        samples: Vec::new(),
        no_event: 0,
        time: 0,
        initial: 0,
        terminal: 0,
        homotopy: (0, false),
        errors: Vec::new(),
        initial_dependent: {
            let mut d = vec![false; nvars];
            for (i, v) in model.variables.iter().enumerate() {
                d[i] = super::params::is_initial_unknown(v);
            }
            for v in initial_dependent_parameters(model) {
                d[v] = true;
            }
            d
        },
        span: Span::DUMMY,
        calls: funcall::Calls::default(),
    };
    for (i, v) in model.variables.iter().enumerate() {
        if let Some(x) = v.derivative_of {
            c.der_of.insert(x, i);
        }
        if !v.is_unknown() {
            c.regs[i] = params.values[i];
        }
    }
    for s in &sys.states {
        c.der_of.insert(s.var, s.derivative);
    }
    c.time = c.new_reg(0.0);
    c.initial = c.new_reg(0.0);
    c.terminal = c.new_reg(0.0);
    c.homotopy.0 = c.new_reg(1.0);

    // Main pass: blocks in BLT order, after the parameters whose bindings depend on
    // parameters the initial equations determine (`parameter Integer seed(fixed = false)`,
    // `parameter Integer actualSeed = if useGlobalSeed then seed else 0`): they are not
    // constants of the tape but computed from those unknowns (constant after initialization).
    let mut steps = Vec::new();
    let mut torn_sizes = Vec::new();
    let mut computed_by = vec![None; nvars];
    for v in initial_dependent_parameters(model) {
        let start_pc = c.code.len();
        c.section_start = start_pc;
        c.span = model.variables[v].span;
        let Some(b) = model.variables[v].binding.as_ref() else {
            continue;
        };
        c.expr_into(b, v as Reg, start_pc);
        steps.push(Step::Explicit {
            code: start_pc..c.code.len(),
            var: v,
            block: usize::MAX,
        });
        computed_by[v] = Some(steps.len() - 1);
    }
    for (bi, block) in sys.blocks.iter().enumerate() {
        let start_pc = c.code.len();
        c.section_start = start_pc;
        if let Some(&e0) = block.equations.first() {
            c.span = sys.equations.get(e0).map(|e| e.span).unwrap_or(Span::DUMMY);
        }
        match &block.kind {
            BlockKind::Explicit { expr } => {
                let Some(&var) = block.vars.first() else {
                    continue;
                };
                c.expr_into(expr, var as Reg, start_pc);
                // The variable is now computed: a later `Var(var)` reads its register.
                steps.push(Step::Explicit {
                    code: start_pc..c.code.len(),
                    var,
                    block: bi,
                });
                computed_by[var] = Some(steps.len() - 1);
            }
            BlockKind::Linear | BlockKind::Nonlinear => {
                let torn = tear_block(&sys.equations, block);
                // Torn: the assignments first, then the residuals of the equations left over.
                let (unknowns, residual_eqs) = match &torn {
                    Some(t) => {
                        torn_sizes.push((block.vars.len(), t.tears.len()));
                        for (ei, v, expr) in &t.inner {
                            c.span = sys.equations[*ei].span;
                            c.expr_into(expr, *v as Reg, start_pc);
                        }
                        (t.tears.clone(), t.residuals.clone())
                    }
                    None => (block.vars.clone(), block.equations.clone()),
                };
                let mut residuals = Vec::new();
                for &ei in &residual_eqs {
                    let Some(eq) = sys.equations.get(ei) else {
                        c.errors.push(Diagnostic::error(
                            Span::DUMMY,
                            format!("block {bi} refers to a missing equation {ei}"),
                        ));
                        continue;
                    };
                    c.span = eq.span;
                    let r = c.residual(&eq.residual);
                    residuals.push(r);
                }
                let code = start_pc..c.code.len();
                // Registers read but not written by the block code, other than its unknowns.
                // A set local to the block: the register file can be large, blocks are small.
                let mut written: std::collections::HashSet<Reg> =
                    c.code[code.clone()].iter().map(|i| i.dst).collect();
                written.extend(unknowns.iter().map(|&v| v as Reg));
                let mut inputs = Vec::new();
                for i in &c.code[code.clone()] {
                    for o in i.reads() {
                        if c.konst[o as usize].is_none() && written.insert(o) {
                            inputs.push(o);
                        }
                    }
                }
                let linear = block.kind == BlockKind::Linear;
                steps.push(Step::Implicit {
                    code,
                    vars: unknowns,
                    residuals,
                    inputs,
                    linear,
                    torn: torn.is_some(),
                    block: bi,
                });
                for &v in &block.vars {
                    computed_by[v] = Some(steps.len() - 1);
                }
            }
        }
    }

    // Eliminated variables.
    let elim_start = c.code.len();
    c.section_start = elim_start;
    for (v, e) in &sys.eliminated {
        c.span = model.variables[*v].span;
        c.expr_into(e, *v as Reg, elim_start);
    }
    let eliminated = elim_start..c.code.len();

    // Event code: when clauses, discrete equations and asserts.
    let ev_start = c.code.len();
    c.section_start = ev_start;
    let mut whens = Vec::new();
    let mut always = Vec::new();
    for eq in &sys.discrete_equations {
        c.span = eq.span;
        match &eq.kind {
            EquationKind::When { branches } => {
                let mut out = Vec::new();
                let mut initial = Vec::new();
                let mut elements = Vec::new();
                for (cond, body) in branches {
                    let mut has_initial = false;
                    cond.visit(&mut |x| has_initial |= matches!(x, Expr::Initial));
                    let regs: Vec<Reg> = match cond {
                        Expr::Array { elements, .. } => {
                            elements.iter().map(|e| c.expr(e)).collect()
                        }
                        _ => vec![c.expr(cond)],
                    };
                    let r = regs[1..]
                        .iter()
                        .fold(regs[0], |acc, &x| c.emit(Op::Or, acc, x, 0));
                    let actions = body.iter().filter_map(|b| action(&mut c, b)).collect();
                    out.push((r, actions));
                    initial.push(has_initial);
                    elements.push(regs);
                }
                whens.push(WhenClause {
                    branches: out,
                    elements,
                    initial,
                    span: eq.span,
                });
            }
            _ => {
                if let Some(a) = action(&mut c, eq) {
                    always.push(a);
                }
            }
        }
    }
    let event_code = ev_start..c.code.len();

    // Initial equations: assignments of discrete unknowns, the others as residuals `lhs - rhs`.
    let init_start = c.code.len();
    c.section_start = init_start;
    let mut initial_residuals = Vec::new();
    let mut initial_explicit = Vec::new();
    let mut initial_assigns = Vec::new();
    let discrete: HashSet<VarId> = sys.discrete_vars.iter().copied().collect();
    // Variables that a `when initial()` branch assigns: determined by that branch at
    // initialization.
    let mut at_initial: HashMap<VarId, Span> = HashMap::new();
    for w in &whens {
        for (b, (_, actions)) in w.branches.iter().enumerate() {
            for a in actions {
                if let (true, Action::Assign { var, .. }) = (w.initial[b], a) {
                    at_initial.insert(*var, w.span);
                }
            }
        }
    }
    // Which initial equation determines each discrete unknown (`(var, pre only)`).
    let mut determined: HashMap<(VarId, bool), usize> = HashMap::new();
    for (i, eq) in model.initial_equations.iter().enumerate() {
        c.span = eq.span;
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                let target = init_target(lhs, rhs, &discrete)
                    .or_else(|| init_target(rhs, lhs, &discrete).map(|(v, p, _)| (v, p, lhs)));
                let Some((var, pre_only, value)) = target else {
                    let (l, r) = (c.expr(lhs), c.expr(rhs));
                    let res = c.emit(Op::Sub, l, r, 0);
                    initial_residuals.push((res, i));
                    let reads = |e: &Expr, v: VarId| {
                        let mut found = false;
                        e.visit(&mut |x| found |= matches!(x, Expr::Var(u) if *u == v));
                        found
                    };
                    initial_explicit.push(match (lhs, rhs) {
                        (Expr::Var(v), e) if !reads(e, *v) => Some((*v, r)),
                        (e, Expr::Var(v)) if !reads(e, *v) => Some((*v, l)),
                        _ => None,
                    });
                    continue;
                };
                let set_var = discrete.contains(&var) && !at_initial.contains_key(&var);
                let name = &model.variables[var].name;
                if !pre_only && let Some(&span) = at_initial.get(&var) {
                    c.errors.push(
                        Diagnostic::error(
                            eq.span,
                            format!("the initial system is over-specified: `{name}` is given by this initial equation and by a `when initial()` branch"),
                        )
                        .with_secondary(span, "this `when` also assigns it at initialization")
                        .with_help("remove one of the two"),
                    );
                    continue;
                }
                // `v = e` and `pre(v) = e` determine the same unknown when `v = pre(v)`.
                let key = (var, pre_only && !set_var);
                if let Some(&first) = determined.get(&key) {
                    c.errors.push(
                        Diagnostic::error(
                            eq.span,
                            format!("the initial system is over-specified: `{name}` is determined by two initial equations"),
                        )
                        .with_secondary(model.initial_equations[first].span, "first determined here")
                        .with_help("remove one of the two initial equations"),
                    );
                    continue;
                }
                determined.insert(key, i);
                let value = c.expr(value);
                initial_assigns.push(InitAssign {
                    var,
                    set_var: set_var || !pre_only,
                    pre: None,
                    value,
                    eq: i,
                });
            }
            _ => c.errors.push(
                Diagnostic::error(
                    eq.span,
                    "only equations `a = b` are supported in `initial equation` sections",
                )
                .with_help("write the initial condition as a plain equation"),
            ),
        }
    }
    for a in &mut initial_assigns {
        a.pre = c.pre.get(&a.var).copied();
    }
    let initial_code = init_start..c.code.len();

    // Dynamic state sets: their constraint Jacobians.
    let ss_start = c.code.len();
    c.section_start = ss_start;
    let mut state_sets = Vec::new();
    for set in &sys.state_sets {
        let entries = set
            .jacobian
            .iter()
            .map(|(r, col, e)| (*r, *col, c.expr(e)))
            .collect();
        let dummy_cols = set
            .dummies
            .iter()
            .filter_map(|d| set.candidates.iter().position(|x| x == d))
            .collect();
        state_sets.push(SetMonitor {
            rows: set.equations.len(),
            cols: set.candidates.len(),
            entries,
            dummy_cols,
            candidate_states: set.candidate_states.clone(),
        });
    }
    let state_set_code = ss_start..c.code.len();

    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    // Sort pre registers for deterministic order.
    let mut pre = c.pre_list.clone();
    pre.sort();
    let pre_fixed = pre
        .iter()
        .filter(|&&(v, _)| {
            let var = &model.variables[v as usize];
            var.fixed == Some(true)
                && (matches!(
                    var.ty,
                    ScalarType::Boolean | ScalarType::Integer | ScalarType::Enumeration
                ) || var.variability == Variability::Discrete
                    || discrete.contains(&(v as usize)))
        })
        .map(|&(_, p)| p)
        .collect();
    let mut prog = Program {
        code: c.code,
        init_regs: c.regs,
        steps,
        eliminated,
        event_code,
        initial_code,
        initial_residuals,
        initial_explicit,
        initial_assigns,
        relations: c.relations,
        samples: c.samples,
        whens,
        always,
        pre,
        pre_fixed,
        state_set_code,
        state_sets,
        states: sys.states.iter().map(|s| (s.var, s.derivative)).collect(),
        time: c.time,
        initial: c.initial,
        terminal: c.terminal,
        homotopy: c.homotopy.1.then_some(c.homotopy.0),
        computed_by,
        iteration_steps: Vec::new(),
        torn: torn_sizes,
    };
    eliminate_dead_code(&mut prog, nvars);
    prog.iteration_steps = iteration_steps(&prog, model);
    Ok(prog)
}

/// The explicit steps of discrete variables inside mixed loops (see
/// [`Program::iteration_steps`]).
fn iteration_steps(p: &Program, model: &FlatModel) -> Vec<usize> {
    const ELIMINATED: usize = usize::MAX;
    // Which step (or the eliminated section) writes each register, and with which instruction.
    let mut writer: HashMap<Reg, (usize, usize)> = HashMap::new();
    for (si, s) in p.steps.iter().enumerate() {
        let (Step::Explicit { code, .. } | Step::Implicit { code, .. }) = s;
        for k in code.clone() {
            writer.insert(p.code[k].dst, (si, k));
        }
        if let Step::Implicit { vars, .. } = s {
            for &v in vars {
                writer.insert(v as Reg, (si, usize::MAX));
            }
        }
    }
    for k in p.eliminated.clone() {
        writer.insert(p.code[k].dst, (ELIMINATED, k));
    }
    let relation_of: HashMap<Reg, usize> = p
        .relations
        .iter()
        .enumerate()
        .map(|(i, r)| (r.reg, i))
        .collect();
    // The latest step whose result `reg` depends on, looking through the temporaries of step
    // `s` itself and through eliminated variables.
    fn source(
        p: &Program,
        writer: &HashMap<Reg, (usize, usize)>,
        reg: Reg,
        s: usize,
        depth: usize,
    ) -> Option<usize> {
        let &(ws, k) = writer.get(&reg)?;
        if (ws == s || ws == usize::MAX) && k != usize::MAX && depth < 64 {
            return p.code[k]
                .reads()
                .filter_map(|r| source(p, writer, r, s, depth + 1))
                .max();
        }
        (ws != s).then_some(ws)
    }
    let mut out = Vec::new();
    for (si, step) in p.steps.iter().enumerate() {
        let Step::Explicit { code, var, .. } = step else {
            continue;
        };
        let v = &model.variables[*var];
        let discrete = matches!(
            v.ty,
            ScalarType::Boolean | ScalarType::Integer | ScalarType::Enumeration
        ) || v.variability == Variability::Discrete;
        if !discrete {
            continue;
        }
        let in_loop = p.code[code.clone()]
            .iter()
            .flat_map(|i| i.reads())
            .any(|r| {
                relation_of.get(&r).is_some_and(|&ri| {
                    let rel = &p.relations[ri];
                    [rel.a, rel.b]
                        .iter()
                        .any(|&o| source(p, &writer, o, si, 0).is_some_and(|w| w > si))
                })
            });
        if in_loop {
            out.push(si);
        }
    }
    out
}

/// Removes instructions whose result nobody reads (products fused into `MulAdd`, branches of
/// folded selects...), and renumbers the code ranges.
fn eliminate_dead_code(p: &mut Program, nvars: usize) {
    let mut needed = vec![false; p.init_regs.len()];
    needed[..nvars].iter_mut().for_each(|x| *x = true);
    for s in &p.steps {
        if let Step::Implicit { residuals, .. } = s {
            residuals.iter().for_each(|&r| needed[r as usize] = true);
        }
    }
    for r in &p.relations {
        needed[r.a as usize] = true;
        needed[r.b as usize] = true;
    }
    let mark_action = |a: &Action, needed: &mut Vec<bool>| match a {
        Action::Assign { value, .. } | Action::Reinit { value, .. } => {
            needed[*value as usize] = true
        }
        Action::Assert {
            condition, message, ..
        } => {
            needed[*condition as usize] = true;
            message
                .iter()
                .for_each(|m| m.regs(&mut |r| needed[r as usize] = true));
        }
        Action::Terminate { message } => message
            .iter()
            .for_each(|m| m.regs(&mut |r| needed[r as usize] = true)),
    };
    for w in &p.whens {
        for (c, actions) in &w.branches {
            needed[*c as usize] = true;
            actions.iter().for_each(|a| mark_action(a, &mut needed));
        }
        for &r in w.elements.iter().flatten() {
            needed[r as usize] = true;
        }
    }
    p.always.iter().for_each(|a| mark_action(a, &mut needed));
    p.initial_residuals
        .iter()
        .for_each(|(r, _)| needed[*r as usize] = true);
    p.initial_assigns
        .iter()
        .for_each(|a| needed[a.value as usize] = true);
    let mut keep = vec![false; p.code.len()];
    for (i, ins) in p.code.iter().enumerate().rev() {
        if needed[ins.dst as usize] {
            keep[i] = true;
            let ops = [ins.a, ins.b, ins.c];
            ops[..ins.op.arity()]
                .iter()
                .for_each(|&o| needed[o as usize] = true);
            if ins.op == Op::Call {
                (ins.a..=ins.b).for_each(|o| needed[o as usize] = true);
                needed[ins.c as usize] = true;
            }
        }
    }
    let mut new_index = Vec::with_capacity(p.code.len() + 1);
    let mut n = 0;
    for &k in &keep {
        new_index.push(n);
        n += usize::from(k);
    }
    new_index.push(n);
    let remap = |r: &Range<usize>| new_index[r.start]..new_index[r.end];
    for s in &mut p.steps {
        match s {
            Step::Explicit { code, .. } | Step::Implicit { code, .. } => *code = remap(code),
        }
    }
    p.eliminated = remap(&p.eliminated);
    p.event_code = remap(&p.event_code);
    p.initial_code = remap(&p.initial_code);
    p.state_set_code = remap(&p.state_set_code);
    let mut i = 0;
    p.code.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

fn action(c: &mut Compiler, eq: &crate::dae::Equation) -> Option<Action> {
    c.span = eq.span;
    match &eq.kind {
        EquationKind::Simple {
            lhs: Expr::Var(v),
            rhs,
        } => {
            let value = c.expr(rhs);
            Some(Action::Assign { var: *v, value })
        }
        EquationKind::Reinit { var, value } => {
            let value = c.expr(value);
            Some(Action::Reinit { var: *var, value })
        }
        EquationKind::Assert {
            condition,
            message,
            warning,
        } => {
            let condition = c.expr(condition);
            let message = c.message(message);
            Some(Action::Assert {
                condition,
                message,
                warning: *warning,
                span: eq.span,
            })
        }
        EquationKind::Terminate { message } => Some(Action::Terminate {
            message: c.message(message),
        }),
        _ => {
            c.errors.push(
                Diagnostic::error(eq.span, "this kind of equation is not supported inside `when` by the simulator")
                    .with_help("inside `when`, assign a variable (`v = expr;`), use `reinit`, `assert` or `terminate`"),
            );
            None
        }
    }
}

/// The discrete unknown an initial equation `target = value` determines, if any: a variable
/// assigned in `when` (`v = e`) or the `pre` of any variable (`pre(v) = e`, then `true`), when
/// `value` does not itself read it (that would be an implicit equation: a residual).
fn init_target<'e>(
    target: &Expr,
    value: &'e Expr,
    discrete: &HashSet<VarId>,
) -> Option<(VarId, bool, &'e Expr)> {
    let (var, pre_only) = match target {
        Expr::Var(v) if discrete.contains(v) => (*v, false),
        Expr::Pre(a) => match **a {
            Expr::Var(v) => (v, true),
            _ => return None,
        },
        _ => return None,
    };
    let mut reads_itself = false;
    value.visit(&mut |x| reads_itself |= matches!(x, Expr::Var(v) if *v == var));
    (!reads_itself).then_some((var, pre_only, value))
}

/// Renders a compiled message with the current register values.
pub fn message_text(parts: &[MsgPart], regs: &[f64]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            MsgPart::Text(s) => out.push_str(s),
            MsgPart::Value { reg, kind, format } => {
                let x = regs.get(*reg as usize).copied().unwrap_or(f64::NAN);
                out.push_str(&format.apply(x, *kind).unwrap_or_else(|e| e));
            }
            MsgPart::Choice { branches, else_ } => {
                let chosen = branches
                    .iter()
                    .find(|(c, _)| regs.get(*c as usize).is_some_and(|v| *v != 0.0))
                    .map_or(else_, |(_, p)| p);
                out.push_str(&message_text(chosen, regs));
            }
        }
    }
    out
}

/// The kind of value an expression has, for `String(x)` in messages (the registers only hold
/// numbers).
fn value_kind(e: &Expr, model: &FlatModel) -> ValueKind {
    use crate::dae::ScalarType;
    match e {
        Expr::Var(v) => match model.variables.get(*v).map(|v| v.ty) {
            Some(ScalarType::Integer | ScalarType::Enumeration) => ValueKind::Integer,
            Some(ScalarType::Boolean) => ValueKind::Boolean,
            _ => ValueKind::Real,
        },
        Expr::Integer(_) => ValueKind::Integer,
        Expr::Boolean(_) | Expr::Edge(_) | Expr::Change(_) | Expr::Initial | Expr::Terminal => {
            ValueKind::Boolean
        }
        Expr::Sample(..) => ValueKind::Boolean,
        Expr::Unary(UnOp::Not, _) => ValueKind::Boolean,
        Expr::Unary(UnOp::Neg, a) | Expr::Pre(a) | Expr::NoEvent(a) | Expr::Smooth(_, a) => {
            value_kind(a, model)
        }
        Expr::Binary(op, a, b) => match op {
            BinOp::And
            | BinOp::Or
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::Eq
            | BinOp::Ne => ValueKind::Boolean,
            BinOp::Add | BinOp::Sub | BinOp::Mul
                if value_kind(a, model) == ValueKind::Integer
                    && value_kind(b, model) == ValueKind::Integer =>
            {
                ValueKind::Integer
            }
            _ => ValueKind::Real,
        },
        Expr::Call(Builtin::Integer | Builtin::Sign, _) => ValueKind::Integer,
        Expr::Call(
            Builtin::Div | Builtin::Mod | Builtin::Rem | Builtin::Min | Builtin::Max | Builtin::Abs,
            args,
        ) if args
            .iter()
            .all(|a| value_kind(a, model) == ValueKind::Integer) =>
        {
            ValueKind::Integer
        }
        Expr::If { else_, .. } => value_kind(else_, model),
        _ => ValueKind::Real,
    }
}
