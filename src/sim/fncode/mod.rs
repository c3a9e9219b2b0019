//! Function bodies compiled for calls made during the run.
//!
//! The interpreter (`flatten::func_eval`) walks the syntax tree: every name is looked up by
//! string, every number is a one-element tensor. Media functions run it in tight loops: MSL's
//! R134a inverts its Helmholtz function with 50 damped Newton steps per property call, which
//! made R134a1 take 173 s. A call site whose function, and every function it calls, fits the
//! subset below is compiled once ([`compile`]) to code on one frame of numbers: each variable
//! a fixed run of slots, each call resolved to its compiled callee, each operator typed.
//!
//! The subset: Real, Integer and Boolean variables of sizes known when the call site is
//! compiled (literal sizes, `size` of an input, `:` taken from the argument or a folded
//! binding); assignments to a variable, an element or a whole array; multiple assignments
//! from a call; `if`, `for` over Integer ranges, `while`, `return`, `break`, `assert`;
//! operators, `if`-expressions, the elementary built-ins, `min`/`max` of two scalars,
//! `noEvent`/`smooth`, `size`; calls of other such functions with arrays passed whole, as
//! slices (`c[i, 1:4]`) or as literal vectors. Anything else (Strings, external functions,
//! impure calls, array expressions, records the flattener did not split) keeps the interpreter.
//!
//! The code computes what the interpreter computes: every operator and built-in goes through
//! the interpreter's own element functions (`val_binary`, `val_unary`, `val_builtin`) on
//! values of the same type, in the same order. Where the interpreter stops with an error (an
//! index out of range, an Integer overflow, a failed `assert`, a loop that does not end), the
//! code gives up and the call is made again by the interpreter, which reports it as before.

mod code;
mod exec;
mod lower;

pub use code::Code;
pub use lower::Compiler;
