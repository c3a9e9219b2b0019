//! Overdetermined connectors (MLS 9.4): the virtual connection graph picks one root per
//! connected part, `Connections.isRoot` selects the root's equations at flattening, a
//! connection closing a loop gets `equalityConstraint` equations, and a loop of branches is a
//! located error.

use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

const LIB: &str = r#"
package G
  record Orient "an overdetermined orientation"
    Real phi;
    function equalityConstraint
      input Orient R1;
      input Orient R2;
      output Real residue[1];
    algorithm
      residue := {R1.phi - R2.phi};
    end equalityConstraint;
  end Orient;
  connector Frame
    Orient R;
    flow Real t;
  end Frame;
  model Ground
    Frame b;
    Integer nc = cardinality(b) "connections of b";
  equation
    Connections.root(b.R);
    b.R.phi = 0;
  end Ground;
  model Joint "turns frame b against frame a at rate w"
    parameter Real w = 2;
    Frame a;
    Frame b;
    Real phi(start = 0, fixed = true);
  equation
    Connections.branch(a.R, b.R);
    der(phi) = w;
    b.R.phi = a.R.phi + phi;
    a.t + b.t = 0;
  end Joint;
  model Body "fixes its orientation to 1 when it is the root"
    parameter Integer p = 0;
    Frame a;
  equation
    Connections.potentialRoot(a.R, p);
    if Connections.isRoot(a.R) then
      a.R.phi = 1;
    else
      a.t = 0;
    end if;
  end Body;
  model Grounded
    Ground ground;
    Joint joint;
    Body body;
  equation
    connect(ground.b, joint.a);
    connect(joint.b, body.a);
  end Grounded;
  model Free "no definite root: the potential root of lowest priority is chosen"
    Body bodyA(p = 2);
    Joint joint;
    Body bodyB(p = 1);
  equation
    connect(bodyA.a, joint.a);
    connect(joint.b, bodyB.a);
  end Free;
  model Star "two chains on one ground: no loop"
    Ground ground;
    Joint j1;
    Joint j2(w = 3);
    Body b1;
    Body b2;
  equation
    connect(ground.b, j1.a);
    connect(ground.b, j2.a);
    connect(j1.b, b1.a);
    connect(j2.b, b2.a);
  end Star;
  model Loop
    Ground ground;
    Joint j1;
    Joint j2;
    Body body;
  equation
    connect(ground.b, j1.a);
    connect(ground.b, j2.a);
    connect(j1.b, body.a);
    connect(j2.b, body.a);
  end Loop;
end G;
"#;

fn simulate(model: &str, set: &[&str]) -> minimo::sim::SimResult {
    let flat =
        minimo::flatten::flatten_source("g.mo", LIB, Some(model)).unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.25),
        set: set.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn the_definite_root_wins_over_potential_roots() {
    let r = simulate("G.Grounded", &[]);
    for &t in &[0.5, 1.0f64] {
        let phi = r.value_at("body.a.R.phi", t).unwrap();
        assert!((phi - 2.0 * t).abs() < 1e-6, "body.a.R.phi({t}) = {phi}");
    }
}

#[test]
fn cardinality_counts_the_connections_of_a_connector() {
    let r = simulate("G.Grounded", &[]);
    assert_eq!(r.value_at("ground.nc", 0.5), Some(1.0));
    let r = simulate("G.Star", &[]);
    assert_eq!(r.value_at("ground.nc", 0.5), Some(2.0));
    assert!((r.value_at("b2.a.R.phi", 1.0).unwrap() - 3.0).abs() < 1e-6);
}

#[test]
fn the_potential_root_of_lowest_priority_is_chosen() {
    // bodyB (priority 1) is the root: its orientation is 1, bodyA's is 1 - w t.
    let r = simulate("G.Free", &[]);
    let b = r.value_at("bodyB.a.R.phi", 1.0).unwrap();
    let a = r.value_at("bodyA.a.R.phi", 1.0).unwrap();
    assert!((b - 1.0).abs() < 1e-9, "{b}");
    assert!((a - (1.0 - 2.0)).abs() < 1e-6, "{a}");
}

#[test]
fn a_connection_closing_a_loop_gets_the_equality_constraint() {
    // Two joints in parallel between ground and body: the second connection to the body is
    // left out of the spanning tree, so `0 = equalityConstraint(j2.b.R, body.a.R)` replaces
    // `j2.b.R.phi = body.a.R.phi` (one residue for one variable here: the loop stays a real
    // constraint between the two joints, which structural analysis then reports).
    let flat = minimo::flatten::flatten_source("g.mo", LIB, Some("G.Loop"))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = minimo::dae::print_flat(&flat);
    assert!(
        text.contains("0.0 = G.Orient.equalityConstraint(j2.b.R.phi, body.a.R.phi)"),
        "{text}"
    );
    assert!(!text.contains("j2.b.R.phi = body.a.R.phi"), "{text}");
}

#[test]
fn a_loop_of_branches_is_a_located_error() {
    let lib = LIB.replace(
        "end G;",
        "model BranchLoop\n    Ground ground;\n    Joint j;\n  equation\n    connect(ground.b, j.a);\n    Connections.branch(j.b.R, j.a.R);\n  end BranchLoop;\nend G;",
    );
    let e = minimo::flatten::flatten_source("g.mo", &lib, Some("G.BranchLoop")).unwrap_err();
    assert!(e.contains("closes a loop of branches"), "{e}");
    assert!(e.contains("g.mo:"), "{e}");
}

#[test]
fn a_type_with_equality_constraint_is_a_node_and_its_loop_is_broken() {
    // MLS 9.4 example: an `AC_Angle` (a Real type) in a connector; the connection parallel to
    // the branch is broken, and `equalityConstraint` has no residue.
    let src = r#"
model M
  type AC_Angle
    extends Real;
    function equalityConstraint
      input AC_Angle theta1;
      input AC_Angle theta2;
      output Real residue[0];
    algorithm
    end equalityConstraint;
  end AC_Angle;
  connector C
    AC_Angle theta;
    Real v;
    flow Real i;
  end C;
  model Two
    C c1;
    C c2;
  end Two;
  Two m;
  Boolean r1 = Connections.isRoot(m.c1.theta);
  Boolean r2 = Connections.isRoot(m.c2.theta);
equation
  m.c1.i = 1;
  m.c1.v = 2;
  m.c1.theta = 3;
  m.c2.theta = 3;
  connect(m.c1, m.c2);
  Connections.branch(m.c1.theta, m.c2.theta);
  Connections.potentialRoot(m.c2.theta);
end M;
"#;
    let flat = minimo::flatten::flatten_source("m.mo", src, None).unwrap_or_else(|e| panic!("{e}"));
    let text = minimo::dae::print_flat(&flat);
    assert!(!text.contains("m.c1.theta = m.c2.theta"), "{text}");
    assert!(text.contains("r2 = true"), "{text}");
}
