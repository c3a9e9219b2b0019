//! `break` under conditions known only during simulation in a model's algorithm (MLS 11.2.5),
//! and `delay` (MLS 3.7.4.1). Each model's result is compared with values computed by hand.

mod flatten_common;
use flatten_common::{at, close, sim_options, simulate_text};

/// The first index `i` in 1..8 with `i * u > 2.5` for `u = 1 + time`: the loop is left by
/// a `break` whose condition changes with time, and the assignments after it in the loop
/// (`count`) and in later iterations (`first`) must not act once it is taken.
#[test]
fn break_under_a_run_time_condition_leaves_the_loop() {
    let text = "model M
  Real u = 1 + time;
  Integer first;
  Integer count;
  Real s;
algorithm
  first := 0;
  count := 0;
  s := 0;
  for i in 1:8 loop
    if i * u > 2.5 then
      first := i;
      break;
    end if;
    count := count + 1;
    s := s + i * u;
  end for;
end M;
";
    let r = simulate_text(text, &sim_options(3.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=6 {
        let t = 0.5 * f64::from(k);
        let u = 1.0 + t;
        let first = (1..=8).find(|&i| f64::from(i) * u > 2.5).unwrap_or(0);
        let before: Vec<f64> = (1..first).map(f64::from).collect();
        close(at(&r, "first", t), f64::from(first), 0.0, "first");
        close(at(&r, "count", t), before.len() as f64, 0.0, "count");
        close(
            at(&r, "s", t),
            before.iter().map(|i| i * u).sum(),
            1e-9,
            "s",
        );
    }
}

/// A `break` inside a nested `if` leaves only the inner loop; the outer loop goes on, and an
/// `assert` after the `break` acts only where it was not taken.
#[test]
fn nested_break_leaves_only_the_inner_loop() {
    let text = "model M
  Real u = time;
  Integer n;
algorithm
  n := 0;
  for j in 1:3 loop
    for i in 1:4 loop
      if u > 0.5 then
        if i >= j then
          break;
        end if;
      end if;
      n := n + 1;
      assert(not (u > 0.5 and i >= j), \"the loop went on after its break\");
    end for;
  end for;
end M;
";
    let r = simulate_text(text, &sim_options(1.0, 0.25, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    // u <= 0.5: 12 passes; u > 0.5: j - 1 passes of the inner loop for each j (0 + 1 + 2).
    close(at(&r, "n", 0.25), 12.0, 0.0, "n at 0.25");
    close(at(&r, "n", 0.75), 3.0, 0.0, "n at 0.75");
    close(at(&r, "n", 1.0), 3.0, 0.0, "n at 1");
}

/// `delay` of a sine against the shifted sine: before the delay time the value at the start
/// (MLS 3.7.4.1), after it `sin(t - d)`; a delay of zero is the value itself; a delay time that
/// changes (bounded by `delayMax`) reads the history at `time - delayTime`.
#[test]
fn delay_of_a_sine_is_the_shifted_sine() {
    let text = "model M
  parameter Real d = 0.3;
  Real x(start = 0, fixed = true);
  Real y;
  Real z;
  Real w;
equation
  der(x) = cos(time);
  y = delay(x, d);
  z = delay(2 * x + 1, 0);
  w = delay(sin(time), 0.1 + 0.1 * time, 0.5);
end M;
";
    let r = simulate_text(text, &sim_options(2.0, 0.05, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=40 {
        let t = 0.05 * f64::from(k);
        let y = if t < 0.3 { 0.0 } else { (t - 0.3).sin() };
        close(at(&r, "y", t), y, 2e-4, &format!("y at {t}"));
        close(
            at(&r, "z", t),
            2.0 * t.sin() + 1.0,
            1e-5,
            &format!("z at {t}"),
        );
        let tau = t - (0.1 + 0.1 * t);
        let w = if tau < 0.0 { 0.0 } else { tau.sin() };
        close(at(&r, "w", t), w, 2e-4, &format!("w at {t}"));
    }
}

/// The checks of MLS 3.7.4.1: without `delayMax` the delay time must be a parameter
/// expression, `delayMax` must be one, and a known delay time must not exceed it.
#[test]
fn delay_arguments_are_checked() {
    let opts = sim_options(1.0, 0.1, 1e-6);
    let e = simulate_text(
        "model M\n  Real a = 1;\n  Real y = delay(sin(time), a);\nend M;\n",
        &opts,
    )
    .err()
    .expect("a variable delay time without delayMax is refused");
    assert!(e.contains("must be a parameter expression"), "{e}");
    let e = simulate_text(
        "model M\n  Real b = 2;\n  Real y = delay(sin(time), 1, b);\nend M;\n",
        &opts,
    )
    .err()
    .expect("a variable delayMax is refused");
    assert!(e.contains("`delayMax`"), "{e}");
    let e = simulate_text(
        "model M\n  Real y = delay(sin(time), 5.5, 1.0);\nend M;\n",
        &opts,
    )
    .err()
    .expect("a delay time above delayMax is refused");
    assert!(e.contains("between 0 and the maximum delay 1"), "{e}");
    let e = simulate_text(
        "model M\n  Real y = delay(sin(time), 0.5 + time, 1.0);\nend M;\n",
        &opts,
    )
    .err()
    .expect("a delay time growing above delayMax stops the run");
    assert!(e.contains("maximum delay"), "{e}");
}
