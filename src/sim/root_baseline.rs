//! The zero-crossing functions of the relations start every integration segment on the side
//! that agrees with the relation's kept value, so that a later crossing is never missed.
//!
//! A relation outside `noEvent` keeps the value the last event (or initialization) gave it
//! (MLS 8.5); its crossing function ([`super::engine::root_value`]) is positive while the
//! operands agree with that value and negative once they disagree, and the root finder reports
//! an event where it changes sign (the SUNDIALS method diffsol uses). Where the operands are
//! equal but for rounding, their order at the start of a segment is noise: EngineV6 starts
//! with two pistons at their dead centres, `v_rel` = 1.6e-17 at the event iteration and
//! -3.9e-17 when the root finder evaluates the same state again (a loop solved from another
//! start). The relation then disagrees with its operands where the root finder takes its
//! first value, the crossing function starts negative, and when the piston really moves to
//! the disagreeing side it only grows more negative: no sign change, no event, the gas force
//! stays on the wrong branch for the rest of the run (with exit 0), and which branch depended
//! on the output interval (output points are evaluations that change the loops' start values).
//!
//! The rule: at the first evaluation of a segment (the root finder's initial value) each
//! ordered relation whose crossing function is negative, by `-g0`, gets the band `2 |g0|`
//! added for the rest of the segment (hysteresis as OpenModelica's and Dymola's zero-crossing
//! functions have, here as wide as the disagreement actually seen, so no absolute threshold
//! decides what rounding is). The function then starts positive: operands moving to the
//! agreeing side are no change and give no event; operands moving on to the disagreeing side
//! cross the band, the event iteration evaluates the relation again (MLS 8.6) and it takes
//! the side the operands moved to. Every root the integrator reports is therefore a crossing
//! from agreement to disagreement, the case where the event must change the relation.
//! Equality relations (`==`, `<>`) have no distance to a boundary and get no band.
//!
//! Only a disagreement of rounding size gets a band: at most [`ROUNDING`] times
//! `1 + |a| + |b|`, the margin within which the event iteration already treats the operands of
//! the triggered relation as unmoved (`events.rs`). A larger one is no rounding: the relation
//! and its operands really disagree where the segment starts, and a band as wide would hide
//! its next crossing (a heater that never switches on); it is left as before.

use super::events::ROUNDING;
use super::program::Relation;
use super::tape::Op;

/// The bands of one segment; see the module documentation.
pub struct RootBaseline {
    /// Per relation: whether it orders its operands (has a distance to its boundary).
    ordered: Vec<bool>,
    /// Per relation: the band added to its crossing function in the current segment.
    shift: Vec<f64>,
    /// Set at the start of a segment: the next evaluation is the root finder's initial value.
    pending: bool,
    /// Per relation: whether its crossing function starts the segment positive (agreeing, or
    /// with a band), so that a root of it is a crossing from agreement.
    agreed: Vec<bool>,
}

impl RootBaseline {
    pub fn new(relations: &[Relation]) -> RootBaseline {
        RootBaseline {
            ordered: relations
                .iter()
                .map(|r| matches!(r.op, Op::Lt | Op::Le | Op::Gt | Op::Ge))
                .collect(),
            shift: vec![0.0; relations.len()],
            pending: true,
            agreed: vec![true; relations.len()],
        }
    }

    /// A new segment starts (a new solver whose root finder takes its initial value next).
    pub fn restart(&mut self) {
        self.pending = true;
    }

    /// Whether relation `i`'s crossing function started the segment agreeing (or with a band):
    /// a root of it is then a crossing from agreement to disagreement.
    pub fn agreed(&self, i: usize) -> bool {
        self.agreed.get(i).copied().unwrap_or(true)
    }

    /// Adds the bands to the crossing functions `g`, first setting them when a segment starts;
    /// `scale(i)` is `1 + |a| + |b|` of relation `i`'s operands.
    pub fn apply(&mut self, g: &mut [f64], scale: impl Fn(usize) -> f64) {
        if self.pending {
            self.pending = false;
            for (i, ((s, &x), &ordered)) in self
                .shift
                .iter_mut()
                .zip(g.iter())
                .zip(&self.ordered)
                .enumerate()
            {
                *s = if ordered && x < 0.0 && -x <= ROUNDING * scale(i) {
                    -2.0 * x
                } else {
                    0.0
                };
                self.agreed[i] = x >= 0.0 || *s != 0.0;
                if x < 0.0 && std::env::var_os("MINIMO_DEBUG_ROOTS").is_some() {
                    eprintln!(
                        "segment start: relation {i} disagrees by {} (scale {}): {}",
                        -x,
                        scale(i),
                        if *s != 0.0 { "band" } else { "no band" }
                    );
                }
            }
        }
        for (x, &s) in g.iter_mut().zip(&self.shift) {
            if s != 0.0 {
                // The same magnitude bounds as `root_value`: a product of two values near
                // 1e-170 underflows and hides a sign change from the root finder.
                let y = *x + s;
                *x = if y < 0.0 {
                    -(-y).clamp(1e-150, 1e150)
                } else {
                    y.clamp(1e-150, 1e150)
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(op: Op) -> Relation {
        Relation {
            op,
            a: 0,
            b: 1,
            reg: 2,
            text: String::new(),
        }
    }

    #[test]
    fn a_relation_that_starts_disagreeing_fires_when_its_operands_move_on() {
        let mut b = RootBaseline::new(&[rel(Op::Lt), rel(Op::Gt)]);
        // First evaluation: relation 0 disagrees by 1e-17 (rounding), relation 1 agrees.
        let mut g = [-1e-17, 0.5];
        b.apply(&mut g, |_| 1.0);
        assert!(g[0] > 0.0 && g[1] == 0.5);
        // Moving towards agreement: still positive, no event.
        let mut g = [1e-3, 0.4];
        b.apply(&mut g, |_| 1.0);
        assert!(g[0] > 0.0);
        // Moving on to the disagreeing side past the band: negative, an event.
        let mut g = [-1e-16, 0.4];
        b.apply(&mut g, |_| 1.0);
        assert!(g[0] < 0.0);
        // The next segment takes a new baseline: relation 1 now starts disagreeing by rounding.
        b.restart();
        let mut g = [0.3, -1e-12];
        b.apply(&mut g, |_| 1.0);
        assert!(g[0] == 0.3 && g[1] > 0.0);
    }

    #[test]
    fn a_disagreement_larger_than_rounding_gets_no_band() {
        let mut b = RootBaseline::new(&[rel(Op::Lt)]);
        let mut g = [-1.2];
        b.apply(&mut g, |_| 50.0);
        assert_eq!(g[0], -1.2);
        assert!(!b.agreed(0));
    }

    #[test]
    fn equality_relations_get_no_band() {
        let mut b = RootBaseline::new(&[rel(Op::Eq)]);
        let mut g = [-1.0];
        b.apply(&mut g, |_| 1.0);
        assert_eq!(g[0], -1.0);
    }
}
