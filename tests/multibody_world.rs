//! One gravity source for the multibody library: `inner Parts.World world` at the top of a
//! model sets `g` for every body (MLS 5.4 inner/outer); without an inner, the default world
//! (g = 9.81 m/s², y up) is used with a warning.

mod flatten_common;

const MOON: &str = r#"
model MoonDrop "a free body falling under the Moon's gravity, set once in the world"
  inner Minimo.Multibody.Parts.World world(g = {0, -1.62, 0});
  Minimo.Multibody.Parts.RigidBody ball(m = 2);
  Minimo.Multibody.Parts.RigidBody feather(m = 0.01, r_start = {1, 0, 0});
end MoonDrop;
"#;

const NO_WORLD: &str = r#"
model EarthDrop "no world declared: the default one"
  Minimo.Multibody.Parts.RigidBody ball;
end EarthDrop;
"#;

#[test]
fn the_inner_world_sets_gravity_for_every_body() {
    let r = flatten_common::simulate_source("moon.mo", MOON, "MoonDrop");
    for b in ["ball", "feather"] {
        let y = r.value_at(&format!("{b}.r[2]"), 1.0).expect("r[2]");
        // y(t) = -g t^2 / 2 with g = 1.62 (not 9.81).
        assert!((y + 0.81).abs() < 1e-6, "{b}: y(1) = {y}");
    }
}

#[test]
fn without_a_world_the_default_gravity_is_used_with_a_warning() {
    let flat = minimo::flatten::flatten_source("earth.mo", NO_WORLD, Some("EarthDrop"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        flat.warnings.iter().any(|w| w.message.contains("world")),
        "{:?}",
        flat.warnings.iter().map(|w| &w.message).collect::<Vec<_>>()
    );
    let r = flatten_common::simulate_source("earth.mo", NO_WORLD, "EarthDrop");
    let y = r.value_at("ball.r[2]", 1.0).expect("r[2]");
    assert!((y + 9.81 / 2.0).abs() < 1e-6, "y(1) = {y}");
}
