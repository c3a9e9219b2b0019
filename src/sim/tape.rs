//! The executable form of the equations: a flat list of register instructions over `f64`.
//!
//! Every value the model computes lives in one register file (`Vec<f64>`): variables first (the
//! register of variable `v` is `v`), then special registers (time, flags), constants, relation
//! values, pre-values and temporaries. An instruction reads up to three registers and writes one.
//! Booleans are 0.0 / 1.0. Evaluation is a single `match` per instruction: no names, no trees.
//!
//! The same tape runs in two modes: values ([`run`]) and forward-mode tangents ([`run_tangent`],
//! which assumes the values of the same pass are already in the register file). The one table
//! from Modelica operators and built-in functions to instructions is here too ([`bin_op`],
//! [`builtin_op`]): the compiler and the parameter evaluator both use it.

use crate::dae::{BinOp, Builtin};

/// Register index.
pub type Reg = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Copy,
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    /// `a ^ b` for a general exponent.
    Pow,
    /// `a * a`.
    Square,
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
    /// Truncated quotient `div(a, b)`.
    DivInt,
    Mod,
    Rem,
    /// `semiLinear(a, b, c)`.
    SemiLinear,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Not,
    /// `if a then b else c`.
    Select,
    /// `a * b + c`: the most frequent pattern in mechanical and electrical models.
    MulAdd,
    /// `a * b - c`.
    MulSub,
    /// `(a - b) * c`: a spring or a resistor, `k * (x1 - x2)`.
    SubMul,
    /// A user function (`sim/funcall.rs`): arguments in registers `a..=b`, the call site's
    /// index in register `c`. `arity` is 0: the operands are a range, handled where read.
    Call,
}

impl Op {
    pub fn arity(self) -> usize {
        use Op::*;
        match self {
            Copy | Neg | Square | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh
            | Exp | Log | Log10 | Sqrt | Abs | Sign | Floor | Ceil | Not => 1,
            Select | SemiLinear | MulAdd | MulSub | SubMul => 3,
            Call => 0,
            _ => 2,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instr {
    pub op: Op,
    pub dst: Reg,
    pub a: Reg,
    pub b: Reg,
    pub c: Reg,
}

impl Instr {
    pub fn new(op: Op, dst: Reg, a: Reg, b: Reg, c: Reg) -> Instr {
        Instr { op, dst, a, b, c }
    }

    /// Every register the instruction reads (a call reads its argument range and its site).
    pub fn reads(&self) -> impl Iterator<Item = Reg> + '_ {
        let ops = [self.a, self.b, self.c];
        let is_call = self.op == Op::Call;
        let call = is_call
            .then_some(self.a..=self.b)
            .into_iter()
            .flatten()
            .chain(is_call.then_some(self.c));
        ops.into_iter().take(self.op.arity()).chain(call)
    }
}

/// One more than the largest register `code` reads or writes: the shortest register file it
/// can run on.
pub fn regs_needed(code: &[Instr]) -> usize {
    code.iter()
        .flat_map(|i| std::iter::once(i.dst).chain(i.reads()))
        .map(|r| r as usize + 1)
        .max()
        .unwrap_or(0)
}

fn b2f(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

/// Applies `op` to values (used by the evaluator and by constant folding).
#[inline(always)]
pub fn apply(op: Op, a: f64, b: f64, c: f64) -> f64 {
    use Op::*;
    match op {
        Copy => a,
        Add => a + b,
        Sub => a - b,
        Mul => a * b,
        Div => a / b,
        Neg => -a,
        Pow => pow(a, b),
        Square => a * a,
        Sin => a.sin(),
        Cos => a.cos(),
        Tan => a.tan(),
        Asin => a.asin(),
        Acos => a.acos(),
        Atan => a.atan(),
        Atan2 => a.atan2(b),
        Sinh => a.sinh(),
        Cosh => a.cosh(),
        Tanh => a.tanh(),
        Exp => a.exp(),
        Log => a.ln(),
        Log10 => a.log10(),
        Sqrt => a.sqrt(),
        Abs => a.abs(),
        Sign => {
            if a > 0.0 {
                1.0
            } else if a < 0.0 {
                -1.0
            } else {
                0.0
            }
        }
        Min => a.min(b),
        Max => a.max(b),
        Floor => a.floor(),
        Ceil => a.ceil(),
        DivInt => (a / b).trunc(),
        Mod => a - (a / b).floor() * b,
        Rem => a - (a / b).trunc() * b,
        SemiLinear => {
            if a >= 0.0 {
                a * b
            } else {
                a * c
            }
        }
        Lt => b2f(a < b),
        Le => b2f(a <= b),
        Gt => b2f(a > b),
        Ge => b2f(a >= b),
        Eq => b2f(a == b),
        Ne => b2f(a != b),
        And => b2f(a != 0.0 && b != 0.0),
        Or => b2f(a != 0.0 || b != 0.0),
        Not => b2f(a == 0.0),
        Select => {
            if a != 0.0 {
                b
            } else {
                c
            }
        }
        MulAdd => a * b + c,
        MulSub => a * b - c,
        SubMul => (a - b) * c,
        // Needs the argument range: evaluated by `run`, never folded.
        Call => f64::NAN,
    }
}

/// `a ^ b` with integer exponents done by multiplication (exact for negative bases).
#[inline]
fn pow(a: f64, b: f64) -> f64 {
    if b == b.trunc() && b.abs() <= 64.0 {
        a.powi(b as i32)
    } else {
        a.powf(b)
    }
}

/// Evaluates instructions in order, writing values into `r`.
#[inline]
pub fn run(code: &[Instr], r: &mut [f64]) {
    for i in code {
        let a = r[i.a as usize];
        // Most instructions are binary arithmetic; keep the common cases first and direct.
        let v = match i.op {
            Op::Add => a + r[i.b as usize],
            Op::Sub => a - r[i.b as usize],
            Op::Mul => a * r[i.b as usize],
            Op::Div => a / r[i.b as usize],
            Op::MulAdd => a * r[i.b as usize] + r[i.c as usize],
            Op::MulSub => a * r[i.b as usize] - r[i.c as usize],
            Op::SubMul => (a - r[i.b as usize]) * r[i.c as usize],
            Op::Copy => a,
            Op::Neg => -a,
            Op::Call => super::funcall::value(r[i.c as usize], &r[i.a as usize..=i.b as usize]),
            op => apply(op, a, r[i.b as usize], r[i.c as usize]),
        };
        r[i.dst as usize] = v;
    }
}

/// Forward-mode derivative pass: `r` holds the values of the same pass, `t` the tangents of the
/// inputs; writes the tangent of every destination.
pub fn run_tangent(code: &[Instr], r: &[f64], t: &mut [f64]) {
    for i in code {
        let (a, b, c) = (r[i.a as usize], r[i.b as usize], r[i.c as usize]);
        if i.op == Op::Call {
            let args = i.a as usize..=i.b as usize;
            t[i.dst as usize] = super::funcall::tangent(c, &r[args.clone()], &t[args]);
            continue;
        }
        let (ta, tb, tc) = (t[i.a as usize], t[i.b as usize], t[i.c as usize]);
        t[i.dst as usize] = tangent(i.op, [a, b, c], [ta, tb, tc], r[i.dst as usize]);
    }
}

/// The tangent of `op(a, b, c)` (value `v`) given the operands' values and tangents.
#[inline(always)]
pub fn tangent(op: Op, [a, b, c]: [f64; 3], [ta, tb, tc]: [f64; 3], v: f64) -> f64 {
    use Op::*;
    match op {
        Copy => ta,
        Add => ta + tb,
        Sub => ta - tb,
        Mul => ta * b + a * tb,
        // A finite numerator over an infinite denominator (`2/(1 + exp(800))`, a saturated
        // regularization) is exactly zero near this point: its tangent is zero, where the
        // general formula would give `0 * inf`, a NaN that fails every Newton iteration.
        Div if b.is_infinite() && a.is_finite() => 0.0,
        Div => (ta - v * tb) / b,
        Neg => -ta,
        Pow => {
            let mut d = if ta != 0.0 {
                if b == 0.0 {
                    0.0
                } else {
                    b * pow(a, b - 1.0) * ta
                }
            } else {
                0.0
            };
            if tb != 0.0 && a > 0.0 {
                d += v * a.ln() * tb;
            }
            d
        }
        Square => 2.0 * a * ta,
        Sin => a.cos() * ta,
        Cos => -a.sin() * ta,
        Tan => (1.0 + v * v) * ta,
        Asin => ta / (1.0 - a * a).sqrt(),
        Acos => -ta / (1.0 - a * a).sqrt(),
        Atan => ta / (1.0 + a * a),
        Atan2 => (b * ta - a * tb) / (a * a + b * b),
        Sinh => a.cosh() * ta,
        Cosh => a.sinh() * ta,
        Tanh => (1.0 - v * v) * ta,
        Exp => v * ta,
        Log => ta / a,
        Log10 => ta / (a * std::f64::consts::LN_10),
        Sqrt => {
            if v == 0.0 {
                0.0
            } else {
                ta / (2.0 * v)
            }
        }
        Abs => {
            if a >= 0.0 {
                ta
            } else {
                -ta
            }
        }
        Min => {
            if a <= b {
                ta
            } else {
                tb
            }
        }
        Max => {
            if a >= b {
                ta
            } else {
                tb
            }
        }
        Mod => ta - (a / b).floor() * tb,
        Rem => ta - (a / b).trunc() * tb,
        SemiLinear => {
            if a >= 0.0 {
                ta * b + a * tb
            } else {
                ta * c + a * tc
            }
        }
        Select => {
            if a != 0.0 {
                tb
            } else {
                tc
            }
        }
        MulAdd => ta * b + a * tb + tc,
        MulSub => ta * b + a * tb - tc,
        SubMul => (ta - tb) * c + (a - b) * tc,
        // Needs the argument range: `run_tangent` and the batched pass handle it before.
        Call => f64::NAN,
        Sign | Floor | Ceil | DivInt | Lt | Le | Gt | Ge | Eq | Ne | And | Or | Not => 0.0,
    }
}

/// Structural dependencies: for sparsity patterns. `deps[r]` is the sorted set of input indices
/// register `r` depends on; every instruction's destination gets the union of its operands'
/// sets (both branches of a `Select`, so the pattern holds whichever branch is active).
pub fn run_deps(code: &[Instr], deps: &mut [Vec<u32>]) {
    for i in code {
        let n = i.op.arity();
        let mut out: Vec<u32> = Vec::new();
        let ops = [i.a, i.b, i.c];
        for &o in &ops[..n] {
            out = union(&out, &deps[o as usize]);
        }
        if i.op == Op::Call {
            for o in i.a..=i.b {
                out = union(&out, &deps[o as usize]);
            }
        }
        deps[i.dst as usize] = out;
    }
}

/// Union of two sorted sets.
pub fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    if a.is_empty() {
        return b.to_vec();
    }
    if b.is_empty() {
        return a.to_vec();
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
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
        // Needs the history of the run: lowered by the compiler to a delay line.
        Builtin::Delay => return Err("`delay` needs the simulation's history".into()),
        // The condition itself; the clause it starts is marked by `compile.rs`.
        Builtin::EventClock => (Op::Copy, 1),
    };
    if n != nargs {
        return Err(format!("{f:?} takes {n} argument(s), got {nargs}").to_lowercase());
    }
    Ok(op)
}

/// The value of a built-in call on scalar values (parameter bindings, the structural checks'
/// generic points): the same operation the compiled program runs.
pub fn apply_builtin(f: Builtin, args: &[f64]) -> Result<f64, String> {
    let op = builtin_op(f, args.len())?;
    let get = |i: usize| args.get(i).copied().unwrap_or(0.0);
    Ok(apply(op, get(0), get(1), get(2)))
}

pub fn bin_op(op: BinOp) -> Op {
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

pub fn is_relation(op: Op) -> bool {
    matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `2/(1 + exp(800))` is exactly 0 near this point, so its tangent is 0, not `0 * inf`.
    #[test]
    fn a_finite_value_over_an_infinite_one_has_a_zero_tangent() {
        let e = 800f64.exp();
        let v = 2.0 / (1.0 + e);
        assert_eq!(v, 0.0);
        let d = tangent(Op::Div, [2.0, 1.0 + e, 0.0], [0.0, e * 3.0, 0.0], v);
        assert_eq!(d, 0.0);
        // A finite denominator keeps the quotient rule.
        let d = tangent(Op::Div, [2.0, 4.0, 0.0], [1.0, 2.0, 0.0], 0.5);
        assert_eq!(d, (1.0 - 0.5 * 2.0) / 4.0);
    }

    #[test]
    fn tangent_matches_finite_difference() {
        // r0 = x, r1 = y, r2 = const 2; r3 = x*y, r4 = sin(r3), r5 = r4 ^ r2, r6 = atan2(r5, y)
        let code = vec![
            Instr {
                op: Op::Mul,
                dst: 3,
                a: 0,
                b: 1,
                c: 0,
            },
            Instr {
                op: Op::Sin,
                dst: 4,
                a: 3,
                b: 0,
                c: 0,
            },
            Instr {
                op: Op::Pow,
                dst: 5,
                a: 4,
                b: 2,
                c: 0,
            },
            Instr {
                op: Op::Atan2,
                dst: 6,
                a: 5,
                b: 1,
                c: 0,
            },
            Instr {
                op: Op::MulAdd,
                dst: 7,
                a: 6,
                b: 0,
                c: 5,
            },
        ];
        let eval = |x: f64, y: f64| {
            let mut r = vec![x, y, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            run(&code, &mut r);
            r
        };
        let r = eval(0.7, 1.3);
        let mut t = vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        run_tangent(&code, &r, &mut t);
        let h = 1e-7;
        let rp = eval(0.7 + h, 1.3);
        let fd = (rp[7] - r[7]) / h;
        assert!((fd - t[7]).abs() < 1e-5, "fd {fd} ad {}", t[7]);
    }

    #[test]
    fn reads_lists_operands_and_call_ranges() {
        let ins = |op, a, b, c| Instr {
            op,
            dst: 9,
            a,
            b,
            c,
        };
        let reads = |i: Instr| i.reads().collect::<Vec<_>>();
        assert_eq!(reads(ins(Op::Call, 2, 4, 7)), vec![2, 3, 4, 7]);
        assert_eq!(reads(ins(Op::Add, 1, 5, 6)), vec![1, 5]);
        assert_eq!(reads(ins(Op::Neg, 3, 0, 0)), vec![3]);
        assert_eq!(reads(ins(Op::SubMul, 1, 2, 3)), vec![1, 2, 3]);
    }

    #[test]
    fn union_of_sorted_sets() {
        assert_eq!(union(&[1, 3, 5], &[2, 3, 6]), vec![1, 2, 3, 5, 6]);
        assert_eq!(union(&[], &[4]), vec![4]);
    }
}
