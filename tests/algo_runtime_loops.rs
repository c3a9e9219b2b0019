//! `break` under conditions known only during simulation in a model's algorithm (MLS 11.2.5),
//! and `delay` (MLS 3.7.4.1). Each model's result is compared with values computed by hand.

mod flatten_common;
use flatten_common::{at, close, last, sim_options, simulate_text};

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
    let Err(e) = simulate_text(
        "model M\n  Real a = 1;\n  Real y = delay(sin(time), a);\nend M;\n",
        &opts,
    ) else {
        panic!("a variable delay time without delayMax is refused");
    };
    assert!(e.contains("must be a parameter expression"), "{e}");
    let Err(e) = simulate_text(
        "model M\n  Real b = 2;\n  Real y = delay(sin(time), 1, b);\nend M;\n",
        &opts,
    ) else {
        panic!("a variable delayMax is refused");
    };
    assert!(e.contains("`delayMax`"), "{e}");
    let Err(e) = simulate_text(
        "model M\n  Real y = delay(sin(time), 5.5, 1.0);\nend M;\n",
        &opts,
    ) else {
        panic!("a delay time above delayMax is refused");
    };
    assert!(e.contains("between 0 and the maximum delay 1"), "{e}");
    let Err(e) = simulate_text(
        "model M\n  Real y = delay(sin(time), 0.5 + time, 1.0);\nend M;\n",
        &opts,
    ) else {
        panic!("a delay time growing above delayMax stops the run");
    };
    assert!(e.contains("maximum delay"), "{e}");
}

/// Newton's iteration for `sqrt(time + 1)` as a `while` loop of a model algorithm (MLS
/// 11.2.5): the number of iterations depends on time, so the loop runs at simulation time as
/// a generated function; the result matches the analytic root, and the loop count (a Real
/// assigned in the loop) is positive after time 0.
#[test]
fn while_loop_with_a_run_time_condition_runs_each_evaluation() {
    let text = "model M
  Real x;
  Real n;
  Real err;
  parameter Real tol = 1e-13;
algorithm
  x := 1;
  n := 0;
  while abs(x * x - (time + 1)) > tol * (time + 1) loop
    x := 0.5 * (x + (time + 1) / x);
    n := n + 1;
  end while;
  err := x - sqrt(time + 1);
end M;
";
    let r = simulate_text(text, &sim_options(3.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=6 {
        let t = 0.5 * f64::from(k);
        close(at(&r, "x", t), (t + 1.0).sqrt(), 1e-12, "x");
        close(at(&r, "err", t), 0.0, 1e-12, "err");
        let n = at(&r, "n", t);
        assert!(if k == 0 { n == 0.0 } else { n >= 1.0 }, "n = {n} at {t}");
    }
}

/// A `while` loop whose condition reads a parameter (known only during simulation: it can
/// be `--set`), over an array indexed by an Integer the loop assigns, inside a `for` loop
/// whose index it reads: the values before the loop go in, the assigned elements come out.
#[test]
fn while_loop_reads_and_assigns_arrays_and_for_indices() {
    let text = "model M
  parameter Real p = 2;
  Real v[3];
  Integer k;
  Real s;
algorithm
  v := {1, 2, 3};
  s := 0;
  for j in 1:2 loop
    k := 1;
    while k <= 3 loop
      if v[k] >= p + j then
        k := k + 1;
      else
        v[k] := v[k] + 1;
        s := s + j;
      end if;
    end while;
  end for;
end M;
";
    let r = simulate_text(text, &sim_options(1.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    // By hand: j = 1 raises v[1] from 1 to 3 and v[2] from 2 to 3 (3 steps adding 1 to s);
    // j = 2 raises each element from 3 to 4 (3 steps adding 2).
    for (name, x) in [
        ("v[1]", 4.0),
        ("v[2]", 4.0),
        ("v[3]", 4.0),
        ("s", 9.0),
        ("k", 4.0),
    ] {
        close(last(&r, name), x, 0.0, name);
    }
}

/// A `while` loop that never ends stops the run with the loop's location and the time.
#[test]
fn endless_while_loop_stops_with_its_location_and_time() {
    let text = "model M
  Real x;
algorithm
  x := 0;
  while time >= 0.5 loop
    x := x + 1;
  end while;
end M;
";
    let e = simulate_text(text, &sim_options(1.0, 0.25, 1e-6)).expect_err("an endless loop");
    for fragment in [
        "time 0.5",
        "the `while` loop at m.mo:5:3 did not end after 1000000 iterations",
    ] {
        assert!(e.contains(fragment), "missing `{fragment}` in: {e}");
    }
}

/// What a function cannot do stays refused inside a run-time `while` loop, with the reason.
#[test]
fn run_time_while_loop_refuses_pre_and_when() {
    let text = "model M
  Real x;
  discrete Real y(start = 0);
algorithm
  x := 0;
  while x < time loop
    x := x + pre(y) + 0.1;
  end while;
end M;
";
    let e = simulate_text(text, &sim_options(1.0, 0.25, 1e-6)).expect_err("pre in the loop");
    assert!(
        e.contains("`pre()` inside a `while` loop whose condition is known only during simulation"),
        "{e}"
    );
}
