//! External C functions of the MSL's ModelicaExternalC library that minimo computes natively
//! (besides the table functions of `external_object`): string utilities
//! (`Modelica.Utilities.Strings`) and the xorshift random number generators
//! (`Modelica.Math.Random.Generators`), bit for bit as ModelicaStrings.c and ModelicaRandom.c,
//! so that noise examples draw the same numbers as their references; the impure generator of
//! `Modelica.Math.Random.Utilities` (`initializeImpureRandom`, `impureRandom`), whose hidden
//! state is kept per thread (a simulation runs on one thread); and the real FFT of
//! `Modelica.Math.FastFourierTransform` (`fft`); and `Modelica.Utilities.Streams.print` and
//! `error`.

use super::func_eval::Value;
use super::tensor::{Tensor, Val};
use crate::dae::{Function, ScalarType};

const BUILTIN: &[&str] = &[
    "ModelicaStrings_length",
    "ModelicaStrings_substring",
    "ModelicaStrings_compare",
    "ModelicaStrings_hashString",
    "ModelicaRandom_xorshift64star",
    "ModelicaRandom_xorshift128plus",
    "ModelicaRandom_xorshift1024star",
    "ModelicaRandom_setInternalState_xorshift1024star",
    "ModelicaRandom_impureRandom_xorshift1024star",
    "ModelicaFFT_kiss_fftr",
    "ModelicaError",
    "ModelicaInternal_print",
];

/// Whether the C function `c_name` is one of these, or a LAPACK routine of `lapack`.
pub fn is_builtin(c_name: &str) -> bool {
    BUILTIN.contains(&c_name) || super::lapack::ROUTINES.contains(&c_name)
}

/// Types and numbers of dimensions of a function's inputs or outputs.
type Signature = &'static [(ScalarType, usize)];

/// The declaration these functions have in the MSL (`Modelica.Utilities.Strings`,
/// `Modelica.Math.Random.Generators`): the inputs' and outputs' types and numbers of
/// dimensions. The outputs are returned in this order, so a function declared otherwise is
/// refused rather than given values in the wrong places.
fn signature(c_name: &str) -> (Signature, Signature) {
    use ScalarType::{Boolean as B, Enumeration as E, Integer as I, Real as R, String as S};
    match c_name {
        "ModelicaStrings_length" | "ModelicaStrings_hashString" => (&[(S, 0)], &[(I, 0)]),
        "ModelicaStrings_substring" => (&[(S, 0), (I, 0), (I, 0)], &[(S, 0)]),
        "ModelicaStrings_compare" => (&[(S, 0), (S, 0), (B, 0)], &[(E, 0)]),
        "ModelicaRandom_setInternalState_xorshift1024star" => (&[(I, 1), (I, 0)], &[]),
        "ModelicaRandom_impureRandom_xorshift1024star" => (&[(I, 0)], &[(R, 0)]),
        "ModelicaFFT_kiss_fftr" => (&[(R, 1)], &[(I, 0), (R, 1), (R, 1)]),
        "ModelicaError" => (&[(S, 0)], &[]),
        "ModelicaInternal_print" => (&[(S, 0), (S, 0)], &[]),
        _ => (&[(I, 1)], &[(R, 0), (I, 1)]),
    }
}

/// Checks that `f` is declared as the MSL declares the C function it calls.
pub fn check_declaration(f: &Function) -> Result<(), String> {
    let Some(n) = &f.native else {
        return Ok(());
    };
    if super::lapack::ROUTINES.contains(&n.c_name.as_str()) {
        if super::lapack::declared_as_in_the_msl(&n.c_name, f) {
            return Ok(());
        }
        return Err(format!(
            "`{}` calls the LAPACK routine `{}`, which minimo computes itself only when declared as its wrapper in `Modelica.Math.Matrices.LAPACK` is (inputs and outputs in that order)",
            f.name, n.c_name
        ));
    }
    let (ins, outs) = signature(&n.c_name);
    let same = |vars: &[crate::dae::FunctionVar], want: &[(ScalarType, usize)]| {
        vars.len() == want.len()
            && vars
                .iter()
                .zip(want)
                .all(|(v, &(ty, nd))| v.ty == ty && v.dims.len() == nd)
    };
    if same(&f.inputs, ins) && same(&f.outputs, outs) {
        return Ok(());
    }
    let show = |want: &[(ScalarType, usize)]| {
        want.iter()
            .map(|(t, nd)| format!("{t:?}{}", if *nd == 1 { "[:]" } else { "" }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "`{}` calls the C function `{}`, which minimo computes itself only when declared as in the Modelica Standard Library: inputs ({}), outputs ({})",
        f.name,
        n.c_name,
        show(ins),
        show(outs)
    ))
}

/// Runs the C function `c_name` (called through the Modelica function `name`) on its inputs;
/// the outputs in the Modelica function's order.
pub fn call(c_name: &str, name: &str, inputs: &[&Value]) -> Result<Vec<Value>, String> {
    let text = |k: usize| -> Result<&str, String> {
        match inputs.get(k).and_then(|v| v.data.first()) {
            Some(Val::Str(s)) => Ok(s.as_str()),
            _ => Err(format!("`{name}`: argument {} must be a String", k + 1)),
        }
    };
    let int = |k: usize| -> Result<i64, String> {
        inputs
            .get(k)
            .and_then(|v| v.data.first())
            .and_then(|v| v.as_int())
            .ok_or_else(|| format!("`{name}`: argument {} must be an Integer", k + 1))
    };
    let one = |v: Val| Ok(vec![Tensor::scalar(v)]);
    if super::lapack::ROUTINES.contains(&c_name) {
        return super::lapack::call(c_name, name, inputs);
    }
    match c_name {
        "ModelicaStrings_length" => one(Val::Int(text(0)?.len() as i64)),
        "ModelicaStrings_substring" => {
            let s = text(0)?;
            let start = int(1)?;
            let mut end = int(2)?;
            if start < 1 {
                return Err(format!(
                    "`{name}`: startIndex = {start} (has to be > 0), string = \"{s}\""
                ));
            }
            if end == -999 {
                end = start;
            }
            if end < start || end as usize > s.len() {
                return Err(format!(
                    "`{name}`: startIndex = {start}, endIndex = {end} (startIndex <= endIndex <= {} required), string = \"{s}\"",
                    s.len()
                ));
            }
            let bytes = &s.as_bytes()[start as usize - 1..end as usize];
            one(Val::Str(String::from_utf8_lossy(bytes).into_owned()))
        }
        "ModelicaStrings_compare" => {
            let (a, b) = (text(0)?, text(1)?);
            let case_sensitive = match inputs.get(2).and_then(|v| v.data.first()) {
                Some(v) => v.as_int().is_none_or(|c| c != 0),
                None => true,
            };
            let ord = if case_sensitive {
                a.as_bytes().cmp(b.as_bytes())
            } else {
                a.to_ascii_lowercase().cmp(&b.to_ascii_lowercase())
            };
            // Modelica.Utilities.Types.Compare: Less, Equal, Greater.
            one(Val::Int(match ord {
                std::cmp::Ordering::Less => 1,
                std::cmp::Ordering::Equal => 2,
                std::cmp::Ordering::Greater => 3,
            }))
        }
        "ModelicaStrings_hashString" => one(Val::Int(i64::from(hash_ap(text(0)?.as_bytes())))),
        "ModelicaRandom_xorshift64star"
        | "ModelicaRandom_xorshift128plus"
        | "ModelicaRandom_xorshift1024star" => {
            let state: Vec<i32> = inputs
                .first()
                .and_then(|v| {
                    v.data
                        .iter()
                        .map(|x| x.as_int())
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| format!("`{name}`: the state must be Integers"))?
                .into_iter()
                .map(|x| x as i32)
                .collect();
            let need = match c_name {
                "ModelicaRandom_xorshift64star" => 2,
                "ModelicaRandom_xorshift128plus" => 4,
                _ => 33,
            };
            if state.len() < need {
                return Err(format!(
                    "`{name}`: the state has {} elements, {need} needed",
                    state.len()
                ));
            }
            let (y, out) = match c_name {
                "ModelicaRandom_xorshift64star" => xorshift64star(&state),
                "ModelicaRandom_xorshift128plus" => xorshift128plus(&state),
                _ => xorshift1024star(&state),
            };
            let n = state.len();
            let mut out_state: Vec<Val> = out.into_iter().map(|x| Val::Int(i64::from(x))).collect();
            // Elements past the generator's own state are passed through unchanged.
            out_state.extend(
                state[out_state.len()..]
                    .iter()
                    .map(|&x| Val::Int(i64::from(x))),
            );
            Ok(vec![
                Tensor::scalar(Val::Real(y)),
                Tensor {
                    dims: vec![n],
                    data: out_state,
                },
            ])
        }
        "ModelicaRandom_setInternalState_xorshift1024star" => {
            let state = ints(inputs.first().copied())
                .filter(|s| s.len() == 33)
                .ok_or_else(|| format!("`{name}`: the state must be 33 Integers"))?;
            set_impure_state(&state, int(1)?);
            Ok(Vec::new())
        }
        "ModelicaRandom_impureRandom_xorshift1024star" => one(Val::Real(impure_random(int(0)?)?)),
        "ModelicaFFT_kiss_fftr" => {
            let u = inputs
                .first()
                .and_then(|v| v.to_f64s())
                .ok_or_else(|| format!("`{name}`: the samples must be Reals"))?;
            let (info, amplitudes, phases) = super::fft::kiss_fftr(&u);
            let reals = |v: Vec<f64>| Tensor::vector(v.into_iter().map(Val::Real).collect());
            Ok(vec![
                Tensor::scalar(Val::Int(info)),
                reals(amplitudes),
                reals(phases),
            ])
        }
        // `Modelica.Utilities.Streams.error`: the call fails with the message (as an assert).
        "ModelicaError" => Err(text(0)?.to_string()),
        "ModelicaInternal_print" => print(text(0)?, text(1)?).map(|()| Vec::new()),
        _ => Err(format!("`{name}`: C function `{c_name}` is not built in")),
    }
}

/// `Modelica.Utilities.Streams.print`: a line to the terminal (standard error, since standard
/// output may carry the results) or appended to a file.
fn print(line: &str, file: &str) -> Result<(), String> {
    use std::io::Write;
    IMPURE_CALLS.with(|c| c.set(c.get() + 1));
    if FOLDING.with(std::cell::Cell::get) {
        return Ok(());
    }
    if file.is_empty() {
        eprintln!("{line}");
        return Ok(());
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .and_then(|mut f| writeln!(f, "{line}"))
        .map_err(|e| format!("cannot print to `{file}`: {e}"))
}

/// The elements of an Integer array, as C `int`s.
fn ints(v: Option<&Value>) -> Option<Vec<i32>> {
    v?.data
        .iter()
        .map(|x| x.as_int().map(|i| i as i32))
        .collect()
}

/// The hidden state of the impure xorshift1024* generator (ModelicaRandom.c's
/// `ModelicaRandom_s`, `ModelicaRandom_p` and `ModelicaRandom_id`).
#[derive(Clone)]
struct Impure {
    state: Vec<i32>,
    id: i64,
    /// The state as `initializeImpureRandom` set it, for [`restart_impure`].
    initial: Vec<i32>,
}

thread_local! {
    /// The impure generator's state on this thread: set by `initializeImpureRandom` when the
    /// run initializes, advanced by each `impureRandom` call in call order. One simulation
    /// runs on one thread, so runs on other threads do not draw from it.
    static IMPURE: std::cell::RefCell<Option<Impure>> = const { std::cell::RefCell::new(None) };
    /// How many impure calls this thread has made: a caller that sees it change during a call
    /// knows the call was impure and must not reuse its result.
    static IMPURE_CALLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Whether calls are being evaluated ahead of the run (`if_pure`): a print then only
    /// marks the call impure, so it happens during the run, not before.
    static FOLDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The number of impure built-in calls made on this thread so far.
pub fn impure_calls() -> u64 {
    IMPURE_CALLS.with(std::cell::Cell::get)
}

/// The result of `f`, or `None` when `f` used the impure generator: then its state is put
/// back as it was, so that evaluating ahead of the run (folding a call whose arguments are
/// known) draws no number.
pub fn if_pure<T>(f: impl FnOnce() -> T) -> Option<T> {
    let before = impure_calls();
    let saved = IMPURE.with(|s| s.borrow().clone());
    let folding = FOLDING.with(|x| x.replace(true));
    let y = f();
    FOLDING.with(|x| x.set(folding));
    if impure_calls() == before {
        return Some(y);
    }
    IMPURE.with(|s| *s.borrow_mut() = saved);
    None
}

/// Puts the impure generator back to the state its last initialization set: a run whose
/// `initializeImpureRandom` was evaluated before it (a parameter folded while flattening)
/// draws the same numbers each time it is simulated.
pub fn restart_impure() {
    IMPURE.with(|s| {
        if let Some(g) = s.borrow_mut().as_mut() {
            g.state = g.initial.clone();
        }
    });
}

fn set_impure_state(state: &[i32], id: i64) {
    IMPURE_CALLS.with(|c| c.set(c.get() + 1));
    IMPURE.with(|s| {
        *s.borrow_mut() = Some(Impure {
            state: state.to_vec(),
            id,
            initial: state.to_vec(),
        });
    });
}

/// The next number of the impure generator, advancing its state (as
/// `ModelicaRandom_impureRandom_xorshift1024star`).
fn impure_random(id: i64) -> Result<f64, String> {
    IMPURE_CALLS.with(|c| c.set(c.get() + 1));
    IMPURE.with(|s| {
        let mut s = s.borrow_mut();
        match s.as_mut() {
            Some(g) if g.id == id => {
                let (y, next) = xorshift1024star(&g.state);
                g.state = next;
                Ok(y)
            }
            _ => Err(
                "Function impureRandom not initialized with function initializeImpureRandom"
                    .to_string(),
            ),
        }
    })
}

/// The AP hash of ModelicaStrings_hashString (uthash's HASH_AP), as a C `int`.
fn hash_ap(key: &[u8]) -> i32 {
    let mut hash: u32 = 0xAAAA_AAAA;
    for (i, &k) in key.iter().enumerate() {
        let k = u32::from(k);
        hash ^= if i & 1 == 0 {
            (hash << 7) ^ k.wrapping_mul(hash >> 3)
        } else {
            !((hash << 11).wrapping_add(k ^ (hash >> 5)))
        };
    }
    hash as i32
}

/// Two C `int`s as the `uint64_t` their union holds (little-endian: the first is the low half).
fn join(lo: i32, hi: i32) -> u64 {
    u64::from(lo as u32) | (u64::from(hi as u32) << 32)
}

fn split(x: u64) -> [i32; 2] {
    [x as u32 as i32, (x >> 32) as u32 as i32]
}

/// A 64-bit unsigned integer to a double in (0, 1): ModelicaRandom_RAND.
fn rand(x: u64) -> f64 {
    (x as i64) as f64 * 5.421_010_862_427_522e-20 + 0.5
}

fn xorshift64star(s: &[i32]) -> (f64, Vec<i32>) {
    let mut x = join(s[0], s[1]);
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x = x.wrapping_mul(2_685_821_657_736_338_717);
    (rand(x), split(x).to_vec())
}

fn xorshift128plus(s: &[i32]) -> (f64, Vec<i32>) {
    let mut s1 = join(s[0], s[1]);
    let s0 = join(s[2], s[3]);
    let first = s0;
    s1 ^= s1 << 23;
    let second = (s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26)).wrapping_add(s0);
    let mut out = split(first).to_vec();
    out.extend(split(second));
    (rand(second), out)
}

fn xorshift1024star(s: &[i32]) -> (f64, Vec<i32>) {
    let mut st: Vec<u64> = (0..16).map(|i| join(s[2 * i], s[2 * i + 1])).collect();
    let mut p = (s[32] & 15) as usize;
    let mut s0 = st[p];
    p = (p + 1) & 15;
    let mut s1 = st[p];
    s1 ^= s1 << 31;
    s1 ^= s1 >> 11;
    s0 ^= s0 >> 30;
    st[p] = s0 ^ s1;
    let y = rand(st[p].wrapping_mul(1_181_783_497_276_652_981));
    let mut out: Vec<i32> = st.iter().flat_map(|&x| split(x)).collect();
    out.push(p as i32);
    (y, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift64star_matches_the_reference_algorithm() {
        // x = 1: x ^= x >> 12 (1), x ^= x << 25, x ^= x >> 27, times the constant.
        let mut x: u64 = 1;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let x = x.wrapping_mul(2_685_821_657_736_338_717);
        let (y, out) = xorshift64star(&[1, 0]);
        assert_eq!(join(out[0], out[1]), x);
        assert!(y > 0.0 && y < 1.0);
    }

    #[test]
    fn hash_of_the_empty_string_is_the_seed() {
        assert_eq!(hash_ap(b""), 0xAAAA_AAAAu32 as i32);
    }
}
