//! Array and expression features the MSL examples need: named arguments of built-ins,
//! `String(x)` of run-time values in messages, variable subscripts, arrays sized by functions,
//! enumeration and Boolean dimensions, and `derivative` annotations in index reduction.

use minimo::sim::{SimOptions, SimResult, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};
use std::process::Command;

fn run(text: &str, stop: f64) -> SimResult {
    let flat =
        minimo::flatten::flatten_source("Test.mo", text, None).unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(stop),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

fn at(r: &SimResult, name: &str, t: f64) -> f64 {
    r.value_at(name, t)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

/// Runs `minimo simulate` on `text`: exit code and standard error.
fn simulate_cli(case: &str, text: &str, extra: &[&str]) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("minimo-sim-arrays-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("M.mo");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .arg(&file)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn homotopy_with_named_arguments_is_the_actual_expression() {
    let r = run(
        "model M\n  Real x = time;\n  Real y;\n  Real z;\nequation\n  y = homotopy(actual = 2*x, simplified = x);\n  z = homotopy(simplified = x, actual = 3*x);\nend M;\n",
        1.0,
    );
    for t in [0.25, 0.5, 1.0] {
        assert!((at(&r, "y", t) - 2.0 * t).abs() < 1e-9, "t={t}");
        assert!((at(&r, "z", t) - 3.0 * t).abs() < 1e-9, "t={t}");
    }
}

#[test]
fn a_wrong_named_argument_of_a_builtin_is_located() {
    let text = "model M\n  Real y;\nequation\n  y = homotopy(actual = time, simple = 1);\nend M;\n";
    let e = minimo::flatten::flatten_source("M.mo", text, None).unwrap_err();
    assert!(e.contains("has no input named `simple`"), "{e}");
    assert!(e.contains("M.mo:4:31"), "{e}");
    let text = "model M\n  Real y;\nequation\n  y = sin(x = time);\nend M;\n";
    let e = minimo::flatten::flatten_source("M.mo", text, None).unwrap_err();
    assert!(e.contains("`sin` takes no named arguments"), "{e}");
}

#[test]
fn string_of_run_time_values_in_an_assert_message() {
    // x = 1 + time crosses 1.5 at t = 0.5; the message shows x with 3 digits, the Integer n
    // and the Boolean b as they are at that time.
    // (A state, so the run integrates: see the report about models without states.)
    let text = r#"model M
  Real s(start = 0, fixed = true);
  Real x = 1 + time;
  Integer n = 7;
  Boolean b = time > 0.25;
equation
  der(s) = 1;
  assert(x < 1.5, "x = " + String(x, significantDigits = 3) + ", n = " + String(n)
    + ", b = " + String(b) + ", [" + String(n, minimumLength = 3, leftJustified = false) + "]"
    + " f=" + String(2*x, format = "8.3f"));
end M;
"#;
    let (code, err) = simulate_cli("assert", text, &["--stop-time", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("assertion failed at time 0.5"), "{err}");
    assert!(
        err.contains("x = 1.5, n = 7, b = true, [  7] f=   3.000"),
        "{err}"
    );
}

#[test]
fn string_of_constants_follows_significant_digits() {
    let text = r#"model M
  parameter Real p = 2/3;
  Real x(start = 0, fixed = true);
equation
  der(x) = 1;
  assert(x < 0.5, "p = " + String(p) + " c = " + String(1234567.0) + " e = " + String(1e-7, significantDigits = 2));
end M;
"#;
    let (code, err) = simulate_cli("constants", text, &["--stop-time", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("p = 0.666667 c = 1.23457e+06 e = 1e-07"),
        "{err}"
    );
}

#[test]
fn a_string_used_as_a_number_is_refused() {
    let text = "model M\n  Real y;\nequation\n  y = String(time);\nend M;\n";
    let (code, err) = simulate_cli("asnumber", text, &["--stop-time", "1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error:"), "{err}");
}

#[test]
fn a_variable_subscript_reads_the_element_at_run_time() {
    // k steps 1, 2, 3 at t = 0, 1, 2 (when-clauses): y = u[k] follows it, z reads a
    // two-dimensional array with one variable and one constant subscript, w reads an index
    // out of range in the branch that is not taken.
    let text = r#"model M
  parameter Real u[3] = {10, 20, 30};
  parameter Real m[3, 2] = {{1, 2}, {3, 4}, {5, 6}};
  Real s(start = 0, fixed = true);
  discrete Integer k(start = 1, fixed = true);
  Real y;
  Real z;
  Real w;
equation
  der(s) = 1;
  when s > 1 then
    k = 2;
  elsewhen s > 2 then
    k = 3;
  end when;
  y = u[k] + time;
  z = m[k, 2];
  w = if noEvent(k > 2) then -1 else u[k + 1];
end M;
"#;
    let r = run(text, 2.9);
    for (t, y, z, w) in [
        (0.5, 10.0, 2.0, 20.0),
        (1.5, 20.0, 4.0, 30.0),
        (2.5, 30.0, 6.0, -1.0),
    ] {
        assert!((at(&r, "y", t) - (y + t)).abs() < 1e-9, "y at {t}");
        assert!((at(&r, "z", t) - z).abs() < 1e-12, "z at {t}");
        assert!((at(&r, "w", t) - w).abs() < 1e-12, "w at {t}");
    }
}

#[test]
fn a_variable_subscript_out_of_bounds_stops_with_the_index_and_time() {
    let text = r#"model M
  parameter Real u[3] = {10, 20, 30};
  Real s(start = 0, fixed = true);
  discrete Integer k(start = 1, fixed = true);
  Real y;
equation
  der(s) = 1;
  when s > 1 then
    k = 4;
  end when;
  y = u[k];
end M;
"#;
    let (code, err) = simulate_cli("bounds", text, &["--stop-time", "2"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`u[k]` has index 4, but the dimension is 1..3"),
        "{err}"
    );
    assert!(err.contains("time 1") || err.contains("t = 1"), "{err}");
}

#[test]
fn a_scalar_connector_connects_to_an_element_of_a_connector_array() {
    // connect(a.y, s.u[2]) pairs a scalar with one element (MSL: connect(sin.y, product.u[1])).
    let text = r#"package P
  connector RealInput = input Real;
  connector RealOutput = output Real;
  block Ramp
    parameter Real k;
    RealOutput y;
  equation
    y = k * time;
  end Ramp;
  block Sum2
    RealInput u[2];
    RealOutput y;
  equation
    y = u[1] + 10 * u[2];
  end Sum2;
  model M
    Ramp a(k = 1);
    Ramp b(k = 2);
    Sum2 s;
    Real x(start = 0, fixed = true);
  equation
    connect(a.y, s.u[2]);
    connect(b.y, s.u[1]);
    der(x) = s.y;
  end M;
end P;
"#;
    let flat = minimo::flatten::flatten_source("P.mo", text, Some("P.M"))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    for t in [0.5, 1.0] {
        assert!((at(&r, "s.y", t) - 12.0 * t).abs() < 1e-9, "t={t}");
        assert!((at(&r, "x", t) - 6.0 * t * t).abs() < 1e-6, "t={t}");
    }
}

#[test]
fn index_reduction_uses_the_declared_derivative_of_a_function() {
    // x = f({sin(t), cos(t)}, t) and der(x) = v: index reduction differentiates the call. The
    // declared derivative returns 2*u[2] (on purpose not the true derivative cos(t)), so v =
    // 2 cos(t) shows that the annotation, and not a numerical derivative, was used.
    let text = r#"package P
  function f
    input Real u[2];
    input Real dummy;
    output Real s;
  algorithm
    s := u[1];
    annotation(derivative(noDerivative = u) = fd);
  end f;
  function fd
    input Real u[2];
    input Real dummy;
    input Real dummy_der;
    output Real sd;
  algorithm
    sd := 2 * u[2];
  end fd;
  model M
    Real x;
    Real v;
    Real w(start = 0, fixed = true);
  equation
    x = f({sin(time), cos(time)}, time);
    der(x) = v;
    der(w) = 1;
  end M;
end P;
"#;
    let flat = minimo::flatten::flatten_source("P.mo", text, Some("P.M"))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    for t in [0.3, 0.7, 1.0f64] {
        assert!((at(&r, "x", t) - t.sin()).abs() < 1e-9, "x at {t}");
        assert!((at(&r, "v", t) - 2.0 * t.cos()).abs() < 1e-9, "v at {t}");
    }
}

#[test]
fn inline_after_index_reduction_keeps_the_declared_derivatives() {
    // The pattern of `Rotational.Sources.Move`: `pos` returns q[1] and declares the derivatives
    // q[2] and q[3] (not the derivatives of its body), and asks for
    // `InlineAfterIndexReduction = true` (MLS 18.3): index reduction must use the declared
    // derivatives before any inlining. Inlining first gave a = der(der(q[1])) = 0.
    let text = r#"package P
  function pos
    input Real q[3];
    input Real dummy;
    output Real s;
  algorithm
    s := q[1];
    annotation(derivative(noDerivative = q) = pos_der, InlineAfterIndexReduction = true);
  end pos;
  function pos_der
    input Real q[3];
    input Real dummy;
    input Real dummy_der;
    output Real v;
  algorithm
    v := q[2];
    annotation(derivative(noDerivative = q, order = 2) = pos_der2,
      InlineAfterIndexReduction = true);
  end pos_der;
  function pos_der2
    input Real q[3];
    input Real dummy;
    input Real dummy_der;
    input Real dummy_der2;
    output Real a;
  algorithm
    a := q[3];
  end pos_der2;
  model M
    parameter Real m = 2;
    Real u[3];
    Real s;
    Real v;
    Real f;
    Real w[3];
    Real s2;
    Real v2;
    Real f2;
  equation
    u = {0, 0, 1};
    s = pos(u, time);
    v = der(s);
    f = m * der(v);
    w = {sin(time), 3 * time, -5};
    s2 = pos(w, time);
    v2 = der(s2);
    f2 = m * der(v2);
  end M;
end P;
"#;
    let flat = minimo::flatten::flatten_source("P.mo", text, Some("P.M"))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    for t in [0.0, 0.5, 1.0f64] {
        assert!(at(&r, "s", t).abs() < 1e-9, "s at {t}");
        assert!(at(&r, "v", t).abs() < 1e-9, "v at {t}");
        assert!((at(&r, "f", t) - 2.0).abs() < 1e-9, "f at {t}");
        assert!((at(&r, "s2", t) - t.sin()).abs() < 1e-9, "s2 at {t}");
        assert!((at(&r, "v2", t) - 3.0 * t).abs() < 1e-9, "v2 at {t}");
        assert!((at(&r, "f2", t) + 10.0).abs() < 1e-9, "f2 at {t}");
    }
}

#[test]
fn a_call_inlined_after_index_reduction_depends_on_what_its_body_reads() {
    // The pattern of MSL `Blocks.Interfaces.Adaptors` (`state1({f, fder}, time)` returns f):
    // the call reads `y` only, so `x = state1({y, c}, time)` is a constraint between the two
    // states that index reduction differentiates into `der(x) = c` by the declared derivative.
    // Counting `c` as an unknown of the call (all its arguments) matched the equation to `c`,
    // whose Jacobian entry is zero: the loop was singular at t = 0.
    let text = r#"package P
  function state1
    input Real u[2];
    input Real dummy;
    output Real s;
  algorithm
    s := u[1];
    annotation(derivative(noDerivative = u) = state1der1, InlineAfterIndexReduction = true);
  end state1;
  function state1der1
    input Real u[2];
    input Real dummy;
    input Real dummy_der;
    output Real sder1;
  algorithm
    sder1 := u[2];
    annotation(InlineAfterIndexReduction = true);
  end state1der1;
  model M
    Real x(start = 0, fixed = true);
    Real y(start = 0);
    Real c;
  equation
    der(x) = cos(time);
    der(y) = c;
    x = state1({y, c}, time);
  end M;
end P;
"#;
    let flat = minimo::flatten::flatten_source("P.mo", text, Some("P.M"))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = {
        let analysis =
            analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
        let opts = SimOptions {
            stop_time: Some(1.0),
            interval: Some(0.01),
            tolerance: Some(1e-8),
            ..Default::default()
        };
        simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
    };
    for t in [0.0, 0.5, 1.0f64] {
        assert!((at(&r, "x", t) - t.sin()).abs() < 1e-6, "x at {t}");
        assert!((at(&r, "y", t) - t.sin()).abs() < 1e-6, "y at {t}");
        assert!((at(&r, "c", t) - t.cos()).abs() < 1e-6, "c at {t}");
    }
}

#[test]
fn a_one_assignment_function_is_differentiated_through_its_body() {
    // g has no derivative annotation and an array input that changes with time; its body is
    // one assignment, so der(g({t, t^2}, t)) = d/dt (3 t^2) = 6 t exactly.
    let text = r#"package P
  function g
    input Real u[2];
    input Real dummy;
    output Real s;
  algorithm
    s := 3 * u[2];
  end g;
  model M
    Real x;
    Real v;
    Real w(start = 0, fixed = true);
    parameter String label = "a string parameter";
  equation
    x = g({time, time^2}, time);
    der(x) = v;
    der(w) = 1;
  end M;
end P;
"#;
    let flat = minimo::flatten::flatten_source("P.mo", text, Some("P.M"))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    for t in [0.3, 0.7, 1.0f64] {
        assert!((at(&r, "v", t) - 6.0 * t).abs() < 1e-9, "v at {t}");
    }
}

/// `array(...)` is the array constructor written as a call (MLS 10.4.1), with arguments or
/// with an iterator, in parameter bindings, equations and reductions (Media and Fluid use it).
#[test]
fn the_array_function_constructs_arrays() {
    let r = run(
        "model Arr\n  parameter Real a[3] = array(1, 2, 3);\n  parameter Real b[3] = array(i*i for i in 1:3);\n  Real x[2] = array(time, 2*time);\n  Real s = sum(array(a[i] + b[i] for i in 1:3));\n  Real m[2, 2] = array(array(1, 2), array(3, time));\nend Arr;\n",
        1.0,
    );
    assert_eq!(at(&r, "s", 1.0), 6.0 + 14.0);
    assert_eq!(at(&r, "x[2]", 1.0), 2.0);
    assert_eq!(at(&r, "m[2,1]", 1.0), 3.0);
    assert_eq!(at(&r, "m[2,2]", 0.5), 0.5);
}

/// MLS 12.4.6: a built-in of scalar inputs called with arrays is applied element-wise over
/// every array argument, scalars passed as they are: `semiLinear(m, ka, kb)` with vectors
/// `ka`, `kb` (the MSL's `semiLinear(m_flows[i], mediums[i - 1].Xi, mediums[i].Xi)`), and the
/// same call over zero-size vectors is an empty array, so its equation vanishes (MLS 10.1).
#[test]
fn a_builtin_is_vectorized_over_every_array_argument() {
    let r = run(
        "model M\n  parameter Integer n = 0;\n  Real m = time - 0.5;\n  Real ka[2] = {1, 2};\n  Real kb[2] = {3, 4};\n  Real y[2];\n  Real e[n];\n  Real z[n];\n  Real w[2];\nequation\n  y = semiLinear(m, ka, kb);\n  z = semiLinear(m, e, e);\n  w = atan2(1, ka);\nend M;\n",
        1.0,
    );
    for t in [0.25, 0.75] {
        let m = t - 0.5;
        let (k1, k2) = if m >= 0.0 { (1.0, 2.0) } else { (3.0, 4.0) };
        assert!((at(&r, "y[1]", t) - m * k1).abs() < 1e-9, "t={t}");
        assert!((at(&r, "y[2]", t) - m * k2).abs() < 1e-9, "t={t}");
        assert!((at(&r, "w[2]", t) - 1f64.atan2(2.0)).abs() < 1e-9, "t={t}");
    }
}

/// Foreach arguments of different sizes are refused with both sizes named.
#[test]
fn a_vectorized_builtin_with_mismatched_sizes_is_refused() {
    let text = "model M\n  Real a[2] = {1, 2};\n  Real b[3] = {1, 2, 3};\n  Real y[2];\nequation\n  y = semiLinear(time, a, b);\nend M;\n";
    let e = minimo::flatten::flatten_source("M.mo", text, None).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("[2]") && msg.contains("[3]"), "{msg}");
}
