//! The numeric stack on hand-built sorted systems, against analytic or independent solutions.

#[path = "sim/builder.rs"]
mod builder;
#[path = "sim/pendulum_angle.rs"]
mod pendulum_angle;

use builder::*;
use minimo::dae::{Builtin, EquationKind, Expr};
use minimo::sim::{Method, SimOptions, simulate};
use pendulum_angle::pendulum_angle;

fn opts(stop: f64, interval: f64, tol: f64) -> SimOptions {
    SimOptions {
        stop_time: Some(stop),
        interval: Some(interval),
        tolerance: Some(tol),
        ..Default::default()
    }
}

/// Series RLC driven by a voltage step at t = 0.5 (R = 1, L = 1, C = 1, zeta = 0.5).
fn rlc() -> minimo::structure::SortedSystem {
    let mut b = B::new("RLC");
    let r = b.param("R", 1.0);
    let l = b.param("L", 1.0);
    let cap = b.param("C", 1.0);
    let (i, di) = b.state("i", 0.0);
    let (vc, dvc) = b.state("vC", 0.0);
    let u = b.var("u", None);
    let step = Expr::If {
        branches: vec![(lt(Expr::Time, c(0.5)), c(0.0))],
        else_: Box::new(c(1.0)),
    };
    b.assign(u, step);
    b.assign(di, div(sub(sub(v(u), mul(v(r), v(i))), v(vc)), v(l)));
    b.assign(dvc, div(v(i), v(cap)));
    b.build()
}

fn rlc_exact(t: f64) -> f64 {
    if t < 0.5 {
        return 0.0;
    }
    let tau = t - 0.5;
    let w = 3f64.sqrt() / 2.0;
    1.0 - (-tau / 2.0).exp() * ((w * tau).cos() + (0.5 / w) * (w * tau).sin())
}

#[test]
fn rlc_step_matches_analytic_solution_with_every_method() {
    let sys = rlc();
    for (m, tol, err) in [
        (Method::Bdf, 1e-8, 2e-5),
        (Method::Esdirk34, 1e-8, 2e-5),
        (Method::TrBdf2, 1e-8, 2e-5),
        (Method::Tsit45, 1e-8, 2e-5),
    ] {
        let mut o = opts(5.0, 0.01, tol);
        o.method = m;
        let res = simulate(&sys, &o).unwrap_or_else(|e| panic!("{m:?}: {e:?}"));
        for &t in &[0.3, 1.0, 2.0, 3.5, 5.0] {
            let got = res.value_at("vC", t).unwrap();
            assert!(
                (got - rlc_exact(t)).abs() < err,
                "{m:?} t={t}: {got} vs {}",
                rlc_exact(t)
            );
        }
        // The step is an event: output holds the values before and after it at t = 0.5.
        assert!(
            res.time.iter().filter(|&&t| (t - 0.5).abs() < 1e-9).count() >= 2,
            "{m:?}: no event rows at 0.5"
        );
    }
}

#[test]
fn set_overrides_a_parameter_and_unknown_names_get_a_hint() {
    let sys = rlc();
    let mut o = opts(3.0, 0.01, 1e-8);
    o.set = vec!["R=0".into()];
    let res = simulate(&sys, &o).unwrap();
    // Undamped: vC = 1 - cos(t - 0.5).
    let t: f64 = 2.0;
    assert!((res.value_at("vC", t).unwrap() - (1.0 - (t - 0.5).cos())).abs() < 1e-5);
    o.set = vec!["Rr=3".into()];
    let err = simulate(&sys, &o).unwrap_err();
    assert!(
        err[0].message.contains("no parameter `Rr`"),
        "{}",
        err[0].message
    );
    assert_eq!(err[0].help.as_deref(), Some("did you mean `R`?"));
}

/// Cartesian pendulum in index-1 form with states x, vx: y from the constraint (nonlinear
/// block, Newton from the previous solution), vy from its derivative (linear), accelerations
/// and the rod force from a linear block.
fn pendulum(phi0: f64) -> minimo::structure::SortedSystem {
    let mut b = B::new("Pendulum");
    let m = b.param("m", 1.0);
    let l = b.param("L", 1.0);
    let g = b.param("g", 9.81);
    let (x, dx) = b.state("x", phi0.sin());
    let (vx, dvx) = b.state("vx", 0.0);
    let y = b.var("y", Some(-phi0.cos()));
    let vy = b.var("vy", Some(0.0));
    let ay = b.var("ay", None);
    let f = b.var("F", None);
    b.solve(vec![y], vec![sub(add(sq(v(x)), sq(v(y))), sq(v(l)))], false);
    b.assign(dx, v(vx));
    b.solve(
        vec![vy],
        vec![add(mul(v(x), v(vx)), mul(v(y), v(vy)))],
        true,
    );
    // m ax = -F x / L ; m ay = -F y / L - m g ; x ax + y ay + vx^2 + vy^2 = 0
    b.solve(
        vec![dvx, ay, f],
        vec![
            add(mul(v(m), v(dvx)), div(mul(v(f), v(x)), v(l))),
            add(
                add(mul(v(m), v(ay)), div(mul(v(f), v(y)), v(l))),
                mul(v(m), v(g)),
            ),
            add(
                add(add(mul(v(x), v(dvx)), mul(v(y), v(ay))), sq(v(vx))),
                sq(v(vy)),
            ),
        ],
        true,
    );
    b.build()
}

#[test]
fn cartesian_pendulum_matches_angle_solution() {
    let phi0 = 0.6;
    let res = simulate(&pendulum(phi0), &opts(3.0, 0.001, 1e-9)).unwrap();
    for &t in &[0.5, 1.2, 2.0, 3.0] {
        let phi = pendulum_angle(phi0, t);
        let (x, y) = (res.value_at("x", t).unwrap(), res.value_at("y", t).unwrap());
        assert!(
            (x - phi.sin()).abs() < 1e-4,
            "t={t}: x {x} vs {}",
            phi.sin()
        );
        assert!(
            (y + phi.cos()).abs() < 1e-4,
            "t={t}: y {y} vs {}",
            -phi.cos()
        );
    }
    // The rod force at the lowest point: m g + m v^2 / L with v from energy conservation.
    assert!(res.stats.rhs_evaluations > 0 && res.stats.steps > 0);
}

/// Ball dropped from h0 with restitution e: `when h < 0 then reinit(v, -e*pre(v))`.
fn ball() -> minimo::structure::SortedSystem {
    let mut b = B::new("Ball");
    let g = b.param("g", 9.81);
    let e = b.param("e", 0.8);
    let (h, dh) = b.state("h", 1.0);
    let (vel, dv) = b.state("v", 0.0);
    b.assign(dh, v(vel));
    b.assign(dv, Expr::neg(v(g)));
    b.when(
        lt(v(h), c(0.0)),
        vec![EquationKind::Reinit {
            var: vel,
            value: Expr::neg(mul(v(e), Expr::Pre(Box::new(v(vel))))),
        }],
    );
    b.build()
}

#[test]
fn bouncing_ball_bounces_at_the_analytic_times() {
    let res = simulate(&ball(), &opts(2.0, 0.001, 1e-8)).unwrap();
    let g: f64 = 9.81;
    // Impact times and rebound speeds: t1 = sqrt(2 h0 / g), then flights of 2 v / g.
    let mut impacts = vec![((2.0 / g).sqrt(), 0.8 * g * (2.0 / g).sqrt())];
    for _ in 0..5 {
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
    for &t in &[0.2, 0.6, 1.0, 1.5, 1.9] {
        let got = res.value_at("h", t).unwrap();
        assert!(
            (got - h_exact(t)).abs() < 1e-4,
            "t={t}: {got} vs {}",
            h_exact(t)
        );
    }
    assert!(res.stats.events >= 2);
}

/// A chain of n masses with springs and dampers between neighbours (fixed at the left).
/// Large enough (2n states) to take the sparse-Jacobian path.
pub fn chain(n: usize) -> minimo::structure::SortedSystem {
    let mut b = B::new("Chain");
    let k = b.param("k", 100.0);
    let d = b.param("d", 0.5);
    let m = b.param("m", 1.0);
    let mut xs = Vec::new();
    for i in 0..n {
        let (x, dx) = b.state(&format!("x[{}]", i + 1), if i == n - 1 { 0.1 } else { 0.0 });
        let (vv, dv) = b.state(&format!("v[{}]", i + 1), 0.0);
        xs.push((x, dx, vv, dv));
    }
    let f: Vec<usize> = (0..n)
        .map(|i| b.var(&format!("f[{}]", i + 1), None))
        .collect();
    for i in 0..n {
        let (x, _, vv, _) = xs[i];
        let (xl, vl) = if i == 0 {
            (c(0.0), c(0.0))
        } else {
            (v(xs[i - 1].0), v(xs[i - 1].2))
        };
        // spring-damper force between i-1 and i
        b.assign(
            f[i],
            add(mul(v(k), sub(v(x), xl)), mul(v(d), sub(v(vv), vl))),
        );
    }
    for i in 0..n {
        let (_, dx, vv, dv) = xs[i];
        b.assign(dx, v(vv));
        let right = if i + 1 < n { v(f[i + 1]) } else { c(0.0) };
        b.assign(dv, div(sub(right, v(f[i])), v(m)));
    }
    b.build()
}

#[test]
fn mass_chain_sparse_matches_dense_reference() {
    // 40 masses = 80 states: sparse path. Reference: the same chain integrated by RK4.
    let n = 40;
    let res = simulate(&chain(n), &opts(1.0, 0.01, 1e-8)).unwrap();
    assert!(res.stats.sparse_jacobian);
    let (k, d, m) = (100.0, 0.5, 1.0);
    let rhs = |y: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; 2 * n];
        let f = |i: usize, y: &[f64]| {
            let (xl, vl) = if i == 0 {
                (0.0, 0.0)
            } else {
                (y[2 * (i - 1)], y[2 * (i - 1) + 1])
            };
            k * (y[2 * i] - xl) + d * (y[2 * i + 1] - vl)
        };
        for i in 0..n {
            out[2 * i] = y[2 * i + 1];
            let right = if i + 1 < n { f(i + 1, y) } else { 0.0 };
            out[2 * i + 1] = (right - f(i, y)) / m;
        }
        out
    };
    let mut y = vec![0.0; 2 * n];
    y[2 * (n - 1)] = 0.1;
    let h = 1e-4;
    for _ in 0..10000 {
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
    }
    for i in [0, n / 2, n - 1] {
        let got = res.value_at(&format!("x[{}]", i + 1), 1.0).unwrap();
        assert!(
            (got - y[2 * i]).abs() < 1e-5,
            "x[{}]: {got} vs {}",
            i + 1,
            y[2 * i]
        );
    }
}

#[test]
fn nan_is_reported_with_variable_and_time() {
    // der(x) = 1, y = sqrt(1 - x): NaN once x > 1 (at t = 1).
    let mut b = B::new("Bad");
    let (x, dx) = b.state("x", 0.0);
    let y = b.var("y", None);
    let dz = {
        let (_, dz) = b.state("z", 0.0);
        dz
    };
    b.assign(dx, c(1.0));
    b.assign(y, call(Builtin::Sqrt, vec![sub(c(1.0), v(x))]));
    b.assign(dz, v(y));
    let err = simulate(&b.build(), &opts(2.0, 0.01, 1e-6)).unwrap_err();
    assert!(
        err[0].message.contains("`y` became NaN at time"),
        "{}",
        err[0].message
    );
}

#[test]
fn results_round_trip_through_csv_and_mat() {
    use minimo::sim::results::{read_csv, read_mat, write_csv, write_mat};
    let res = simulate(&rlc(), &opts(1.0, 0.1, 1e-8)).unwrap();
    let mut csv = Vec::new();
    write_csv(&res, &mut csv).unwrap();
    let (names, cols) = read_csv(std::str::from_utf8(&csv).unwrap()).unwrap();
    assert_eq!(names[0], "time");
    let ivc = names.iter().position(|n| n == "vC").unwrap();
    assert_eq!(cols[ivc], res.column("vC").unwrap());
    let mut mat = Vec::new();
    write_mat(&res, &mut mat).unwrap();
    let ms = read_mat(&mat).unwrap();
    let order: Vec<&str> = ms.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        order,
        [
            "Aclass",
            "name",
            "description",
            "dataInfo",
            "data_1",
            "data_2"
        ]
    );
    let aclass: String = ms[0].data.iter().map(|&b| b as u8 as char).collect();
    assert_eq!(&aclass[..4], "A1 b");
    let data2 = &ms[5];
    assert_eq!(data2.rows, res.variables.len() + 1);
    assert_eq!(data2.cols, res.time.len());
    // First value of each column is the time.
    assert_eq!(data2.data[data2.rows], res.time[1]);
    // data_1 holds the parameters R, L, C after the time.
    assert_eq!(ms[4].data[1..4], [1.0, 1.0, 1.0]);
}
