//! Index reduction and state selection on models built as flat DAEs.

#[path = "structure/builder.rs"]
mod builder;
#[path = "structure/inspect.rs"]
mod inspect;

use builder::*;
use inspect::*;
use minimo::dae::StateSelect;
use minimo::structure::{Analysis, AnalyzeOptions, BlockKind, analyze, reselect};

/// Every unknown is computed by exactly one block, every equation used once.
fn check_consistent(a: &Analysis) {
    let sys = &a.system;
    let mut eq_seen = vec![false; sys.equations.len()];
    let mut var_seen = vec![false; sys.model.variables.len()];
    for b in &sys.blocks {
        assert_eq!(b.vars.len(), b.equations.len());
        for &e in &b.equations {
            assert!(!eq_seen[e], "equation {e} in two blocks");
            eq_seen[e] = true;
        }
        for &v in &b.vars {
            assert!(!var_seen[v]);
            var_seen[v] = true;
        }
    }
    assert!(eq_seen.iter().all(|&s| s), "every equation is in a block");
    for s in &sys.states {
        assert!(!var_seen[s.var], "a state is not computed by a block");
        assert!(var_seen[s.derivative], "every state derivative is computed");
    }
    // No der() left in the system.
    for e in &sys.equations {
        e.residual
            .visit(&mut |x| assert!(!matches!(x, minimo::dae::Expr::Der(_))));
    }
}

fn pendulum() -> Builder {
    let mut b = Builder::new("Pendulum");
    let x = b.var("x");
    let y = b.var("y");
    let vx = b.var("vx");
    let vy = b.var("vy");
    let f = b.var("F");
    let m = b.param("m", 1.0);
    let g = b.param("g", 9.81);
    let l = b.param("L", 1.0);
    b.eq(der(&x), vx.clone());
    b.eq(der(&y), vy.clone());
    b.eq(m.clone() * der(&vx), -(x.clone() * f.clone()) / l.clone());
    b.eq(m.clone() * der(&vy), -(y.clone() * f) / l.clone() - m * g);
    b.eq(pow(&x, 2.0) + pow(&y, 2.0), pow(&l, 2.0));
    b
}

#[test]
fn pendulum_is_index_three_and_reduced() {
    let a = analyze(pendulum().model(), &AnalyzeOptions::default()).expect("pendulum analyses");
    check_consistent(&a);
    let d = diffs(&a);
    let expected = [
        ("der(x) = vx", 1),
        ("der(y) = vy", 1),
        ("x^2.0 + y^2.0 = L^2.0", 2),
    ];
    assert_eq!(d, expected.map(|(e, t)| (e.to_string(), t)).to_vec());
    // Two states out of the four candidates; x (declared first) and its velocity.
    assert_eq!(states(&a), vec!["x", "vx"]);
    assert_eq!(a.system.dummy_derivatives.len(), 4);
    let dummies = names(&a, &a.system.dummy_derivatives);
    assert!(dummies.contains(&"der(y)".to_string()), "{dummies:?}");
    // y from the constraint (nonlinear, 1 equation); accelerations and F in one linear block of 5.
    assert_eq!(a.report.sizes.largest_block, 5);
    let big = a
        .system
        .blocks
        .iter()
        .find(|b| b.equations.len() == 5)
        .expect("block of 5");
    assert_eq!(big.kind, BlockKind::Linear);
    let y = var_id(&a, "y");
    let yb = a
        .system
        .blocks
        .iter()
        .find(|b| b.vars == vec![y])
        .expect("block for y");
    assert_eq!(yb.kind, BlockKind::Nonlinear);
}

#[test]
fn pendulum_state_set_and_reselection() {
    let a = analyze(pendulum().model(), &AnalyzeOptions::default()).expect("pendulum");
    // The choice between x and y depends on the position: a state set is recorded.
    assert!(!a.system.state_sets.is_empty());
    let set = &a.system.state_sets[0];
    let cands = names(&a, &set.candidates);
    assert_eq!(cands, vec!["der(x)", "der(y)"]);
    assert_eq!(names(&a, &set.dummies), vec!["der(y)"]);
    assert_eq!(set.equations.len(), 1);
    assert_eq!(set.jacobian.len(), 2);
    // Re-selecting with y preferred gives the other chart.
    let y = var_id(&a, "y");
    let vy = var_id(&a, "vy");
    let other = reselect(&a, &[y, vy]).expect("reselect");
    let st: Vec<String> = other
        .states
        .iter()
        .map(|s| other.model.variables[s.var].name.clone())
        .collect();
    assert_eq!(st, vec!["y", "vy"]);
    assert_eq!(other.equations.len(), a.system.equations.len());
}

#[test]
fn pendulum_state_select_and_fixed_hints() {
    let mut b = pendulum();
    b.state_select("y", StateSelect::Prefer);
    b.state_select("vy", StateSelect::Prefer);
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("pendulum");
    assert_eq!(states(&a), vec!["y", "vy"]);
    let mut b = pendulum();
    b.start("y", -1.0, true);
    b.start("vy", 0.0, true);
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("pendulum");
    assert_eq!(states(&a), vec!["y", "vy"]);
}

#[test]
fn ideal_gear_between_two_inertias() {
    let mut b = Builder::new("Gear");
    let phi1 = b.var("J1.phi");
    let w1 = b.var("J1.w");
    let phi2 = b.var("J2.phi");
    let w2 = b.var("J2.w");
    let t1 = b.var("gear.tau_a");
    let t2 = b.var("gear.tau_b");
    let r = b.param("gear.ratio", 3.0);
    let j1 = b.param("J1.J", 1.0);
    let j2 = b.param("J2.J", 2.0);
    b.eq(w1.clone(), der(&phi1));
    b.eq(j1 * der(&w1), sin(&time()) - t1.clone());
    b.eq(w2.clone(), der(&phi2));
    b.eq(j2 * der(&w2), t2.clone());
    b.eq(phi1, r.clone() * phi2);
    b.eq(t2, r * t1);
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("gear");
    check_consistent(&a);
    let d = diffs(&a);
    assert!(
        d.contains(&("J1.phi = gear.ratio*J2.phi".to_string(), 2)),
        "{d:?}"
    );
    assert_eq!(d.len(), 3, "{d:?}");
    assert_eq!(states(&a), vec!["J1.phi", "J1.w"]);
    // Accelerations and torques: one linear block.
    let lin: Vec<usize> = a
        .system
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Linear)
        .map(|b| b.equations.len())
        .collect();
    assert_eq!(lin, vec![6], "{:?}", a.report.blocks);
    // The constraint solved for the second inertia's angle, symbolically.
    let solved = solved(&a);
    assert!(
        solved.contains(&"J2.phi := J1.phi/gear.ratio".to_string()),
        "{solved:?}"
    );
}

/// Slider-crank with a massless rod: constraint forces as multipliers.
fn slider_crank(duplicate_joint: bool) -> Builder {
    let mut b = Builder::new("SliderCrank");
    let th = b.var("crank.phi");
    let w = b.var("crank.w");
    let ph = b.var("rod.phi");
    let x = b.var("slider.s");
    let v = b.var("slider.v");
    let l1 = b.var("lambda1");
    let l2 = b.var("lambda2");
    let l3 = if duplicate_joint {
        Some(b.var("lambda3"))
    } else {
        None
    };
    let r = b.param("r", 0.1);
    let l = b.param("l", 0.3);
    let j = b.param("J", 0.01);
    let m = b.param("m", 0.5);
    b.eq(der(&th), w.clone());
    b.eq(der(&x), v.clone());
    let l2tot = match &l3 {
        Some(l3) => l2.clone() + l3.clone(),
        None => l2.clone(),
    };
    b.eq(
        j * der(&w),
        c(1.0) + l1.clone() * r.clone() * sin(&th) - l2tot.clone() * r.clone() * cos(&th),
    );
    b.eq(
        c(0.0),
        l1.clone() * l.clone() * sin(&ph) - l2tot * l.clone() * cos(&ph),
    );
    b.eq(m * der(&v), l1);
    b.eq(r.clone() * cos(&th) + l.clone() * cos(&ph), x);
    b.eq(r.clone() * sin(&th) + l.clone() * sin(&ph), c(0.0));
    if duplicate_joint {
        b.eq(r * sin(&th) + l * sin(&ph), c(0.0));
    }
    b
}

#[test]
fn slider_crank_loop() {
    let a = analyze(slider_crank(false).model(), &AnalyzeOptions::default()).expect("slider-crank");
    check_consistent(&a);
    let d = diffs(&a);
    let twice: Vec<&String> = d.iter().filter(|(_, t)| *t == 2).map(|(e, _)| e).collect();
    assert_eq!(
        twice.len(),
        2,
        "both loop-closure equations differentiated twice: {d:?}"
    );
    assert_eq!(states(&a), vec!["crank.phi", "crank.w"]);
    // The rod angle from the vertical loop closure (nonlinear), the slider position explicitly,
    // the accelerations and the two multipliers in one linear block of 7.
    let kinds = block_kinds(&a);
    assert!(kinds.contains(&("nonlinear".to_string(), 1)), "{kinds:?}");
    assert!(kinds.contains(&("linear".to_string(), 7)), "{kinds:?}");
    let solved = solved(&a);
    assert!(
        solved.contains(&"slider.s := r*cos(crank.phi) + l*cos(rod.phi)".to_string()),
        "{solved:?}"
    );
}

#[test]
fn dc_motor_with_gearbox() {
    let mut b = Builder::new("DCMotorGearbox");
    let i = b.var("motor.i");
    let wm = b.var("motor.w");
    let phim = b.var("motor.phi");
    let taug = b.var("gear.tau_a");
    let phil = b.var("load.phi");
    let wl = b.var("load.w");
    let taul = b.var("gear.tau_b");
    let (ra, la, k) = (b.param("R", 1.0), b.param("L", 0.01), b.param("k", 0.1));
    let (jm, jl, n, d) = (
        b.param("Jm", 1e-3),
        b.param("Jl", 0.1),
        b.param("n", 10.0),
        b.param("d", 0.2),
    );
    b.eq(
        la * der(&i),
        c(12.0) - ra * i.clone() - k.clone() * wm.clone(),
    );
    b.eq(jm * der(&wm), k * i - taug.clone());
    b.eq(der(&phim), wm);
    b.eq(phim, n.clone() * phil.clone());
    b.eq(taul.clone(), n * taug);
    b.eq(jl * der(&wl), taul - d * wl.clone());
    b.eq(der(&phil), wl);
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("dc motor");
    check_consistent(&a);
    let d = diffs(&a);
    assert!(
        d.contains(&("motor.phi = n*load.phi".to_string(), 2)),
        "{d:?}"
    );
    assert_eq!(states(&a), vec!["motor.i", "motor.w", "motor.phi"]);
    assert_eq!(a.system.states.len(), 3);
}

#[test]
fn rlc_is_index_one_with_aliases_removed() {
    let a = analyze(
        series_circuit(true, true).model(),
        &AnalyzeOptions::default(),
    )
    .expect("rlc");
    check_consistent(&a);
    assert!(a.report.differentiations.is_empty());
    assert_eq!(states(&a), vec!["L.i", "C.v"]);
    assert!(a.system.dummy_derivatives.is_empty());
    // Connections and pin equations are aliases: most variables are eliminated.
    assert!(
        a.report.sizes.eliminated >= 20,
        "{}",
        a.report.sizes.eliminated
    );
    // Everything is explicit once the states are known.
    assert!(
        a.system
            .blocks
            .iter()
            .all(|b| matches!(b.kind, BlockKind::Explicit { .. })),
        "{:?}",
        a.report.blocks
    );
    // Without alias elimination the structure is the same.
    let opts = AnalyzeOptions {
        eliminate_aliases: false,
        ..Default::default()
    };
    let b = analyze(series_circuit(true, true).model(), &opts).expect("rlc");
    check_consistent(&b);
    assert_eq!(states(&b), vec!["L.i", "C.v"]);
}
