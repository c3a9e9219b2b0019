//! Native code for straight-line segments of the tape (Cranelift): the same instructions as
//! [`super::tape::run`], compiled once a segment has run often (`sim/tiered.rs`), so that a
//! right-hand side costs machine instructions instead of one dispatch per tape instruction.
//!
//! Rules that keep the results bit for bit those of the interpreter (so the output does not
//! depend on whether native code is used):
//! - arithmetic, comparisons and selections are the IEEE operations the interpreter's Rust code
//!   compiles to (no fused multiply-add, no reassociation: Cranelift does neither);
//! - every other operation (transcendental functions, `min`/`max` with Rust's NaN rule, `pow`,
//!   integer division, ...) calls the interpreter's own [`apply`], and a user function call calls
//!   [`super::funcall::value`];
//! - every instruction stores its destination register, so the register file after a run is the
//!   interpreter's; within one native function a register's value is kept in a machine value
//!   after its first load or store instead of being loaded again.
//!
//! A panic in a called function is caught at the boundary (no unwinding through native frames)
//! and resumed once the native code has returned.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Signature, Value, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module, default_libcall_names};

use super::tape::{Instr, Op, apply, regs_needed};

/// Instructions per native function. Longer functions compile in time that grows faster than
/// their length (register allocation over many live values) and gain nothing: a value is
/// rarely read thousands of instructions after it is computed.
const CHUNK: usize = 2048;

/// Operations compiled as a call of [`apply`]; the index into this table is the call's first
/// argument.
const CALLED: [Op; 23] = [
    Op::Pow,
    Op::Sin,
    Op::Cos,
    Op::Tan,
    Op::Asin,
    Op::Acos,
    Op::Atan,
    Op::Atan2,
    Op::Sinh,
    Op::Cosh,
    Op::Tanh,
    Op::Exp,
    Op::Log,
    Op::Log10,
    Op::Sign,
    Op::Min,
    Op::Max,
    Op::Floor,
    Op::Ceil,
    Op::DivInt,
    Op::Mod,
    Op::Rem,
    Op::SemiLinear,
];

thread_local! {
    /// A panic caught in a function called from native code, resumed after it returns.
    static CAUGHT: RefCell<Option<Box<dyn Any + Send>>> = const { RefCell::new(None) };
}

fn catch(f: impl FnOnce() -> f64) -> f64 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(p) => {
            CAUGHT.with(|c| *c.borrow_mut() = Some(p));
            f64::NAN
        }
    }
}

extern "C" fn native_apply(k: u32, a: f64, b: f64, c: f64) -> f64 {
    catch(|| apply(CALLED[k as usize], a, b, c))
}

/// # Safety
/// `args` points to `n` readable `f64` (registers of the running segment's file).
unsafe extern "C" fn native_call(site: f64, args: *const f64, n: u64) -> f64 {
    // SAFETY: the compiled code passes a pointer into the register file and a length that
    // `compile` checked against the file's minimum length.
    let args = unsafe { std::slice::from_raw_parts(args, n as usize) };
    catch(|| super::funcall::value(site, args))
}

/// A segment as native functions, run in order on the register file.
pub struct Compiled {
    module: Option<JITModule>,
    funcs: Vec<unsafe extern "C" fn(*mut f64)>,
    /// The register file must be at least this long (every index the code uses is below it).
    min_regs: usize,
}

// SAFETY: after `finalize_definitions` the module's code is immutable and only freed on drop;
// the functions read and write nothing but the register file they are given (and the
// thread-local panic slot), so running them from several threads on distinct files is sound.
unsafe impl Send for Compiled {}
// SAFETY: see `Send`: `run` takes `&self` and mutates only its argument.
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the function pointers die with `self`; nothing else refers to the code.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Compiled({} functions)", self.funcs.len())
    }
}

impl Compiled {
    /// Runs the segment: the same register file as [`super::tape::run`] on the same code.
    pub fn run(&self, r: &mut [f64]) {
        assert!(
            r.len() >= self.min_regs,
            "register file shorter than the native code"
        );
        for f in &self.funcs {
            // SAFETY: every register index the code uses is below `min_regs` <= `r.len()`.
            unsafe { f(r.as_mut_ptr()) };
        }
        if let Some(p) = CAUGHT.with(|c| c.borrow_mut().take()) {
            std::panic::resume_unwind(p);
        }
    }
}

/// Compiles `code`; `None` where native code is unavailable (an unsupported host, a register
/// index too large for an instruction's offset, a Cranelift error): the caller interprets.
pub fn compile(code: &[Instr]) -> Option<Compiled> {
    let min_regs = regs_needed(code);
    // Byte offsets are 32-bit immediates.
    if min_regs.checked_mul(8)? > i32::MAX as usize {
        return None;
    }
    let mut module = new_module()?;
    let ids = chunks(&mut module, code).ok()?;
    module.finalize_definitions().ok()?;
    let funcs = ids
        .into_iter()
        .map(|id| {
            let p = module.get_finalized_function(id);
            // SAFETY: `id` was defined with the signature `fn(*mut f64)` in the C convention.
            unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut f64)>(p) }
        })
        .collect();
    Some(Compiled {
        module: Some(module),
        funcs,
        min_regs,
    })
}

fn new_module() -> Option<JITModule> {
    let mut flags = settings::builder();
    // Straight-line code gains little from Cranelift's optimizer and compiles faster
    // without it (measured: run time within noise, compile time 30 % less).
    flags.set("opt_level", "none").ok()?;
    flags.set("use_colocated_libcalls", "false").ok()?;
    // The verifier checks Cranelift's own invariants on every function: a tenth of the
    // compile time for code that is generated the same way every time.
    flags.set("enable_verifier", "false").ok()?;
    flags.set("is_pic", "false").ok()?;
    let isa = cranelift_native::builder()
        .ok()?
        .finish(settings::Flags::new(flags))
        .ok()?;
    let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
    jb.symbol("minimo_native_apply", native_apply as *const u8);
    jb.symbol("minimo_native_call", native_call as *const u8);
    Some(JITModule::new(jb))
}

/// The two functions native code calls, declared in the module.
struct Externs {
    apply: FuncId,
    call: FuncId,
}

fn chunks(module: &mut JITModule, code: &[Instr]) -> Result<Vec<FuncId>, String> {
    let ptr = module.target_config().pointer_type();
    let call_conv = module.isa().default_call_conv();
    let mut apply_sig = Signature::new(call_conv);
    apply_sig.params.push(AbiParam::new(types::I32));
    apply_sig.params.extend([AbiParam::new(types::F64); 3]);
    apply_sig.returns.push(AbiParam::new(types::F64));
    let mut call_sig = Signature::new(call_conv);
    call_sig.params.extend([
        AbiParam::new(types::F64),
        AbiParam::new(ptr),
        AbiParam::new(types::I64),
    ]);
    call_sig.returns.push(AbiParam::new(types::F64));
    let err = |e: cranelift_module::ModuleError| e.to_string();
    let ext = Externs {
        apply: module
            .declare_function("minimo_native_apply", Linkage::Import, &apply_sig)
            .map_err(err)?,
        call: module
            .declare_function("minimo_native_call", Linkage::Import, &call_sig)
            .map_err(err)?,
    };
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    for (k, part) in code.chunks(CHUNK).enumerate() {
        ctx.func.signature.params.push(AbiParam::new(ptr));
        let id = module
            .declare_function(&format!("segment_{k}"), Linkage::Local, &ctx.func.signature)
            .map_err(err)?;
        emit(module, &mut ctx.func, &mut fctx, part, &ext)?;
        module.define_function(id, &mut ctx).map_err(err)?;
        module.clear_context(&mut ctx);
        ids.push(id);
    }
    Ok(ids)
}

/// One native function: loads on first use, every destination stored.
fn emit(
    module: &mut JITModule,
    func: &mut cranelift_codegen::ir::Function,
    fctx: &mut FunctionBuilderContext,
    code: &[Instr],
    ext: &Externs,
) -> Result<(), String> {
    let mut b = FunctionBuilder::new(func, fctx);
    let apply_ref = module.declare_func_in_func(ext.apply, b.func);
    let call_ref = module.declare_func_in_func(ext.call, b.func);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let base = b.block_params(entry)[0];
    let flags = MemFlagsData::trusted();
    let mut vals: HashMap<u32, Value> = HashMap::new();
    for i in code {
        let mut get = |b: &mut FunctionBuilder, r: u32| -> Value {
            *vals
                .entry(r)
                .or_insert_with(|| b.ins().load(types::F64, flags, base, (r * 8) as i32))
        };
        let v = if i.op == Op::Call {
            let site = get(&mut b, i.c);
            let args = b.ins().iadd_imm_s(base, i64::from(i.a) * 8);
            let n = b.ins().iconst(types::I64, i64::from(i.b - i.a + 1));
            let call = b.ins().call(call_ref, &[site, args, n]);
            b.inst_results(call)[0]
        } else {
            let x = get(&mut b, i.a);
            let y = if i.op.arity() >= 2 {
                get(&mut b, i.b)
            } else {
                x
            };
            let z = if i.op.arity() >= 3 {
                get(&mut b, i.c)
            } else {
                x
            };
            match value(&mut b, i.op, [x, y, z], apply_ref) {
                Some(v) => v,
                None => return Err(format!("no native form for {:?}", i.op)),
            }
        };
        b.ins().store(flags, v, base, (i.dst * 8) as i32);
        vals.insert(i.dst, v);
    }
    b.ins().return_(&[]);
    b.finalize(module.target_config());
    Ok(())
}

/// The machine value of `op` on operands `[a, b, c]`.
fn value(
    b: &mut FunctionBuilder,
    op: Op,
    [x, y, z]: [Value; 3],
    apply_ref: cranelift_codegen::ir::FuncRef,
) -> Option<Value> {
    let flag = |b: &mut FunctionBuilder, c: Value| {
        let one = b.ins().f64const(1.0);
        let zero = b.ins().f64const(0.0);
        b.ins().select(c, one, zero)
    };
    let cmp = |b: &mut FunctionBuilder, cc: FloatCC, p: Value, q: Value| {
        let c = b.ins().fcmp(cc, p, q);
        flag(b, c)
    };
    let nonzero = |b: &mut FunctionBuilder, p: Value| {
        let zero = b.ins().f64const(0.0);
        b.ins().fcmp(FloatCC::NotEqual, p, zero)
    };
    Some(match op {
        Op::Copy => x,
        Op::Add => b.ins().fadd(x, y),
        Op::Sub => b.ins().fsub(x, y),
        Op::Mul => b.ins().fmul(x, y),
        Op::Div => b.ins().fdiv(x, y),
        Op::Neg => b.ins().fneg(x),
        Op::Square => b.ins().fmul(x, x),
        Op::Abs => b.ins().fabs(x),
        Op::Sqrt => b.ins().sqrt(x),
        Op::MulAdd => {
            let p = b.ins().fmul(x, y);
            b.ins().fadd(p, z)
        }
        Op::MulSub => {
            let p = b.ins().fmul(x, y);
            b.ins().fsub(p, z)
        }
        Op::SubMul => {
            let d = b.ins().fsub(x, y);
            b.ins().fmul(d, z)
        }
        Op::Lt => cmp(b, FloatCC::LessThan, x, y),
        Op::Le => cmp(b, FloatCC::LessThanOrEqual, x, y),
        Op::Gt => cmp(b, FloatCC::GreaterThan, x, y),
        Op::Ge => cmp(b, FloatCC::GreaterThanOrEqual, x, y),
        Op::Eq => cmp(b, FloatCC::Equal, x, y),
        Op::Ne => cmp(b, FloatCC::NotEqual, x, y),
        Op::Not => {
            let zero = b.ins().f64const(0.0);
            cmp(b, FloatCC::Equal, x, zero)
        }
        Op::And | Op::Or => {
            let p = nonzero(b, x);
            let q = nonzero(b, y);
            let c = if op == Op::And {
                b.ins().band(p, q)
            } else {
                b.ins().bor(p, q)
            };
            flag(b, c)
        }
        Op::Select => {
            let c = nonzero(b, x);
            b.ins().select(c, y, z)
        }
        _ => {
            // An operation added to `Op` but to neither list: the segment stays interpreted.
            let k = CALLED.iter().position(|&o| o == op)?;
            let k = b.ins().iconst(types::I32, k as i64);
            let call = b.ins().call(apply_ref, &[k, x, y, z]);
            b.inst_results(call)[0]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::tape::run;

    /// Every operation, in the order of `Op`'s declaration (checked against `CALLED` below).
    const ALL: [Op; 45] = {
        use Op::*;
        [
            Copy, Add, Sub, Mul, Div, Neg, Pow, Square, Sin, Cos, Tan, Asin, Acos, Atan, Atan2,
            Sinh, Cosh, Tanh, Exp, Log, Log10, Sqrt, Abs, Sign, Min, Max, Floor, Ceil, DivInt, Mod,
            Rem, SemiLinear, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Not, Select, MulAdd, MulSub, SubMul,
        ]
    };

    /// xorshift64: the same tapes on every run.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    fn same_bits(a: &[f64], b: &[f64]) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    }

    /// Random tapes over every operation, with operands that include signed zeros, NaN and
    /// infinities, registers read after being rewritten, and calls of an unknown site (NaN):
    /// native code leaves the register file the interpreter leaves.
    #[test]
    fn native_code_computes_the_interpreters_bits() {
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.5,
            -2.5,
            1e308,
            5e-324,
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let nregs = 40;
        for trial in 0..500 {
            let mut code = Vec::new();
            for _ in 0..1 + rng.below(60) {
                let dst = 10 + rng.below(nregs - 10) as u32;
                let op = ALL[rng.below(ALL.len())];
                let [a, b, c] = [0; 3].map(|_| rng.below(nregs) as u32);
                code.push(Instr::new(op, dst, a, b, c));
            }
            if trial % 7 == 0 {
                // A call: arguments 3..=5, the site in register 0 (no such site: NaN).
                code.push(Instr::new(Op::Call, 12, 3, 5, 0));
            }
            let mut r0: Vec<f64> = (0..nregs)
                .map(|_| match rng.below(3) {
                    0 => specials[rng.below(specials.len())],
                    _ => (rng.below(2001) as f64 - 1000.0) / 97.0,
                })
                .collect();
            r0[0] = 1e9;
            let mut r1 = r0.clone();
            run(&code, &mut r0);
            compile(&code).expect("native code").run(&mut r1);
            assert!(same_bits(&r0, &r1), "trial {trial}: {code:?}");
        }
    }

    #[test]
    fn every_operation_is_inline_or_called() {
        let inline = [
            Op::Copy,
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::Div,
            Op::Neg,
            Op::Square,
            Op::Abs,
            Op::Sqrt,
            Op::MulAdd,
            Op::MulSub,
            Op::SubMul,
            Op::Lt,
            Op::Le,
            Op::Gt,
            Op::Ge,
            Op::Eq,
            Op::Ne,
            Op::Not,
            Op::And,
            Op::Or,
            Op::Select,
        ];
        for op in ALL {
            assert!(
                inline.contains(&op) != CALLED.contains(&op),
                "{op:?} must be either inline or called"
            );
        }
    }
}
