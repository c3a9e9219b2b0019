//! Robustness: thousands of random mutations of the corpus go through the parser in-process;
//! each must give a tree or diagnostics with valid spans, never a panic. A few mutants also go
//! through the `minimo check` binary, which must exit with 1 and print a diagnostic.

use minimo::diag::{SourceMap, render};
use minimo::syntax::parse;
use std::path::PathBuf;
use std::process::Command;

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const PIECES: &[&str] = &[
    ";",
    "=",
    ":=",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ":",
    "\"",
    "'",
    "/*",
    "*/",
    "//",
    "+",
    "-",
    "*",
    "/",
    "^",
    ".*",
    "<",
    "==",
    " end ",
    " end",
    "end ",
    " model ",
    " equation ",
    " algorithm ",
    " if ",
    " then ",
    " else ",
    " for ",
    " loop ",
    " when ",
    " connect(",
    " der(",
    " initial ",
    " annotation(",
    " extends ",
    " redeclare ",
    " each ",
    " final ",
    " parameter ",
    " flow ",
    " in ",
    " and ",
    " not ",
    "1e",
    "1.",
    ".5",
    "\\",
    "\n",
    "x",
    "Real",
    "é",
    "∑",
    "\t",
];

fn corpus() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/syntax/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mo"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("read"))
        .collect()
}

/// Token-ish boundaries: positions where a char class changes.
fn boundaries(chars: &[char]) -> Vec<usize> {
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut b = vec![0];
    for i in 1..chars.len() {
        if class(chars[i]) != class(chars[i - 1]) || class(chars[i]) == 2 {
            b.push(i);
        }
    }
    b.push(chars.len());
    b
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let n = chars.len();
        if n < 2 {
            chars.extend("model".chars());
            continue;
        }
        match rng.below(8) {
            0 => {
                chars.remove(rng.below(n));
            }
            1 => {
                let piece: Vec<char> = PIECES[rng.below(PIECES.len())].chars().collect();
                let at = rng.below(n + 1);
                chars.splice(at..at, piece);
            }
            2 => {
                let a = rng.below(n);
                let len = 1 + rng.below(40.min(n - a));
                let copy: Vec<char> = chars[a..a + len].to_vec();
                let at = rng.below(n + 1);
                chars.splice(at..at, copy);
            }
            3 => {
                let (a, b) = (rng.below(n), rng.below(n));
                chars.swap(a, b);
            }
            4 | 5 => {
                // Delete a token.
                let b = boundaries(&chars);
                let i = rng.below(b.len() - 1);
                chars.drain(b[i]..b[i + 1]);
            }
            6 => {
                // Swap two adjacent tokens.
                let b = boundaries(&chars);
                if b.len() > 3 {
                    let i = rng.below(b.len() - 2);
                    let first: Vec<char> = chars[b[i]..b[i + 1]].to_vec();
                    let second: Vec<char> = chars[b[i + 1]..b[i + 2]].to_vec();
                    let mut both = second;
                    both.extend(first);
                    chars.splice(b[i]..b[i + 2], both);
                }
            }
            _ => {
                // Truncate.
                chars.truncate(rng.below(n));
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn random_mutations_never_panic() {
    let files = corpus();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut failed) = (0usize, 0usize);
    for (fi, text) in files.iter().enumerate() {
        for k in 0..400 {
            let mutant = mutate(&mut rng, text);
            let result = std::panic::catch_unwind(|| parse(&mutant, 0));
            let Ok(result) = result else {
                panic!("parser panicked on mutant {k} of corpus file {fi}:\n{mutant}");
            };
            match result {
                Ok(_) => ok += 1,
                Err(ds) => {
                    failed += 1;
                    assert!(!ds.is_empty());
                    for d in &ds {
                        assert!(
                            d.span.start <= d.span.end && d.span.end as usize <= mutant.len(),
                            "bad span {:?} for:\n{mutant}",
                            d.span
                        );
                        assert!(
                            mutant.is_char_boundary(d.span.start as usize),
                            "span not on a char boundary"
                        );
                        assert!(!d.message.is_empty());
                        assert!(
                            !d.message.contains("internal parser error"),
                            "{}:\n{mutant}",
                            d.message
                        );
                    }
                    // Rendering must not panic either (checked on a sample to keep the test fast).
                    if k % 10 == 0 {
                        let mut sources = SourceMap::new();
                        sources.add("mutant.mo", mutant.as_str());
                        let r = render(&sources, &ds[0]);
                        assert!(r.starts_with("mutant.mo:"), "{r}");
                    }
                }
            }
        }
    }
    assert!(ok + failed >= 4000, "only {} mutants", ok + failed);
    // Most mutants are broken; if almost none fail, the mutations are not doing their job.
    assert!(failed > (ok + failed) / 2, "ok {ok}, failed {failed}");
}

#[test]
fn binary_reports_mutants_with_exit_code_1() {
    let files = corpus();
    let mut rng = Rng(42);
    let dir = std::env::temp_dir().join(format!("minimo_fuzz_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut runs = 0;
    let mut attempts = 0;
    while runs < 5 && attempts < 1000 {
        attempts += 1;
        let text = &files[rng.below(files.len())];
        let mutant = mutate(&mut rng, text);
        if parse(&mutant, 0).is_ok() {
            continue;
        }
        let path = dir.join(format!("m{runs}.mo"));
        std::fs::write(&path, &mutant).expect("write mutant");
        let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
            .arg("check")
            .arg(&path)
            .output()
            .expect("run minimo");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "stderr: {stderr}\nmutant:\n{mutant}"
        );
        assert!(
            stderr.contains(&format!("m{runs}.mo:")) && stderr.contains("error:"),
            "{stderr}"
        );
        runs += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(runs, 5);
}

#[test]
fn pathological_inputs_give_errors_not_crashes() {
    let message = |text: &str| match parse(text, 0) {
        Ok(_) => String::new(),
        Err(ds) => ds[0].message.clone(),
    };
    let sum = |n: usize| format!("model A Real x = {}; end A;", vec!["a"; n].join(" + "));
    // Long but reasonable: parses, prints and re-parses on a test thread's small stack.
    let tree = parse(&sum(2000), 0).expect("2000-term sum parses");
    let printed = minimo::syntax::print(&tree);
    assert!(parse(&printed, 0).is_ok());
    assert_eq!(message(&sum(50_000)), "expression too long");
    let deep_if = format!(
        "model A Real x = {}1{}; end A;",
        "if c then ".repeat(3000),
        " else 2".repeat(3000)
    );
    assert_eq!(message(&deep_if), "the model is nested too deeply");
    let deep_eq = format!(
        "model A equation {}x = 1;{} end A;",
        "if c then ".repeat(3000),
        " end if;".repeat(3000)
    );
    assert!(
        message(&deep_eq).contains("nested too deeply") || message(&deep_eq).contains("gave up"),
        "{}",
        message(&deep_eq)
    );
    let parens = format!(
        "model A Real x = {}1{}; end A;",
        "(".repeat(1000),
        ")".repeat(1000)
    );
    assert_eq!(message(&parens), "expression nested too deeply");
    let classes = format!("{}{}", "package P ".repeat(2000), "end P; ".repeat(2000));
    assert!(!message(&classes).is_empty());
}
