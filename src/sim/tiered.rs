//! When a segment of straight-line code becomes native code (`sim/native.rs`).
//!
//! Compiling a segment costs a few microseconds per instruction, and native code saves about a
//! nanosecond per instruction and run, so compiling pays off after thousands of runs whatever
//! the segment's length. A segment is interpreted first and compiled once it has run
//! [`RUNS_BEFORE_NATIVE`] times: a short simulation never pays for the compiler, a long one pays
//! at most about what it has already spent (measured: the omni vehicle over 4 s, 17 % less CPU;
//! a 20000-mass chain over 1 s, few runs of very long segments, took 35 % more CPU when its
//! segments were compiled after 1000 runs). Native code computes the interpreter's values bit for bit, so when the switch happens
//! changes nothing in the results.
//!
//! `MINIMO_NATIVE=off` keeps every segment interpreted; `MINIMO_NATIVE=always` compiles each
//! segment at its first run (the tests use it to run the native path on every model).

use std::cell::{Cell, OnceCell};
use std::sync::{Arc, OnceLock};

use super::tape::Instr;

/// Runs of a segment before it is compiled.
const RUNS_BEFORE_NATIVE: u32 = 4000;
/// Shorter segments stay interpreted: a native call would save less than it costs.
const MIN_NATIVE_LEN: usize = 8;

#[cfg(not(target_arch = "wasm32"))]
type Native = super::native::Compiled;

/// No native code in WebAssembly (the playground): every segment is interpreted.
#[cfg(target_arch = "wasm32")]
#[derive(Debug)]
struct Native;

#[cfg(target_arch = "wasm32")]
impl Native {
    fn run(&self, _r: &mut [f64]) {}
}

#[derive(Clone, Copy, PartialEq)]
enum Policy {
    Off,
    Tiered,
    Always,
}

fn policy() -> Policy {
    static POLICY: OnceLock<Policy> = OnceLock::new();
    *POLICY.get_or_init(|| match std::env::var("MINIMO_NATIVE").as_deref() {
        Ok("off") | Ok("0") => Policy::Off,
        Ok("always") => Policy::Always,
        _ => Policy::Tiered,
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn compile(code: &[Instr]) -> Option<Native> {
    super::native::compile(code)
}

#[cfg(target_arch = "wasm32")]
fn compile(_code: &[Instr]) -> Option<Native> {
    None
}

/// A segment's code, its run count, and its native code once compiled (`None` inside: the
/// compiler declined, the segment stays interpreted).
#[derive(Debug, Default)]
pub(super) struct Tiered {
    code: Vec<Instr>,
    runs: Cell<u32>,
    native: OnceCell<Option<Arc<Native>>>,
}

/// A clone shares the native code (it is immutable) and continues from the count so far.
impl Clone for Tiered {
    fn clone(&self) -> Tiered {
        Tiered {
            code: self.code.clone(),
            runs: Cell::new(self.runs.get()),
            native: self.native.clone(),
        }
    }
}

impl Tiered {
    pub(super) fn new(code: Vec<Instr>) -> Tiered {
        let code = if code.len() >= MIN_NATIVE_LEN && policy() != Policy::Off {
            code
        } else {
            Vec::new()
        };
        Tiered {
            code,
            ..Tiered::default()
        }
    }

    /// Runs the native code on `r` if there is some and returns true; otherwise counts the run
    /// (compiling when the count is reached) and returns false: the caller interprets.
    pub(super) fn run(&self, r: &mut [f64]) -> bool {
        if let Some(native) = self.native.get() {
            return match native {
                Some(n) => {
                    n.run(r);
                    true
                }
                None => false,
            };
        }
        if self.code.is_empty() {
            return false;
        }
        let runs = self.runs.get() + 1;
        self.runs.set(runs);
        if runs < RUNS_BEFORE_NATIVE && policy() != Policy::Always {
            return false;
        }
        let native = self
            .native
            .get_or_init(|| compile(&self.code).map(Arc::new));
        match native {
            Some(n) => {
                n.run(r);
                true
            }
            None => false,
        }
    }
}
