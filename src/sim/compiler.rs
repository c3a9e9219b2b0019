//! The expression compiler: flat expressions -> register instructions, with constant folding,
//! common-subexpression elimination by hash-consing `(op, operands)`, and `a*b + c` fused into
//! one `MulAdd`; relations outside `noEvent` read relation registers (see [`super::compile`]).

use super::funcall;
use super::params::{ParamValues, eval_param_expr};
use super::program::{MsgPart, Relation, Sample};
use super::tape::{Instr, Op, Reg, bin_op, builtin_op, is_relation};
use crate::dae::{
    BinOp, Builtin, Expr, FlatModel, StringFormat, UnOp, ValueKind, VarId, Variability,
};
use crate::diag::{Diagnostic, Span};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Key(
    pub(super) Op,
    pub(super) Reg,
    pub(super) Reg,
    pub(super) Reg,
);

pub(super) struct Compiler<'a> {
    pub(super) model: &'a FlatModel,
    pub(super) params: &'a ParamValues,
    pub(super) code: Vec<Instr>,
    pub(super) regs: Vec<f64>,
    /// Constant value of a register, if known at compile time.
    pub(super) konst: Vec<Option<f64>>,
    pub(super) consts: HashMap<u64, Reg>,
    pub(super) cse: HashMap<Key, Reg>,
    /// Per register, whether its value in the main pass is not yet the current one where the
    /// code being compiled runs: a variable that a later step of the main pass computes, or a
    /// temporary computed from such a value. The sorting leaves relation operands out of the
    /// order (`structure::incidence::incidence_frozen`: a relation holds its value between
    /// events), so a relation's operands may read variables computed further on; CSE must not
    /// hand such a temporary to a later step, and the relation's operands are computed again
    /// once the main pass is done ([`Self::refresh_relation_operands`]).
    pub(super) stale: Vec<bool>,
    /// Relations whose operands were stale where they were compiled, with their expressions.
    pub(super) stale_relations: Vec<(usize, Expr)>,
    /// Temporaries computed by `a - b`: `(a, b, instruction index)`, to fuse `(a - b) * c`.
    pub(super) subs: HashMap<Reg, (Reg, Reg, usize)>,
    /// First instruction of the block or section being compiled: fusion only looks back to here,
    /// so a fused instruction never reads operands another block may have changed since.
    pub(super) section_start: usize,
    /// How many times each register is read (for fusing `a*b + c`).
    pub(super) der_of: HashMap<VarId, VarId>,
    pub(super) pre: HashMap<VarId, Reg>,
    pub(super) pre_list: Vec<(Reg, Reg)>,
    pub(super) relations: Vec<Relation>,
    pub(super) rel_index: HashMap<(Op, Reg, Reg), usize>,
    pub(super) samples: Vec<Sample>,
    pub(super) no_event: u32,
    pub(super) time: Reg,
    pub(super) initial: Reg,
    pub(super) terminal: Reg,
    /// The continuation parameter of `homotopy` and whether any call uses it.
    pub(super) homotopy: (Reg, bool),
    pub(super) errors: Vec<Diagnostic>,
    /// Parameters the initial system determines, directly or through their bindings: not
    /// compile-time constants.
    pub(super) initial_dependent: Vec<bool>,
    /// Span for error messages about the expression being compiled.
    pub(super) span: Span,
    pub(super) calls: funcall::Calls,
    /// The `delay` lines of the program (`delay.rs`).
    pub(super) delays: Vec<std::sync::Arc<super::delay::DelayLine>>,
    /// Whether a `when` body is being compiled (`when_bodies.rs`): its code runs only at its
    /// events, so a `delay` there would have no history between them.
    pub(super) in_when_body: bool,
}

impl Compiler<'_> {
    pub(super) fn new_reg(&mut self, init: f64) -> Reg {
        self.regs.push(init);
        self.konst.push(None);
        self.stale.push(false);
        (self.regs.len() - 1) as Reg
    }

    pub(super) fn constant(&mut self, x: f64) -> Reg {
        if let Some(&r) = self.consts.get(&x.to_bits()) {
            return r;
        }
        let r = self.new_reg(x);
        self.konst[r as usize] = Some(x);
        self.consts.insert(x.to_bits(), r);
        r
    }

    pub(super) fn k(&self, r: Reg) -> Option<f64> {
        self.konst[r as usize]
    }

    /// Emits `op(a, b, c)` unless it folds to a constant, simplifies, or already exists.
    pub(super) fn emit(&mut self, op: Op, a: Reg, b: Reg, c: Reg) -> Reg {
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
        if let Some(&r) = self.cse.get(&key)
            && !self.stale[r as usize]
        {
            return r;
        }
        let dst = self.new_reg(0.0);
        self.push_tracked(Instr { op, dst, a, b, c });
        self.cse.insert(key, dst);
        if op == Op::Sub {
            self.subs.insert(dst, (a, b, self.code.len() - 1));
        }
        dst
    }

    /// `(x - y) * c` as one `SubMul` when a factor is a difference computed in this section
    /// (the `Sub` stays for other readers; dead-code elimination drops it otherwise).
    pub(super) fn try_sub_mul(&mut self, a: Reg, b: Reg) -> Option<Reg> {
        let (x, y, other) = [(a, b), (b, a)].into_iter().find_map(|(d, other)| {
            let &(x, y, at) = self.subs.get(&d)?;
            (at >= self.section_start).then_some((x, y, other))
        })?;
        let key = Key(Op::SubMul, x, y, other);
        if let Some(&r) = self.cse.get(&key)
            && !self.stale[r as usize]
        {
            return Some(r);
        }
        let dst = self.new_reg(0.0);
        self.push_tracked(Instr {
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
    pub(super) fn try_fuse(&mut self, op: Op, a: Reg, b: Reg) -> Option<Reg> {
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
        if let Some(&r) = self.cse.get(&key)
            && !self.stale[r as usize]
        {
            return Some(r);
        }
        // Keep the product instruction (CSE may share it) and add the fused one.
        let dst = self.new_reg(0.0);
        self.push_tracked(Instr {
            op: fop,
            dst,
            a: last.a,
            b: last.b,
            c: other,
        });
        self.cse.insert(key, dst);
        Some(dst)
    }

    pub(super) fn err(&mut self, msg: String) -> Reg {
        self.errors.push(Diagnostic::error(self.span, msg));
        self.constant(f64::NAN)
    }

    pub(super) fn var(&mut self, v: VarId) -> Reg {
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

    pub(super) fn pre_reg(&mut self, v: VarId) -> Reg {
        if let Some(&r) = self.pre.get(&v) {
            return r;
        }
        let r = self.new_reg(0.0);
        self.pre.insert(v, r);
        self.pre_list.push((v as Reg, r));
        r
    }

    /// Compiles a message: string pieces stay text, the values shown go to registers.
    pub(super) fn message(&mut self, e: &Expr) -> Vec<MsgPart> {
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

    pub(super) fn expr(&mut self, e: &Expr) -> Reg {
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
            Expr::Call(Builtin::Delay, args) if args.len() == 3 => self.delay(args),
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
                            span: self.span,
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
    pub(super) fn user_call(
        &mut self,
        function: &str,
        args: &[Expr],
        output: usize,
        element: usize,
    ) -> Reg {
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
                // Copies made where an argument was stale (see `stale`) are made again.
                let n = regs.len() as Reg;
                let fresh = |first: Reg| !(first..first + n).any(|r| self.stale[r as usize]);
                let first = match self.calls.copied_args(&regs).filter(|&f| fresh(f)) {
                    Some(first) => first,
                    None => {
                        let first = self.regs.len() as Reg;
                        for &r in &regs {
                            let dst = self.new_reg(0.0);
                            self.push_copy(dst, r);
                        }
                        self.calls.note_copied_args(regs.clone(), first);
                        first
                    }
                };
                let dst = self.new_reg(0.0);
                self.push_tracked(Instr {
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

    /// `delay(x, d, dmax)`: `x` itself when it is known now or the delay is zero, else an
    /// `Op::Call` on a new delay line reading copies of time, `x`, `d` and `dmax` (`delay.rs`).
    fn delay(&mut self, args: &[Expr]) -> Reg {
        if self.in_when_body {
            return self.err("`delay` inside a `when` clause is not supported".into());
        }
        let x = self.expr(&args[0]);
        let d = self.expr(&args[1]);
        let dmax = self.expr(&args[2]);
        if self.k(x).is_some() || self.k(d) == Some(0.0) {
            return x;
        }
        let first = self.regs.len() as Reg;
        for r in [self.time, x, d, dmax] {
            let dst = self.new_reg(0.0);
            self.push_copy(dst, r);
        }
        let line =
            std::sync::Arc::new(super::delay::DelayLine::new(first + 1, format!("{args:?}")));
        let site = match funcall::delay_site(line.clone()) {
            Ok(index) => self.constant(index),
            Err(m) => return self.err(m),
        };
        self.delays.push(line);
        let dst = self.new_reg(0.0);
        self.push_tracked(Instr {
            op: Op::Call,
            dst,
            a: first,
            b: first + 3,
            c: site,
        });
        dst
    }

    /// Appends `ins`, its destination stale when an operand is ([`Self::stale`]).
    pub(super) fn push_tracked(&mut self, ins: Instr) {
        let stale = ins
            .reads()
            .any(|r| self.stale.get(r as usize) == Some(&true));
        if let Some(s) = self.stale.get_mut(ins.dst as usize) {
            *s = stale;
        }
        self.code.push(ins);
    }

    /// Marks the variables the main pass computes as not yet computed: compiling their steps in
    /// order clears them again ([`Self::stale`]).
    pub(super) fn mark_pending(&mut self, vars: impl Iterator<Item = usize>) {
        for v in vars {
            if let Some(s) = self.stale.get_mut(v) {
                *s = true;
            }
        }
    }

    /// Computes again, from the registers as the completed main pass leaves them, the operands
    /// of the relations whose operands were stale where they were compiled: the zero-crossing
    /// functions and the event iteration read these registers (after `run_outputs`), and the
    /// stale ones held the previous evaluation's values (HeatLosses: the elastic gap's
    /// `s_rel < s_rel0` read `s_rel` before its step, the root finder saw each point's crossing
    /// function at the point before, stopped at a false root and the event flipped the contact
    /// back and forth). Called at the start of the event code, which runs with the outputs.
    pub(super) fn refresh_relation_operands(&mut self) {
        for (i, e) in std::mem::take(&mut self.stale_relations) {
            let Expr::Binary(_, l, r) = &e else { continue };
            let (a, b) = (self.expr(l), self.expr(r));
            let op = self.relations[i].op;
            self.relations[i].a = a;
            self.relations[i].b = b;
            self.rel_index.insert((op, a, b), i);
        }
    }

    /// `dst = src`, written even when CSE knows `src` (the copy is what places the value).
    pub(super) fn push_copy(&mut self, dst: Reg, src: Reg) {
        self.push_tracked(Instr {
            op: Op::Copy,
            dst,
            a: src,
            b: 0,
            c: 0,
        });
    }

    /// `if c1 then x1 elseif ... else r` from the undecided branches `(c, x)`.
    pub(super) fn fold_select(&mut self, pending: Vec<(Reg, &Expr)>, mut r: Reg) -> Reg {
        let values: Vec<(Reg, Reg)> = pending
            .into_iter()
            .map(|(c, x)| (c, self.expr(x)))
            .collect();
        for (c, x) in values.into_iter().rev() {
            r = self.emit(Op::Select, c, x, r);
        }
        r
    }

    pub(super) fn relation(&mut self, op: Op, a: Reg, b: Reg, e: &Expr) -> Reg {
        if let Some(&i) = self.rel_index.get(&(op, a, b)) {
            return self.relations[i].reg;
        }
        let reg = self.new_reg(0.0);
        self.rel_index.insert((op, a, b), self.relations.len());
        let text = crate::structure::print::expr_text(e, &self.model.variables);
        if self.stale[a as usize] || self.stale[b as usize] {
            self.stale_relations.push((self.relations.len(), e.clone()));
        }
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
    pub(super) fn expr_into(&mut self, e: &Expr, dst: Reg, segment_start: usize) {
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

    pub(super) fn residual(&mut self, e: &Expr) -> Reg {
        self.expr(e)
    }
}

/// The kind of value an expression has, for `String(x)` in messages (the registers only hold
/// numbers).
pub(crate) fn value_kind(e: &Expr, model: &FlatModel) -> ValueKind {
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
