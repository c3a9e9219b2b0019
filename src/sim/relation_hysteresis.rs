//! Hysteresis of a zero-crossing function whose relation disagrees, by rounding, with its own
//! operands when integration (re)starts.
//!
//! At an event the triggered relation keeps its new value while its operands stay where they
//! crossed (`events::update_relations`): a loop solved again in the new mode can put them back
//! on the switching surface, a rounding error to the old side (a limited op-amp in positive
//! feedback: `V0*v_in < vns` set false, and the linear branch gives `V0*v_in = vns - 2e-13`).
//! The plain zero-crossing function is then negative from the start, so no sign change is ever
//! seen: the run would go on in a mode its relation contradicts, further and further. Instead
//! the function starts on the kept side by a band, and crosses as soon as the operands move
//! beyond the band to the other side: an event then takes the relation's value from its
//! operands, and the event iteration settles the mode properly (`sim/mixed_search.rs`).

use super::events::ROUNDING;
use super::tape::{Op, apply};

/// Width of the band, relative to `1 + |a| + |b|`: larger than the tolerance within which
/// `events::update_relations` keeps a triggered relation against its operands
/// ([`ROUNDING`]), so that at the event the band leads to, the operands have really moved and
/// decide the relation.
const BAND: f64 = 2.0 * ROUNDING;

/// The shift for relation `op` with operands `a`, `b`, kept at `kept`: zero when they agree or
/// when the disagreement is more than rounding (then the plain function's sign change, back to
/// agreement, is the event to find).
///
/// A relation the event just `switched` that agrees with operands still within the band of
/// its switching point gets the band too: its operands sit on the boundary, where the
/// integrator's own error (far below its tolerance) decides their sign. An ideal thyristor
/// fired at its voltage zero has the current `s` = 1e-16 A at the start of the on mode, the
/// solver's noise makes it -4e-17 A a few femtoseconds later, the thyristor turns off, and the
/// off mode's voltage, as close to zero, turns it on again: tens of events within 1e-10 s and a
/// chattering error, while the current really grows (Dimmer_RL fired at 180 degrees). With
/// the band, the switch goes back only when the operands move past it: hysteresis as the
/// zero-crossing functions of Dymola and OpenModelica have.
pub fn shift(op: Op, a: f64, b: f64, kept: bool, switched: bool) -> f64 {
    let Some(g) = toward_kept(op, a, b, kept) else {
        return 0.0;
    };
    let band = BAND * (1.0 + a.abs() + b.abs());
    if !band.is_finite() || g.abs() > band {
        return 0.0;
    }
    // `g` can be zero with the relation disagreeing (`a < b` kept true with `a == b`).
    let agrees = (apply(op, a, b, 0.0) != 0.0) == kept;
    match (agrees, switched) {
        (false, _) => g.abs() + band,
        (true, true) => band,
        (true, false) => 0.0,
    }
}

/// The zero-crossing function of [`super::engine::root_value`] with the hysteresis `shift`:
/// positive until the operands are more than `shift` on the side opposite to `kept`.
pub fn shifted_root(op: Op, a: f64, b: f64, kept: bool, shift: f64) -> f64 {
    let Some(g) = toward_kept(op, a, b, kept) else {
        return super::engine::root_value(op, a, b, kept);
    };
    let v = g + shift;
    if v.is_nan() {
        return f64::NAN;
    }
    // Magnitudes kept within [1e-150, 1e150] as in `root_value`.
    let m = v.abs().clamp(1e-150, 1e150);
    if v >= 0.0 { m } else { -m }
}

/// `a - b` signed so that it is positive where the relation has the value `kept`; `None` for
/// equality tests (no distance to a boundary).
fn toward_kept(op: Op, a: f64, b: f64, kept: bool) -> Option<f64> {
    let s = match op {
        Op::Lt | Op::Le => -1.0,
        Op::Gt | Op::Ge => 1.0,
        _ => return None,
    };
    let d = a - b;
    Some(if kept { s * d } else { -s * d })
}
