//! Native code for the right-hand side (`sim/native.rs`, `sim/tiered.rs`) changes no result:
//! the same model simulated with every segment compiled at its first run
//! (`MINIMO_NATIVE=always`) and with every segment interpreted (`MINIMO_NATIVE=off`) writes the
//! same bytes. The models cover user functions (calls from native code), events and `reinit`,
//! algebraic loops (block code), dynamic state selection and an MSL example.

use std::process::Command;

mod flatten_common;

fn run(policy: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .env("MINIMO_NATIVE", policy)
        .env("MODELICAPATH", "")
        .args(args)
        .output()
        .expect("minimo runs");
    assert!(
        out.status.success(),
        "{args:?} with MINIMO_NATIVE={policy}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn same_with_and_without_native_code(args: &[&str]) {
    let native = run("always", args);
    let interpreted = run("off", args);
    assert!(native.len() > 1000, "{args:?}: too little output");
    assert!(
        native == interpreted,
        "{args:?}: native and interpreted results differ"
    );
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn examples_give_the_same_bytes_native_and_interpreted() {
    for name in [
        "chain.mo",
        "pendulum.mo",
        "pendulum_horizontal.mo",
        "bouncing_ball.mo",
        "rlc.mo",
        "friction_slider.mo",
        "andrews_squeezer.mo",
        "gear.mo",
    ] {
        same_with_and_without_native_code(&["simulate", &example(name)]);
    }
}

#[test]
fn multibody_rollers_give_the_same_bytes_native_and_interpreted() {
    let m = example("multibody/RigidRoller.mo");
    same_with_and_without_native_code(&["simulate", &m, "--stop-time", "0.5"]);
}

#[test]
fn an_msl_example_gives_the_same_bytes_native_and_interpreted() {
    let Some(lib) = flatten_common::msl_library() else {
        return;
    };
    for model in [
        "Modelica.Mechanics.Rotational.Examples.CoupledClutches",
        "Modelica.Electrical.Analog.Examples.CauerLowPassAnalog",
    ] {
        same_with_and_without_native_code(&[
            "simulate",
            "--lib",
            lib.to_str().unwrap(),
            "-m",
            model,
        ]);
    }
}
