//! The examples, from `.mo` text through flattening and structural analysis to trajectories,
//! compared with analytic or independently computed solutions at several times.

#[path = "sim/chain_rhs.rs"]
mod chain_rhs;
#[path = "sim/pendulum_angle.rs"]
mod pendulum_angle;

use chain_rhs::chain_rhs;
use minimo::sim::{SimOptions, SimResult, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};
use pendulum_angle::pendulum_angle;

fn run(file: &str, stop: f64, set: &[&str]) -> SimResult {
    let path = format!("{}/examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let flat =
        minimo::flatten::flatten_source(&path, &text, None).unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(stop),
        interval: Some(0.001),
        tolerance: Some(1e-8),
        set: set.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

fn at(r: &SimResult, name: &str, t: f64) -> f64 {
    r.value_at(name, t)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

#[test]
fn rlc_step_response() {
    let r = run("rlc.mo", 5.0, &[]);
    let w = 3f64.sqrt() / 2.0;
    for &t in &[0.25f64, 1.0, 2.0, 3.0, 4.5] {
        let exact = if t < 0.5 {
            0.0
        } else {
            let tau = t - 0.5;
            1.0 - (-tau / 2.0).exp() * ((w * tau).cos() + (0.5 / w) * (w * tau).sin())
        };
        assert!((at(&r, "c.v", t) - exact).abs() < 1e-5, "t={t}");
        // Alias and eliminated variables are in the results too.
        assert!((at(&r, "c.p.v", t) - exact).abs() < 1e-5, "t={t}");
    }
}

#[test]
fn rlc_parameter_override() {
    let r = run("rlc.mo", 3.0, &["r.R=0"]);
    let t: f64 = 2.5;
    assert!((at(&r, "c.v", t) - (1.0 - (t - 0.5).cos())).abs() < 1e-5);
}

#[test]
fn gear_accelerates_with_reflected_inertia() {
    let r = run("gear.mo", 2.0, &[]);
    // (J1 + J2 / ratio^2) a1 = tau: a1 = 3 / (0.5 + 2 / 16) = 4.8
    for &t in &[0.5, 1.0, 2.0] {
        let phi1 = 0.5 * 4.8 * t * t;
        assert!((at(&r, "j1.phi", t) - phi1).abs() < 1e-5, "t={t}");
        assert!((at(&r, "j2.phi", t) - phi1 / 4.0).abs() < 1e-5, "t={t}");
        assert!((at(&r, "j2.w", t) - 4.8 * t / 4.0).abs() < 1e-5, "t={t}");
    }
}

#[test]
fn cartesian_pendulum_against_angle_coordinates() {
    let r = run("pendulum.mo", 3.0, &[]);
    for &t in &[0.4, 1.0, 1.7, 2.5, 3.0] {
        let phi = pendulum_angle(0.6, t);
        assert!((at(&r, "x", t) - phi.sin()).abs() < 1e-4, "t={t}: x");
        assert!((at(&r, "y", t) + phi.cos()).abs() < 1e-4, "t={t}: y");
    }
}

/// Released at 1.5 rad the pendulum passes close to the horizontal, where the states x, vx
/// determine y badly (dy/dx = -x/y) until the states switch to y, vy. With only the selected
/// states in the integrator's error test the error did not follow the tolerance (3.3e-6 at
/// 1e-8, max over 0.01 s output points); with the dummy states in the error test as algebraic
/// components it does (2.1e-7; rumoca 0.10.2: 1.5e-6).
#[test]
fn pendulum_near_the_horizontal_error_follows_the_tolerance() {
    let r = run("pendulum.mo", 3.0, &["phi0=1.5"]);
    let mut worst: f64 = 0.0;
    for k in 1..=60 {
        let t = 0.05 * k as f64;
        let phi = pendulum_angle(1.5, t);
        let e = (at(&r, "x", t) - phi.sin())
            .abs()
            .max((at(&r, "y", t) + phi.cos()).abs());
        worst = worst.max(e);
    }
    assert!(worst < 1e-6, "max error {worst:e} at tolerance 1e-8");
}

#[test]
fn pendulum_past_the_horizontal_switches_states() {
    let r = run("pendulum_horizontal.mo", 3.0, &[]);
    for &t in &[0.3, 0.8, 1.2, 2.0, 2.9] {
        let phi = pendulum_angle(2.0, t);
        assert!(
            (at(&r, "x", t) - phi.sin()).abs() < 1e-4,
            "t={t}: x {} vs {}",
            at(&r, "x", t),
            phi.sin()
        );
        assert!((at(&r, "y", t) + phi.cos()).abs() < 1e-4, "t={t}: y");
    }
    let switches = r
        .messages
        .iter()
        .filter(|m| m.contains(": states "))
        .count();
    assert!(switches >= 3, "{:?}", r.messages);
}

#[test]
fn mass_chain_with_arrays_and_for() {
    let r = run("chain.mo", 2.0, &[]);
    // Reference: the same 10-mass chain integrated by RK4 here.
    let n = 10usize;
    let rhs = |y: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; 2 * n];
        chain_rhs(n, y, &mut out);
        out
    };
    let mut y = vec![0.0; 2 * n];
    let h = 1e-4;
    let mut checks = vec![(0.5, Vec::new()), (1.0, Vec::new()), (2.0, Vec::new())];
    let mut t = 0.0;
    for step in 1..=20000 {
        let k1 = rhs(&y);
        let y2: Vec<f64> = y.iter().zip(&k1).map(|(a, b)| a + 0.5 * h * b).collect();
        let k2 = rhs(&y2);
        let y3: Vec<f64> = y.iter().zip(&k2).map(|(a, b)| a + 0.5 * h * b).collect();
        let k3 = rhs(&y3);
        let y4: Vec<f64> = y.iter().zip(&k3).map(|(a, b)| a + h * b).collect();
        let k4 = rhs(&y4);
        for i in 0..2 * n {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        t = step as f64 * h;
        for c in checks.iter_mut() {
            if (t - c.0).abs() < 1e-9 {
                c.1 = y.clone();
            }
        }
    }
    assert!((t - 2.0).abs() < 1e-9);
    for (tc, yc) in &checks {
        for i in [0, 4, 9] {
            let got = at(&r, &format!("x[{}]", i + 1), *tc);
            assert!(
                (got - yc[i]).abs() < 1e-6,
                "t={tc} x[{}]: {got} vs {}",
                i + 1,
                yc[i]
            );
        }
    }
}

#[test]
fn bouncing_ball_when_reinit_pre() {
    let r = run("bouncing_ball.mo", 2.0, &[]);
    let g: f64 = 9.81;
    let mut impacts = vec![((2.0 / g).sqrt(), 0.8 * g * (2.0 / g).sqrt())];
    for _ in 0..4 {
        let (t, v) = *impacts.last().unwrap();
        impacts.push((t + 2.0 * v / g, 0.8 * v));
    }
    let h_exact = |t: f64| {
        if t < impacts[0].0 {
            return 1.0 - 0.5 * g * t * t;
        }
        let &(ti, vi) = impacts.iter().rev().find(|(ti, _)| *ti <= t).unwrap();
        vi * (t - ti) - 0.5 * g * (t - ti).powi(2)
    };
    for &t in &[0.3, 0.7, 1.1, 1.5, 1.9] {
        assert!(
            (at(&r, "h", t) - h_exact(t)).abs() < 1e-4,
            "t={t}: {} vs {}",
            at(&r, "h", t),
            h_exact(t)
        );
    }
    // `bounces = pre(bounces) + 1` counts the impacts before t = 2.
    let expected = impacts.iter().filter(|(ti, _)| *ti < 2.0).count() as f64;
    assert_eq!(at(&r, "bounces", 2.0), expected);
}

#[test]
fn friction_law_swapped_by_redeclare() {
    let r = run("friction_slider.mo", 1.0, &[]);
    let (v0, c, m, mu, g): (f64, f64, f64, f64, f64) = (2.0, 2.0, 1.0, 0.3, 9.81);
    for &t in &[0.1, 0.4, 0.9] {
        // Viscous: v = v0 exp(-c t / m).
        let v = v0 * (-c * t / m).exp();
        let x = v0 * m / c * (1.0 - (-c * t / m).exp());
        assert!((at(&r, "viscous.v", t) - v).abs() < 1e-5, "t={t}");
        assert!((at(&r, "viscous.x", t) - x).abs() < 1e-5, "t={t}");
    }
    // Coulomb (regularized, vReg = 1e-3): constant deceleration mu g until it stops at v0/(mu g).
    let t_stop = v0 / (mu * g);
    for &t in &[0.2, 0.5] {
        assert!(
            (at(&r, "coulomb.v", t) - (v0 - mu * g * t)).abs() < 1e-4,
            "t={t}"
        );
    }
    assert!(at(&r, "coulomb.v", 0.95).abs() < 1e-2);
    assert!((at(&r, "coulomb.x", 1.0) - v0 * v0 / (2.0 * mu * g)).abs() < 1e-3);
    assert!(t_stop < 0.95);
}
