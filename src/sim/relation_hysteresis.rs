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
//!
//! A relation the event just switched, with operands still within the band of its switching
//! point, gets the band too ([`shift`]), unless an Euler probe of the new mode moves its
//! operands out of the kept side ([`drop_band_where_mode_leaves`]: a thermostat without
//! hysteresis must still stop with the chattering error). Every band expires once the
//! operands are on the kept side by twice its width ([`expired`]), so it never delays the
//! relation's next real crossing.

use super::engine::Engine;
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

/// Whether the band `shift` of a relation kept at `kept` has done its work: the operands are
/// on the kept side by more than twice the band, so noise of the band's size can no longer
/// carry them back across the switching point. Left in place, the band would delay the
/// relation's next real crossing by its width (`s > 0` of `cos(20 pi t)` switched false at one
/// zero, the next rising zero found at `s = 2e-9` instead of at `s = 0`). Taking it off there
/// changes the crossing function from `g + shift` to `g`, both positive: no sign change.
pub fn expired(op: Op, a: f64, b: f64, kept: bool, shift: f64) -> bool {
    toward_kept(op, a, b, kept).is_some_and(|g| g > 2.0 * shift)
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

/// How far ahead, relative to the run's time unit plus the time, [`drop_band_where_mode_leaves`]
/// looks: far enough that a relation whose operand leaves the kept side at any rate that
/// matters (a thermostat's 1 K/s against a band of 1e-7 K) is seen leaving it, near enough
/// that the first-order prediction is the mode's own direction and not a later turn.
const PROBE: f64 = 1e-6;

/// Takes the band off again from a relation the event just switched (listed by `before`, the
/// values before the event; `agrees`: which relations agree with their operands now) when the new mode itself moves its operands out of the kept side:
/// an explicit Euler step of `PROBE` from the event in the new mode (relations held) puts
/// them beyond the band on the other side. That relation really flips straight back (a
/// thermostat without hysteresis: heating off at `T = Tbar` makes `T < Tbar` true at once), and
/// the band would only space the flips out by the band's width, time creeping on by 1e-10 s
/// per event instead of the chattering error. The band stays where the new mode keeps the
/// operands on their side or leaves them at the boundary (an ideal thyristor fired at its
/// voltage zero: its current grows from zero with a slope of zero, and only the integrator's
/// noise makes it -4e-17 A). A failed probe (the new mode's loop not solvable a step ahead)
/// leaves no band, as without this hysteresis.
pub fn drop_band_where_mode_leaves(
    engine: &mut Engine,
    before: &[bool],
    agrees: &[bool],
    time_unit: f64,
) {
    let relations = &engine.prog.relations;
    let candidates: Vec<usize> = (0..relations.len())
        .filter(|&i| {
            let kept = engine.regs[relations[i].reg as usize] != 0.0;
            engine.root_shift.get(i).is_some_and(|&s| s != 0.0)
                && before.get(i).is_some_and(|&v| v != kept)
                && agrees.get(i).is_some_and(|&a| a)
        })
        .collect();
    if candidates.is_empty() {
        return;
    }
    let t = engine.regs[engine.prog.time as usize];
    let ahead = probe_operands(engine, t, PROBE * (time_unit + t.abs()), &candidates);
    for (k, &i) in candidates.iter().enumerate() {
        let r = &engine.prog.relations[i];
        let kept = engine.regs[r.reg as usize] != 0.0;
        let leaves = ahead.as_ref().is_none_or(|ops| {
            let (a, b) = ops[k];
            let g = toward_kept(r.op, a, b, kept).unwrap_or(0.0);
            // Beyond the band on the other side, or NaN: leaves.
            let stays = g >= -BAND * (1.0 + a.abs() + b.abs());
            !stays
        });
        if leaves {
            engine.root_shift[i] = 0.0;
        }
    }
}

/// The operands of relations `which` after an explicit Euler step of `h` from the current
/// point, with every relation and discrete variable held; the registers are restored after.
/// `None` when the step's evaluation fails.
fn probe_operands(engine: &mut Engine, t: f64, h: f64, which: &[usize]) -> Option<Vec<(f64, f64)>> {
    let saved = engine.regs.clone();
    let x = engine.states();
    let mut dx = vec![0.0; x.len()];
    engine.derivatives(&mut dx);
    let x1: Vec<f64> = x.iter().zip(&dx).map(|(x, d)| x + h * d).collect();
    let ok = engine.eval_at(t + h, &x1).is_ok();
    let out = ok.then(|| {
        engine.run_outputs();
        which
            .iter()
            .map(|&i| {
                let r = &engine.prog.relations[i];
                (engine.regs[r.a as usize], engine.regs[r.b as usize])
            })
            .collect()
    });
    engine.regs = saved;
    engine.invalidate();
    out
}
