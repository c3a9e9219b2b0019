//! The teaching examples of the page, embedded in the WebAssembly module: from a first circuit
//! to an index-3 pendulum and a multibody omni wheel, each with the variables plotted first.

use serde::Serialize;

/// One example: its text and what the page shows first.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    /// The key in the page's example menu.
    pub id: &'static str,
    pub title: &'static str,
    /// What a student sees in it.
    pub lesson: &'static str,
    pub text: &'static str,
    /// Variables plotted after the first simulation.
    pub plot: &'static [&'static str],
}

/// Every example, simplest first.
pub const EXAMPLES: &[Example] = &[
    Example {
        id: "rc",
        title: "RC circuit",
        lesson: "Components from the library connected by pins; one state, the capacitor voltage.",
        text: include_str!("../examples/rc_circuit.mo"),
        plot: &["capacitor.v", "resistor.i"],
    },
    Example {
        id: "rlc",
        title: "RLC circuit with a step",
        lesson: "Components written in the model itself; a step source makes an event.",
        text: include_str!("../../examples/rlc.mo"),
        plot: &["c.v", "l.i"],
    },
    Example {
        id: "bouncing_ball",
        title: "Bouncing ball",
        lesson: "when / reinit: the velocity is reset at each impact.",
        text: include_str!("../../examples/bouncing_ball.mo"),
        plot: &["h", "v"],
    },
    Example {
        id: "gear",
        title: "Two inertias and a gear",
        lesson: "Index 2: the second inertia's angle is fixed by the first, so it is no state.",
        text: include_str!("../../examples/gear.mo"),
        plot: &["j1.w", "j2.w"],
    },
    Example {
        id: "pendulum",
        title: "Pendulum in Cartesian coordinates",
        lesson: "Index 3: the rod length constraint is differentiated twice and states are chosen.",
        text: include_str!("../../examples/pendulum.mo"),
        plot: &["x", "y"],
    },
    Example {
        id: "omni_wheel",
        title: "Omni wheel rolling",
        lesson: "The multibody library: a wheel with four rollers in rigid contact with the ground.",
        text: include_str!("../../examples/multibody/OmniWheelRolling.mo"),
        plot: &["wheel.wheel.r[1]", "wheel.wheel.r[3]", "wheel.wheel.v[3]"],
    },
];
