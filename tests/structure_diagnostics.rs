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
    let errs = analyze(b.model(), &AnalyzeOptions::default()).err().expect("must fail");
    assert_eq!(errs[0].message, "no equation determines `y`");
    assert!(errs[0].notes.iter().any(|n| n.contains("2 equations for 3 unknowns")), "{:?}", errs[0].notes);
}

#[test]
fn too_many_equations_are_named() {
    let mut b = Builder::new("Over");
    let x = b.var("x");
    let y = b.var("y");
    b.eq(der(&x), -x.clone());
    b.eq(y.clone(), sin(&x));
    b.eq(y, cos(&x));
    let errs = analyze(b.model(), &AnalyzeOptions::default()).err().expect("must fail");
    assert_eq!(errs.len(), 1);
    assert!(errs[0].message.starts_with("over-determined: 3 equations constrain only 2 variables (`x`, `y`)"), "{}", errs[0].message);
    assert_eq!(errs[0].label, "`y = cos(x)` is redundant");
}

#[test]
fn circuit_without_ground_gets_a_hint() {
    let b = builder_rlc(false);
    let errs = analyze(b.model(), &AnalyzeOptions::default()).err().expect("must fail");
    let all: Vec<String> = errs.iter().map(|d| format!("{} | {:?}", d.message, d.help)).collect();
    let under = errs.iter().find(|d| d.message.starts_with("no equation determines")).expect("under-determined part");
    let help = under.help.clone().unwrap_or_default();
    assert!(help.starts_with("no ground: the potentials"), "{all:?}");
    assert!(help.contains(".v`"), "{help}");
    let over = errs.iter().find(|d| d.message.contains("flow balances")).expect("over-determined part");
    assert!(over.help.as_deref().unwrap_or("").contains("ground"), "{all:?}");
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
    let errs = analyze(b.model(), &AnalyzeOptions::default()).err().expect("must fail");
    let over = errs.iter().find(|d| d.message.starts_with("over-determined")).expect("over-determined");
    assert!(over.label.contains("r*sin(crank.phi) = 0.05"), "{}", over.label);
    assert!(over.help.as_deref().unwrap_or("").contains("redundant"), "{:?}", over.help);
}

fn builder_rlc(ground: bool) -> Builder {
    let mut b = Builder::new("RLC");
    let (vs, _) = b.two_pin("src");
    let (vr, ir) = b.two_pin("R");
    let (vc, ic) = b.two_pin("C");
    let (rv, cv) = (b.param("R.R", 10.0), b.param("C.C", 1e-3));
    b.eq(vs, sin(&time()));
    b.eq(vr, rv * ir);
    b.eq(cv * der(&vc), ic);
    b.connect(&["src.p", "R.p"]);
    b.connect(&["R.n", "C.p"]);
    if ground {
        let gv = b.var("g.p.v");
        b.flow("g.p.i");
        b.eq(gv, c(0.0));
        b.connect(&["C.n", "src.n", "g.p"]);
    } else {
        b.connect(&["C.n", "src.n"]);
    }
    b
}

#[test]
fn grounded_rc_is_fine() {
    assert!(analyze(builder_rlc(true).model(), &AnalyzeOptions::default()).is_ok());
}
