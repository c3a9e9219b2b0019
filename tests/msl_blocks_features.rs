//! Language features the Modelica.Blocks examples need, on small models of their own: if-
//! expressions whose branches have different sizes (MLS 10.6.13), function results whose size
//! depends on an input's value (MLS 12.4.1), `getInstanceName()`, the ModelicaExternalC
//! functions minimo computes itself (xorshift generators, string hash), Boolean `min`/`max`,
//! parameters bound to `fixed = false` parameters, and several `when` statements of one
//! algorithm assigning the same variable (MLS 11.1). Expected values are worked out by hand.

mod flatten_common;
use flatten_common::{assert_err, flat};
use minimo::sim::{SimOptions, SimResult, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

fn run(text: &str, stop: f64) -> Result<SimResult, String> {
    run_model(text, None, stop)
}

fn run_model(text: &str, model: Option<&str>, stop: f64) -> Result<SimResult, String> {
    let flat = minimo::flatten::flatten_source("m.mo", text, model)?;
    let analysis = analyze(flat, &AnalyzeOptions::default()).map_err(|e| format!("{e:?}"))?;
    let opts = SimOptions {
        stop_time: Some(stop),
        interval: Some(0.1),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).map_err(|e| format!("{e:?}"))
}

fn ok(text: &str, stop: f64) -> SimResult {
    run(text, stop).unwrap_or_else(|e| panic!("{e}"))
}

fn at(r: &SimResult, name: &str, t: f64) -> f64 {
    r.value_at(name, t)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-9, "{what}: {a} != {b}");
}

#[test]
fn if_expression_branches_of_different_sizes_take_the_selected_size() {
    // With n = 3 the table has 3 rows: s = (2 + 4 + 6) + 3; with n = 0 one row [0, 5]: 5 + 1.
    let text = "
model Table
  parameter Integer n = 3;
  parameter Real t[:, 2] = if n > 0 then [1, 2; 3, 4; 5, 6] else [0, 5];
  Real s = sum(t[:, 2]) + size(t, 1);
end Table;
model Both
  Table a;
  Table b(n = 0);
end Both;
";
    let r = run_model(text, Some("Both"), 0.1).unwrap_or_else(|e| panic!("{e}"));
    close(at(&r, "a.s", 0.0), 15.0, "a.s");
    close(at(&r, "b.s", 0.0), 6.0, "b.s");
}

#[test]
fn if_expression_of_different_sizes_needs_a_parameter_condition() {
    assert_err(
        "model M
  Real x[:] = if time > 0.5 then {1, 2} else {1, 2, 3};
end M;",
        None,
        &["different sizes", "parameter or constant"],
    );
}

#[test]
fn function_result_size_from_a_parameter_input() {
    // `ramp(m)` has m elements: c = {1, 2, 3}, its sum 6. The initial equation gives
    // parameters with `fixed = false`, so `m` is an ordinary (non-final) parameter here.
    let text = "
function ramp
  input Integer n;
  output Real y[n];
algorithm
  for i in 1:n loop
    y[i] := i;
  end for;
end ramp;
model M
  parameter Integer m = 3;
  parameter Real c[m](each fixed = false);
  Real s = sum(c);
initial equation
  c = ramp(m);
end M;
";
    let r = ok(text, 0.1);
    close(at(&r, "s", 0.0), 6.0, "s");
}

#[test]
fn get_instance_name_is_the_model_name_and_the_instance_path() {
    let f = flat(
        "
package P
  model Leaf
    parameter String name = getInstanceName();
  end Leaf;
  model Mid
    Leaf leaf;
  end Mid;
  model Top
    Mid mid;
  end Top;
end P;
",
        Some("P.Top"),
    );
    assert!(f.contains("\"Top.mid.leaf\""), "{f}");
}

#[test]
fn xorshift64star_is_computed_natively() {
    // State {1, 0} is the 64-bit 1: after x ^= x >> 12, x ^= x << 25, x ^= x >> 27 it is
    // 2^25 + 1, times 2685821657736338717 modulo 2^64 is 5180492295206395165 = low
    // -1989354211, high 1206177355 as C ints; y = x as int64 * 2^-64 + 0.5.
    let text = "
function xs
  input Integer stateIn[2];
  output Real y;
  output Integer stateOut[2];
external \"C\" ModelicaRandom_xorshift64star(stateIn, stateOut, y);
end xs;
model M
  Real y;
  Integer s[2];
equation
  (y, s) = xs({1, 0});
end M;
";
    let r = ok(text, 0.1);
    close(at(&r, "y", 0.0), 0.780_835_050_050_359_6, "y");
    close(at(&r, "s[1]", 0.0), -1_989_354_211.0, "s[1]");
    close(at(&r, "s[2]", 0.0), 1_206_177_355.0, "s[2]");
}

#[test]
fn a_native_function_declared_differently_is_refused() {
    // The outputs in the other order would receive each other's values.
    let text = "
function xs
  input Integer stateIn[2];
  output Integer stateOut[2];
  output Real y;
external \"C\" ModelicaRandom_xorshift64star(stateIn, stateOut, y);
end xs;
model M
  Real y;
  Integer s[2];
equation
  (s, y) = xs({1, 0});
end M;
";
    let e = run(text, 0.1).expect_err("must be refused");
    assert!(
        e.contains("ModelicaRandom_xorshift64star") && e.contains("declared as in"),
        "{e}"
    );
}

#[test]
fn string_hash_is_computed_natively() {
    // The AP hash of "" is its seed 0xAAAAAAAA as a C int; of "a" (97, i = 0):
    // h ^= (h << 7) ^ (97 * (h >> 3)) modulo 2^32 (worked out below).
    let h0: u32 = 0xAAAA_AAAA;
    let ha = h0 ^ ((h0 << 7) ^ 97u32.wrapping_mul(h0 >> 3));
    let text = "
function hash
  input String s;
  output Integer h;
external \"C\" h = ModelicaStrings_hashString(s);
end hash;
model M
  Integer e = hash(\"\");
  Integer a = hash(\"a\");
end M;
";
    let r = ok(text, 0.1);
    close(
        at(&r, "e", 0.0),
        f64::from(h0 as i32),
        "hash of the empty string",
    );
    close(at(&r, "a", 0.0), f64::from(ha as i32), "hash of \"a\"");
}

#[test]
fn an_external_function_that_cannot_run_is_named_at_an_event() {
    // The call fails at every event; its failure is the error, not chattering.
    let text = "
function draw
  input Integer id;
  output Real y;
external \"C\" y = NoSuchRandom(id);
end draw;
model M
  discrete Real y(start = 0, fixed = true);
equation
  when sample(0.1, 0.1) then
    y = draw(1);
  end when;
end M;
";
    let e = run(text, 0.3).expect_err("must fail");
    assert!(e.contains("NoSuchRandom"), "{e}");
    assert!(!e.contains("chattering"), "{e}");
}

#[test]
fn min_and_max_of_booleans() {
    // false < true: min is `and`, max is `or`; used in dimensions they must be evaluated.
    let text = "
model M
  parameter Boolean t = true;
  parameter Boolean f = false;
  Real lo[if min(t, f) then 2 else 1] = ones(size(lo, 1));
  Real hi[if max(t, f) then 2 else 1] = ones(size(hi, 1));
end M;
";
    let r = ok(text, 0.1);
    assert!(r.column("lo[2]").is_none(), "min(true, false) is false");
    close(at(&r, "hi[2]", 0.0), 1.0, "max(true, false) is true");
}

#[test]
fn parameter_bound_to_a_fixed_false_parameter_follows_initialization() {
    // seed is determined by the initial equation (7); twice = 14, not 2 * its start 0.
    let text = "
model M
  parameter Integer seed(start = 0, fixed = false);
  parameter Integer twice = 2 * seed;
  Real y = twice;
initial equation
  seed = 7;
end M;
";
    let r = ok(text, 0.1);
    close(at(&r, "y", 0.0), 14.0, "y");
}

#[test]
fn when_statements_of_one_algorithm_assigning_one_variable() {
    // `on` is set at 0.25 (first when) and reset at 0.55 (second); the section determines it
    // once. At 0.85 both fire together: the later statement wins, so `on` is false.
    let text = "
model M
  Boolean set = time > 0.25 and time < 0.5 or time > 0.85;
  Boolean reset = time > 0.55;
  Boolean both = time > 0.85;
  Boolean on(start = false, fixed = true);
algorithm
  when set then
    on := true;
  end when;
  when {reset, both} then
    on := false;
  end when;
end M;
";
    let r = ok(text, 1.0);
    close(at(&r, "on", 0.2), 0.0, "before the set");
    close(at(&r, "on", 0.4), 1.0, "after the set");
    close(at(&r, "on", 0.7), 0.0, "after the reset");
    close(at(&r, "on", 0.95), 0.0, "both at once: the later statement");
}

#[test]
fn record_bound_to_another_keeps_its_final_fields() {
    // `tauRef` is final and computed from the other fields; binding the whole record copies
    // `PRef` and `wRef` (giving tauRef = 20 / 10 = 2), and does not modify `tauRef`.
    let text = "
record Fric
  parameter Real PRef = 0;
  parameter Real wRef = 1;
  final parameter Real tauRef = if PRef <= 0 then 0 else PRef / wRef;
end Fric;
model M
  parameter Fric data(PRef = 20, wRef = 10);
  parameter Fric used = data;
  Real t = used.tauRef;
end M;
";
    let r = ok(text, 0.1);
    close(at(&r, "t", 0.0), 2.0, "used.tauRef");
}
