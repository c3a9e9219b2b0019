//! Wrong answers with exit code 0 found in issue 13, each run through the `minimo` binary as a
//! user would: each must now be a located error with exit code 1 (or, for the command line,
//! the quiet behaviour of other Unix tools). Each model was written for this file.

use std::process::{Command, Output, Stdio};

mod flatten_common;

/// Runs `minimo ARGS FILE EXTRA...` on `text` written to a fresh file.
fn minimo(name: &str, text: &str, args: &[&str], extra: &[&str]) -> Output {
    flatten_common::run_on_file("wrong_answers", name, text, args, extra)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `simulate` and expects exit code 1 with every fragment in the message.
fn refused(name: &str, text: &str, extra: &[&str], fragments: &[&str]) {
    let o = minimo(name, text, &["simulate"], extra);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{name}: expected an error, got\n{err}"
    );
    for f in fragments {
        assert!(err.contains(f), "{name}: `{f}` missing in\n{err}");
    }
}

// ---- sample(start, interval) ---------------------------------------------------------------

const TICKS: &str = "model Ticks\n  parameter Real period = 0.1;\n  parameter Real first = 0;\n  Integer n(start = 0, fixed = true);\nequation\n  when sample(first, period) then\n    n = pre(n) + 1;\n  end when;\nend Ticks;\n";

#[test]
fn a_sample_interval_below_the_time_resolution_is_an_error_at_the_call() {
    refused(
        "ticks_tiny.mo",
        TICKS,
        &["--set", "period=1e-300"],
        &["ticks_tiny.mo:6:3", "too small", "sample"],
    );
}

#[test]
fn zero_negative_and_nan_sample_intervals_are_errors() {
    for p in ["0", "-0.5", "NaN"] {
        refused(
            &format!("ticks_{}.mo", p.replace(['-', '.'], "_")),
            TICKS,
            &["--set", &format!("period={p}")],
            &[":6:3", "interval"],
        );
    }
}

#[test]
fn a_nan_sample_start_is_an_error() {
    refused(
        "ticks_nan_start.mo",
        TICKS,
        &["--set", "first=NaN"],
        &["ticks_nan_start.mo:6:3", "start time", "NaN"],
    );
}

#[test]
fn too_many_sample_instants_are_refused_before_the_run() {
    refused(
        "ticks_many.mo",
        TICKS,
        &["--set", "period=1e-8", "--stop-time", "1"],
        &["ticks_many.mo:6:3", "events", "at most"],
    );
}

#[test]
fn a_fine_but_resolvable_sample_still_counts_every_instant() {
    let o = minimo(
        "ticks_ok.mo",
        TICKS,
        &["simulate"],
        &["--set", "period=0.001", "--stop-time", "1", "--vars", "^n$"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let last: f64 = out
        .lines()
        .last()
        .and_then(|l| l.split(',').nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap();
    // Instants 0, 0.001, ..., 1: 1001 of them (the one at t = 0 fires at the first event).
    assert!((last - 1001.0).abs() <= 1.0, "n = {last}\n{out}");
}

// ---- Integer range --------------------------------------------------------------------------

#[test]
fn constant_integer_overflow_names_the_expression() {
    refused(
        "int_const.mo",
        "model IntConst\n  Integer big = 2147483647 + 1;\n  Real y = big;\nend IntConst;\n",
        &[],
        &["int_const.mo:2:17", "Integer overflow", "2147483647 + 1"],
    );
}

#[test]
fn integer_overflow_through_a_parameter_at_run_time_names_the_equation() {
    refused(
        "int_param.mo",
        "model IntParam\n  parameter Integer top = 2147483600;\n  Integer over = top + 100;\n  Real y = over;\nend IntParam;\n",
        &[],
        &["int_param.mo:3:18", "Integer overflow", "`over`", "time 0"],
    );
}

#[test]
fn an_integer_parameter_out_of_range_is_an_error() {
    refused(
        "int_set.mo",
        "model IntSet\n  parameter Integer count = 3;\n  Real y = count * time;\nend IntSet;\n",
        &["--set", "count=5000000000"],
        &["int_set.mo:2", "Integer overflow", "`count`"],
    );
}

#[test]
fn integer_counter_overflow_during_the_run_is_an_error() {
    refused(
        "int_count.mo",
        "model IntCount\n  Integer c(start = 2147483000, fixed = true);\nequation\n  when sample(0, 0.01) then\n    c = pre(c) + 100;\n  end when;\nend IntCount;\n",
        &[],
        &["Integer overflow", "`c`"],
    );
}

#[test]
fn integers_at_the_ends_of_the_range_are_fine() {
    let o = minimo(
        "int_edge.mo",
        "model IntEdge\n  Integer hi = 2147483646 + 1;\n  Integer lo = -2147483647 - 1;\n  Real y = hi + lo;\nend IntEdge;\n",
        &["simulate"],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// ---- a record binding and a field modifier ---------------------------------------------------

const POINT: &str = "  record Point\n    Real x = 0;\n    Real y = 0;\n  end Point;\n";

#[test]
fn a_field_modifier_next_to_a_whole_record_binding_is_refused() {
    refused(
        "rec_both.mo",
        &format!(
            "model RecBoth\n{POINT}  Point p(x = 1) = Point(2, 3);\n  Real s = p.x + p.y;\nend RecBoth;\n"
        ),
        &[],
        &["rec_both.mo:6:11", "`x`", "twice", "whole record"],
    );
}

#[test]
fn a_field_left_to_its_default_by_the_constructor_still_conflicts() {
    // `Point(y = 3)` is the value Point(0, 3): `x = 1` would contradict it.
    refused(
        "rec_default.mo",
        &format!(
            "model RecDefault\n{POINT}  Point p(x = 1) = Point(y = 3);\n  Real s = p.x;\nend RecDefault;\n"
        ),
        &[],
        &["rec_default.mo:6:11", "`x`"],
    );
}

#[test]
fn an_outer_field_modifier_overrides_an_inner_record_binding() {
    // MLS 7.2.4: the modification written further out wins; the other field keeps the
    // binding's value.
    let row = final_row(
        "rec_outer.mo",
        &format!(
            "model RecOuter\n{POINT}  model Holder\n    Point p = Point(2, 3);\n  end Holder;\n  Holder h(p(y = 7));\n  Real s = 10*h.p.x + h.p.y;\nend RecOuter;\n"
        ),
        "^s$",
    );
    assert!(row.ends_with(",27"), "{row}");
}

#[test]
fn an_outer_record_binding_overrides_an_inner_field_modifier() {
    // The pattern of the MSL's machines: `frictionParameters(wRef = ...)` in a base class,
    // `frictionParameters = data.frictionParameters` where the machine is used.
    let row = final_row(
        "rec_outer_binding.mo",
        &format!(
            "model RecOuterBinding\n{POINT}  model Holder\n    Point p(y = 7);\n  end Holder;\n  Holder h(p = Point(2, 3));\n  Real s = 10*h.p.x + h.p.y;\nend RecOuterBinding;\n"
        ),
        "^s$",
    );
    assert!(row.ends_with(",23"), "{row}");
}

#[test]
fn a_field_modifier_next_to_a_record_returned_by_a_function_is_refused() {
    refused(
        "rec_fn.mo",
        &format!(
            "model RecFn\n{POINT}  function origin\n    output Point o;\n  algorithm\n    o := Point(0, 0);\n  end origin;\n  Point p(y = 4) = origin();\n  Real s = p.y;\nend RecFn;\n"
        ),
        &[],
        &["rec_fn.mo:11:11", "`y`"],
    );
}

#[test]
fn attribute_modifiers_of_a_bound_record_stay_legal() {
    let o = minimo(
        "rec_attr.mo",
        &format!(
            "model RecAttr\n{POINT}  Point p(x(unit = \"m\")) = Point(2, 3);\n  Real s = p.x + p.y;\nend RecAttr;\n"
        ),
        &["simulate"],
        &["--vars", "^s$"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.lines().last().unwrap().ends_with(",5"), "{out}");
}

// ---- parameters that are not finite ----------------------------------------------------------

#[test]
fn a_parameter_divided_by_zero_is_reported_at_its_binding() {
    refused(
        "par_div.mo",
        "model ParDiv\n  parameter Real a = 0;\n  parameter Real b = 1/a;\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -b*x;\nend ParDiv;\n",
        &[],
        &["par_div.mo:3:18", "parameter `b`", "infinite"],
    );
}

#[test]
fn a_nan_parameter_is_reported_once_at_its_own_binding() {
    let o = minimo(
        "par_nan.mo",
        "model ParNan\n  parameter Real a = -1;\n  parameter Real b = sqrt(a);\n  parameter Real c = 2*b;\n  Real y = c*time;\nend ParNan;\n",
        &["simulate"],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("parameter `b`") && err.contains("NaN"),
        "{err}"
    );
    // `c` only inherits the NaN: not a second error.
    assert!(!err.contains("parameter `c`"), "{err}");
}

// ---- the command line ------------------------------------------------------------------------

const DECAY: &str = "model Decay\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\n  annotation(experiment(StopTime = 5, Interval = 1e-4));\nend Decay;\n";

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    // An error message written to a pipe whose reader is gone (`2>&1 | head -1` once `head`
    // has its line): the write fails, and it must not become a panic (exit code 101).
    let path = flatten_common::write_model(
        "wrong_answers",
        "decay_pipe.mo",
        "model Broken\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x/0;\nend Broken;\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("simulate")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    // Ended by SIGPIPE (no exit code), as `cat` is, or the model's exit code 1.
    assert!(matches!(status.code(), None | Some(1)), "status {status:?}");
}

#[test]
fn results_can_be_written_to_a_device() {
    let o = minimo("decay_null.mo", DECAY, &["simulate"], &["-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// ---- constrainedby (MLS 7.3.2) ----------------------------------------------------------------

/// Simulates `text` and returns the last CSV row of the `--vars` selection.
fn final_row(name: &str, text: &str, vars: &str) -> String {
    let o = minimo(name, text, &["simulate"], &["--vars", vars]);
    assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    out.lines().last().unwrap().to_string()
}

#[test]
fn the_modifiers_of_a_constraining_clause_apply_to_the_declaration() {
    let row = final_row(
        "cb_mod.mo",
        "model CbMod\n  model Spring\n    parameter Real k = 1;\n  end Spring;\n  model StiffSpring\n    parameter Real k = 50;\n    parameter Real d = 0.1;\n  end StiffSpring;\n  replaceable StiffSpring s constrainedby Spring(k = 7);\n  Real f = s.k*time;\nend CbMod;\n",
        "^f$",
    );
    // k = 7 from the constraining clause, over the class default 50.
    assert!(row.ends_with(",7"), "{row}");
}

const CHAIN: &str = "  model Base\n    Real u = 1;\n  end Base;\n  model Wide\n    Real u = 2;\n    Real w = 3;\n  end Wide;\n  model Other\n    Real u = 4;\n    Real w = 5;\n  end Other;\n  model Holder\n    replaceable Wide part constrainedby Base;\n  end Holder;\n";

#[test]
fn a_second_redeclaration_must_fit_the_constraint_of_the_first() {
    // The first redeclaration narrows the constraint to `Wide`; `Base` has no `w`.
    refused(
        "cb_chain.mo",
        &format!(
            "model CbChain\n{CHAIN}  model Narrowed\n    extends Holder(replaceable Other part constrainedby Wide);\n  end Narrowed;\n  Narrowed n(redeclare Base part);\nend CbChain;\n"
        ),
        &[],
        &["cb_chain.mo:19:14", "not compatible", "`w`"],
    );
}

#[test]
fn a_new_constraining_type_must_fit_the_old_one() {
    refused(
        "cb_widen.mo",
        &format!(
            "model CbWiden\n  model Holder2\n    replaceable Wide part constrainedby Wide;\n  end Holder2;\n{CHAIN}  model Widened\n    extends Holder2(replaceable Other part constrainedby Base);\n  end Widened;\n  Widened n;\nend CbWiden;\n"
        ),
        &[],
        &["cb_widen.mo", "not compatible", "`w`"],
    );
}

#[test]
fn the_constraint_modifiers_of_a_replaced_redeclaration_pass_on() {
    let row = final_row(
        "cb_pass.mo",
        &format!(
            "model CbPass\n{CHAIN}  model Narrowed\n    extends Holder(replaceable Wide part constrainedby Wide(w = 30));\n  end Narrowed;\n  model Again\n    extends Narrowed(redeclare Other part);\n  end Again;\n  Again a;\n  Real y = a.part.w + a.part.u;\nend CbPass;\n"
        ),
        "^y$",
    );
    // w = 30 from the replaced redeclaration's constraining clause, u = 4 from `Other`.
    assert!(row.ends_with(",34"), "{row}");
}

// ---- asserts see the settled event, inner outer ------------------------------------------------

#[test]
fn asserts_are_checked_once_the_event_iteration_has_settled() {
    // At the event after initialization `level` jumps to 9, and `high` follows in a later pass
    // of the same event: the assert must see the settled `high`, not the pass in between.
    let o = minimo(
        "assert_settle.mo",
        "model AssertSettle\n  Boolean high(start = false, fixed = true);\n  Real level(start = 1, fixed = true);\nequation\n  when not initial() then\n    level = 9;\n  end when;\n  when level > 5 then\n    high = true;\n  end when;\n  if not initial() then\n    assert(high, \"high must follow level\");\n  end if;\n  annotation(experiment(StopTime = 0.1));\nend AssertSettle;\n",
        &["simulate"],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn an_assert_violated_after_the_event_still_fails() {
    refused(
        "assert_after.mo",
        "model AssertAfter\n  Real level(start = 1, fixed = true);\nequation\n  when not initial() then\n    level = 9;\n  end when;\n  assert(level < 5, \"level too high\");\n  annotation(experiment(StopTime = 0.1));\nend AssertAfter;\n",
        &[],
        &["assert_after.mo:7:3", "level too high", "time 0"],
    );
}

#[test]
fn an_inner_outer_element_reads_the_outer_and_serves_the_inner() {
    // `inner outer Real gain = gain * local`: `gain` on the right is the outer one (2), the
    // inner half (2 * 3 = 6) is what the `outer` below sees. Read as one variable, the binding
    // would be `gain = gain * 3`, solved by gain = 0 with no error.
    let row = final_row(
        "inner_outer.mo",
        "model InnerOuter\n  model Leaf\n    outer Real gain;\n    Real y = gain*time;\n  end Leaf;\n  model Middle\n    parameter Real local = 3;\n    inner outer Real gain = gain*local;\n    Leaf leaf;\n    Real seen = gain;\n  end Middle;\n  inner Real gain = 2;\n  Middle m;\n  annotation(experiment(StopTime = 1));\nend InnerOuter;\n",
        "^(m\\.leaf\\.y|m\\.seen)$",
    );
    // Columns in variable order: m.leaf.y = 6 at t = 1, then m.seen = 2 (the outer one).
    let vals: Vec<f64> = row.split(',').skip(1).map(|v| v.parse().unwrap()).collect();
    assert_eq!(vals.len(), 2, "{row}");
    assert!(vals.contains(&6.0) && vals.contains(&2.0), "{row}");
}

// ---- a function called for its effect ----------------------------------------------------------

/// A function whose only effect is its assert, called with `x` (= time) in `section`.
fn effect_model(name: &str, section: &str) -> String {
    format!(
        "model {name}\n  function check\n    input Real x;\n    input String names[:];\n  algorithm\n    assert(x < 0.6, \"x of \" + names[2] + \" is too large: \" + String(x));\n  end check;\n  Real x(start = 0, fixed = true);\n  Real y(start = 0, fixed = true);\nequation\n  der(x) = 1;\n  der(y) = -1;\n{section}\n  annotation(experiment(StopTime = 1));\nend {name};\n"
    )
}

#[test]
fn a_call_for_its_effect_with_run_time_arguments_runs_its_asserts() {
    // Each was dropped: the run ended at t = 1 with exit code 0.
    let cases = [
        ("effect_eq", "  check(x, {\"a\", \"b\"});", 13, "time 0.6"),
        (
            "effect_when",
            "  when time > 0.7 then\n    check(x, {\"a\", \"b\"});\n  end when;",
            14,
            "time 0.7",
        ),
        (
            "effect_if",
            "  if time > 0.8 then\n    check(x, {\"a\", \"b\"});\n  end if;",
            14,
            "time 0.8",
        ),
        (
            "effect_alg",
            "algorithm\n  check(x, {\"a\", \"b\"});",
            14,
            "time 0.6",
        ),
    ];
    for (name, section, line, time) in cases {
        refused(
            &format!("{name}.mo"),
            &effect_model(name, section),
            &[],
            &[
                &format!("{name}.mo:{line}:"),
                time,
                ".check`",
                "x of b is too large",
            ],
        );
    }
}

#[test]
fn a_call_for_its_effect_whose_asserts_hold_changes_nothing() {
    // The same calls with an argument that stays below the bound: the run goes through, and a
    // branch never taken is never checked.
    for (name, section) in [
        ("effect_ok_eq", "  check(y, {\"a\", \"b\"});"),
        (
            "effect_ok_if",
            "  if time > 2 then\n    check(x, {\"a\", \"b\"});\n  end if;",
        ),
    ] {
        let o = minimo(
            &format!("{name}.mo"),
            &effect_model(name, section),
            &["simulate"],
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
    }
}

#[test]
fn a_print_for_its_effect_prints_at_each_event_and_never_in_a_branch_not_taken() {
    // `Streams.print` as the MSL declares it; `tell` prints at each sample (t = 0.25 ... 1);
    // the copy under `time > 2` is never active. The tape evaluates both branches of an `if`,
    // so without the guard inside the wrapper the second call would print at every step.
    let model = "model PrintTicks\n  function print\n    input String string = \"\";\n    input String fileName = \"\";\n  external \"C\" ModelicaInternal_print(string, fileName);\n  end print;\n  function tell\n    input Real x;\n  algorithm\n    if x > 0.6 then\n      print(\"late tick\");\n    else\n      print(\"early tick\");\n    end if;\n  end tell;\n  Real x = time;\nequation\n  when sample(0.25, 0.25) then\n    tell(x);\n  end when;\n  if time > 2 then\n    tell(x);\n  end if;\n  annotation(experiment(StopTime = 1));\nend PrintTicks;\n";
    let o = minimo("print_ticks.mo", model, &["simulate"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.ends_with("tick")).collect();
    assert_eq!(
        lines,
        ["early tick", "early tick", "late tick", "late tick"],
        "{err}"
    );
}

/// A record passed to a record input of another record class with the same field names in a
/// different order, or with more fields (a subtype), is matched field by name (MLS 6.4, plug
/// compatibility). MSL `Fittings.Bends.CurvedBend` passes its `Geometry(d_hyd, R_0, delta, K)`
/// as `dp_curvedOverall_IN_con`, whose fields come in another order; minimo passed the fields
/// by position and computed `f` with `x` and `y` swapped: -19 instead of -8
/// (ModelicaTest.Fluid.TestComponents.NewFittings.Bends.CurvedBend: `dp_small` = 2.6e7 Pa and a
/// mass flow of 0.00088 where Dymola has 19.7 kg/s). Checked at model level (a component, a
/// constructor) and inside a function body (a record input, a constructor).
#[test]
fn a_record_argument_of_another_record_class_is_matched_by_field_name() {
    let text = "model R
  record A
    Real x;
    Real y;
  end A;
  record B
    Real y;
    Real x;
    Real w;
  end B;
  function f
    input A a;
    output Real z;
  algorithm
    z := a.x - 10*a.y;
  end f;
  function g
    input B b;
    output Real z;
  algorithm
    z := f(b) + 100*f(A(x = b.w, y = 0)) + 1000*f(B(y = 1, x = 2, w = 3));
  end g;
  parameter B b(y = 1, x = 2, w = 5);
  Real z = f(b) + 0*time;
  Real z2 = g(b) + 0*time;
  Real z3 = f(B(y = 1, x = 2, w = 7)) + 0*time;
end R;
";
    let r = flatten_common::simulate_source("r.mo", text, "R");
    let at = |n: &str| flatten_common::at(&r, n, 0.0);
    assert!(
        (at("z") - (-8.0)).abs() < 1e-12,
        "z = {}, expected 2 - 10*1 = -8",
        at("z")
    );
    assert!(
        (at("z2") - (-8.0 + 500.0 - 8000.0)).abs() < 1e-9,
        "z2 = {}, expected -7508",
        at("z2")
    );
    assert!((at("z3") - (-8.0)).abs() < 1e-12, "z3 = {}", at("z3"));
}

/// The same by-name rule for a record equation, a record parameter bound to a record of
/// another class, and a record assignment in a function body from a function's record result
/// (all were by position).
#[test]
fn record_equations_bindings_and_assignments_match_fields_by_name() {
    let text = "model R2
  record A
    Real x;
    Real y;
  end A;
  record B
    Real y;
    Real x;
  end B;
  function mk
    input Real u;
    output B b;
  algorithm
    b := B(y = u, x = 2*u);
  end mk;
  function h
    input Real u;
    output Real z;
  protected
    A a;
  algorithm
    a := mk(u);
    z := a.x - 10*a.y;
  end h;
  parameter B b(y = 1, x = 2);
  parameter A a1 = b;
  Real z1 = a1.x - 10*a1.y + 0*time;
  A a2;
  Real z4 = h(1) + 0*time;
equation
  a2 = b;
end R2;
";
    let r = flatten_common::simulate_source("r2.mo", text, "R2");
    let at = |n: &str| flatten_common::at(&r, n, 0.0);
    for (name, want) in [("z1", -8.0), ("a2.x", 2.0), ("a2.y", 1.0), ("z4", -8.0)] {
        assert!(
            (at(name) - want).abs() < 1e-12,
            "{name} = {}, expected {want}",
            at(name)
        );
    }
}

/// A record component bound (or equated) at model level to a function's record result of
/// another record class (`A a3 = mk(1)`, `a4 = mk(time)` with `mk` returning a `B(y, x)`)
/// takes the fields by name, from the function's flattened output (its declared type may be a
/// replaceable record seen from the function's own package). Taken by position they were
/// swapped, with exit 0.
#[test]
fn a_record_bound_to_a_function_result_of_another_class_is_matched_by_name() {
    let text = "model R3
  record A
    Real x;
    Real y;
  end A;
  record B
    Real y;
    Real x;
  end B;
  record C
    Real y;
    Real v;
  end C;
  function mk
    input Real u;
    output B b;
  algorithm
    b := B(y = u, x = 2*u);
  end mk;
  function f
    input A a;
    output Real z;
  algorithm
    z := a.x - 10*a.y;
  end f;
  A a3 = mk(1);
  A a4;
  Real z5 = f(mk(time + 1));
equation
  a4 = mk(time + 3);
end R3;
";
    let r = flatten_common::simulate_source("r3.mo", text, "R3");
    for (name, want) in [
        ("a3.x", 2.0),
        ("a3.y", 1.0),
        ("a4.x", 6.0),
        ("a4.y", 3.0),
        ("z5", -8.0),
    ] {
        let got = flatten_common::at(&r, name, 0.0);
        assert!(
            (got - want).abs() < 1e-12,
            "{name} = {got}, expected {want}"
        );
    }
    let bad = text.replace("  A a3 = mk(1);", "  C c = mk(1);");
    let err = flatten_common::err(&bad, Some("R3"));
    assert!(err.contains("has no field `v`"), "{err}");
}

/// A record argument that lacks a field of the input's record type is refused, naming the
/// field, instead of passing whatever sits at that position.
#[test]
fn a_record_argument_without_a_field_of_the_input_is_refused() {
    let text = "model R
  record A
    Real x;
    Real y;
  end A;
  record C
    Real y;
    Real v;
  end C;
  function f
    input A a;
    output Real z;
  algorithm
    z := a.x - 10*a.y;
  end f;
  Real z = f(C(y = 1, v = 2)) + 0*time;
end R;
";
    let err = flatten_common::err(text, Some("R"));
    assert!(err.contains("has no field `x`"), "{err}");
}

/// A function local bound to an expression of a local record whose fields are set by
/// modifiers (`Sat sat(psat = p); Real hl = bubble(sat)`, as in every phase test of MSL's
/// R134a medium) reads the record after the modifiers, and a binding that reads a variable
/// bound further down reads it after that binding (MLS 12.4.4: bindings in the order of their
/// dependencies). R134a read `psat = 0`, chose the two-phase branch for a subcooled liquid
/// and gave a density of 26 instead of 1510 kg/m3, with exit 0.
#[test]
fn a_function_local_bound_to_a_modified_local_record_reads_it_after_the_modifiers() {
    let text = "model F
  record Sat
    Real psat;
    Real Tsat;
  end Sat;
  record Def
    Real a = 4;
  end Def;
  function bubble
    input Sat sat;
    output Real h;
  algorithm
    h := 2*sat.psat + sat.Tsat;
  end bubble;
  function phase
    input Real p;
    input Real h;
    output Integer ph;
  protected
    Real twice = 2*hl;
    Sat sat(psat = p, Tsat = 1);
    Real hl = bubble(sat);
    Def d;
    Real k = d.a + 1;
  algorithm
    ph := if h < hl and twice == 2*hl and k == 5 then 1 else 2;
  end phase;
  function ord
    input Real p;
    output Real y = b + 1;
  protected
    Real b = 2*a;
    Real a = p;
  end ord;
  Integer a = phase(10 + 0*time, 15);
  Integer b = phase(10 + 0*time, 25);
  Real c = ord(3 + 0*time);
end F;
";
    let r = flatten_common::simulate_source("f.mo", text, "F");
    assert_eq!(flatten_common::at(&r, "a", 0.0), 1.0);
    assert_eq!(flatten_common::at(&r, "b", 0.0), 2.0);
    // Bindings declared before the variables they read (`y`, `b`) ran first and read 0.
    assert_eq!(flatten_common::at(&r, "c", 0.0), 7.0);
}
