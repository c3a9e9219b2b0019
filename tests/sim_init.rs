//! Initialization (MLS 8.6) from model text: initial equations on algebraic variables,
//! `initial algorithm`, parameters with `fixed = false`, steady state `der(x) = 0`, `fixed`
//! starts of non-states, and over-/under-determined initial systems reported by name.
//! Every trajectory is compared with its analytic solution.

use minimo::sim::{SimOptions, SimResult, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

fn run(text: &str, stop: f64) -> Result<SimResult, String> {
    let flat = minimo::flatten::flatten_source("init.mo", text, None)?;
    let analysis = analyze(flat, &AnalyzeOptions::default()).map_err(|e| format!("{e:?}"))?;
    let opts = SimOptions {
        stop_time: Some(stop),
        interval: Some(0.01),
        tolerance: Some(1e-9),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).map_err(|e| format!("{e:?}"))
}

fn ok(text: &str, stop: f64) -> SimResult {
    run(text, stop).unwrap_or_else(|e| panic!("{e}"))
}

fn at(r: &SimResult, name: &str, t: f64) -> f64 {
    r.value_at(name, t)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn param(r: &SimResult, name: &str) -> f64 {
    r.parameters
        .iter()
        .find(|(v, _)| v.name == name)
        .map(|(_, x)| *x)
        .unwrap_or_else(|| panic!("no parameter {name}"))
}

#[test]
fn initial_equation_on_an_algebraic_variable() {
    // y = 2x, y(0) = 4 => x = 2 exp(-t).
    let r = ok(
        "model M Real x; Real y; equation der(x) = -x; y = 2*x; initial equation y = 4; end M;",
        2.0,
    );
    for t in [0.0, 0.5, 2.0] {
        assert!((at(&r, "x", t) - 2.0 * (-t).exp()).abs() < 1e-6, "t = {t}");
    }
}

#[test]
fn fixed_start_of_an_algebraic_variable_is_an_initial_equation() {
    // MLS 8.6: fixed = true on a non-state means y = start(y) at the start: x(0) = 1.5.
    let r = ok(
        "model M Real x(start = 0); Real y(start = 3, fixed = true); equation der(x) = -x; y = 2*x; end M;",
        1.0,
    );
    for t in [0.0, 1.0] {
        assert!((at(&r, "x", t) - 1.5 * (-t).exp()).abs() < 1e-6, "t = {t}");
    }
    // Not an alias: y = x^2 with y(0) = 4 from x's start 1 gives x(0) = 2 (Newton).
    let r = ok(
        "model M Real x(start = 1); Real y(start = 4, fixed = true); equation der(x) = -x; y = x^2; end M;",
        1.0,
    );
    for t in [0.0, 1.0] {
        assert!((at(&r, "x", t) - 2.0 * (-t).exp()).abs() < 1e-6, "t = {t}");
    }
    // Consistent with the fixed state: accepted; inconsistent: named.
    ok(
        "model M Real x(start = 1.5, fixed = true); Real y(start = 3, fixed = true); equation der(x) = -x; y = 2*x; end M;",
        0.1,
    );
    let e = run(
        "model M Real x(start = 1, fixed = true); Real y(start = 3, fixed = true); equation der(x) = -x; y = 2*x; end M;",
        0.1,
    )
    .unwrap_err();
    assert!(
        e.contains("over-specified") && e.contains("`y` has fixed = true"),
        "{e}"
    );
}

#[test]
fn initial_algorithm() {
    // x'' = -x with x(0) = 3, x'(0) = 1 => x = 3 cos t + sin t.
    let r = ok(
        "model M Real x; Real v; equation der(x) = v; der(v) = -x;
         initial algorithm x := 3; v := x / 3; end M;",
        2.0,
    );
    for t in [0.0f64, 1.0, 2.0] {
        let exact = 3.0 * t.cos() + t.sin();
        assert!((at(&r, "x", t) - exact).abs() < 1e-6, "t = {t}");
    }
}

#[test]
fn initial_algorithm_whose_order_matters_is_executed_in_order() {
    // MLS 11.1.2: a variable read before the section assigns it has its start value (x: 0),
    // so v = 0; x then becomes 3. x'' = -x, x(0) = 3, x'(0) = 0 => x = 3 cos t.
    let r = ok(
        "model M Real x; Real v; equation der(x) = v; der(v) = -x;
         initial algorithm v := x / 3; x := 3; end M;",
        1.0,
    );
    for t in [0.0f64, 1.0] {
        assert!((at(&r, "x", t) - 3.0 * t.cos()).abs() < 1e-6, "t = {t}");
    }
    // The last assignment wins: x = 2 exp(-t).
    let r = ok(
        "model M Real x; equation der(x) = -x; initial algorithm x := 1; x := 2; end M;",
        1.0,
    );
    assert!((at(&r, "x", 1.0) - 2.0 * (-1.0f64).exp()).abs() < 1e-6);
    // `if` statements, one decided by a parameter, one by a value of the initial system, and
    // a parameter with fixed = false found by a loop and then used as a subscript at run time:
    // k = 3 x(0) = 3, ind = 2, so x = exp(-6 t).
    let r = ok(
        "model M
           parameter Integer codes[3] = {7, 9, 4};
           parameter Integer want = 9;
           parameter Integer ind(fixed = false);
           parameter Real k(fixed = false);
           parameter Real w[3] = {10, 1, 100};
           Real x(start = 1, fixed = true);
         initial algorithm
           ind := -1;
           for i in 1:3 loop
             if codes[i] == want then
               ind := i;
             end if;
           end for;
           k := 2;
           if x > 0.5 then
             k := 3*x;
           end if;
         equation
           der(x) = -k*x*ind*w[ind];
         end M;",
        1.0,
    );
    assert_eq!(param(&r, "ind"), 2.0);
    assert!((param(&r, "k") - 3.0).abs() < 1e-12);
    assert!((at(&r, "x", 0.5) - (-3.0f64).exp()).abs() < 1e-6);
}

#[test]
fn an_initial_equation_that_determines_nothing_is_checked_not_counted() {
    // `y = 2` where y is given by the model (y = 2 for all t): redundant and consistent; the
    // state x is still fixed by its own initial equation.
    let r = ok(
        "model M parameter Real p = 2; Real y; Real x;
         equation y = p; der(x) = -x;
         initial equation y = 2; x = 5; end M;",
        1.0,
    );
    assert!((at(&r, "x", 1.0) - 5.0 * (-1.0f64).exp()).abs() < 1e-6);
    // Inconsistent: an error naming the equation.
    let e = run(
        "model M parameter Real p = 2; Real y; Real x;
         equation y = p; der(x) = -x;
         initial equation y = 3; x = 5; end M;",
        1.0,
    )
    .unwrap_err();
    assert!(
        e.contains("initial equation 1 in `M` determines no unknown and does not hold"),
        "{e}"
    );
}

#[test]
fn parameter_with_fixed_false_is_determined_by_an_initial_equation() {
    // der(x)(0) = -2 with x(0) = 1 and der(x) = -k x gives k = 2: x = exp(-2t).
    let r = ok(
        "model M parameter Real k(fixed = false, start = 1); Real x(start = 1, fixed = true);
         equation der(x) = -k*x; initial equation der(x) = -2; end M;",
        1.0,
    );
    assert!(
        (param(&r, "k") - 2.0).abs() < 1e-9,
        "k = {}",
        param(&r, "k")
    );
    for t in [0.5, 1.0] {
        assert!((at(&r, "x", t) - (-2.0 * t).exp()).abs() < 1e-6, "t = {t}");
    }
    // Without an equation for it: under-determined, named.
    let e = run(
        "model M parameter Real k(fixed = false); Real x(start = 1, fixed = true);
         equation der(x) = -k*x; end M;",
        1.0,
    )
    .unwrap_err();
    assert!(
        e.contains("under-determined") && e.contains("parameters to determine: k"),
        "{e}"
    );
}

#[test]
fn steady_state_initialization() {
    // der(x) = 8 - x^3 from der(x) = 0: x stays at 2 (Newton from the start value 1).
    let r = ok(
        "model M Real x(start = 1); equation der(x) = 8 - x^3; initial equation der(x) = 0; end M;",
        1.0,
    );
    for t in [0.0, 0.5, 1.0] {
        assert!((at(&r, "x", t) - 2.0).abs() < 1e-8, "t = {t}");
    }
    // A damped oscillator started at rest under a constant force: x = F/k for all t.
    let r = ok(
        "model M parameter Real k = 4; parameter Real F = 2; Real x; Real v;
         equation der(x) = v; der(v) = F - k*x - v;
         initial equation der(x) = 0; der(v) = 0; end M;",
        1.0,
    );
    assert!((at(&r, "x", 1.0) - 0.5).abs() < 1e-8);
    assert!(at(&r, "v", 1.0).abs() < 1e-8);
}

#[test]
fn initial_derivative_of_a_variable_the_equations_never_differentiate() {
    // `w = der(phi)` is algebraic, yet `der(w)` is given at the start (MSL InitializeFlange):
    // der(w) = der(v) = -phi, so phi(0) = -0.5 and phi = -0.5 cos(t), w = 0.5 sin(t).
    let r = ok(
        "model M Real phi; Real v; Real w; equation der(phi) = v; der(v) = -phi; w = der(phi);
         initial equation v = 0; der(w) = 0.5; end M;",
        2.0,
    );
    for t in [0.0, 1.0, 2.0] {
        assert!((at(&r, "phi", t) + 0.5 * t.cos()).abs() < 1e-6, "t = {t}");
        assert!((at(&r, "w", t) - 0.5 * t.sin()).abs() < 1e-6, "t = {t}");
    }
    // The same of an expression of an algebraic variable: y = phi^2, der(2*y) = 4 phi v.
    let r = ok(
        "model M Real phi; Real v; Real y; equation der(phi) = v; der(v) = -phi; y = phi^2;
         initial equation phi = 1; der(2*y) = 2; end M;",
        1.0,
    );
    // 4 phi(0) v(0) = 2 gives v(0) = 0.5: phi = cos(t) + 0.5 sin(t).
    for t in [0.0, 1.0] {
        assert!(
            (at(&r, "phi", t) - (t.cos() + 0.5 * t.sin())).abs() < 1e-6,
            "t = {t}"
        );
    }
}

#[test]
fn over_determined_initial_system_names_equations_and_states() {
    let e = run(
        "model M Real x(start = 1, fixed = true); equation der(x) = -x; initial equation x = 2; end M;",
        1.0,
    )
    .unwrap_err();
    assert!(e.contains("over-specified"), "{e}");
    assert!(e.contains("initial equation 1 in `M`"), "{e}");
    assert!(e.contains("states with fixed = true: x"), "{e}");
}

#[test]
fn singular_initial_system_names_the_variable() {
    // Two equations on x only; v has no initial condition but the count matches.
    let e = run(
        "model M Real x(start = 0); Real v(start = 0); equation der(x) = v; der(v) = -x;
         initial equation x = 1; 2*x = 2; end M;",
        1.0,
    )
    .unwrap_err();
    assert!(
        e.contains("singular initial system") || e.contains("over-specified"),
        "{e}"
    );
}

#[test]
fn initial_system_solved_block_by_block_from_a_start_where_it_cannot_be_evaluated() {
    // A tank whose states are its mass and enthalpy, initialized by its level and temperature
    // (FluidHeatFlow's OpenTank). At the start point m = H = 0 the main pass computes
    // h = H/m = NaN, so Newton on both unknowns at once had no Jacobian ("singular initial
    // system"). Sorted, `level = 0.9` gives m first, then `T = 300` gives H.
    // m = 1.8 exp(-t); H carries h out with the mass, so T stays 300.
    let r = ok(
        "model Tank
           parameter Real rho = 2;
           parameter Real cp = 3;
           Real m;
           Real H;
           Real h;
           Real level(start = 0.9, fixed = true);
           Real T(start = 300, fixed = true);
         equation
           m = rho*level;
           der(m) = -m;
           H = m*h;
           der(H) = -m*h;
           T = h/cp;
         end Tank;",
        1.0,
    );
    for t in [0.0, 0.5, 1.0] {
        let m = at(&r, "m", t);
        assert!((m - 1.8 * (-t).exp()).abs() < 1e-4, "m({t}) = {m}");
        let temp = at(&r, "T", t);
        assert!((temp - 300.0).abs() < 1e-6, "T({t}) = {temp}");
    }
}

#[test]
fn badly_scaled_unknown_gets_a_difference_step_of_its_nominal_size() {
    // An enthalpy H (nominal 1e6, starting at 0) with T = H/(m*cp), dT/dH = 2.5e-7, and the
    // initial equation T = 300. A difference step of 1e-7 in H changed T by 2.5e-14, below
    // half the rounding unit of the residual T - 300: the Jacobian column came out zero and the
    // system was reported singular. Scaled to the nominal the step resolves it:
    // H = 300*m*cp = 1.2e9.
    let r = ok(
        "model M parameter Real m = 4; parameter Real cp = 1e6; \
         Real H(start = 0, nominal = 1e6); Real T; \
         equation der(H) = -1e-3*H; T = H/(m*cp); \
         initial equation T = 300; end M;",
        1.0,
    );
    assert!(
        (at(&r, "T", 0.0) - 300.0).abs() < 1e-6,
        "T(0) = {}",
        at(&r, "T", 0.0)
    );
    assert!(
        (at(&r, "H", 0.0) - 1.2e9).abs() < 1e-2,
        "H(0) = {}",
        at(&r, "H", 0.0)
    );
    let expect = 300.0 * (-1e-3f64).exp();
    assert!(
        (at(&r, "T", 1.0) - expect).abs() < 1e-5,
        "T(1) = {}",
        at(&r, "T", 1.0)
    );
}

#[test]
fn relations_settle_before_a_loop_reading_an_unused_branch_fails() {
    // The shape of a SPICE pulse source with the default width `inf`: the last phase
    // divides by `Tf - Tw`, which is 0 in floating point. The first pass at initialization
    // runs before `time < TD` has its value, so it takes that branch, and the linear loop
    // reading `u` saw an infinite residual and stopped the run. At t = 0 the relation holds:
    // u = 1, a = 3b, 2a + b = 1 => b = 1/7; x' = a - x = 3/7 - 6x/7 => x = (1 - exp(-6t/7))/2.
    let r = ok(
        "model M
           parameter Real TD = 0.5;
           parameter Real W = 1e308;
           parameter Real Tw = 0.1 + W;
           parameter Real Tf = Tw + 0.1;
           parameter Real p1 = 2, p2 = 3;
           Real u = if time < TD then 1 else (Tf - time)/(Tf - Tw);
           Real x(start = 0, fixed = true);
           Real a, b;
         equation
           p1*a + b = u;
           a - p2*b = x;
           der(x) = a - x;
         end M;",
        0.4,
    );
    assert!((at(&r, "b", 0.0) - 1.0 / 7.0).abs() < 1e-12);
    for t in [0.0f64, 0.2, 0.4] {
        let x = 0.5 * (1.0 - (-6.0 * t / 7.0).exp());
        assert!((at(&r, "x", t) - x).abs() < 1e-6, "t = {t}");
    }
}

/// An initial equation between quantities of size 3e7 (a pressure): its residual cannot get
/// below the rounding of its terms (about 4e-9 here), far above an absolute 1e-11. Newton's
/// steps at round-off are accepted; the solution satisfies the equation to that rounding.
/// A system with no solution is still refused (the residual stays large).
#[test]
fn an_initial_residual_at_the_rounding_of_large_terms_is_converged() {
    let model = r#"model RoundOff
  parameter Real p0 = 3.3e7;
  parameter Real T0 = 301.7;
  parameter Real V = 0.37;
  parameter Real R = 287.05;
  Real m(start = 1);
  Real T(start = 300);
  Real p;
equation
  der(m) = 0.01;
  der(T) = 1;
  p = m^1.3 * R * T / V + 1e3 * sin(m);
initial equation
  p = p0;
  T = T0;
end RoundOff;
"#;
    let r = ok(model, 0.1);
    let (m, t) = (at(&r, "m", 0.0), at(&r, "T", 0.0));
    let p = m.powf(1.3) * 287.05 * t / 0.37 + 1e3 * m.sin();
    assert!((p - 3.3e7).abs() < 1e-7, "p(0) = {p}");
    assert!((t - 301.7).abs() < 1e-12);
    // No real m gives a negative pressure: still an error.
    let e = run(&model.replace("p0 = 3.3e7", "p0 = -3.3e7"), 0.1).unwrap_err();
    assert!(
        e.contains("could not be solved") || e.contains("singular"),
        "{e}"
    );
}

/// `y = g(m)` with `g` even in `m` (a heat transfer correlation of `abs(m_flow)`): roots at
/// `±m`. The first pass at the start reads `time < 1` as its placeholder (false), solves the
/// loop for the later target and lands far away; from there Newton overshoots past zero.
const EVEN_LOOP: &str = "model M
  function g
    input Real x;
    output Real y;
  protected
    Real Re = 12711*abs(x);
  algorithm
    y := 0.1565*max(1, abs(Re^0.87 - 280));
  end g;
  Real m(start = 0.1);
  Real y = 190.5 + (if time < 1 then 0 else 6667);
equation
  y = g(m);
end M;";

#[test]
fn a_loop_starts_from_its_start_value_once_the_relations_are_set() {
    // MLS 8.6: the start value is Newton's guess, so the root on its side is taken.
    let r = ok(EVEN_LOOP, 2.0);
    assert!(
        (at(&r, "m", 0.0) - 0.35122439).abs() < 1e-6,
        "{}",
        at(&r, "m", 0.0)
    );
    assert!(
        (at(&r, "m", 2.0) - 17.148714).abs() < 1e-4,
        "{}",
        at(&r, "m", 2.0)
    );
    // A loop whose guess from the placeholder pass is too far to converge from at all.
    let r = ok(
        "model M
  function g input Real x; output Real y; algorithm y := sqrt(abs(x)); end g;
  Real m(start = 0.1);
  Real y = if time < 1 then 1 else 100;
equation
  y = g(m);
end M;",
        2.0,
    );
    assert!(
        (at(&r, "m", 0.0) - 1.0).abs() < 1e-6,
        "{}",
        at(&r, "m", 0.0)
    );
    assert!(
        (at(&r, "m", 2.0) - 1e4).abs() < 1e-3,
        "{}",
        at(&r, "m", 2.0)
    );
}

#[test]
fn unknowns_the_initial_equations_leave_undetermined_keep_their_start_values() {
    // A wheel at rest whose angular acceleration is quadratic in its speed: `w = 0` and
    // `der(w) = 0` hold for every angle, so the initial equations do not determine `phi`
    // (MultiBody's FreeMotionScalarInit4 with three angles). Newton's first step from
    // `w = 0.01` (or 1e-8, where the Jacobian is singular but for rounding) moved `phi` by
    // about tan(phi) (to 1.54, or 2.80) without a word; MLS 8.6 lets the start value complete
    // the system, which is also what Dymola keeps there.
    for w0 in ["0.01", "1e-8"] {
        let model = format!(
            "model W
               Real phi(start = 0.7);
               Real w(start = {w0});
               Real x(start = 0.5);
               Real v(start = 0, fixed = true);
             equation
               der(phi) = w;
               der(w) = -w^2*sin(phi);
               der(x) = v;
               der(v) = -100*x + 10;
             initial equation
               w = 0;
               der(w) = 0;
               der(v) = 0;
             end W;"
        );
        let r = ok(&model, 0.1);
        assert!(
            (at(&r, "phi", 0.0) - 0.7).abs() < 1e-12,
            "phi from w = {w0}"
        );
        assert!(at(&r, "w", 0.0).abs() < 1e-9, "w from w = {w0}");
        assert!((at(&r, "x", 0.0) - 0.1).abs() < 1e-9, "x from w = {w0}");
        assert!(
            r.messages
                .iter()
                .any(|m| m.contains("do not determine phi") && m.contains("start values kept")),
            "{:?}",
            r.messages
        );
    }
}

/// A steady state whose residual cannot reach an absolute 1e-8: `der(p) = k*(m_in - m_out)`
/// with `k = 1e9` (a liquid volume: net inflow over `V*d(rho)/dp`) changes by about 1e4 Pa/s
/// per Pa, so the pressure known to its last bit (3e-11 Pa at 1.3e5) still leaves a residual
/// near 1e-7. Newton's step is at round-off there; the residual is judged against what such a
/// step moves it by, not against a fixed number ("residual 2.8e-8 remains" before).
#[test]
fn a_stiff_steady_state_converges_at_round_off() {
    let r = ok(
        "model M
           parameter Real k = 1e9;
           Real p(start = 1e5);
           Real m_in = (2e5 - p)/3e5;
           Real m_out = 0.7*(p - 1e5)/1e5;
         equation
           der(p) = k*(m_in - m_out);
         initial equation
           der(p) = 0;
         end M;",
        1.0,
    );
    let p = (2.0 / 3.0 + 0.7) / (1.0 / 3e5 + 0.7 / 1e5);
    for t in [0.0, 1.0] {
        assert!((at(&r, "p", t) - p).abs() < 1e-9 * p, "t = {t}");
    }
}

/// A parameter with `fixed = false` that an initial algorithm computes from parameters only
/// (the index of a substance in MSL's trace substance sensors) is known before the first pass
/// of the equations: that pass reads it as a subscript inside an algebraic loop, where its
/// start value 0 is out of bounds ("residual became NaN" at time 0 before).
#[test]
#[ignore = "open: setting such unknowns before the first pass (980d0fb, reverted) changed MSL SMEE_Rectifier's initial point at round-off and its diode bridge then chattered at t = 0.565"]
fn a_fixed_false_index_from_parameters_is_known_before_the_first_pass() {
    let r = ok(
        "model M
           parameter Real c[2] = {2, 3};
           parameter Integer k = 2;
           parameter Integer ind(fixed = false);
           Real x(start = 1, fixed = true);
           Real y;
         initial algorithm
           ind := -1;
           for i in 1:2 loop
             if i == k then
               ind := i;
             end if;
           end for;
         equation
           y + 0.1*sin(y) = c[ind]*x;
           der(x) = -y;
         end M;",
        0.5,
    );
    assert_eq!(param(&r, "ind"), 2.0);
    for t in [0.0, 0.5] {
        let (x, y) = (at(&r, "x", t), at(&r, "y", t));
        assert!((y + 0.1 * y.sin() - 3.0 * x).abs() < 1e-8, "t = {t}");
    }
}
