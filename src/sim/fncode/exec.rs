//! Running compiled function code: one stack of numbers, a frame per call.

use super::code::{
    Call, Code, Element, Ex, ExKind, Fold, Init, Over, Place, Reduce, Sel, Src, St, Target, Ty,
};
use crate::dae::BinOp;
use crate::flatten::tensor::{Val, pow, val_binary, val_builtin, val_unary};

/// The code gives up: the interpreter makes the call instead.
struct Bail;

type R<T> = Result<T, Bail>;

enum Flow {
    Normal,
    Break,
    Return,
}

struct Machine {
    stack: Vec<f64>,
    /// Statements executed, counted as the interpreter counts them (it stops an endless loop
    /// at the same bound).
    steps: u64,
}

pub(super) fn run(code: &Code, args: &[f64], defaults: &[f64]) -> Option<Vec<Vec<f64>>> {
    let mut m = Machine {
        stack: vec![0.0; code.frame],
        steps: 0,
    };
    let mut numbers = args.iter().chain(defaults);
    for (p, ty) in &code.inputs {
        for j in 0..p.len as usize {
            let x = *numbers.next()?;
            // As `funcall` hands registers to the interpreter.
            m.stack[p.at as usize + j] = match ty {
                Ty::Int => (x.round() as i64) as f64,
                Ty::Bool => f64::from(u8::from(x != 0.0)),
                Ty::Real => x,
            };
        }
    }
    m.enter(code, 0).ok()?;
    Some(
        code.outputs
            .iter()
            .map(|(p, _)| m.stack[p.at as usize..(p.at + p.len) as usize].to_vec())
            .collect(),
    )
}

/// `acc` with `x` folded in (`x` alone for the first element).
fn fold(r: &Reduce, acc: Option<f64>, x: f64) -> R<f64> {
    let Some(a) = acc else { return Ok(x) };
    match r.fold {
        Fold::Op(op) if r.ty == Ty::Int => num(val_binary(op, &val(a, r.ty), &val(x, r.ty))),
        Fold::Op(BinOp::Mul) => Ok(a * x),
        Fold::Op(_) => Ok(a + x),
        Fold::Builtin(b) => num(val_builtin(b, &[val(a, r.ty), val(x, r.ty)])),
    }
}

/// A frame value as the interpreter holds it.
fn val(x: f64, ty: Ty) -> Val {
    match ty {
        Ty::Real => Val::Real(x),
        Ty::Int => Val::Int(x as i64),
        Ty::Bool => Val::Bool(x != 0.0),
    }
}

fn num(v: Result<Val, String>) -> R<f64> {
    match v {
        Ok(Val::Real(x)) => Ok(x),
        Ok(Val::Int(i)) => Ok(i as f64),
        Ok(Val::Bool(b)) => Ok(f64::from(u8::from(b))),
        _ => Err(Bail),
    }
}

impl Machine {
    fn tick(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > crate::flatten::func_eval::MAX_STEPS {
            return Err(Bail);
        }
        Ok(())
    }

    /// Runs `code` on the frame at `base`, whose inputs are set.
    fn enter(&mut self, code: &Code, base: usize) -> R<()> {
        for i in &code.init {
            match i {
                Init::Scalar(at, e) => {
                    let x = self.ex(e, base)?;
                    self.stack[base + *at as usize] = x;
                }
                Init::Array(p, src) => self.set_array(*p, src, base)?,
            }
        }
        match self.block(&code.body, base)? {
            Flow::Break => Err(Bail),
            Flow::Normal | Flow::Return => Ok(()),
        }
    }

    /// Pushes the callee's frame, sets its inputs and runs it; the frame's base (the caller
    /// reads the outputs there, then truncates the stack to it).
    fn call(&mut self, c: &Call, base: usize) -> R<usize> {
        let cb = self.stack.len();
        self.stack.resize(cb + c.code.frame, 0.0);
        for (src, (p, _)) in c.args.iter().zip(&c.code.inputs) {
            self.fill(src, base, cb + p.at as usize, p.len as usize)?;
        }
        self.enter(&c.code, cb)?;
        Ok(cb)
    }

    fn ex(&mut self, e: &Ex, base: usize) -> R<f64> {
        Ok(match &e.kind {
            ExKind::Const(x) => *x,
            ExKind::Var(at) => self.stack[base + *at as usize],
            ExKind::Elem(el) => {
                let off = self.offset(el, base)?;
                self.stack[base + el.at as usize + off]
            }
            ExKind::Unary(op, a) => {
                let x = self.ex(a, base)?;
                match (op, a.ty) {
                    (crate::dae::UnOp::Neg, Ty::Real) => -x,
                    (crate::dae::UnOp::Not, Ty::Bool) => f64::from(u8::from(x == 0.0)),
                    // An Integer's negation is checked for overflow.
                    _ => num(val_unary(*op, &val(x, a.ty)))?,
                }
            }
            ExKind::Binary(op, a, b) => {
                let x = self.ex(a, base)?;
                let y = self.ex(b, base)?;
                match op {
                    // Integer arithmetic is checked for overflow by the interpreter's own
                    // operator; everything else is what `val_binary` computes on the two
                    // numbers (an Integer or Boolean operand is the same number as a Real).
                    BinOp::Add | BinOp::Sub | BinOp::Mul if e.ty == Ty::Int => {
                        num(val_binary(*op, &val(x, a.ty), &val(y, b.ty)))?
                    }
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    BinOp::Pow => pow(x, y),
                    // An unordered pair (NaN) compares false, `<>` included.
                    BinOp::Lt => f64::from(u8::from(x < y)),
                    BinOp::Le => f64::from(u8::from(x <= y)),
                    BinOp::Gt => f64::from(u8::from(x > y)),
                    BinOp::Ge => f64::from(u8::from(x >= y)),
                    BinOp::Eq => f64::from(u8::from(x == y)),
                    BinOp::Ne => f64::from(u8::from(x.partial_cmp(&y).is_some_and(|o| o.is_ne()))),
                    BinOp::And | BinOp::Or => num(val_binary(*op, &val(x, a.ty), &val(y, b.ty)))?,
                }
            }
            ExKind::Logic(op, a, b) => {
                let x = self.ex(a, base)?;
                // `false and e`, `true or e`: the left side is the value.
                if a.ty == Ty::Bool && (x != 0.0) == (*op == BinOp::Or) {
                    return Ok(x);
                }
                let y = self.ex(b, base)?;
                num(val_binary(*op, &val(x, a.ty), &val(y, b.ty)))?
            }
            ExKind::If(branches, else_) => {
                for (c, v) in branches {
                    if self.ex(c, base)? != 0.0 {
                        return self.ex(v, base);
                    }
                }
                self.ex(else_, base)?
            }
            ExKind::Builtin(b, args) => {
                let mut vals = [Val::Real(0.0), Val::Real(0.0), Val::Real(0.0)];
                for (k, a) in args.iter().enumerate() {
                    vals[k] = val(self.ex(a, base)?, a.ty);
                }
                num(val_builtin(*b, &vals[..args.len()]))?
            }
            ExKind::Reduce(r) => self.reduce(r, base)?,
            ExKind::Call(c) => {
                let cb = self.call(c, base)?;
                let p = c.code.outputs[0].0;
                let x = self.stack[cb + p.at as usize];
                self.stack.truncate(cb);
                x
            }
        })
    }

    /// The row-major offset of an element; gives up on a subscript out of range.
    fn offset(&mut self, el: &Element, base: usize) -> R<usize> {
        let mut off = 0usize;
        for (s, &n) in el.subs.iter().zip(&el.dims) {
            let i = self.ex(s, base)?;
            if !(i >= 1.0 && i <= f64::from(n)) || i.fract() != 0.0 {
                return Err(Bail);
            }
            off = off * n as usize + (i as usize - 1);
        }
        Ok(off)
    }

    /// Writes the elements of `src` to `len` slots from absolute position `dst`; `base` is
    /// the frame `src` reads. The destination must not be read by `src` (a new frame).
    fn fill(&mut self, src: &Src, base: usize, dst: usize, len: usize) -> R<()> {
        match src {
            Src::Scalar(e) => {
                let x = self.ex(e, base)?;
                self.stack[dst] = x;
            }
            Src::Const(data) => self.stack[dst..dst + len].copy_from_slice(data),
            Src::Copy(p) => {
                let from = base + p.at as usize;
                self.stack.copy_within(from..from + len, dst);
            }
            Src::List(es) => {
                for (k, e) in es.iter().enumerate() {
                    let x = self.ex(e, base)?;
                    self.stack[dst + k] = x;
                }
            }
            Src::Slice(s) => {
                let mut picks: Vec<Vec<usize>> = Vec::with_capacity(s.sels.len());
                for (sel, &n) in s.sels.iter().zip(&s.dims) {
                    picks.push(match sel {
                        Sel::One(e) => {
                            let i = self.ex(e, base)?;
                            if !(i >= 1.0 && i <= f64::from(n)) || i.fract() != 0.0 {
                                return Err(Bail);
                            }
                            vec![i as usize - 1]
                        }
                        Sel::Range(first, count) => {
                            let last = first + i64::from(*count) - 1;
                            if *count > 0 && (*first < 1 || last > i64::from(n)) {
                                return Err(Bail);
                            }
                            (0..*count as usize)
                                .map(|k| *first as usize - 1 + k)
                                .collect()
                        }
                        Sel::All => (0..n as usize).collect(),
                    });
                }
                let mut pos = vec![0usize; picks.len()];
                let total: usize = picks.iter().map(Vec::len).product();
                for k in 0..total {
                    let mut off = 0;
                    for (d, (&p, pick)) in pos.iter().zip(&picks).enumerate() {
                        off = off * s.dims[d] as usize + pick[p];
                    }
                    self.stack[dst + k] = self.stack[base + s.at as usize + off];
                    // The next position, last subscript fastest.
                    for d in (0..pos.len()).rev() {
                        pos[d] += 1;
                        if pos[d] < picks[d].len() {
                            break;
                        }
                        pos[d] = 0;
                    }
                }
            }
        }
        Ok(())
    }

    /// A whole-array assignment: the value is formed before the variable changes
    /// (`x := {x[2], x[1]}`).
    fn set_array(&mut self, p: Place, src: &Src, base: usize) -> R<()> {
        let dst = base + p.at as usize;
        let len = p.len as usize;
        match src {
            Src::Const(_) | Src::Copy(_) => self.fill(src, base, dst, len),
            _ => {
                let tmp = self.stack.len();
                self.stack.resize(tmp + len, 0.0);
                self.fill(src, base, tmp, len)?;
                self.stack.copy_within(tmp..tmp + len, dst);
                self.stack.truncate(tmp);
                Ok(())
            }
        }
    }

    /// The first value, the step and the count of an Integer range, as
    /// `flatten::eval::range` takes them (a zero step or too many values is an error there).
    fn range(
        &mut self,
        start: &Ex,
        step: Option<&Ex>,
        stop: &Ex,
        base: usize,
    ) -> R<(i64, i64, usize)> {
        let a = self.ex(start, base)? as i64;
        let s = match step {
            Some(s) => self.ex(s, base)? as i64,
            None => 1,
        };
        let b = self.ex(stop, base)? as i64;
        if s == 0 {
            return Err(Bail);
        }
        let n = if (s > 0 && a <= b) || (s < 0 && a >= b) {
            (i128::from(b) - i128::from(a)) / i128::from(s) + 1
        } else {
            0
        };
        let n = crate::flatten::size_limit::range_count(n as f64).map_err(|_| Bail)?;
        Ok((a, s, n))
    }

    /// A reduction: the first element, then each next one folded in.
    fn reduce(&mut self, r: &Reduce, base: usize) -> R<f64> {
        let mut acc = None;
        match &r.over {
            Over::Array(p) => {
                for k in 0..p.len as usize {
                    let x = self.stack[base + p.at as usize + k];
                    acc = Some(fold(r, acc, x)?);
                }
            }
            Over::Range {
                var,
                start,
                step,
                stop,
                body,
            } => {
                let (a, s, n) = self.range(start, step.as_ref(), stop, base)?;
                for k in 0..n as i64 {
                    self.stack[base + *var as usize] = (a + k * s) as f64;
                    let x = self.ex(body, base)?;
                    acc = Some(fold(r, acc, x)?);
                }
            }
        }
        match (acc, r.fold) {
            (Some(x), _) => Ok(x),
            (None, Fold::Op(op)) => Ok(if op == BinOp::Mul { 1.0 } else { 0.0 }),
            (None, Fold::Builtin(_)) => Err(Bail),
        }
    }

    fn block(&mut self, body: &[St], base: usize) -> R<Flow> {
        for s in body {
            self.tick()?;
            match self.st(s, base)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn st(&mut self, s: &St, base: usize) -> R<Flow> {
        match s {
            St::Set(at, e) => {
                let x = self.ex(e, base)?;
                self.stack[base + *at as usize] = x;
            }
            St::SetElem(el, e) => {
                let x = self.ex(e, base)?;
                let off = self.offset(el, base)?;
                self.stack[base + el.at as usize + off] = x;
            }
            St::SetArray(p, src) => self.set_array(*p, src, base)?,
            St::Outputs(c, targets) => {
                let cb = self.call(c, base)?;
                for (t, (out, _)) in targets.iter().zip(&c.code.outputs) {
                    let from = cb + out.at as usize;
                    match t {
                        None => {}
                        Some(Target::Var(p)) => {
                            let to = base + p.at as usize;
                            self.stack.copy_within(from..from + p.len as usize, to);
                        }
                        Some(Target::Elem(el)) => {
                            let x = self.stack[from];
                            let off = self.offset(el, base)?;
                            self.stack[base + el.at as usize + off] = x;
                        }
                    }
                }
                self.stack.truncate(cb);
            }
            St::Run(c) => {
                let cb = self.call(c, base)?;
                self.stack.truncate(cb);
            }
            St::Assert(c) => {
                if self.ex(c, base)? == 0.0 {
                    return Err(Bail);
                }
            }
            St::If(branches, else_) => {
                for (c, body) in branches {
                    if self.ex(c, base)? != 0.0 {
                        return self.block(body, base);
                    }
                }
                return self.block(else_, base);
            }
            St::For {
                var,
                start,
                step,
                stop,
                body,
            } => {
                let (a, s, n) = self.range(start, step.as_ref(), stop, base)?;
                for k in 0..n as i64 {
                    self.stack[base + *var as usize] = (a + k * s) as f64;
                    match self.block(body, base)? {
                        Flow::Normal => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
            }
            St::While(c, body) => {
                while self.ex(c, base)? != 0.0 {
                    self.tick()?;
                    match self.block(body, base)? {
                        Flow::Normal => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
            }
            St::Return => return Ok(Flow::Return),
            St::Break => return Ok(Flow::Break),
            St::GiveUp => return Err(Bail),
        }
        Ok(Flow::Normal)
    }
}
