//! Solvability of constraint reactions (`minimo reactions`): the mobile robot with a trolley of
//! Wojtyra & Frączek (2013) reproduces the paper's ranks and its list of uniquely determined
//! reactions; a redundantly constrained cart, a pendulum at a simulated time, and the errors.

use minimo::analysis::reactions::{PointReport, ReactionOptions, analyze};
use minimo::diag::{SourceMap, render_all};
use minimo::flatten::{LoadOptions, load_and_flatten};
use std::path::PathBuf;
use std::process::Command;

fn root(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn point(files: &[&str], model: &str) -> PointReport {
    let mut sources = SourceMap::new();
    let opts = LoadOptions {
        files: files.iter().map(|f| root(f)).collect(),
        libs: Vec::new(),
        model: Some(model.to_string()),
    };
    let flat = load_and_flatten(&opts, &mut sources)
        .unwrap_or_else(|d| panic!("{}", render_all(&sources, &d)));
    let report = analyze(flat, &ReactionOptions::default())
        .unwrap_or_else(|d| panic!("{}", render_all(&sources, &d)));
    assert_eq!(report.points.len(), 1);
    report.points.into_iter().next().unwrap()
}

fn names(p: &PointReport, unique: bool) -> Vec<&str> {
    p.pairs
        .iter()
        .filter(|x| x.unique == unique)
        .map(|x| x.name.as_str())
        .collect()
}

fn b_norm(p: &PointReport, pair: &str) -> f64 {
    p.pairs.iter().find(|x| x.name == pair).unwrap().b_norm
}

/// The paper's eq. (35), (36) and its list of unique reactions, with the norms of B_X that the
/// digest's reconstruction gives (basis independent: 1/√6·√(…) values).
fn check_paper_table(p: &PointReport) {
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.n, 21, "coordinates");
    assert_eq!((p.holonomic, p.nonholonomic), (17, 5), "m, h");
    assert_eq!(p.rank_holonomic, 17, "rank Φ_q");
    assert_eq!(p.rank_nonholonomic, 4, "rank Ψ");
    assert_eq!(p.rank, 20, "rank C");
    assert_eq!(p.redundancy, 2, "p");
    assert_eq!(p.dof, 1);
    assert_eq!(
        names(p, true),
        ["A", "D", "E", "F", "G", "H", "drive", "W5"],
        "uniquely determined"
    );
    assert_eq!(names(p, false), ["B", "C", "W1", "W2", "W3", "W4"]);
    for (pair, norm) in [
        ("B", 0.583095),
        ("C", 0.583095),
        ("W1", 0.408248),
        ("W2", 0.408248),
        ("W3", 0.816497),
        ("W4", 0.816497),
        ("A", 0.0),
        ("W5", 0.0),
    ] {
        assert!(
            (b_norm(p, pair) - norm).abs() < 1e-5,
            "‖B_{pair}‖ = {}",
            b_norm(p, pair)
        );
    }
    // The gap between rank and null space is wide (exact Jacobian).
    let s = &p.singular_values;
    assert!(s[19] > 1e-3 * s[0] && s[20] < 1e-12 * s[0], "{s:?}");
    // H is one pair of two rows (offset and angle) with its two multipliers.
    let h = p.pairs.iter().find(|x| x.name == "H").unwrap();
    assert_eq!(h.rows.len(), 2);
    assert_eq!(
        h.rows
            .iter()
            .map(|r| r.multiplier.as_deref())
            .collect::<Vec<_>>(),
        [Some("H.F"), Some("H.M")]
    );
}

#[test]
fn robot_with_trolley_reproduces_the_papers_table() {
    let p = point(&["examples/multibody/RobotTrolley.mo"], "RobotTrolley");
    check_paper_table(&p);
    // Pair B as a whole is not unique, but its x multiplier is (the digest's remark on
    // section 2.5): only the y components carry the self-stress.
    let b = p.pairs.iter().find(|x| x.name == "B").unwrap();
    let rows: Vec<(Option<&str>, bool)> = b
        .rows
        .iter()
        .map(|r| (r.multiplier.as_deref(), r.unique))
        .collect();
    assert_eq!(rows, [(Some("B.F[1]"), true), (Some("B.F[2]"), false)]);
    assert_eq!(
        b.undetermined_on,
        ["platform.y", "platform.phi", "carrier2.y"]
    );
    assert_eq!((b.rank, b.rank_others, b.shared), (2, 19, 1));
}

#[test]
fn the_table_holds_at_another_configuration() {
    let p = point(
        &[
            "examples/multibody/RobotTrolley.mo",
            "tests/reactions/RotatedRobotTrolley.mo",
        ],
        "RotatedRobotTrolley",
    );
    check_paper_table(&p);
}

#[test]
fn four_wheel_cart_is_redundant_per_axle() {
    let p = point(&["examples/multibody/FourWheelCart.mo"], "FourWheelCart");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!((p.n, p.holonomic, p.nonholonomic), (3, 0, 4));
    assert_eq!((p.rank, p.redundancy, p.dof), (2, 2, 1));
    assert!(names(&p, true).is_empty());
    assert_eq!(
        names(&p, false),
        ["frontLeft", "frontRight", "rearLeft", "rearRight"]
    );
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run minimo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pendulum_at_simulated_times() {
    let (code, out, err) = cli(&[
        "reactions",
        "tests/reactions/PlanarPendulum.mo",
        "--at",
        "0.25",
        "--at",
        "0.5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("at t = 0.25 (simulation)"), "{out}");
    assert!(out.contains("at t = 0.5 (simulation)"), "{out}");
    assert!(
        out.contains("rank C = 2, redundancy p = m + h - rank C = 0"),
        "{out}"
    );
    assert!(
        out.contains("uniquely determined reactions: pivot"),
        "{out}"
    );
    assert!(
        !out.contains("warning"),
        "the simulated point satisfies the joint: {out}"
    );
}

#[test]
fn cli_json_is_deterministic_and_errors_are_reported() {
    let args = [
        "reactions",
        "examples/multibody/RobotTrolley.mo",
        "-m",
        "RobotTrolley",
        "--json",
    ];
    let (code, a, err) = cli(&args);
    assert_eq!(code, 0, "{err}");
    let (_, b, _) = cli(&args);
    assert_eq!(a, b);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["points"][0]["rank"], 20);
    assert_eq!(v["points"][0]["redundancy"], 2);
    // No mechanism: a located message, exit 1.
    let (code, _, err) = cli(&["reactions", "examples/rlc.mo"]);
    assert_eq!(code, 1);
    assert!(err.contains("no generalized coordinates"), "{err}");
    // Usage error: exit 2.
    let (code, _, _) = cli(&["reactions", "examples/rlc.mo", "--at", "soon"]);
    assert_eq!(code, 2);
}

/// The 3-D library states its joints at acceleration level through intermediate variables, and
/// its bodies turn with quaternions: C is read at velocity level, columns der(v), der(wb).
#[test]
fn spherical_joint_reactions_are_unique() {
    let p = point(
        &["examples/multibody/SphericalPendulum.mo"],
        "SphericalPendulum",
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // Three rows (the joint point's relative acceleration), on the body's six velocities; the
    // drift stabilization names the distance of the points: holonomic.
    assert_eq!((p.n, p.holonomic, p.nonholonomic), (6, 3, 0));
    assert_eq!((p.rank, p.redundancy, p.dof), (3, 0, 3));
    assert_eq!(names(&p, true), ["joint"]);
    assert!(p.pairs[0].rows.iter().all(|r| r.unique));
}

#[test]
fn one_revolute_hinge_is_determinate() {
    let p = point(&["tests/reactions/DoorOneHinge.mo"], "DoorOneHinge");
    assert_eq!(p.n, 6);
    assert_eq!((p.rank, p.redundancy, p.dof), (5, 0, 1));
    assert_eq!(names(&p, true), ["upper"]);
}

#[test]
fn two_coaxial_hinges_share_five_constraints() {
    let p = point(&["examples/multibody/DoorTwoHinges.mo"], "DoorTwoHinges");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // Each hinge: 5 rows of rank 5; together still rank 5 (the door turns about y only): p = 5.
    assert_eq!(p.n, 6);
    assert_eq!(p.holonomic + p.nonholonomic + p.acceleration, 10);
    assert_eq!((p.rank, p.redundancy, p.dof), (5, 5, 1));
    assert!(names(&p, true).is_empty());
    assert_eq!(names(&p, false), ["upper", "lower"]);
    for pair in &p.pairs {
        assert_eq!((pair.rank, pair.rank_others, pair.shared), (5, 5, 5));
        // The axial force (the row of the point's y acceleration) is not unique, and neither is
        // any other row: an axial pull of one hinge against the other is a self-stress.
        let axial = pair
            .rows
            .iter()
            .find(|r| r.equation.contains(".aBa[2] ="))
            .unwrap();
        assert!(!axial.unique, "{}", axial.equation);
        assert!(pair.rows.iter().all(|r| !r.unique));
        assert!(
            pair.undetermined_on.contains(&"der(door.v[2])".to_string()),
            "{:?}",
            pair.undetermined_on
        );
    }
}

#[test]
fn rigid_roller_contact_is_one_unique_row() {
    let p = point(&["examples/multibody/RigidRoller.mo"], "RigidRoller");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!((p.n, p.holonomic), (6, 1));
    assert_eq!((p.rank, p.redundancy), (1, 0));
    assert_eq!(names(&p, true), ["contact"]);
}

/// The omni vehicle (joint-coordinate wheels and rollers, rigid roller contacts): with three wheels
/// the three normal forces are unique; with four the platform stands on four points, one more than
/// its height, roll and pitch need: p = 1, and the self-stress (1, -1, 1, -1)/2 gives each contact
/// ‖B_X‖ = ‖row‖/2 = sqrt(1 + Rp²)/2 (a row: the contact point's vertical velocity,
/// v_y + arm × ω with arm Rp = 0.15).
#[test]
fn omni_vehicle_on_four_wheels_has_one_redundant_contact() {
    let p = point(&["examples/multibody/OmniVehicle4.mo"], "OmniVehicle4");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // Platform 6, wheels 4, rollers 16 velocities.
    assert_eq!((p.n, p.holonomic), (26, 4));
    assert_eq!((p.rank, p.redundancy, p.dof), (3, 1, 23));
    assert!(names(&p, true).is_empty());
    let expected = (1.0f64 + 0.15 * 0.15).sqrt() / 2.0;
    for k in 1..=4 {
        let name = format!("vehicle.wheels[{k}].rollers[1].contact");
        let x = p.pairs.iter().find(|x| x.name == name).unwrap();
        assert!(!x.unique);
        assert!((x.b_norm - expected).abs() < 1e-6, "{name}: {}", x.b_norm);
        assert!(
            x.undetermined_on
                .contains(&"der(vehicle.platform.v[2])".to_string())
        );
    }
    let p = point(&["examples/multibody/OmniVehicle.mo"], "OmniVehicle");
    assert_eq!((p.n, p.holonomic), (21, 3));
    assert_eq!((p.rank, p.redundancy), (3, 0));
    assert_eq!(names(&p, true).len(), 3);
}
