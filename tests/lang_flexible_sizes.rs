//! Arrays declared with `:` (MLS 10.1) whose size comes from a function result sized by its
//! algorithm: the size depends on the argument values, so the parameters it depends on are
//! fixed at flattening; without a binding, a start value gives the size.

mod flatten_common;

use std::process::Output;

/// Runs `minimo simulate` on `text` to t = 0.1, with `extra` arguments.
fn run(name: &str, text: &str, extra: &[&str]) -> Output {
    flatten_common::simulate_file("flexible", name, text, "0.1", extra)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const FILTER: &str = r#"model Filter
  function positives
    input Integer v[:];
    output Integer w[:];
  algorithm
    for i in 1:size(v, 1) loop
      if v[i] > 0 then
        w := cat(1, w, {v[i]});
      end if;
    end for;
  end positives;
  parameter Integer a[:] = {3, -1, 4, 0, 5};
  Integer x[:] = positives(a);
equation
  assert(size(x, 1) == 3, "size " + String(size(x, 1)));
  assert(x[1] == 3 and x[2] == 4 and x[3] == 5, "values");
end Filter;
"#;

#[test]
fn a_binding_whose_size_depends_on_parameter_values() {
    let o = run("filter.mo", FILTER, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The size follows the values: one more positive value, one more element.
    let o = run(
        "filter4.mo",
        &FILTER.replace("{3, -1, 4, 0, 5}", "{3, 1, 4, 0, 5}"),
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("size 4"), "{err}");
    // The parameter fixes a size now: `--set` is refused with the reason.
    let o = run("filter_set.mo", FILTER, &["--set", "a[2]=7"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("fixes array sizes"), "{err}");
}

#[test]
fn a_start_value_gives_the_size_without_a_binding() {
    let model = r#"model Evens
  function evens
    input Integer n;
    output Integer w[:];
  algorithm
    for i in 1:n loop
      if mod(i, 2) == 0 then
        w := cat(1, w, {i});
      end if;
    end for;
  end evens;
  parameter Integer n = 7;
  discrete Integer x[:](each fixed = true, start = evens(n));
equation
  when false then
    x = pre(x);
  end when;
  assert(size(x, 1) == 3 and x[3] == 6, "evens");
end Evens;
"#;
    let o = run("evens.mo", model, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run("evens9.mo", &model.replace("n = 7", "n = 9"), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}
