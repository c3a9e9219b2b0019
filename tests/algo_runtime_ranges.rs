//! `for` loops in a model's algorithm over a vector whose values are known only during
//! simulation (MLS 11.2.2.1): the size is known before simulation, so the loop runs once per
//! element, with subscripts by the iterator chosen at run time.

mod flatten_common;

use std::process::Output;

/// Runs `minimo simulate` on `text` to t = 1.
fn simulate(name: &str, text: &str) -> Output {
    flatten_common::simulate_file("algo_ranges", name, text, "1", &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const PERMUTED: &str = r#"model Permuted
  Integer order[3] = if time < 0.5 then {2, 3, 1} else {3, 1, 2};
  Real w[3];
algorithm
  for k in order loop
    w[k] := 10 * k + time;
  end for;
equation
  assert(abs(w[1] - (10 + time)) < 1e-9 and abs(w[3] - (30 + time)) < 1e-9, "w wrong");
end Permuted;
"#;

#[test]
fn a_loop_over_a_changing_vector_assigns_the_chosen_elements() {
    let o = simulate("permuted.mo", PERMUTED);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = simulate(
        "permuted_wrong.mo",
        &PERMUTED.replace("w[1] - (10 + time)", "w[1] - (11 + time)"),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("assertion failed at time 0: w wrong"), "{err}");
}

#[test]
fn a_range_with_a_changing_bound_is_still_refused() {
    let o = simulate(
        "bound.mo",
        "model Bound\n  Integer n = if time < 0.5 then 1 else 2;\n  Real w[2];\nalgorithm\n  w := {0, 0};\n  for k in 1:n loop\n    w[k] := 1;\n  end for;\nend Bound;\n",
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bound.mo:6:14"), "{err}");
}
