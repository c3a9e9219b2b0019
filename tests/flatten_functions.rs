//! The function interpreter (`minimo::flatten::call_function`), which the simulator calls for
//! every user-function call: results compared with values computed by hand.

mod flatten_common;
use minimo::flatten::{Val, Value, call_function};

const LIB: &str = r#"
package F
  function poly "a + b*x + c*x^2, with defaults"
    input Real x;
    input Real a = 1;
    input Real b = 2;
    input Real c = 0;
    output Real y;
  algorithm
    y := a + b*x + c*x^2;
  end poly;
  function norm2 input Real v[:]; output Real n; algorithm n := sqrt(v*v); end norm2;
  function rot "rotation of v about z by angle phi"
    input Real v[3];
    input Real phi;
    output Real w[3];
  protected
    Real R[3, 3];
  algorithm
    R := [cos(phi), -sin(phi), 0; sin(phi), cos(phi), 0; 0, 0, 1];
    w := R*v;
  end rot;
  function newton "square root by Newton iterations with while, break and return"
    input Real a;
    output Real x;
    output Integer iterations;
  algorithm
    x := a;
    iterations := 0;
    if a <= 0 then
      x := 0;
      return;
    end if;
    while true loop
      iterations := iterations + 1;
      x := 0.5*(x + a/x);
      if abs(x*x - a) < 1e-12 then
        break;
      end if;
    end while;
  end newton;
  function sumTo input Integer n; output Integer s; algorithm s := 0; for i in 1:n loop s := s + i; end for; end sumTo;
  function fib input Integer n; output Integer f; algorithm f := if n < 2 then n else fib(n - 1) + fib(n - 2); end fib;
  model Use
    Real t = time;
    Real p1 = poly(t);
    Real p2 = poly(t, c = 3);
    Real n = norm2({t, 1});
    Real w[3] = rot({t, 0, 0}, 0.5);
    Real r;
    Real it "Real: an Integer must not take a function of a continuous argument (MLS 3.8.3)";
    Integer s = sumTo(integer(t));
    Integer fb = fib(integer(t));
  equation
    (r, it) = newton(t);
  end Use;
end F;
"#;

fn functions() -> std::collections::BTreeMap<String, minimo::dae::Function> {
    flatten_common::flat_model(LIB, Some("F.Use")).functions
}

fn num(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

#[test]
fn defaults_and_named_inputs() {
    let f = functions();
    // poly(2) = 1 + 2*2
    let out = call_function(&f, "F.poly", &[Value::real(2.0)]).expect("runs");
    assert!((num(&out[0]) - 5.0).abs() < 1e-12);
    let out = call_function(
        &f,
        "F.poly",
        &[
            Value::real(2.0),
            Value::real(0.0),
            Value::real(1.0),
            Value::real(3.0),
        ],
    )
    .expect("runs");
    assert!((num(&out[0]) - 14.0).abs() < 1e-12);
}

#[test]
fn array_inputs_and_outputs() {
    let f = functions();
    let out = call_function(&f, "F.norm2", &[Value::reals(vec![2], &[3.0, 4.0])]).expect("runs");
    assert!((num(&out[0]) - 5.0).abs() < 1e-12);
    let phi: f64 = 0.3;
    let out = call_function(
        &f,
        "F.rot",
        &[Value::reals(vec![3], &[1.0, 2.0, 3.0]), Value::real(phi)],
    )
    .expect("runs");
    let w = out[0].to_f64s().expect("numbers");
    let expect = [
        phi.cos() - 2.0 * phi.sin(),
        phi.sin() + 2.0 * phi.cos(),
        3.0,
    ];
    assert_eq!(out[0].dims, vec![3]);
    for (a, b) in w.iter().zip(expect) {
        assert!((a - b).abs() < 1e-12, "{w:?}");
    }
}

#[test]
fn loops_break_return_and_several_outputs() {
    let f = functions();
    let out = call_function(&f, "F.newton", &[Value::real(2.0)]).expect("runs");
    assert!((num(&out[0]) - 2f64.sqrt()).abs() < 1e-12);
    let it = num(&out[1]);
    assert!((1.0..10.0).contains(&it), "{it}");
    assert_eq!(out[1].data[0], Val::Int(it as i64));
    let out = call_function(&f, "F.newton", &[Value::real(-1.0)]).expect("runs");
    assert_eq!(num(&out[0]), 0.0);
    let out = call_function(&f, "F.sumTo", &[Value::scalar(Val::Int(100))]).expect("runs");
    assert_eq!(out[0].data[0], Val::Int(5050));
    let out = call_function(&f, "F.fib", &[Value::scalar(Val::Int(15))]).expect("runs");
    assert_eq!(out[0].data[0], Val::Int(610));
}

#[test]
fn errors_are_messages_not_panics() {
    let f = functions();
    let e = call_function(&f, "F.nope", &[]).expect_err("unknown");
    assert!(e.contains("unknown function `F.nope`"), "{e}");
    let e = call_function(
        &f,
        "F.rot",
        &[Value::reals(vec![2], &[1.0, 2.0]), Value::real(0.1)],
    )
    .expect_err("bad size");
    assert!(e.contains("cannot multiply"), "{e}");
}

#[test]
fn calls_with_constant_arguments_are_evaluated_while_flattening() {
    let text = r#"
function sq input Real x; output Real y; algorithm y := x*x; end sq;
model M
  parameter Integer n = integer(sq(3));
  Real v[n];
  Real c = sq(4);
equation
  v = fill(c, n);
end M;
"#;
    let m = flatten_common::flat_model(text, Some("M"));
    assert_eq!(
        m.variables
            .iter()
            .filter(|v| v.name.starts_with("v["))
            .count(),
        9
    );
    let flat = minimo::dae::print_flat(&m);
    assert!(flat.contains("c = 16.0;"), "{flat}");
}

/// Closed bindings of locals (literal tables, as media functions declare their coefficients)
/// are evaluated once, when the function is built, and give the same results as evaluating
/// them at each call; bindings that read inputs are not.
#[test]
fn closed_local_bindings_are_evaluated_once_and_read_as_before() {
    let text = r#"
package P
  constant Real tab[3, 2] = {{1, 10}, {2, 20}, {3, -30}};
  function look
    input Integer i;
    input Real x;
    output Real y;
  protected
    Real c[:, :] = tab;
    Integer k[2] = {2, -1};
    Boolean b[2] = {true, false};
    Real s = x + 1;
  algorithm
    y := c[i, 1] + c[i, 2]*k[1] + (if b[1] and not b[2] then s else 0);
  end look;
  model M
    Real y = look(3, time);
  end M;
end P;
"#;
    let m = flatten_common::flat_model(text, Some("P.M"));
    let f = &m.functions["P.look"];
    // Index in outputs ++ locals: y, c, k, b, s.
    let vars: Vec<usize> = f.folded.iter().map(|b| b.var).collect();
    assert_eq!(vars, vec![1, 2, 3], "{:?}", f.folded);
    assert_eq!(f.folded[0].dims, vec![3, 2]);
    let y = call_function(
        &m.functions,
        "P.look",
        &[Value::scalar(Val::Int(3)), Value::real(0.5)],
    )
    .expect("look");
    assert_eq!(num(&y[0]), 3.0 - 60.0 + 1.5);
    let y = call_function(
        &m.functions,
        "P.look",
        &[Value::scalar(Val::Int(1)), Value::real(2.0)],
    )
    .expect("look");
    assert_eq!(num(&y[0]), 1.0 + 20.0 + 3.0);
}

// ---- user functions at simulation time (the tape's `Call` runs the interpreter) ----

fn simulate(text: &str, model: &str, stop: f64, set: &[&str]) -> minimo::sim::SimResult {
    use minimo::structure::{AnalyzeOptions, analyze};
    let flat = minimo::flatten::flatten_source("functions_sim.mo", text, Some(model))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = minimo::sim::SimOptions {
        stop_time: Some(stop),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        set: set.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    minimo::sim::simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

const SIM: &str = r#"
package S
  function decay "right-hand side -k*x, written as an algorithm"
    input Real x;
    input Real k;
    output Real d;
  algorithm
    d := -k*x;
  end decay;
  function cubic input Real z; output Real c; algorithm c := z^3 + z; end cubic;
  function root "square root by Newton iterations (a while loop)"
    input Real a;
    output Real x;
  algorithm
    x := max(a, 1);
    while abs(x*x - a) > 1e-14*a loop
      x := 0.5*(x + a/x);
    end while;
  end root;
  function rot "v rotated about z by phi"
    input Real v[3];
    input Real phi;
    output Real w[3];
  algorithm
    w := {cos(phi)*v[1] - sin(phi)*v[2], sin(phi)*v[1] + cos(phi)*v[2], v[3]};
  end rot;
  function power input Real x; input Integer n; output Real y;
  algorithm
    y := 1;
    for i in 1:n loop
      y := y*x;
    end for;
  end power;
  model M
    parameter Real k = 2;
    parameter Real k2 = power(k, 3) "a call in a parameter binding: 8";
    Real x(start = 1, fixed = true);
    Real s(start = 1, fixed = true);
    Real z "cubic(z) = time: an implicit equation through a function";
    Real r;
    Real w[3];
    Real p;
  equation
    der(x) = decay(x, k);
    der(s) = decay(s, k2);
    cubic(z) = time;
    r = root(1 + time);
    w = rot({1, 2, 3}, time);
    p = power(sin(time), 3);
  end M;
end S;
"#;

/// The real root of z^3 + z = t (Cardano; one real root since the cubic is increasing).
fn cubic_root(t: f64) -> f64 {
    let q = -t;
    let d = (q * q / 4.0 + 1.0 / 27.0).sqrt();
    (-q / 2.0 + d).cbrt() + (-q / 2.0 - d).cbrt()
}

#[test]
fn user_functions_simulate_against_analytic_solutions() {
    let r = simulate(SIM, "S.M", 2.0, &[]);
    let at = |n: &str, t: f64| r.value_at(n, t).unwrap_or_else(|| panic!("no {n}"));
    for &t in &[0.1, 0.5, 1.0, 1.7, 2.0] {
        // x' = -2x, s' = -8s (k2 = power(2, 3) from the parameter binding).
        assert!((at("x", t) - (-2.0 * t).exp()).abs() < 1e-6, "x at {t}");
        assert!((at("s", t) - (-8.0 * t).exp()).abs() < 1e-6, "s at {t}");
        assert!((at("z", t) - cubic_root(t)).abs() < 1e-9, "z at {t}");
        assert!((at("r", t) - (1.0 + t).sqrt()).abs() < 1e-12, "r at {t}");
        let (c, s) = (t.cos(), t.sin());
        assert!((at("w[1]", t) - (c - 2.0 * s)).abs() < 1e-12, "w[1] at {t}");
        assert!((at("w[2]", t) - (s + 2.0 * c)).abs() < 1e-12, "w[2] at {t}");
        assert!((at("w[3]", t) - 3.0).abs() < 1e-12, "w[3] at {t}");
        assert!((at("p", t) - s.powi(3)).abs() < 1e-12, "p at {t}");
    }
    // --set reaches the parameter used in the function call and the binding that calls one.
    let r = simulate(SIM, "S.M", 1.0, &["k=1"]);
    let x = r.value_at("x", 1.0).unwrap();
    let s = r.value_at("s", 1.0).unwrap();
    assert!((x - (-1f64).exp()).abs() < 1e-6, "{x}");
    assert!((s - (-1f64).exp()).abs() < 1e-6, "{s}");
}

#[test]
fn stiff_system_through_a_function_uses_its_jacobian() {
    // x' = -k x with k = 1e4 under BDF, through the function and written inline: with a correct
    // Jacobian of the call both take the same steps (a wrong one costs Newton failures and many
    // more steps; an explicit method would need ~1e4 steps).
    let through = "model T parameter Real k = 1e4; Real x(start = 1, fixed = true); equation der(x) = S.decay(x, k); end T;";
    let inline = "model T parameter Real k = 1e4; Real x(start = 1, fixed = true); equation der(x) = -k*x; end T;";
    let lib = SIM.to_string();
    let a = simulate(&format!("{lib}\n{through}"), "T", 1.0, &[]);
    let b = simulate(&format!("{lib}\n{inline}"), "T", 1.0, &[]);
    let x = a.value_at("x", 0.01).unwrap();
    assert!(x.abs() < 1e-8, "{x}");
    let (sa, sb) = (a.stats.steps, b.stats.steps);
    assert!(sa < 500, "{sa} steps");
    assert!(
        sa <= sb + sb / 5 + 5,
        "{sa} steps through the function, {sb} inline"
    );
}

#[test]
fn failing_function_at_run_time_is_explained() {
    let text = r#"
function g "fails above 0.5"
  input Real x;
  output Real y;
algorithm
  assert(x < 0.5, "x must stay below 0.5");
  y := 2*x;
end g;
model M
  Real y;
  Real z(start = 0, fixed = true);
equation
  y = g(time);
  der(z) = y;
end M;
"#;
    let text = simulation_error(text);
    assert!(text.contains("`y` became NaN"), "{text}");
    assert!(text.contains("x must stay below 0.5"), "{text}");
    // Without a state (no integrator): the same report, not NaN in the results.
    let text = text_without_state();
    assert!(text.contains("`y` became NaN at time 0.5"), "{text}");
    assert!(text.contains("x must stay below 0.5"), "{text}");
}

fn text_without_state() -> String {
    let text = r#"
function g input Real x; output Real y;
algorithm
  assert(x < 0.5, "x must stay below 0.5");
  y := 2*x;
end g;
model M Real y; equation y = g(time); end M;
"#;
    simulation_error(text)
}

/// The report of simulating model `M` of `text` to t = 1, which must fail.
fn simulation_error(text: &str) -> String {
    use minimo::structure::{AnalyzeOptions, analyze};
    let flat = minimo::flatten::flatten_source("failing_function.mo", text, Some("M"))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = minimo::sim::SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.1),
        ..Default::default()
    };
    let e = minimo::sim::simulate_analysis(&analysis, &opts).expect_err("the simulation fails");
    format!("{e:?}")
}

/// `external "builtin"` (MLS 12.9.1) naming a built-in function, called with the inputs in
/// declared order, is that built-in, in parameters and during simulation; a call that maps
/// its arguments otherwise stays a foreign call and fails with its name.
#[test]
fn external_builtin_functions_are_the_builtins() {
    let text = r#"
model B
  function mySin
    input Real x;
    output Real y;
    external "builtin" y = sin(x);
  end mySin;
  function myAtan2
    input Real u1;
    input Real u2;
    output Real y;
    external "builtin" y = atan2(u1, u2);
  end myAtan2;
  parameter Real p = mySin(0.5);
  Real z = myAtan2(time, 1.0);
end B;
"#;
    let r = flatten_common::simulate_text(text, &flatten_common::sim_options(1.0, 0.5, 1e-8))
        .unwrap_or_else(|e| panic!("{e}"));
    flatten_common::close(
        flatten_common::at(&r, "z", 1.0),
        1f64.atan2(1.0),
        1e-12,
        "z",
    );
    let p = r
        .parameters
        .iter()
        .find(|(v, _)| v.name == "p")
        .map(|(_, x)| *x);
    flatten_common::close(
        p.expect("parameter p in the result"),
        0.5f64.sin(),
        1e-12,
        "p",
    );
    let swapped = text.replace("atan2(u1, u2)", "atan2(u2, u1)");
    let e =
        match flatten_common::simulate_text(&swapped, &flatten_common::sim_options(1.0, 0.5, 1e-8))
        {
            Ok(_) => panic!("a reordered builtin call must not run"),
            Err(e) => e,
        };
    assert!(e.contains("atan2") && e.contains("cannot link"), "{e}");
}

/// A constant array of an imported package indexed by a function's own variable (the
/// Digital library's `T.X01Table[addr[i]]` in `MemoryBase.address`): the array is a constant,
/// the subscript is not. Read through a renaming import of the enclosing model and of a
/// package, with Integer, Real and enumeration-valued elements.
const TABLE_LOOKUP: &str = r#"
package Tab
  type E = enumeration(a, b, c);
  package Tables
    constant Integer t[3] = {10, 20, 30};
    constant Real m[2, 2] = [1.5, 2.5; 3.5, 4.5];
    constant E next[E] = {E.b, E.c, E.a};
  end Tables;
  package P
    import T = Tab.Tables;
    function f
      input Integer i;
      output Integer y;
    algorithm
      y := 0;
      for k in 1:i loop
        y := y + T.t[k];
      end for;
    end f;
  end P;
  partial model Base
    import T = Tab.Tables;
    function g
      input Integer i;
      input Integer j;
      input E e;
      output Real y;
    protected
      E n;
    algorithm
      n := T.next[e];
      y := T.m[i, j] + (if n == E.a then 100 else 0);
    end g;
  end Base;
  model M
    extends Base;
    Integer s = P.f(3);
    Real r = g(2, 1, E.c);
    Real q = g(1, 2, E.a);
  end M;
end Tab;
"#;

#[test]
fn constant_arrays_indexed_by_function_variables() {
    let r = flatten_common::simulate_source("tab.mo", TABLE_LOOKUP, "Tab.M");
    flatten_common::close(flatten_common::last(&r, "s"), 60.0, 0.0, "s");
    flatten_common::close(flatten_common::last(&r, "r"), 103.5, 0.0, "r");
    flatten_common::close(flatten_common::last(&r, "q"), 2.5, 0.0, "q");
}

/// A short class alias of a function (`function hl_p = BaseIF97.Regions.hl_p` in the water
/// properties): its body calls a sibling of the original (`hvl_p`) and reads a constant of the
/// original's package, names that only the original's scope knows.
const ALIAS_BODY: &str = r#"
package Sh
  package Lib
    package Inner
      constant Real c = 0.5;
      function g
        input Real x;
        output Real y;
      algorithm
        y := 2*x;
      end g;
      function f
        input Real x;
        output Real y;
      algorithm
        y := g(x) + c;
        annotation(Inline = true);
      end f;
    end Inner;
    function f = Inner.f "an alias";
  end Lib;
  model M
    Real z = Lib.f(time);
  end M;
end Sh;
"#;

#[test]
fn an_aliased_function_body_is_read_where_it_is_written() {
    let r = flatten_common::simulate_source("sh.mo", ALIAS_BODY, "Sh.M");
    flatten_common::close(flatten_common::last(&r, "z"), 2.5, 1e-12, "z");
}

/// A constant vector of records of the enclosing package indexed by a loop variable, passed
/// whole (`data[i]`) and read field by field (`props[i].k`), as an ideal-gas mixture sums
/// over its `data` and `fluidConstants`.
const RECORD_TABLE: &str = r#"
package Mix
  record Data
    String name;
    Real a;
    Real b[2];
  end Data;
  record Props
    Real k;
    Boolean critical;
  end Props;
  constant Data data[3] = {Data(name = "x", a = 1, b = {1, 0}),
                           Data(name = "y", a = 2, b = {0, 1}),
                           Data(name = "z", a = 3, b = {1, 1})};
  constant Props props[3] = {Props(k = 10, critical = true), Props(k = 20, critical = false),
                             Props(k = 30, critical = true)};
  function value
    input Data d;
    input Real t;
    output Real y;
  algorithm
    y := d.a * t + d.b[1] - d.b[2];
  end value;
  function mixture
    input Real t;
    input Real w[3];
    output Real y = 0;
  algorithm
    for i in 1:3 loop
      y := y + w[i] * value(data[i], t);
      if props[i].critical then
        y := y + props[i].k;
      end if;
    end for;
  end mixture;
  model M
    Real y = mixture(time, {1, 10, 100});
  end M;
end Mix;
"#;

#[test]
fn constant_record_vectors_indexed_by_function_variables() {
    let r = flatten_common::simulate_source("mix.mo", RECORD_TABLE, "Mix.M");
    // t = 1: 1*(1 + 1 - 0) + 10*(2 + 0 - 1) + 100*(3 + 1 - 1) + 10 + 30 = 352.
    flatten_common::close(flatten_common::last(&r, "y"), 352.0, 1e-9, "y");
}

/// A short class in a base package (`function g = f`, as `PartialMedium`'s `heatCapacity_cp =
/// specificHeatCapacityCp`) reached through a package that redeclares `f` names that
/// package's `f` (MLS 7.1: inherited elements are looked up in the derived class), not the
/// base's partial one; minimo refused it with "cannot call `P.M.Medium.g`: it is declared
/// `partial`" (13 ModelicaTest.Media.TestAllProperties models).
#[test]
fn a_short_function_alias_in_a_base_package_names_the_redeclared_function() {
    let text = "package P
  partial package Base
    replaceable partial function f
      input Real x;
      output Real y;
    end f;
    function g = f \"alias\";
  end Base;
  package Impl
    extends Base;
    redeclare function extends f
    algorithm
      y := 2*x;
    end f;
  end Impl;
  model M
    package Medium = Impl;
    Real y = Medium.g(time);
  end M;
end P;
";
    let r = flatten_common::simulate_source("p.mo", text, "P.M");
    let y = flatten_common::at(&r, "y", 1.0);
    assert!((y - 2.0).abs() < 1e-9, "y = {y}, expected 2*time = 2");
}

/// The same alias reached through a package that only modifies a record constant its
/// redeclared function reads (a NASA gas: `SingleGasNasa` redeclares
/// `specificHeatCapacityCp`, reading `data`; `CO2` extends it with its own `data`): the alias
/// is that function with the package's constant (minimo said "`data` is not a record variable
/// of this function", 4 ModelicaTest.Media.TestAllProperties models).
#[test]
fn a_short_function_alias_sees_the_constants_of_the_package_it_is_reached_through() {
    let text = "package P
  partial package Base
    replaceable partial function f
      input Real x;
      output Real y;
    end f;
    function g = f \"alias\";
  end Base;
  package Mid
    extends Base;
    record R
      Real a;
    end R;
    constant R data = R(a = 1);
    redeclare function extends f
    algorithm
      y := h(data, x);
    end f;
  end Mid;
  function h
    input Mid.R d;
    input Real x;
    output Real y;
  algorithm
    y := d.a*x;
  end h;
  package Leaf
    extends Mid(data = R(a = 3));
  end Leaf;
  model M
    package Medium = Leaf;
    Real y = Medium.g(time);
  end M;
end P;
";
    let r = flatten_common::simulate_source("p.mo", text, "P.M");
    let y = flatten_common::at(&r, "y", 1.0);
    assert!((y - 3.0).abs() < 1e-9, "y = {y}, expected data.a*time = 3");
}

/// An alias with a modifier (`function g = f(k = 2)` in the base package) reached through a
/// package that redeclares `f`: the package's `f` with the alias's modifier
/// (`derived_view::short_view`); minimo refused it as partial before.
#[test]
fn a_function_alias_with_a_modifier_names_the_redeclared_function() {
    let text = "package P
  partial package Base
    replaceable partial function f
      input Real x;
      input Real k = 1;
      output Real y;
    end f;
    function g = f(k = 2) \"alias with a modifier\";
  end Base;
  package Impl
    extends Base;
    redeclare function extends f
    algorithm
      y := k*x;
    end f;
  end Impl;
  model M
    package Medium = Impl;
    Real y = Medium.g(time);
  end M;
end P;
";
    let r = flatten_common::simulate_source("p.mo", text, "P.M");
    let y = flatten_common::at(&r, "y", 1.0);
    assert!((y - 2.0).abs() < 1e-9, "y = {y}, expected k*time = 2");
}

/// A long sum in a function body is typed once per operand: operator-record resolution typed
/// both operands of each `+` again after asking whether they were records, so a sum of n
/// terms took 2^n steps (MSL's ReferenceAir polynomials never finished flattening).
#[test]
fn a_long_sum_in_a_function_flattens_at_once() {
    let terms: Vec<String> = (1..=48).map(|k| format!("{k}.5*x^{k}")).collect();
    let src = format!(
        "function poly input Real x; output Real y; algorithm y := {}; end poly;\n\
         model M Real y = poly(time); end M;",
        terms.join(" + ")
    );
    let flat = flatten_common::flat_model(&src, Some("M"));
    let y = call_function(&flat.functions, "poly", &[Value::real(1.0)]).expect("runs");
    let want: f64 = (1..=48).map(|k| k as f64 + 0.5).sum();
    assert!((num(&y[0]) - want).abs() < 1e-9, "{} vs {want}", num(&y[0]));
}
