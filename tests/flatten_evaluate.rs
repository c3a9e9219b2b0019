//! Parameters evaluated at translation (MLS 18.3, `annotation(Evaluate = true)`): their values
//! are substituted into the equations and the zero terms vanish before structural analysis (a
//! capacitor with `C = 0` is an open branch, its voltage no state), and `--set` of such a
//! parameter is refused instead of silently simulating the structure of the old value.

mod flatten_common;
use flatten_common::flat_model;
use minimo::sim::{SimOptions, SimResult, simulate_analysis};
use minimo::structure::{Analysis, AnalyzeOptions, analyze};

/// A sine source, `R1` in series, then `C` parallel to `R2` to ground. `CapVal` is the
/// capacitance, evaluated at translation; the capacitor takes it by a final modifier.
fn divider(cap_val: &str) -> String {
    format!(
        r#"
connector Pin
  Real v;
  flow Real i;
end Pin;
model TwoPin
  Pin p;
  Pin n;
  Real v;
  Real i;
equation
  v = p.v - n.v;
  0 = p.i + n.i;
  i = p.i;
end TwoPin;
model Resistor
  extends TwoPin;
  parameter Real R = 1;
equation
  v = R*i;
end Resistor;
model Capacitor
  extends TwoPin;
  parameter Real C = 1;
equation
  i = C*der(v);
end Capacitor;
model Source
  extends TwoPin;
equation
  v = 10*sin(2*3.141592653589793*time);
end Source;
model Ground
  Pin p;
equation
  p.v = 0;
end Ground;
model Divider
  parameter Real CapVal = {cap_val} annotation(Evaluate = true);
  parameter Real lossy = 1;
  Source s;
  Resistor r1(R = 1);
  Resistor r2(R = 3*lossy);
  Capacitor c(final C = CapVal);
  Ground g;
equation
  connect(s.p, r1.p);
  connect(r1.n, c.p);
  connect(r1.n, r2.p);
  connect(c.n, g.p);
  connect(r2.n, g.p);
  connect(s.n, g.p);
end Divider;
"#
    )
}

fn analysis(text: &str) -> Analysis {
    analysis_of(text, "Divider")
}

fn analysis_of(text: &str, model: &str) -> Analysis {
    let flat = minimo::flatten::flatten_source("divider.mo", text, Some(model))
        .unwrap_or_else(|e| panic!("{e}"));
    analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"))
}

fn run(a: &Analysis, set: &[&str]) -> Result<SimResult, String> {
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.05),
        tolerance: Some(1e-8),
        set: set.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    simulate_analysis(a, &opts).map_err(|e| format!("{e:?}"))
}

fn state_names(a: &Analysis) -> Vec<String> {
    a.system
        .states
        .iter()
        .map(|s| a.system.model.variables[s.var].name.clone())
        .collect()
}

#[test]
fn zero_capacitance_evaluated_is_an_open_branch() {
    let a = analysis(&divider("0"));
    assert!(
        state_names(&a).is_empty(),
        "no state with C = 0: {:?}",
        state_names(&a)
    );
    let r = run(&a, &[]).unwrap();
    // Without the capacitor the node is a divider: v = 10 sin(2 pi t) * 3/4.
    for k in 1..20 {
        let t = 0.05 * k as f64;
        let v = r.value_at("c.v", t).unwrap();
        let exact = 7.5 * (2.0 * std::f64::consts::PI * t).sin();
        assert!((v - exact).abs() < 1e-6, "c.v at {t}: {v} vs {exact}");
        assert!(r.value_at("c.i", t).unwrap().abs() < 1e-12);
    }
    // A parameter the evaluation does not involve can still be set.
    let r = run(&a, &["lossy=3"]).unwrap();
    let t = 0.25;
    let exact = 10.0 * 9.0 / 10.0;
    let v = r.value_at("c.v", t).unwrap();
    assert!(
        (v - exact).abs() < 1e-6,
        "c.v at {t} with r2.R = 9: {v} vs {exact}"
    );
}

#[test]
fn set_of_an_evaluated_parameter_is_refused() {
    let a = analysis(&divider("0"));
    for set in ["CapVal=1e-3", "c.C=1e-3"] {
        let e = run(&a, &[set]).unwrap_err();
        assert!(
            e.contains("evaluated when the model is translated"),
            "{set}: {e}"
        );
        assert!(e.contains("Evaluate = true"), "{set}: {e}");
    }
}

#[test]
fn nonzero_evaluated_capacitance_keeps_its_state() {
    let a = analysis(&divider("1e-3"));
    assert_eq!(state_names(&a), vec!["c.v".to_string()]);
    let r = run(&a, &[]).unwrap();
    // The RC filter (tau = 0.75 ms) follows the divider closely, a little behind it.
    let v = r.value_at("c.v", 0.25).unwrap();
    assert!((v - 7.5).abs() < 1e-2 && v < 7.5, "c.v at 0.25: {v}");
}

#[test]
fn evaluated_parameters_and_what_they_depend_on_are_marked() {
    let text = divider("c0").replace(
        "  parameter Real lossy = 1;",
        "  parameter Real lossy = 1;\n  parameter Real c0 = 0;",
    );
    let m = flat_model(&text, Some("Divider"));
    let var = |name: &str| {
        m.variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert!(var("CapVal").evaluated && var("CapVal").structural);
    assert!(var("c.C").evaluated, "bound to an evaluated parameter only");
    assert!(var("c0").structural, "its value fixed CapVal's");
    assert!(!var("lossy").structural && !var("r2.R").evaluated);
    let a = analysis(&text);
    assert!(state_names(&a).is_empty());
    let e = run(&a, &["c0=1"]).unwrap_err();
    assert!(e.contains("`c0`"), "{e}");
}

/// An evaluated Boolean selects the branch of an if-expression before matching: the branch
/// not taken would make the loop singular.
#[test]
fn evaluated_condition_selects_the_branch() {
    let text = r#"
model Switch
  parameter Boolean useDer = false annotation(Evaluate = true);
  Real x(start = 1);
  Real y;
equation
  y = if useDer then der(x) else 0;
  x = 2*time + y;
end Switch;
"#;
    let flat = minimo::flatten::flatten_source("switch.mo", text, None).unwrap();
    let a = analyze(flat, &AnalyzeOptions::default()).unwrap();
    assert!(state_names(&a).is_empty(), "{:?}", state_names(&a));
    let r = run(&a, &[]).unwrap();
    let x = r.value_at("x", 0.5).unwrap();
    assert!((x - 1.0).abs() < 1e-9, "x at 0.5: {x}");
}

/// `Evaluate = true` on a parameter bound to one that an initial equation determines
/// (`fixed = false`, as MSL's JointRRR passes its `n_b` to JointUSR): the value exists only
/// after initialization, so the parameter stays symbolic. Evaluating it took the start value
/// (`nb[3] = 1`, so `y = time`) and also made the initial equations of `nb` an
/// over-specification.
#[test]
fn evaluated_parameter_bound_to_an_initialized_one_stays_symbolic() {
    let text = r#"
model Axis
  model User
    parameter Real n[3] = {0, 0, 1} annotation(Evaluate = true);
    Real y = n[3]*time;
  end User;
  final parameter Real nb[3](each fixed = false, start = {0, 0, 1});
  User u(n = nb);
initial equation
  nb = {0, 0, 2};
end Axis;
"#;
    let flat = minimo::flatten::flatten_source("axis.mo", text, None).unwrap();
    let n3 = flat.variables.iter().find(|v| v.name == "u.n[3]").unwrap();
    assert!(!n3.evaluated && !n3.structural, "u.n[3] was evaluated");
    let a = analyze(flat, &AnalyzeOptions::default()).unwrap();
    let r = run(&a, &[]).unwrap();
    let y = r.value_at("u.y", 1.0).unwrap();
    assert!((y - 2.0).abs() < 1e-9, "u.y at 1: {y}");
}

/// A source, a resistor whose resistance is a field of a record parameter, and a capacitor.
/// The record is computed by a function (as the Spice3 transistors' model-line records are)
/// and carries `annotation(Evaluate = ...)` as given in `ann` on the record component.
fn record_resistance(ann: &str) -> String {
    format!(
        r#"
model RecordResistance
  record Line
    Real R;
    Real C;
  end Line;
  function lineOf
    input Real r;
    output Line l;
  algorithm
    l := Line(R = r, C = 2);
  end lineOf;
  parameter Real R0 = 0;
  final parameter Line line = lineOf(R0) {ann};
  final parameter Real C = line.C;
  Real vs;
  Real vc(start = 0);
  Real i;
equation
  vs = sin(time);
  i * line.R = vs - vc;
  C * der(vc) = i;
end RecordResistance;
"#
    )
}

/// MLS 18.3: `Evaluate = true` on a record component applies to each of its fields. With
/// `line.R = 0` evaluated, `i * 0 = vs - vc` makes the capacitor voltage the source voltage
/// (no state; `i = C * cos(time)` by differentiation) instead of `i = (vs - vc) / 0`, NaN at
/// the start (the Spice3 inverters with `RD = 0` stopped so).
#[test]
fn evaluate_on_a_record_component_evaluates_its_fields() {
    let a = analysis_of(
        &record_resistance("annotation(Evaluate = true)"),
        "RecordResistance",
    );
    assert!(state_names(&a).is_empty(), "states: {:?}", state_names(&a));
    let r = run(&a, &[]).expect("simulates");
    for t in [0.0, 0.5, 1.0] {
        let i = r.value_at("i", t).expect("i");
        assert!((i - 2.0 * f64::cos(t)).abs() < 1e-6, "i at {t}: {i}");
    }
}

/// The outermost declaration decides: `Evaluate = false` on the record component keeps its
/// fields symbolic (then the zero resistance divides, an error naming the time).
#[test]
fn evaluate_false_on_a_record_component_keeps_its_fields() {
    let a = analysis_of(
        &record_resistance("annotation(Evaluate = false)"),
        "RecordResistance",
    );
    assert_eq!(state_names(&a), vec!["vc".to_string()]);
}

/// A zero-size array parameter declared last (no variable of its own, its first variable
/// index past the end) next to an evaluated parameter: before, the rounds that look for
/// parameters bound to evaluated ones indexed past the end and panicked (MSL
/// `Modelica.Fluid.Examples.AST_BatchPlant.Test.TankWithEmptyingPipe2`).
#[test]
fn zero_size_parameter_declared_last_beside_an_evaluated_one() {
    let text = r#"
model ZeroSizeLast
  parameter Real a = 1 annotation(Evaluate = true);
  parameter Integer n = 0;
  Real x(start = a, fixed = true);
  parameter Real c[n] = fill(a, n);
equation
  der(x) = -x;
end ZeroSizeLast;
"#;
    let flat = minimo::flatten::flatten_source("zero.mo", text, Some("ZeroSizeLast")).unwrap();
    let a = analyze(flat, &AnalyzeOptions::default()).unwrap();
    let r = run(&a, &[]).unwrap();
    let x = r.value_at("x", 1.0).unwrap();
    assert!((x - (-1.0f64).exp()).abs() < 1e-4, "x(1) = {x}");
}

/// `T_start` and `h_start` of a Fluid volume: each is bound through the other, but only in the
/// branch that the evaluated `use_T_start` does not take. Not a cycle (it was refused as one:
/// 8 of the Fluid examples); each instance takes its own branch.
#[test]
fn a_cycle_only_across_branches_an_evaluated_condition_excludes_is_none() {
    let text = r#"
package Cyc
  function hOfT
    input Real T;
    output Real h;
  algorithm
    h := 4184*(T - 273.15);
  end hOfT;
  function TOfh
    input Real h;
    output Real T;
  algorithm
    T := 273.15 + h/4184;
  end TOfh;
  model Vol
    parameter Boolean use_T_start = true annotation(Evaluate = true);
    parameter Real T_start = if use_T_start then 300 else TOfh(h_start);
    parameter Real h_start = if use_T_start then hOfT(T_start) else 1e5;
    Real h(start = h_start, fixed = true);
  equation
    der(h) = 0;
  end Vol;
  model M
    Vol v1;
    Vol v2(use_T_start = false);
    Real T2 = v2.T_start;
  end M;
end Cyc;
"#;
    let r = flatten_common::simulate_source("cyc.mo", text, "Cyc.M");
    flatten_common::close(
        flatten_common::last(&r, "v1.h"),
        4184.0 * 26.85,
        1e-9,
        "v1.h",
    );
    flatten_common::close(flatten_common::last(&r, "v2.h"), 1e5, 0.0, "v2.h");
    flatten_common::close(
        flatten_common::last(&r, "T2"),
        273.15 + 1e5 / 4184.0,
        1e-12,
        "T2",
    );
}

/// A medium's default constant written in the partial base package (`h_default =
/// specificEnthalpy_pTX(...)` of `PartialMedium`) calls a function the base defines, whose
/// body calls a function the medium redeclares. Read as `Medium.h_default` of a redeclared
/// medium package, that body must see the medium's function, not the partial one.
#[test]
fn an_inherited_package_constant_calls_the_redeclared_function() {
    let text = r#"
package Med
  partial package Base
    constant Real T_default = 300;
    constant Real h_default = h_T(T_default);
    replaceable partial function h
      input Real T;
      output Real y;
    end h;
    function h_T
      input Real T;
      output Real y;
    algorithm
      y := h(T) + 1;
    end h_T;
  end Base;
  package Water
    extends Base(T_default = 350);
    redeclare function extends h
    algorithm
      y := 4184*(T - 273.15);
    end h;
  end Water;
  model Vessel
    replaceable package Medium = Base;
    parameter Real h0 = Medium.h_default;
    Real h = h0;
  end Vessel;
  model M
    Vessel v(redeclare package Medium = Water);
  end M;
end Med;
"#;
    let r = flatten_common::simulate_source("med.mo", text, "Med.M");
    flatten_common::close(
        flatten_common::last(&r, "v.h"),
        4184.0 * (350.0 - 273.15) + 1.0,
        1e-9,
        "v.h",
    );
}
