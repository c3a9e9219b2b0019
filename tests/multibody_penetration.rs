//! A contact whose geometry socket no longer describes how the bodies touch must stop the run,
//! never let the bodies pass through each other with exit 0.
//!
//! A lone omni wheel tips over at about 0.6 s (its rollers let it slide along its axis); lying
//! on its side it rests on roller tips and the hub, which no contact models. Before the check in
//! `ContactConstraintTemplate`, the run went on with exit 0 and the wheel centre fell to
//! y = -0.15 m by t = 1 s (the ground is y = 0, the radius 0.05 m).

#[path = "multibody/harness.rs"]
mod harness;

use harness::{Sim, example};

#[test]
fn a_wheel_that_tips_over_stops_the_run_at_the_overlap() {
    let Err(err) = Sim::new(
        example("OmniWheelRolling.mo"),
        "OmniWheelRolling",
        1.0,
        0.001,
    )
    .tolerance(1e-8)
    .run() else {
        panic!("the wheel fell through the ground and the run still succeeded");
    };
    assert!(err.contains("assertion failed at time 0.6"), "{err}");
    assert!(
        err.contains("OmniWheelRolling.wheel.rollers[")
            && err.contains("].contact: the bodies overlap by"),
        "the error does not name the contact: {err}"
    );
}

/// The example's own experiment ends before the wheel leans noticeably: it still runs.
#[test]
fn the_example_ends_before_the_wheel_tips() {
    let r = Sim::new(
        example("OmniWheelRolling.mo"),
        "OmniWheelRolling",
        0.4,
        0.001,
    )
    .tolerance(1e-8)
    .vars(r"time|wheel\.wheel\.r\[\d\]")
    .run()
    .unwrap_or_else(|e| panic!("{e}"));
    let y = r.col("wheel.wheel.r[2]");
    assert!(
        y.iter().all(|y| (y - 0.05).abs() < 1e-5),
        "the wheel centre left height R"
    );
}

/// A friction law without a linear zone (`deltaFriction = 0`, found by the fuzzer) used to crawl
/// for minutes through every sign change of the slip; it is refused at the start, naming the law.
#[test]
fn coulomb_friction_without_a_linear_zone_is_refused() {
    let file = harness::temp_model(
        "NoLinearZone.mo",
        "model NoLinearZone
           extends OmniWheelRolling(wheel(deltaFriction = 0));
         end NoLinearZone;",
    );
    let Err(err) = Sim::new(example("OmniWheelRolling.mo"), "NoLinearZone", 0.1, 0.01)
        .file(file)
        .run()
    else {
        panic!("a friction law with delta = 0 ran");
    };
    assert!(err.contains("assertion failed at time 0"), "{err}");
    assert!(
        err.contains("NoLinearZone.wheel.rollers[1].contact.tangential: the linear zone delta"),
        "{err}"
    );
}
