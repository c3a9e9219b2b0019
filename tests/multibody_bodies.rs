//! Rigid bodies and joints of Minimo.Multibody against analytic answers
//! (models in tests/multibody/BodyChecks.mo).

#[path = "multibody/harness.rs"]
mod harness;
#[path = "sim/pendulum_angle.rs"]
mod pendulum_angle;

use harness::{Sim, data};
use pendulum_angle::rk4_step;

const G: f64 = 9.81;

fn run(model: &str, stop: f64, tolerance: f64) -> harness::Trajectories {
    Sim::new(data("BodyChecks.mo"), model, stop, 0.01)
        .tolerance(tolerance)
        .run()
        .unwrap_or_else(|e| panic!("{model}: {e}"))
}

#[test]
fn free_body_keeps_energy_momentum_and_unit_quaternion() {
    let r = run("BodyChecks.FreeBody", 5.0, 1e-8);
    assert!(r.all_finite());
    // Energy and world-frame angular momentum are invariants of the torque-free, gravity-only motion.
    let e0 = r.col("body.E")[0];
    assert!(
        r.spread("body.E") < 1e-6 * e0.abs().max(1.0),
        "energy drift {}",
        r.spread("body.E")
    );
    for i in 1..=3 {
        let name = format!("L[{i}]");
        assert!(r.spread(&name) < 1e-6, "{name} drift {}", r.spread(&name));
    }
    // |q| = 1 is kept (stabilised quaternion kinematics).
    let qn = r.col("qnorm");
    assert!(
        qn.iter().all(|q| (q - 1.0).abs() < 1e-7),
        "quaternion norm left 1"
    );
    // The centre of mass follows the parabola r0 + v0 t + g t^2 / 2.
    for (k, t) in r.time().iter().enumerate() {
        let y = 1.0 + 2.0 * t - 0.5 * G * t * t;
        assert!((r.col("body.r[2]")[k] - y).abs() < 1e-6, "y({t})");
        assert!((r.col("body.r[1]")[k] - t).abs() < 1e-6, "x({t})");
        assert!((r.col("body.r[3]")[k] + 0.5 * t).abs() < 1e-6, "z({t})");
    }
}

#[test]
fn pendulum_on_revolute_joint_conserves_energy() {
    // The joint holds at acceleration level only, so the joint point drifts with the integration
    // error and the energy with it (m*g*drift). Measured: tolerance 1e-6, 1e-8, 1e-10 give drifts
    // of 3e-4, 3e-6, 7e-8 m and energy spreads of 3e-3, 3e-5, 8e-7 J over 5 s.
    let r = run("BodyChecks.Pendulum", 5.0, 1e-10);
    assert!(r.all_finite());
    assert!(
        r.max_abs("drift") < 5e-7,
        "joint point drifted {}",
        r.max_abs("drift")
    );
    assert!(
        r.spread("body.E") < 5e-6,
        "energy drift {}",
        r.spread("body.E")
    );
    // The body swings through the bottom: it must reach y close to -0.5.
    let ymin = r
        .col("body.r[2]")
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min);
    assert!((ymin + 0.5).abs() < 1e-3, "lowest point {ymin}");
}

/// The pendulum of the test above with the body in joint coordinates: nothing can drift, the
/// angle follows an RK4 solution of `J phi'' = -m g L cos(phi)` (J = Izz + m L^2, released
/// horizontally), and the energy stays constant.
#[test]
fn hinged_pendulum_follows_its_equation_of_motion() {
    let r = run("BodyChecks.HingedPendulum", 5.0, 1e-10);
    assert!(r.all_finite());
    let (m, l, izz) = (1.0, 0.5, 0.03);
    let j = izz + m * l * l;
    let acc = |phi: f64| -m * G * l * phi.cos() / j;
    let (mut phi, mut w, h) = (0.0f64, 0.0f64, 1e-5f64);
    let mut t = 0.0;
    let mut worst = 0.0f64;
    for (k, &tk) in r.time().iter().enumerate() {
        while t < tk - 1e-12 {
            let step = h.min(tk - t);
            (phi, w) = rk4_step(phi, w, step, acc);
            t += step;
        }
        worst = worst.max((r.col("body.phi")[k] - phi).abs());
        // The centre of mass is on the circle of radius L at that angle.
        let (x, y) = (r.col("body.frame.r[1]")[k], r.col("body.frame.r[2]")[k]);
        assert!((x - l * phi.cos()).abs() < 1e-6 && (y - l * phi.sin()).abs() < 1e-6);
    }
    assert!(worst < 1e-6, "angle differs from RK4 by {worst}");
    assert!(r.spread("E") < 1e-7, "energy drift {}", r.spread("E"));
}

#[test]
fn prismatic_slider_accelerates_with_g_sin_angle() {
    let r = run("BodyChecks.Slider", 2.0, 1e-8);
    let a = G * 0.5; // g*sin(30 deg)
    for (k, t) in r.time().iter().enumerate() {
        let s = 0.5 * a * t * t;
        assert!(
            (r.col("s")[k] - s).abs() < 1e-6 * (1.0 + s),
            "s({t}) = {} vs {s}",
            r.col("s")[k]
        );
    }
    // No rotation is allowed by the prismatic joint.
    for i in 1..=3 {
        assert!(r.max_abs(&format!("body.wb[{i}]")) < 1e-8);
    }
}

#[test]
fn fixed_joint_moves_two_bodies_as_one() {
    let r = run("BodyChecks.Glued", 2.0, 1e-8);
    // The pair's centre of mass falls freely: c = (0, 0.4 t - g t^2/2, -0.2 t).
    for (k, t) in r.time().iter().enumerate() {
        assert!(
            (r.col("c[2]")[k] - (0.4 * t - 0.5 * G * t * t)).abs() < 1e-6,
            "c_y({t})"
        );
        assert!((r.col("c[3]")[k] + 0.2 * t).abs() < 1e-6, "c_z({t})");
    }
    // Rigidly joined: the distance stays 0.3 m and both spin at 2 rad/s about z.
    assert!((r.col("gap")[0] - 0.3).abs() < 1e-12);
    assert!(r.spread("gap") < 1e-6, "gap changed by {}", r.spread("gap"));
    assert!((r.last("a.wb[3]") - 2.0).abs() < 1e-6 && (r.last("b.wb[3]") - 2.0).abs() < 1e-6);
}
