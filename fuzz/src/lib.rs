//! What the fuzz targets run: the whole pipeline on one text, and the token-level mutation of
//! valid models for the structure-aware target.
//!
//! Every stage must answer with a value or diagnostics (which are rendered too, since the
//! renderer has panicked before); a panic, an abort, a hang or unbounded memory is a bug.

use minimo::diag::{SourceMap, render_all};
use minimo::flatten::flatten_source_with;
use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

/// Longer inputs teach the fuzzer nothing the short ones do not, and cost time.
const MAX_INPUT: usize = 64 * 1024;
/// Larger flat models are analysed but not simulated (one simulation must stay fast).
const MAX_SIM_VARS: usize = 2000;
/// Larger flat models are flattened but not analysed. Structural analysis is near-linear in
/// the model size, but a vehicle of 24 omni wheels (46000 variables) takes 9 s in the
/// instrumented build and two minutes under the fuzzer, far beyond its time-out, while
/// teaching it nothing that the same vehicle with 4 wheels (7800 variables) does not.
const MAX_ANALYZE_VARS: usize = 10_000;
/// The step budget of the short simulation.
const MAX_STEPS: usize = 5000;

/// The largest array the flattener may build here. minimo's own limit (10^7 elements) lets
/// a legal chain of a million masses be flattened, which takes more than the fuzzer's 2 GB.
const MAX_ARRAY: usize = 100_000;

/// parse -> flatten -> structure -> a short simulation with a bounded number of steps.
pub fn pipeline(text: &str) {
    if text.len() > MAX_INPUT {
        return;
    }
    minimo::flatten::size_limit::set_max_elements(MAX_ARRAY);
    let mut sources = SourceMap::new();
    let flat = match flatten_source_with(&mut sources, "fuzz.mo", text, None, &[]) {
        Ok(f) => f,
        Err(d) => {
            let _ = render_all(&sources, &d);
            return;
        }
    };
    let small = flat.variables.len() <= MAX_SIM_VARS;
    if flat.variables.len() > MAX_ANALYZE_VARS {
        return;
    }
    let analysis = match analyze(flat, &AnalyzeOptions::default()) {
        Ok(a) => a,
        Err(d) => {
            let _ = render_all(&sources, &d);
            return;
        }
    };
    if !small {
        return;
    }
    let opts = SimOptions {
        start_time: Some(0.0),
        stop_time: Some(0.1),
        interval: Some(0.01),
        max_steps: Some(MAX_STEPS),
        ..Default::default()
    };
    if let Err(d) = simulate_analysis(&analysis, &opts) {
        let _ = render_all(&sources, &d);
    }
}

/// Valid models the structure-aware target starts from.
const SEEDS: &[&str] = &[
    include_str!("../../examples/bouncing_ball.mo"),
    include_str!("../../examples/chain.mo"),
    include_str!("../../examples/friction_slider.mo"),
    include_str!("../../examples/gear.mo"),
    include_str!("../../examples/pendulum.mo"),
    include_str!("../../examples/pendulum_horizontal.mo"),
    include_str!("../../examples/rlc.mo"),
    include_str!("../../examples/andrews_squeezer.mo"),
    include_str!("../../examples/multibody/RigidRoller.mo"),
    include_str!("../../tests/structure/DCMotorGearbox.mo"),
    include_str!("../../tests/structure/Gear.mo"),
    include_str!("../../tests/structure/SliderCrank.mo"),
    include_str!("../../tests/structure/UserFunction.mo"),
    include_str!("../../tests/syntax/corpus/algorithms.mo"),
    include_str!("../../tests/syntax/corpus/classes.mo"),
    include_str!("../../tests/syntax/corpus/equations.mo"),
    include_str!("../../tests/syntax/corpus/expressions.mo"),
    include_str!("../../tests/syntax/corpus/imports.mo"),
];

/// Text put in place of a token.
const PIECES: &[&str] = &[
    ";", "=", ":=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "+", "-", "*", "/", "^", "<",
    ">=", "==", "and", "not", "end", "model", "equation", "algorithm", "initial equation",
    "der", "pre", "edge", "sample(0, 0.01)", "noEvent", "when", "then", "elsewhen", "if", "else",
    "for", "in", "loop", "connect", "extends", "redeclare", "replaceable", "inner", "outer",
    "parameter", "constant", "discrete", "input", "output", "flow", "stream", "Real", "Integer",
    "Boolean", "String", "function", "record", "connector", "block", "package", "import",
    "time", "reinit", "assert", "terminal()", "initial()", "size", "fill", "zeros", "ones",
    "sum", "sqrt", "log", "exp", "sin", "abs", "smooth", "homotopy", "fixed = true",
    "start = 0", "each", "final", "protected", "public", "encapsulated", "partial",
    "stateSelect = StateSelect.always", "annotation(experiment(StopTime = 1))",
];

/// Numbers put in place of a number.
const NUMBERS: &[&str] = &[
    "0", "-1", "1e308", "1e-320", "1e400", "0.0", "2147483648", "9223372036854775808", "-0",
    "1e-9", "3", "1000000", "0.5",
];

/// One token of a seed: a word, a number, a string, a run of white space or one other char.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Word,
    Number,
    Other,
}

fn tokens(text: &str) -> Vec<(Kind, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Kind::Word
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            Kind::Number
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            i = (i + 1).min(b.len());
            Kind::Other
        } else {
            i += 1;
            while i < b.len() && !text.is_char_boundary(i) {
                i += 1;
            }
            Kind::Other
        };
        out.push((kind, &text[start..i]));
    }
    out
}

/// The seed chosen by the first byte, edited by each following group of four bytes
/// (operation, position as two bytes, argument).
pub fn mutate(data: &[u8]) -> String {
    let Some((&first, rest)) = data.split_first() else {
        return String::new();
    };
    let seed = SEEDS[first as usize % SEEDS.len()];
    let mut toks: Vec<(Kind, String)> = tokens(seed)
        .into_iter()
        .map(|(k, s)| (k, s.to_string()))
        .collect();
    for op in rest.chunks_exact(4) {
        if toks.is_empty() {
            break;
        }
        let n = toks.len();
        let at = (op[1] as usize | (op[2] as usize) << 8) % n;
        let arg = op[3] as usize;
        match op[0] % 8 {
            0 => {
                toks.remove(at);
            }
            1 => {
                let t = toks[at].clone();
                toks.insert(arg * n / 256, t);
            }
            2 => toks[at] = (Kind::Other, PIECES[arg % PIECES.len()].to_string()),
            3 => {
                // The first number at or after `at`.
                if let Some(j) = (at..n).find(|&j| toks[j].0 == Kind::Number) {
                    toks[j].1 = NUMBERS[arg % NUMBERS.len()].to_string();
                }
            }
            4 => toks.swap(at, arg * n / 256),
            5 => {
                // One name used for another: type errors, self-reference, lookup cycles.
                let words: Vec<usize> = (0..n).filter(|&j| toks[j].0 == Kind::Word).collect();
                if !words.is_empty() {
                    let from = words[arg % words.len()];
                    if let Some(j) = (at..n).find(|&j| toks[j].0 == Kind::Word) {
                        toks[j].1 = toks[from].1.clone();
                    }
                }
            }
            6 => {
                // Repeat a stretch of tokens: nested classes, repeated declarations.
                let len = (arg % 24 + 1).min(n - at);
                let stretch: Vec<_> = toks[at..at + len].to_vec();
                for (k, t) in stretch.into_iter().enumerate() {
                    toks.insert(at + len + k, t);
                }
            }
            _ => {
                toks.insert(at, (Kind::Other, " ".to_string()));
                toks.insert(at, (Kind::Other, PIECES[arg % PIECES.len()].to_string()));
                toks.insert(at, (Kind::Other, " ".to_string()));
            }
        }
        if toks.len() > 20_000 {
            break;
        }
    }
    toks.into_iter().map(|(_, s)| s).collect()
}
