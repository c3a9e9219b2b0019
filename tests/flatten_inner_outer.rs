//! `inner`/`outer` (MLS 5.4): every `outer` element is the `inner` element of the nearest
//! enclosing instance; without one, a single default instance is shared, with a warning.

use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

const LIB: &str = r#"
function gravityOf
  input Real h;
  input Real g = 1;
  output Real a;
algorithm
  a := -g*(1 + 0*h);
end gravityOf;
model World
  parameter Real g = 9.81;
  function gravity = gravityOf(g = g) "bound to this world's g";
end World;
model FallingFn "calls a function of the outer world"
  outer World world;
  Real v(start = 0, fixed = true);
equation
  der(v) = world.gravity(v);
end FallingFn;
model MoonFn
  inner World world(g = 1.62);
  FallingFn c;
end MoonFn;
model Falling "falls with the world's gravity"
  outer World world;
  Real v(start = 0, fixed = true);
equation
  der(v) = -world.g;
end Falling;
model Group
  Falling a;
  Falling b;
end Group;
model Moon
  inner World world(g = 1.62);
  Group group;
  Falling c;
end Moon;
model Nested "an inner further in hides the outer one"
  inner World world(g = 1.62);
  Falling c;
  model Sub
    inner World world(g = 3.7);
    Falling d;
  end Sub;
  Sub sub;
end Nested;
model NoInner
  Falling a;
  Falling b;
end NoInner;
"#;

fn final_v(model: &str) -> (Vec<(String, f64)>, Vec<String>) {
    let flat = minimo::flatten::flatten_source("lib.mo", LIB, Some(model))
        .unwrap_or_else(|e| panic!("{e}"));
    let warnings: Vec<String> = flat.warnings.iter().map(|w| w.message.clone()).collect();
    let names: Vec<String> = flat
        .variables
        .iter()
        .map(|v| v.name.clone())
        .filter(|n| n.ends_with(".v"))
        .collect();
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.1),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    let vals = names
        .into_iter()
        .map(|n| {
            let x = r.value_at(&n, 1.0).unwrap();
            (n, x)
        })
        .collect();
    (vals, warnings)
}

#[test]
fn the_inner_modifier_reaches_every_outer() {
    let (vals, warnings) = final_v("Moon");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(vals.len(), 3, "{vals:?}");
    for (n, v) in &vals {
        assert!((v + 1.62).abs() < 1e-6, "{n} = {v}, expected -1.62");
    }
}

#[test]
fn a_function_of_the_inner_takes_its_modifiers() {
    let (vals, _) = final_v("MoonFn");
    assert_eq!(vals.len(), 1);
    assert!((vals[0].1 + 1.62).abs() < 1e-6, "{vals:?}");
}

#[test]
fn the_nearest_inner_wins() {
    let (vals, _) = final_v("Nested");
    let get = |name: &str| vals.iter().find(|(n, _)| n == name).unwrap().1;
    assert!((get("c.v") + 1.62).abs() < 1e-6);
    assert!((get("sub.d.v") + 3.7).abs() < 1e-6);
}

#[test]
fn a_missing_inner_gives_one_shared_default_and_a_warning() {
    let flat = minimo::flatten::flatten_source("lib.mo", LIB, Some("NoInner")).unwrap();
    // One `g` for both components: the default instance is shared.
    let gs: Vec<&str> = flat
        .variables
        .iter()
        .map(|v| v.name.as_str())
        .filter(|n| n.ends_with("world.g"))
        .collect();
    assert_eq!(gs, ["a.world.g"]);
    assert_eq!(flat.warnings.len(), 1);
    assert!(
        flat.warnings[0]
            .message
            .contains("no `inner` declaration for `outer World world`"),
        "{}",
        flat.warnings[0].message
    );
    let (vals, _) = final_v("NoInner");
    for (n, v) in &vals {
        assert!((v + 9.81).abs() < 1e-6, "{n} = {v}");
    }
}
