//! Unilateral contacts of Minimo.Multibody: the rigid roller contact of Kosenko & Gerasimov (switched
//! by an if-equation under noEvent, imposed as der(v_n) = 0) and the compliant template variants.

#[path = "multibody/harness.rs"]
mod harness;

use harness::{Sim, example, interp, reference, temp_model};

#[test]
fn rigid_roller_without_friction_conserves_energy_and_stays_on_the_plane() {
    // The paper's der(v_n) = 0 alone lets the gap drift with the integration error (1.1e-6 m, so
    // 1.1e-6 J of potential energy, over 2 s at tolerance 1e-8); the drift stabilization keeps it
    // at 6e-10 m and the energy to 6e-9 J.
    let r = Sim::new(example("RigidRoller.mo"), "RigidRoller", 2.0, 0.001)
        .tolerance(1e-8)
        .set("contact.elastic.wStab", 200.0)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.all_finite());
    // The rigid contact does no work (v_n = 0 at the contact point) and there is no friction.
    let e0 = r.col("roller.E")[0];
    assert!(
        r.spread("roller.E") < 1e-6 * e0.abs().max(1e-3),
        "energy drift {}",
        r.spread("roller.E")
    );
    // Contact kept the whole time with a positive normal force, and the gap stays near zero
    // (the papers report about 1e-7 m).
    assert!(
        r.col("contact.Fn").iter().all(|f| *f > 0.0),
        "the roller lost contact"
    );
    assert!(
        r.max_abs("contact.h") < 1e-6,
        "gap error {}",
        r.max_abs("contact.h")
    );
    // The roller rocks: its centre height changes (the contact point moves along the arc).
    assert!(r.spread("roller.r[2]") > 1e-4);
}

/// rumoca cannot simulate the rigid contact; its reference is the stiff-penalty limit of the same
/// roller (k = 1e9 N/m, tests/multibody/rumoca_rigid_roller_penalty.py), which stands for the rigid
/// contact to about 1e-8 m in height and 1e-7 in the quaternion.
#[test]
fn rigid_roller_matches_the_stiff_penalty_limit() {
    let refr = reference("rumoca_rigid_roller_penalty.csv");
    let r = Sim::new(example("RigidRoller.mo"), "RigidRoller", 2.0, 0.01)
        .tolerance(1e-9)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let t = r.time();
    for (mine, theirs, tol) in [
        ("roller.r[2]", "y", 1e-6),
        ("roller.q[1]", "q1", 2e-5),
        ("roller.q[2]", "q2", 2e-5),
        ("roller.q[3]", "q3", 2e-5),
        ("roller.q[4]", "q4", 2e-5),
        ("roller.wb[2]", "wb2", 2e-3),
    ] {
        let m = r.col(mine);
        let worst = refr
            .time()
            .iter()
            .zip(refr.col(theirs))
            .map(|(tk, v)| (interp(&t, &m, *tk) - v).abs())
            .fold(0.0, f64::max);
        assert!(
            worst < tol,
            "{mine} differs from the penalty limit by {worst} (tolerance {tol})"
        );
    }
}

#[test]
fn free_roller_without_friction_and_damping_conserves_energy() {
    let file = temp_model(
        "FreeRollerConservative.mo",
        "model FreeRollerConservative
           extends FreeRoller(redeclare model FrictionLaw = Minimo.Multibody.Contacts.Friction.None,
             redeclare model DampingLaw = Minimo.Multibody.Contacts.Damping.None);
         end FreeRollerConservative;",
    );
    let r = Sim::new(&file, "FreeRollerConservative", 1.0, 0.001)
        .file(example("FreeRoller.mo"))
        .tolerance(1e-9)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.all_finite());
    // Bodies' energy plus the elastic energy of the Hertz contact (rumoca 0.10.2 keeps it to 3e-9 J).
    let e0 = r.col("E")[0];
    assert!(
        r.spread("E") < 1e-6 * e0,
        "energy drift {} of {e0}",
        r.spread("E")
    );
    // It does bounce: several separate contact phases.
    let h = r.col("contact.h");
    let touchdowns = h.windows(2).filter(|w| w[0] >= 0.0 && w[1] < 0.0).count();
    assert!(touchdowns >= 3, "only {touchdowns} touchdowns");
}

#[test]
fn dropped_roller_loses_energy_monotonically_with_damping_and_friction() {
    let r = Sim::new(example("FreeRoller.mo"), "FreeRoller", 1.0, 0.001)
        .tolerance(1e-9)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let e = r.col("E");
    let rises = e
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(rises < 1e-9, "the energy rose by {rises}");
    assert!(
        e[0] - e[e.len() - 1] > 1e-4,
        "hardly any dissipation: {} -> {}",
        e[0],
        e[e.len() - 1]
    );
    // It ends resting on the plane: penetration below 0.1 mm.
    assert!(r.col("contact.h").iter().all(|h| *h > -1e-3));
}

/// The three ways of imposing the rigid contact (acceleration, velocity, position level). The papers
/// report that only der(v_n) = 0 simulated in Dymola; minimo must either give the same motion or
/// stop with a diagnostic (never a panic).
#[test]
fn three_forms_of_the_rigid_contact() {
    let reference = Sim::new(example("RigidRoller.mo"), "RigidRoller", 1.0, 0.01)
        .tolerance(1e-8)
        .run()
        .unwrap_or_else(|e| panic!("acceleration form: {e}"));
    for (form, socket) in [("velocity", "RigidVelocity"), ("position", "RigidGap")] {
        let file = temp_model(
            &format!("RigidRoller{socket}.mo"),
            &format!(
                "model RigidRoller{socket}
                   extends RigidRoller(contact(redeclare model NormalElastic = Minimo.Multibody.Contacts.Elastic.{socket}));
                 end RigidRoller{socket};"
            ),
        );
        match Sim::new(&file, &format!("RigidRoller{socket}"), 1.0, 0.01)
            .file(example("RigidRoller.mo"))
            .tolerance(1e-8)
            .run()
        {
            Ok(r) => {
                for v in ["roller.r[1]", "roller.r[2]", "roller.r[3]"] {
                    let (a, b) = (reference.last(v), r.last(v));
                    assert!(
                        (a - b).abs() < 1e-5,
                        "{form} form: {v} = {b}, acceleration form {a}"
                    );
                }
            }
            Err(msg) => {
                assert!(!msg.contains("panicked"), "{form} form panicked:\n{msg}");
                assert!(
                    msg.contains("error"),
                    "{form} form failed without a diagnostic:\n{msg}"
                );
            }
        }
    }
}

/// A user-written friction law (examples/multibody/CustomFriction.mo) plugged in by one redeclare.
#[test]
fn custom_friction_law_plugs_into_the_template() {
    let coulomb = Sim::new(example("FreeRoller.mo"), "FreeRoller", 1.0, 0.01)
        .tolerance(1e-9)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    let stribeck = Sim::new(
        example("CustomFriction.mo"),
        "CustomFriction.DroppedRoller",
        1.0,
        0.01,
    )
    .file(example("FreeRoller.mo"))
    .tolerance(1e-9)
    .run()
    .unwrap_or_else(|e| panic!("{e}"));
    let e = stribeck.col("E");
    assert!(
        e.windows(2).all(|w| w[1] <= w[0] + 1e-9),
        "energy rose with the Stribeck law"
    );
    let (a, b) = (coulomb.last("E"), stribeck.last("E"));
    assert!(
        (a - b).abs() > 1e-6,
        "the friction law made no difference: {a} vs {b}"
    );
}
