//! String values during simulation (MLS 3.6, 3.7.1): String variables with equations and
//! `when` assignments, concatenation, relations, `String(...)` conversions, String arrays and
//! records, and the refusal of Strings whose values cannot be listed before simulation. Each
//! model checks itself with asserts; a second version with a wrong expectation must fail, so
//! a test cannot pass by the asserts being skipped.

mod flatten_common;

use std::process::Output;

/// Writes `text` to a fresh file and runs `minimo simulate FILE --stop-time 1`.
fn simulate(name: &str, text: &str) -> Output {
    flatten_common::simulate_file("lang_strings", name, text, "1", &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The model passes, and fails with `message` once `right` is replaced by `wrong`.
fn passes_and_catches(name: &str, model: &str, right: &str, wrong: &str, message: &str) {
    let o = simulate(name, model);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        model.contains(right),
        "the test must name a part of the model"
    );
    let o = simulate(&format!("wrong_{name}"), &model.replacen(right, wrong, 1));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(message), "{err}");
}

#[test]
fn concatenation_and_comparison_of_string_variables() {
    let model = r#"model Greeting
  parameter String who = "world";
  String hello = "Hello";
  String line;
  Boolean ordered = hello < who;
equation
  line = hello + ", " + who + "!";
  assert(line == "Hello, world!", "line is " + line);
  assert(ordered, "Hello sorts before world");
  assert("abc" < "abd" and "b" > "abc" and "x" <> "y", "lexicographic order");
end Greeting;
"#;
    passes_and_catches(
        "greeting.mo",
        model,
        "\"Hello, world!\"",
        "\"Hello world!\"",
        "assertion failed at time 0: line is Hello, world!",
    );
}

#[test]
fn strings_assigned_at_events_follow_the_events() {
    let model = r#"model Phases
  discrete String phase(start = "idle");
  Integer n(start = 0);
  String word = if time > 0.3 then "late" else "early";
equation
  when sample(0.2, 0.25) then
    n = pre(n) + 1;
    phase = if n > 2 then "done" else "run" + (if n == 1 then "1" else "2");
  end when;
  assert(time < 0.2 or phase <> "idle", "phase still idle");
  assert(time >= 0.2 or phase == "idle", "phase left idle too early");
  assert(time < 0.7 or phase == "done", "phase at t = " + String(time) + ": " + phase);
  assert(time < 0.45 or time >= 0.7 or phase == "run2", "second phase: " + phase);
  assert(time <= 0.3 or word == "late", "word: " + word);
end Phases;
"#;
    passes_and_catches(
        "phases.mo",
        model,
        "phase == \"run2\"",
        "phase == \"run3\"",
        "assertion failed at time 0.45: second phase: run2",
    );
}

#[test]
fn string_conversions_with_their_options() {
    let model = r#"model Conversions
  type Level = enumeration(low, mid, high);
  Level l = if time < 0.5 then Level.mid else Level.high;
  Boolean b = time > 0.5;
  String ls = String(l, minimumLength = 5, leftJustified = false);
  String bs = String(b);
  String i = String(42, minimumLength = 4);
  String r = String(2.718281828, significantDigits = 3);
  String f = String(1.5, format = "6.2f");
equation
  assert(String(Level.low) == "low", "literal name");
  assert(time >= 0.5 or ls == "  mid", "ls: [" + ls + "]");
  assert(time <= 0.5 or ls == " high", "ls: [" + ls + "]");
  assert(bs == (if b then "true" else "false"), "bs: " + bs);
  assert(i == "42  " and r == "2.72" and f == "  1.50", "i: [" + i + "] r: " + r + " f: [" + f + "]");
end Conversions;
"#;
    passes_and_catches(
        "conversions.mo",
        model,
        "ls == \" high\"",
        "ls == \"high\"",
        "ls: [ high]",
    );
}

#[test]
fn string_arrays_ranges_and_record_fields() {
    let model = r#"model Collection
  record Tag
    String label;
    Integer code;
  end Tag;
  parameter Tag t = Tag("pump", 7);
  String names[3];
algorithm
  for s in {"a", "bb", "ccc"} loop
    if s == "a" then
      names[1] := s + "1";
    elseif s == "bb" then
      names[2] := s + "2";
    else
      names[3] := s + "3";
    end if;
  end for;
equation
  assert(names[1] == "a1" and names[2] == "bb2", "names: " + names[1] + names[2]);
  assert(names[3] == "ccc3", "third: " + names[3]);
  assert(t.label == "pump" and t.code == 7, "record field: " + t.label);
end Collection;
"#;
    passes_and_catches(
        "collection.mo",
        model,
        "names[3] == \"ccc3\"",
        "names[3] == \"ccc\"",
        "third: ccc3",
    );
}

#[test]
fn a_string_of_a_changing_real_is_refused_with_its_place() {
    let o = simulate(
        "changing.mo",
        "model Changing\n  Real x = time;\n  String s;\nequation\n  s = String(x);\nend Changing;\n",
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("changing.mo:5:3"), "{err}");
    assert!(err.contains("before simulation"), "{err}");
}

#[test]
fn a_string_grown_at_every_event_is_refused() {
    let o = simulate(
        "grow.mo",
        "model Grow\n  discrete String s(start = \"\");\nequation\n  when sample(0, 0.1) then\n    s = pre(s) + \"x\";\n  end when;\nend Grow;\n",
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("grow.mo:5:5"), "{err}");
    assert!(err.contains("ever new values"), "{err}");
}

/// A function called during the run with a record whose String field names it (as an MSL
/// ideal gas passes its `data.name`): the function reads the text itself, and the numbers
/// come out as computed by hand. Before, the String could not be passed at simulation time.
#[test]
fn a_record_string_field_reaches_a_function_called_during_the_run() {
    let model = r#"model GasTable
  record Data
    String name;
    Real k;
  end Data;
  function scaled
    input Data d;
    input Real x;
    output Real y;
  algorithm
    y := if d.name == "double" then 2 * d.k * x else d.k * x;
  end scaled;
  constant Data twice = Data(name = "double", k = 1.5);
  parameter Data once = Data(name = "single", k = 4);
  Real a = scaled(twice, time);
  Real b = scaled(once, time);
equation
  when time > 0.5 then
    assert(abs(pre(a) - 3 * time) < 1e-6 and abs(pre(b) - 4 * time) < 1e-6, "wrong scaled values");
  end when;
end GasTable;
"#;
    passes_and_catches(
        "GasTable.mo",
        model,
        r#"name = "double""#,
        r#"name = "triple""#,
        "wrong scaled values",
    );
}
