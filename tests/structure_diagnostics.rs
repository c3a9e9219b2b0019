//! Diagnostics of structurally singular models, in the modeler's terms.

#[path = "structure/builder.rs"]
mod builder;

use builder::*;
use minimo::structure::{AnalyzeOptions, analyze};

#[test]
fn undetermined_variable_is_named() {
    let mut b = Builder::new("Singular");
    let x = b.var("x");
    let _y = b.var("y");
    let z = b.var("z");
    b.eq(der(&x), -x.clone());
    b.eq(z, sin(&x));
    let errs = analyze(b.model(), &AnalyzeOptions::default())
        .err()
        .expect("must fail");
    assert_eq!(errs[0].message, "no equation determines `y`");
    assert!(
        errs[0]
            .notes
            .iter()
            .any(|n| n.contains("2 equations for 3 unknowns")),
        "{:?}",
        errs[0].notes
    );
}

#[test]
fn too_many_equations_are_named() {
    let mut b = Builder::new("Over");
    let x = b.var("x");
    let y = b.var("y");
    b.eq(der(&x), -x.clone());
    b.eq(y.clone(), sin(&x));
    b.eq(y, cos(&x));
    let errs = analyze(b.model(), &AnalyzeOptions::default())
        .err()
        .expect("must fail");
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0]
            .message
            .starts_with("over-determined: 3 equations constrain only 2 variables (`x`, `y`)"),
        "{}",
        errs[0].message
    );
    assert_eq!(errs[0].label, "`y = cos(x)` is redundant");
}

#[test]
fn circuit_without_ground_gets_a_hint() {
    let b = series_circuit(false, false);
    let errs = analyze(b.model(), &AnalyzeOptions::default())
        .err()
        .expect("must fail");
    let all: Vec<String> = errs
        .iter()
        .map(|d| format!("{} | {:?}", d.message, d.help))
        .collect();
    let under = errs
        .iter()
        .find(|d| d.message.starts_with("no equation determines"))
        .expect("under-determined part");
    let help = under.help.clone().unwrap_or_default();
    assert!(help.starts_with("no ground: the potential "), "{all:?}");
    assert!(help.contains(".v`"), "{help}");
    let over = errs
        .iter()
        .find(|d| d.message.contains("flow balances"))
        .expect("over-determined part");
    assert!(
        over.help.as_deref().unwrap_or("").contains("ground"),
        "{all:?}"
    );
}

#[test]
fn duplicated_joint_is_reported_as_redundant() {
    // Two identical loop-closure equations for one joint (and no extra multiplier): more
    // constraints than the positions they constrain.
    let mut b = Builder::new("Duplicated");
    let th = b.var("crank.phi");
    let w = b.var("crank.w");
    let lam = b.var("lambda");
    let r = b.param("r", 0.1);
    b.eq(der(&th), w.clone());
    b.eq(der(&w), lam.clone() * cos(&th));
    b.eq(r.clone() * sin(&th), c(0.05));
    b.eq(r * sin(&th), c(0.05));
    let errs = analyze(b.model(), &AnalyzeOptions::default())
        .err()
        .expect("must fail");
    let over = errs
        .iter()
        .find(|d| d.message.starts_with("over-determined"))
        .expect("over-determined");
    assert!(
        over.label.contains("r*sin(crank.phi) = 0.05"),
        "{}",
        over.label
    );
    assert!(
        over.help.as_deref().unwrap_or("").contains("redundant"),
        "{:?}",
        over.help
    );
}

#[test]
fn grounded_rc_is_fine() {
    assert!(
        analyze(
            series_circuit(true, false).model(),
            &AnalyzeOptions::default()
        )
        .is_ok()
    );
}

/// A planar four-bar whose joints are spatial revolutes (5 constraints each): the out-of-plane
/// constraints (z, tilt about x and y: 3 per joint, 12) act on 9 out-of-plane coordinates of the
/// three moving links, so 3 are redundant and 3 reactions are not determined.
#[test]
fn planar_four_bar_from_spatial_revolutes_is_redundant() {
    let mut b = Builder::new("FourBar");
    let m = b.param("m", 1.0);
    let h = b.param("h", 0.25); // half link length
    let ground_len = b.param("d", 0.4);
    let coords = ["x", "y", "c", "z", "a", "b"];
    let mut q = Vec::new();
    let mut v = Vec::new();
    for i in 1..=3 {
        let mut qi = Vec::new();
        let mut vi = Vec::new();
        for n in coords {
            qi.push(b.var(&format!("link{i}.{n}")));
            vi.push(b.var(&format!("link{i}.v_{n}")));
        }
        q.push(qi);
        v.push(vi);
    }
    // Generalized forces collected per coordinate: (link, coord) -> sum of lambda * dg/dq.
    let mut force: Vec<Vec<E>> = vec![vec![c(0.0); 6]; 3];
    let add = |force: &mut Vec<Vec<E>>, link: usize, k: usize, term: E| {
        force[link][k] = force[link][k].clone() + term;
    };
    for j in 0..4 {
        // Joint j joins link j (0 = ground) and link j+1 (4 = ground).
        let (a, bb) = (j, j + 1);
        let end = |l: usize, k: usize, sign: f64| -> E {
            // In-plane coordinate k (0 = x, 1 = y) of the end of link l (+ at the far end).
            let ql = &q[l - 1];
            let trig = if k == 0 { cos(&ql[2]) } else { sin(&ql[2]) };
            ql[k].clone() + c(sign) * h.clone() * trig
        };
        for (k, name) in ["x", "y", "z", "a", "b"].iter().enumerate() {
            let lam = b.var(&format!("joint{j}.lambda_{name}"));
            let side = |l: usize, sign: f64| -> E {
                if l == 0 || l == 4 {
                    // Ground: the pivots are at (0, 0) and (d, 0), flat.
                    if k == 0 && l == 4 {
                        ground_len.clone()
                    } else {
                        c(0.0)
                    }
                } else if k < 2 {
                    end(l, k, sign)
                } else if k == 2 {
                    q[l - 1][3].clone() + c(sign) * h.clone() * q[l - 1][5].clone()
                } else {
                    q[l - 1][k + 1].clone()
                }
            };
            b.eq(side(a, 1.0), side(bb, -1.0));
            for (l, sign) in [(a, 1.0), (bb, -1.0)] {
                if l == 0 || l == 4 {
                    continue;
                }
                let li = l - 1;
                let s = if l == a { 1.0 } else { -1.0 };
                match k {
                    0 => {
                        add(&mut force, li, 0, c(s) * lam.clone());
                        add(
                            &mut force,
                            li,
                            2,
                            c(-s * sign) * lam.clone() * h.clone() * sin(&q[li][2]),
                        );
                    }
                    1 => {
                        add(&mut force, li, 1, c(s) * lam.clone());
                        add(
                            &mut force,
                            li,
                            2,
                            c(s * sign) * lam.clone() * h.clone() * cos(&q[li][2]),
                        );
                    }
                    2 => {
                        add(&mut force, li, 3, c(s) * lam.clone());
                        add(&mut force, li, 5, c(s * sign) * lam.clone() * h.clone());
                    }
                    _ => add(&mut force, li, k + 1, c(s) * lam.clone()),
                }
            }
        }
    }
    for l in 0..3 {
        for k in 0..6 {
            b.eq(der(&q[l][k]), v[l][k].clone());
            let gravity = if k == 1 { c(-9.81) * m.clone() } else { c(0.0) };
            b.eq(m.clone() * der(&v[l][k]), gravity + force[l][k].clone());
        }
    }
    let model = b.model();
    let n_unknowns = model
        .variables
        .iter()
        .filter(|v| v.variability == minimo::dae::Variability::Continuous)
        .count();
    assert_eq!(model.equations.len(), n_unknowns, "balanced in count");
    let errs = analyze(model, &AnalyzeOptions::default())
        .err()
        .expect("must fail");
    let over = errs
        .iter()
        .find(|d| d.message.starts_with("over-determined"))
        .expect("over-determined part");
    assert!(
        over.help
            .as_deref()
            .unwrap_or("")
            .starts_with("3 of these constraints are redundant"),
        "{:?}",
        over.help
    );
    let under = errs
        .iter()
        .find(|d| d.message.starts_with("no equation determines 3 variables"))
        .expect("undetermined reactions");
    // The reactions that are not unique are out-of-plane ones.
    assert!(
        !under.message.contains("lambda_x") && !under.message.contains("lambda_y"),
        "{}",
        under.message
    );
    assert!(under.message.contains("lambda_"), "{}", under.message);
}
