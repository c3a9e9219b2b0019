//! Records in functions (MLS 12.6): record inputs and outputs, record constructors,
//! record-valued calls passed on to other functions, and record equations in a model.

mod flatten_common;

const LIB: &str = r#"
package R
  record Rot "a planar rotation with its rate"
    Real T[2, 2];
    Real w;
  end Rot;
  record Pair
    Rot a;
    Real s = 2 "a default used by the constructor";
  end Pair;
  function planar
    input Real phi;
    input Real w;
    output Rot R;
  algorithm
    R := Rot(T = [cos(phi), -sin(phi); sin(phi), cos(phi)], w = w);
  end planar;
  function compose "R2 after R1"
    input Rot R1;
    input Rot R2;
    output Rot R;
  algorithm
    R := Rot(T = R2.T*R1.T, w = R1.w + R2.w);
  end compose;
  function apply
    input Rot R;
    input Real v[2];
    output Real y[2];
  algorithm
    y := R.T*v;
  end apply;
  function twice "a record-valued call used as an argument, and a record local"
    input Real phi;
    output Real y[2];
    output Real w;
  protected
    Rot R;
  algorithm
    R := compose(planar(phi, 1), planar(phi, 2));
    y := apply(R, {1, 0});
    w := R.w;
  end twice;
  function scaled "a nested record with a default field"
    input Real phi;
    output Pair p;
  algorithm
    p := Pair(a = planar(phi, 0));
  end scaled;
  function sOf
    input Real phi;
    output Real s;
  protected
    Pair p;
  algorithm
    p := scaled(phi);
    s := p.s + p.a.T[1, 1];
  end sOf;
  model Use
    Rot Rm "a record component set by a record equation";
    Real y[2];
    Real w;
    Real z[2];
    Real s;
  equation
    Rm = planar(time, 3);
    (y, w) = twice(time);
    z = apply(Rm, {0, 1});
    s = sOf(time);
  end Use;
  model UseRecordEquation
    Rot Rm;
    Real z[2];
  equation
    Rm = planar(time, 3);
    z = apply(Rm, {0, 1});
  end UseRecordEquation;
end R;
"#;

fn simulate(model: &str) -> minimo::sim::SimResult {
    flatten_common::simulate_source("r.mo", LIB, model)
}

#[test]
fn record_inputs_outputs_and_constructors() {
    let r = simulate("R.UseRecordEquation");
    for &t in &[0.25, 0.5, 1.0f64] {
        let get = |n: &str| r.value_at(n, t).unwrap_or_else(|| panic!("no {n}"));
        // Rm.T = rotation by t; z = Rm.T * {0, 1} = {-sin t, cos t}.
        assert!((get("Rm.T[1,2]") + t.sin()).abs() < 1e-9);
        assert!((get("Rm.w") - 3.0).abs() < 1e-12);
        assert!((get("z[1]") + t.sin()).abs() < 1e-9);
        assert!((get("z[2]") - t.cos()).abs() < 1e-9);
    }
}

#[test]
fn record_valued_calls_as_arguments() {
    let r = simulate("R.Use");
    for &t in &[0.25, 1.0f64] {
        let get = |n: &str| r.value_at(n, t).unwrap_or_else(|| panic!("no {n}"));
        // Two rotations by t: y = {cos 2t, sin 2t}, w = 1 + 2.
        assert!((get("y[1]") - (2.0 * t).cos()).abs() < 1e-9);
        assert!((get("y[2]") - (2.0 * t).sin()).abs() < 1e-9);
        assert!((get("w") - 3.0).abs() < 1e-12);
        assert!((get("z[1]") + t.sin()).abs() < 1e-9);
        // The nested record's default field plus cos t.
        assert!((get("s") - (2.0 + t.cos())).abs() < 1e-9);
    }
}

#[test]
fn a_whole_record_in_an_expression_is_a_located_error() {
    let bad = LIB.replace("y := R.T*v;", "y := R*v;");
    let e = minimo::flatten::flatten_source("r.mo", &bad, Some("R.UseRecordEquation")).unwrap_err();
    assert!(e.contains("record `R` used as a value"), "{e}");
    assert!(e.contains("r.mo:"), "{e}");
}
