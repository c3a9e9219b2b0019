//! Structural parameters (MLS 18.3 / 4.5): parameters that fix array sizes, `for` ranges and
//! subscripts are evaluated during flattening; `--set` of such a parameter is refused with a
//! message instead of silently simulating the model flattened with the old value.

mod flatten_common;
use flatten_common::{assert_err, flat, flat_model};
use minimo::dae::Variability;
use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

const ARRAY_OF_N: &str = r#"
model A
  parameter Integer n = 3 "number of elements";
  parameter Integer k = 2;
  parameter Real g = 2.5 "not structural";
  Real x[n];
  Real y;
  Real z;
  Real w;
equation
  for i in 1:n loop
    x[i] = g * i;
  end for;
  y = x[k];
  z = x[n - k + 1] + x[div(n, 2)];
  w = x[integer(n / 2) + 1] + x[if n > 2 then n else 1] + x[end];
end A;
"#;

#[test]
fn parameter_sizes_ranges_and_subscripts_are_evaluated() {
    let m = flat_model(ARRAY_OF_N, None);
    let names: Vec<&str> = m.variables.iter().map(|v| v.name.as_str()).collect();
    for x in ["x[1]", "x[2]", "x[3]"] {
        assert!(names.contains(&x), "{names:?}");
    }
    assert!(!names.contains(&"x[4]"));
    let text = flat(ARRAY_OF_N, None);
    // n = 3, k = 2: x[k] = x[2]; x[n-k+1] = x[2]; div(3,2) = 1; integer(1.5)+1 = 2; x[end] = x[3].
    assert!(text.contains("y = x[2]"), "{text}");
    assert!(text.contains("z = x[2] + x[1]"), "{text}");
    assert!(text.contains("w = x[2] + x[3] + x[3]"), "{text}");
    let var = |name: &str| {
        m.variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    // n and k are structural (their value is fixed in the flat model); g stays symbolic.
    assert!(var("n").structural && var("k").structural);
    assert!(!var("g").structural);
    assert_eq!(var("g").variability, Variability::Parameter);
}

#[test]
fn modifier_on_structural_parameter_changes_the_size() {
    let text = flat(
        &format!("{ARRAY_OF_N}\nmodel B A a(n = 5, k = 4); end B;"),
        Some("B"),
    );
    assert!(text.contains("a.x[5]"), "{text}");
    assert!(text.contains("a.y = a.x[4]"), "{text}");
    // n - k + 1 = 2, div(5, 2) = 2.
    assert!(text.contains("a.z = a.x[2] + a.x[2]"), "{text}");
}

#[test]
fn parameter_subscript_out_of_range_is_reported() {
    let bad = ARRAY_OF_N.replace("parameter Integer k = 2;", "parameter Integer k = 7;");
    assert_err(&bad, None, &["index 7 is out of bounds 1..3", "test.mo:"]);
}

#[test]
fn non_integer_size_is_an_error() {
    assert_err(
        "model A parameter Real n = 2.5; Real x[n]; equation x = fill(1, 2); end A;",
        None,
        &[
            "an array size must be a non-negative Integer parameter expression",
            "test.mo:1:40",
        ],
    );
}

fn simulate(text: &str, set: &[&str]) -> Result<minimo::sim::SimResult, String> {
    let flat = minimo::flatten::flatten_source("structural.mo", text, None)?;
    let analysis = analyze(flat, &AnalyzeOptions::default()).map_err(|e| format!("{e:?}"))?;
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.1),
        tolerance: Some(1e-8),
        set: set.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).map_err(|e| format!("{e:?}"))
}

#[test]
fn set_of_structural_parameter_is_refused_and_others_work() {
    let model = r#"
model Decay
  parameter Integer n = 3;
  parameter Real a = 1;
  Real x[n](each start = 1, each fixed = true);
equation
  for i in 1:n loop
    der(x[i]) = -a * i * x[i];
  end for;
end Decay;
"#;
    // x_i(t) = exp(-a i t).
    let r = simulate(model, &["a=2"]).unwrap();
    for i in 1..=3 {
        let got = r.value_at(&format!("x[{i}]"), 1.0).unwrap();
        let exact = (-2.0 * i as f64).exp();
        assert!((got - exact).abs() < 1e-6, "x[{i}]: {got} vs {exact}");
    }
    let e = simulate(model, &["n=5"]).unwrap_err();
    assert!(e.contains("`n` fixes array sizes"), "{e}");
    assert!(e.contains("n = 5"), "{e}");
}

#[test]
fn parameter_passed_down_to_a_size_is_structural_too() {
    let m = flat_model(
        &format!("{ARRAY_OF_N}\nmodel B parameter Integer m = 4; A a(n = m); end B;"),
        Some("B"),
    );
    let var = |name: &str| {
        m.variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert!(var("a.x[4]").name == "a.x[4]");
    assert!(var("m").structural, "m fixes the size of a.x through a.n");
    assert!(var("a.n").structural);
}
