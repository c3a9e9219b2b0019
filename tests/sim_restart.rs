//! How the integrator starts again after an event: the first step of each segment.
//! Every expected value is worked out by hand from the model's text.

mod flatten_common;

use flatten_common::{at, close, sim_options, simulate_text};
use minimo::sim::{Method, SimOptions};

/// At t = 1 a fast stiff transient starts (time constant 1e-6 s) while the state is 2e-11,
/// just above where diffsol's first-step rule switches to its fixed 1e-6: the rule
/// (`0.01 |x| / |der(x)|`) then gives 2e-19, below one ulp of t = 1, and BDF, ESDIRK34 and
/// TR-BDF2 all stopped with "step size too small" (CauerLowPassSC at its switch events).
/// x(t) = 1 - (1 - x0) exp(-1e6 (t - 1)) after the event: 1 to rounding from t = 1.0001.
const FAST_AFTER_EVENT: &str = "
model FastAfterEvent
  Real x(start = 2e-11, fixed = true);
equation
  der(x) = if time < 1 then 0 else 1e6*(1 - x);
end FastAfterEvent;
";

#[test]
fn a_stiff_transient_starting_at_an_event_from_a_tiny_state_is_integrated_by_every_implicit_method()
{
    for method in [Method::Bdf, Method::Esdirk34, Method::TrBdf2] {
        let opts = SimOptions {
            method,
            ..sim_options(1.5, 0.05, 1e-6)
        };
        let r =
            simulate_text(FAST_AFTER_EVENT, &opts).unwrap_or_else(|e| panic!("{method:?}: {e}"));
        close(
            at(&r, "x", 0.95),
            2e-11,
            1e-15,
            &format!("{method:?} x before"),
        );
        close(at(&r, "x", 1.05), 1.0, 1e-5, &format!("{method:?} x(1.05)"));
        close(at(&r, "x", 1.5), 1.0, 1e-5, &format!("{method:?} x(1.5)"));
    }
}
