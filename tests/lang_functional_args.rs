//! Functional input arguments (MLS 12.4.2): a function name or a partial application
//! `function f(k = 2)` passed to an input of function type. Results are compared with
//! integrals and roots worked out by hand.

mod flatten_common;
use flatten_common::{
    at, close, err, last, msl_library, sim_options, simulate_source, simulate_text,
    simulate_with_library, write_model,
};

const QUADRATURE: &str = "
  partial function Integrand
    input Real x;
    output Real y;
  end Integrand;
  function simpson \"Composite Simpson rule: exact for cubics\"
    input Integrand f;
    input Real a;
    input Real b;
    input Integer n = 4;
    output Real s;
  protected
    Real h = (b - a) / (2 * n);
  algorithm
    s := f(a) + f(b);
    for i in 1:2 * n - 1 loop
      s := s + (if mod(i, 2) == 1 then 4 else 2) * f(a + i * h);
    end for;
    s := s * h / 3;
  end simpson;
  function halves \"Passes its functional input on\"
    input Integrand g;
    input Real a;
    input Real b;
    output Real s = simpson(g, a, (a + b) / 2) + simpson(g, (a + b) / 2, b);
  end halves;
  function square
    extends Integrand;
  algorithm
    y := x * x;
  end square;
  function cubic
    extends Integrand;
    input Real c;
    input Real d = 1;
  algorithm
    y := c * x ^ 3 + d * x;
  end cubic;
";

fn model(decls: &str, body: &str) -> String {
    format!("model M\n{QUADRATURE}\n{decls}\nequation\n{body}\nend M;\n")
}

/// A function name and a partial application whose bound value changes in time: the
/// integral of `c x^3 + x` over [0, 2] is `4 c + 2`.
#[test]
fn function_names_and_partial_applications_are_passed() {
    let text = model(
        "  Real sq;\n  Real i;\n  Real j;",
        "  sq = simpson(square, 0, 3);
  i = simpson(function cubic(c = 1 + time), 0, 2);
  j = simpson(b = 2, f = function cubic(d = 3, c = 2 * time), a = 0);",
    );
    let r = simulate_text(&text, &sim_options(1.0, 0.25, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=4 {
        let t = 0.25 * f64::from(k);
        close(at(&r, "sq", t), 9.0, 1e-12, "sq");
        close(at(&r, "i", t), 4.0 * (1.0 + t) + 2.0, 1e-12, "i");
        close(at(&r, "j", t), 4.0 * (2.0 * t) + 6.0, 1e-12, "j");
    }
}

/// A functional input passed on inside a function body keeps the values its partial
/// application bound; a partial application in a model algorithm reads a `for` index.
#[test]
fn a_functional_input_is_passed_on_with_its_bound_values() {
    let text = format!(
        "model M\n{QUADRATURE}\n  Real h;\n  Real s;\nalgorithm\n  h := halves(function cubic(c = time), 0, 2);\n  s := 0;\n  for k in 1:3 loop\n    s := s + simpson(function cubic(c = k), 0, 1);\n  end for;\nend M;\n"
    );
    let r = simulate_text(&text, &sim_options(1.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=2 {
        let t = 0.5 * f64::from(k);
        close(at(&r, "h", t), 4.0 * t + 2.0, 1e-12, "h");
    }
    // Sum over k of (k/4 + 1/2).
    close(last(&r, "s"), 6.0 / 4.0 + 1.5, 1e-12, "s");
}

/// A partial application binding the first inputs, passed by name: the call's positional
/// argument goes to the input left free (MLS 12.4.2.1).
#[test]
fn positional_arguments_fill_the_inputs_left_free() {
    let text = model(
        "  function lin\n    input Real a;\n    input Real x;\n    output Real y = a * x;\n  end lin;\n  Real v;",
        "  v = simpson(a = 0, b = 2, f = function lin(a = 3 + time));",
    );
    let r = simulate_text(&text, &sim_options(1.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=2 {
        let t = 0.5 * f64::from(k);
        close(at(&r, "v", t), 2.0 * (3.0 + t), 1e-12, "v");
    }
}

/// Bisection with a functional input: the root of `u^2 - p` is `sqrt(p)`.
#[test]
fn a_root_finder_takes_the_function_to_solve() {
    let text = "model M
  partial function F
    input Real u;
    output Real y;
  end F;
  function shifted
    extends F;
    input Real p;
  algorithm
    y := u * u - p;
  end shifted;
  function bisect
    input F f;
    input Real lo;
    input Real hi;
    output Real u;
  protected
    Real a = lo;
    Real b = hi;
  algorithm
    while b - a > 1e-13 loop
      u := (a + b) / 2;
      if f(a) * f(u) <= 0 then
        b := u;
      else
        a := u;
      end if;
    end while;
    u := (a + b) / 2;
  end bisect;
  parameter Real p = 2;
  Real r = bisect(function shifted(p = p + time), 0, 4);
end M;
";
    let r = simulate_text(text, &sim_options(1.0, 0.5, 1e-6)).unwrap_or_else(|e| panic!("{e}"));
    for k in 0..=2 {
        let t = 0.5 * f64::from(k);
        close(at(&r, "r", t), (2.0 + t).sqrt(), 1e-12, "r");
    }
}

/// A record bound by a partial application (the MSL ideal gases' `function f_nonlinear(data =
/// data, h = h)`), in a function body and in a model: the root of `a T + b T^3 = h` for
/// `a = 2`, `b = 0.5` is 1 at h = 2.5 and `T` with `2 T + T^3 / 2 = 2 + t` in general.
#[test]
fn a_record_input_is_bound_by_a_partial_application() {
    let text = "package P
  record Data
    Real a;
    Real b;
  end Data;
  partial function Base
    input Real u;
    output Real y;
  end Base;
  function solve
    input Base f;
    input Real lo;
    input Real hi;
    output Real u;
  protected
    Real a = lo, b = hi, m;
  algorithm
    for i in 1:80 loop
      m := (a + b)/2;
      if f(a)*f(m) <= 0 then b := m; else a := m; end if;
    end for;
    u := (a + b)/2;
  end solve;
  function g
    extends Base;
    input Data d;
    input Real h;
  algorithm
    y := d.a*u + d.b*u^3 - h;
  end g;
  function T_h
    input Real h;
    input Data d;
    output Real T;
  algorithm
    T := solve(function g(d = d, h = h), 0, 10);
  end T_h;
  model M
    constant Data data = Data(a = 2, b = 0.5);
    Real T = T_h(2 + time, data);
    Real direct = solve(function g(d = Data(a = 2, b = 0.5), h = 2 + time), 0, 10);
    Real check = data.a*T + data.b*T^3;
  end M;
end P;
";
    let r = simulate_source("p.mo", text, "P.M");
    for k in 0..=4 {
        let t = 0.25 * f64::from(k);
        close(at(&r, "check", t), 2.0 + t, 1e-12, "check");
        close(at(&r, "direct", t), at(&r, "T", t), 1e-12, "direct");
    }
    close(at(&r, "T", 0.5), 1.0, 1e-12, "T");
}

/// `T_hX` of two MSL gas mixtures: a function each medium package inherits, whose protected
/// `f_nonlinear` reads the package's `data` (unbound in the base `MixtureGasNasa`), passed to
/// the root finder by a partial application. Each medium gets its own specialization with its
/// own data, and inverts its own `h_TX`: T comes back as 300 + 100 t.
#[test]
fn msl_gas_mixtures_invert_their_enthalpy_with_their_own_data() {
    let Some(lib) = msl_library() else {
        return;
    };
    let text = "model G
  package A = Modelica.Media.IdealGases.MixtureGases.FlueGasLambdaOnePlus;
  package B = Modelica.Media.IdealGases.MixtureGases.FlueGasSixComponents;
  Real hA = A.h_TX(300 + 100*time, {0.7, 0.1, 0.1, 0.1});
  Real TA = A.T_hX(hA, {0.7, 0.1, 0.1, 0.1});
  Real hB = B.h_TX(300 + 100*time, {0.5, 0.1, 0.1, 0.1, 0.1, 0.1});
  Real TB = B.T_hX(hB, {0.5, 0.1, 0.1, 0.1, 0.1, 0.1});
end G;
";
    let path = write_model("gas_mixtures", "G.mo", text);
    let t = simulate_with_library(
        &lib,
        &[
            path.to_str().expect("path"),
            "--stop-time",
            "1",
            "--interval",
            "0.5",
        ],
    );
    let (ta, tb, ha, hb) = (t.col("TA"), t.col("TB"), t.col("hA"), t.col("hB"));
    for (k, v) in t.rows.iter().enumerate() {
        let want = 300.0 + 50.0 * k as f64;
        close(v[ta], want, 1e-9, "TA");
        close(v[tb], want, 1e-9, "TB");
        // Different compositions and data: different enthalpies.
        assert!((v[ha] - v[hb]).abs() > 1e3, "hA {} hB {}", v[ha], v[hb]);
    }
}

/// A function whose inputs do not fit the functional input's type is refused (MLS 6.4), as
/// is a value that is not a function.
#[test]
fn functions_that_do_not_fit_are_refused() {
    let text = model(
        "  function other\n    input Real z;\n    output Real y = z;\n  end other;\n  Real v;",
        "  v = simpson(other, 0, 1);",
    );
    let e = err(&text, Some("M"));
    assert!(e.contains("does not fit the function type"), "{e}");
    let text = model("  Real v;", "  v = simpson(1.0, 0, 1);");
    let e = err(&text, Some("M"));
    assert!(
        e.contains("a functional input needs a function name"),
        "{e}"
    );
}

/// `Modelica.Math.Nonlinear.Examples.QuadratureLobatto3`: `x = s q` where the parameter `s`
/// is the integral of `A sin(ws u)` over [0, 1], `(1 - cos 2) / 2` for `A = 1`, `ws = 2`.
#[test]
fn msl_quadrature_lobatto_in_a_model() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Math.Nonlinear.Examples.QuadratureLobatto3",
            "--stop-time",
            "1",
        ],
    );
    let (q, x) = (t.col("q"), t.col("x"));
    let want = (1.0 - 2f64.cos()) / 2.0;
    for v in &t.rows {
        close(v[x], want * v[q], 1e-9, "x");
    }
}

/// `Modelica.Math.Nonlinear.solveOneNonlinearEquation` and `quadratureLobatto` called from a
/// model with the MSL's utility functions: the root of `u^2 - 1` in [0, 1.5] is 1, the root
/// of `3u - sin(w u) - 1` leaves no residual, and the integral of `sin` over [0, pi] is 2.
#[test]
fn msl_nonlinear_solver_and_quadrature_in_a_model() {
    let Some(lib) = msl_library() else {
        return;
    };
    let text = "model S
  Real u1 = Modelica.Math.Nonlinear.solveOneNonlinearEquation(function Modelica.Math.Nonlinear.Examples.UtilityFunctions.fun1(), 0, 1.5);
  Real u2 = Modelica.Math.Nonlinear.solveOneNonlinearEquation(function Modelica.Math.Nonlinear.Examples.UtilityFunctions.fun2(w = 3 + time), 0, 5);
  Real r2 = 3*u2 - sin((3 + time)*u2) - 1;
  Real i1 = Modelica.Math.Nonlinear.quadratureLobatto(function Modelica.Math.Nonlinear.Examples.UtilityFunctions.fun4(), 0, Modelica.Constants.pi);
end S;
";
    let path = write_model("nonlinear", "S.mo", text).display().to_string();
    let t = simulate_with_library(&lib, &[&path, "--stop-time", "1", "--interval", "0.5"]);
    assert_eq!(t.head, ["time", "u1", "u2", "r2", "i1"]);
    for v in &t.rows {
        close(v[1], 1.0, 1e-10, "u1");
        assert!(v[2] > 0.0 && v[2] < 5.0, "u2 = {}", v[2]);
        close(v[3], 0.0, 1e-10, "r2");
        close(v[4], 2.0, 1e-10, "i1");
    }
    let rows = t.rows.len();
    assert_eq!(rows, 3);
}
