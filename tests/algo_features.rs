//! Algorithms, equations and arrays (compliance area "algo-features"): enumeration and Boolean
//! dimensions and ranges, implicit iteration ranges, algorithm sections with conditions only
//! known during simulation, `break`, vector `when` conditions, and the checks that go with
//! them. Each model is run through `minimo simulate`; values are read from the CSV result.

use std::process::Command;

/// Runs `minimo simulate` on `text`: exit code, standard error and the CSV result.
fn simulate(case: &str, text: &str) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("minimo-algo-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("M.mo");
    let csv = dir.join("out.csv");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .arg(&file)
        .arg("-o")
        .arg(&csv)
        .output()
        .unwrap();
    let result = std::fs::read_to_string(&csv).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
        result,
    )
}

/// The fields of a CSV line (names like `"m[1,2]"` are quoted).
fn split_csv(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The value of `name` in the last row of a CSV result.
fn last(csv: &str, name: &str) -> f64 {
    let mut lines = csv.lines();
    let header = split_csv(lines.next().unwrap_or(""));
    let k = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    let row = lines.last().expect("no rows");
    row.split(',').nth(k).unwrap().parse().unwrap()
}

fn ok(case: &str, text: &str) -> String {
    let (code, err, csv) = simulate(case, text);
    assert_eq!(code, 0, "{case} should simulate: {err}");
    csv
}

fn refused(case: &str, text: &str, parts: &[&str]) {
    let (code, err, _) = simulate(case, text);
    assert_eq!(code, 1, "{case} should be refused: {err}");
    for p in parts {
        assert!(err.contains(p), "{case}: `{p}` missing in: {err}");
    }
}

#[test]
fn enumeration_and_boolean_dimensions_are_indexed_by_their_values() {
    let csv = ok(
        "dims",
        "model M\n  type Color = enumeration(red, green, blue);\n  Real w[Color] = {1, 2, 3};\n  Real flag[Boolean] = {10, 20};\n  Real g = w[Color.green] + flag[true];\n  Boolean on = time > 0.5;\n  Real pick = flag[on];\n  annotation(experiment(StopTime = 1));\nend M;\n",
    );
    assert_eq!(last(&csv, "g"), 22.0);
    assert_eq!(last(&csv, "pick"), 20.0);
}

#[test]
fn types_are_for_ranges_in_equations_and_algorithms() {
    let csv = ok(
        "ranges",
        "model M\n  type Dir = enumeration(north, east, south);\n  Integer code[Dir];\n  Real sel[Boolean];\n  Real total;\nequation\n  for d in Dir loop\n    code[d] = 10 * Integer(d);\n  end for;\nalgorithm\n  for b in false:true loop\n    sel[b] := if b then 5 else 7;\n  end for;\n  total := 0;\n  for b in Boolean loop\n    total := total + sel[b];\n  end for;\nend M;\n",
    );
    assert_eq!(last(&csv, "code[3]"), 30.0);
    assert_eq!(last(&csv, "total"), 12.0);
}

#[test]
fn implicit_ranges_come_from_the_subscripted_dimensions() {
    let csv = ok(
        "implicit",
        "model M\n  type K = enumeration(a, b);\n  Real m[2, K];\n  Real v[4];\n  Real s = sum(v[j] for j);\n  Real probe = m[2, K.b];\nequation\n  for i, k loop\n    m[i, k] = i * 10 + Integer(k);\n  end for;\nalgorithm\n  for j loop\n    v[j] := j * j;\n  end for;\nend M;\n",
    );
    assert_eq!(last(&csv, "probe"), 22.0);
    assert_eq!(last(&csv, "s"), 30.0);
}

#[test]
fn implicit_range_with_dimensions_of_different_sizes_is_refused() {
    refused(
        "implicit-mismatch",
        "model M\n  Real a[2];\n  Real b[3];\nequation\n  for i loop\n    a[i] = b[i];\n  end for;\nend M;\n",
        &["M.mo:6:12", "different ranges", "size 2", "size 3"],
    );
}

#[test]
fn subscripts_must_match_the_dimension_type() {
    refused(
        "enum-by-integer",
        "model M\n  type E = enumeration(x, y);\n  Real a[E] = {1, 2};\n  Real z = a[2];\nend M;\n",
        &["M.mo:4:14", "literals of an enumeration"],
    );
    refused(
        "bool-by-integer",
        "model M\n  Real a[Boolean];\nequation\n  a[1] = 0;\n  a[2] = 1;\nend M;\n",
        &["M.mo:4:5", "indexed by `false` and `true`"],
    );
}

#[test]
fn integer_parameter_with_enumeration_value_is_refused() {
    refused(
        "enum-to-integer",
        "model M\n  type E = enumeration(x, y);\n  parameter Integer n = E.y;\nend M;\n",
        &["M.mo:3:25", "MLS 4.9.5"],
    );
}

#[test]
fn variable_not_assigned_in_every_branch_keeps_its_start_value() {
    let csv = ok(
        "start",
        "model M\n  Real x(start = 7);\n  Integer n(start = 3);\nalgorithm\n  if time > 0.5 then\n    x := 1;\n    n := 10;\n  end if;\n  annotation(experiment(StopTime = 1));\nend M;\n",
    );
    assert_eq!(last(&csv, "x"), 1.0);
    assert_eq!(last(&csv, "n"), 10.0);
    let csv = ok(
        "start-early",
        "model M\n  Real x(start = 7);\nalgorithm\n  if time > 5 then\n    x := 1;\n  end if;\n  annotation(experiment(StopTime = 1));\nend M;\n",
    );
    assert_eq!(last(&csv, "x"), 7.0);
}

#[test]
fn assert_in_a_branch_checks_only_when_the_branch_is_taken() {
    ok(
        "guarded-ok",
        "model M\n  Real x;\nalgorithm\n  x := time;\n  if x > 2 then\n    assert(false, \"never reached\");\n  end if;\n  annotation(experiment(StopTime = 1));\nend M;\n",
    );
    refused(
        "guarded-fails",
        "model M\n  Real x;\nalgorithm\n  x := time;\n  if x > 0.5 then\n    assert(x < 0.2, \"too late\");\n  end if;\n  annotation(experiment(StopTime = 1));\nend M;\n",
        &["too late"],
    );
}

#[test]
fn break_ends_the_innermost_loop() {
    let csv = ok(
        "break",
        "model M\n  Integer found;\n  Integer steps;\nalgorithm\n  found := 0;\n  steps := 0;\n  for i in 1:5 loop\n    for j in 1:5 loop\n      steps := steps + 1;\n      if i * j >= 6 then\n        found := i * 10 + j;\n        break;\n      end if;\n    end for;\n    if found > 0 then\n      break;\n    end if;\n  end for;\nend M;\n",
    );
    assert_eq!(last(&csv, "found"), 23.0);
    assert_eq!(last(&csv, "steps"), 8.0);
}

#[test]
fn break_and_return_outside_their_place_are_refused() {
    refused(
        "break-outside",
        "model M\n  Real x;\nalgorithm\n  x := 1;\n  break;\nend M;\n",
        &["M.mo:5:3", "MLS 11.2.5"],
    );
}

#[test]
fn non_boolean_conditions_are_refused() {
    refused(
        "if-integer",
        "model M\n  Real x(start = 0);\n  parameter Integer k = 1;\nalgorithm\n  if k then\n    x := 3;\n  end if;\nend M;\n",
        &["M.mo:5:6", "MLS 11.2.6"],
    );
    refused(
        "assert-integer",
        "model M\nalgorithm\n  assert(1, \"not a condition\");\nend M;\n",
        &["M.mo:3:10", "MLS 8.3.7"],
    );
}

#[test]
fn vector_when_fires_for_each_element() {
    let csv = ok(
        "vector-when",
        "model M\n  Integer n(start = 0, fixed = true);\n  discrete Real v(start = 0, fixed = true);\nequation\n  when {time >= 0.2, time >= 0.6} then\n    n = pre(n) + 1;\n  end when;\nalgorithm\n  when {time >= 0.3, time >= 0.7} then\n    v := pre(v) + 10;\n  elsewhen {time >= 0.4, time >= 0.8} then\n    v := pre(v) - 1;\n  end when;\n  annotation(experiment(StopTime = 1));\nend M;\n",
    );
    assert_eq!(last(&csv, "n"), 2.0);
    assert_eq!(last(&csv, "v"), 18.0);
}

#[test]
fn failing_call_in_a_branch_not_taken_is_not_evaluated() {
    ok(
        "lazy-call",
        "model M\n  function bad\n    output Integer y;\n  algorithm\n    assert(false, \"bad was called\");\n    y := 1;\n  end bad;\n  parameter Boolean useBad = false;\n  Integer k = if useBad then bad() else 2;\n  function msg\n    output String s;\n  algorithm\n    assert(false, \"message was built\");\n    s := \"x\";\n  end msg;\nequation\n  assert(true, msg());\nend M;\n",
    );
}

#[test]
fn der_reinit_and_division_are_type_checked() {
    refused(
        "der-integer",
        "model M\n  constant Integer n = 2;\n  Real y = der(n);\nend M;\n",
        &["M.mo:3:12", "MLS 3.7.4"],
    );
    refused(
        "der-discrete",
        "model M\n  discrete Real d = 1;\n  Real y = der(d);\nend M;\n",
        &["M.mo:3:12", "discrete variable `d`"],
    );
    refused(
        "reinit-parameter",
        "model M\n  parameter Real p = 1;\nequation\n  when time > 0.5 then\n    reinit(p, 2);\n  end when;\nend M;\n",
        &["M.mo:5:12", "MLS 8.3.6"],
    );
    refused(
        "divide-by-array",
        "model M\n  Real q[2] = {4, 6} / {2, 3};\nend M;\n",
        &["M.mo:2:15", "MLS 10.6.5"],
    );
}
