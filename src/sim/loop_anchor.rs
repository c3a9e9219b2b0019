//! Where a nonlinear loop's Newton iteration starts: from the loop's solution at the last point
//! the integrator accepted (its anchor), and only when that fails from the last evaluation.
//!
//! A loop with several solutions (a Schmitt trigger's op-amp under `noEvent`: `out = +Vps` and
//! `out = -Vps` both solve it while the input stays inside the hysteresis band) takes the one
//! nearest its start. Started from the last evaluation, that is wherever the integrator looked
//! last: a predictor or a step later rejected that went beyond the threshold flips the loop to
//! the other solution, which every later evaluation then keeps, so the switch came early and at
//! a point that depended on the solver (Multivibrator: at `c.v` = 7.16 instead of 7.5 with BDF,
//! 7.31 with ESDIRK34). From the anchor, an evaluation at a point where the accepted branch
//! still solves the loop finds that branch again, whatever was evaluated in between; the loop
//! changes branch only once an accepted point lies where that branch no longer exists.
//! Linear loops have one solution: their start only decides how many refinement steps they take,
//! so they keep starting from the last evaluation.

use super::engine::{BlockError, Engine};
use super::program::Step;

/// Newton iterations from the anchor before the last evaluation's values are tried. From a
/// nearby solution Newton converges in a few; when it does not, the anchor's branch has
/// usually ceased to exist (the trial point lies past the threshold), and the line search
/// would spend its full budget stalled at the kink.
const ANCHOR_ITERATIONS: usize = 8;

/// The anchors of an engine: per step (empty for linear blocks and explicit steps) the
/// unknowns of the loop at the last accepted point, and those of the point just accepted, which
/// become the anchors once the output points before it are recorded.
#[derive(Clone, Debug, Default)]
pub(super) struct Anchors {
    /// The steps that are nonlinear loops, in order.
    steps: Vec<usize>,
    current: Vec<Vec<f64>>,
    pending: Vec<Vec<f64>>,
    /// The solution found the last time the anchor failed (see [`Engine::solve_from_anchor`]).
    alternative: Vec<Vec<f64>>,
}

impl Anchors {
    pub(super) fn new(steps: &[Step]) -> Anchors {
        let nonlinear: Vec<usize> = steps
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Step::Implicit { linear: false, .. }))
            .map(|(i, _)| i)
            .collect();
        Anchors {
            steps: nonlinear,
            current: vec![Vec::new(); steps.len()],
            pending: vec![Vec::new(); steps.len()],
            alternative: vec![Vec::new(); steps.len()],
        }
    }

    /// The anchor of step `si` when it has one of `n` values.
    pub(super) fn of(&self, si: usize, n: usize) -> Option<&[f64]> {
        self.current
            .get(si)
            .map(Vec::as_slice)
            .filter(|a| a.len() == n)
    }
}

impl Engine {
    /// Whether the program has nonlinear loops (else anchoring costs nothing and does nothing).
    pub fn has_anchors(&self) -> bool {
        !self.anchors.steps.is_empty()
    }

    /// The loops' values now in the registers become their anchors: the solution of the
    /// initialization or of an event iteration, where the next integration segment starts.
    pub fn anchor_here(&mut self) {
        for k in 0..self.anchors.steps.len() {
            let si = self.anchors.steps[k];
            let a = &mut self.anchors.current[si];
            a.clear();
            a.extend(self.blocks[si].vars.iter().map(|&v| self.regs[v]));
            self.anchors.pending[si].clear();
        }
    }

    /// The integrator accepted the point `(t, x)`: the loops are solved there (usually the
    /// point just evaluated, for the root functions) and their values kept as the next anchors.
    /// They take effect with [`Self::commit_anchors`], after the output points between the
    /// previous accepted point and this one are recorded from the previous anchors.
    pub fn accept_point(&mut self, t: f64, x: &[f64]) -> Result<(), BlockError> {
        if self.anchors.steps.is_empty() {
            return Ok(());
        }
        self.eval_at(t, x)?;
        for k in 0..self.anchors.steps.len() {
            let si = self.anchors.steps[k];
            let p = &mut self.anchors.pending[si];
            p.clear();
            p.extend(self.blocks[si].vars.iter().map(|&v| self.regs[v]));
        }
        Ok(())
    }

    /// The values kept by the last [`Self::accept_point`] become the anchors.
    pub fn commit_anchors(&mut self) {
        for k in 0..self.anchors.steps.len() {
            let si = self.anchors.steps[k];
            if !self.anchors.pending[si].is_empty() {
                std::mem::swap(&mut self.anchors.current[si], &mut self.anchors.pending[si]);
                self.anchors.pending[si].clear();
            }
        }
    }

    /// Newton on nonlinear block `si` from its anchor, when it has one that differs from the
    /// values in the registers (the last evaluation's): `None` without such an anchor, else
    /// whether it converged. When it did not, the solution the loop took the last time its
    /// anchor failed is tried next (the other branch of a bistable loop, which every trial point
    /// past the threshold needs, and which Newton cannot reach from the anchor's side); if that
    /// fails too, the unknowns are back at `last` for the ordinary solve.
    pub(super) fn solve_from_anchor(
        &mut self,
        si: usize,
        vars: &[usize],
        residuals: &[u32],
        last: &[f64],
    ) -> Option<bool> {
        let anchor = self.anchors.of(si, vars.len())?;
        if anchor == last || anchor.iter().any(|a| !a.is_finite()) {
            return None;
        }
        let anchor = anchor.to_vec();
        if self.newton_from(si, vars, residuals, &anchor) {
            return Some(true);
        }
        let alternative = self
            .anchors
            .alternative
            .get(si)
            .filter(|a| a.len() == vars.len() && a.as_slice() != last && **a != anchor)
            .cloned();
        if let Some(alt) = alternative
            && self.newton_from(si, vars, residuals, &alt)
        {
            return Some(true);
        }
        for (&v, &z) in vars.iter().zip(last) {
            self.regs[v] = z;
        }
        self.blocks[si].factored = false;
        Some(false)
    }

    /// A few Newton iterations on block `si` from `start`; whether they converged.
    fn newton_from(&mut self, si: usize, vars: &[usize], residuals: &[u32], start: &[f64]) -> bool {
        for (&v, &a) in vars.iter().zip(start) {
            self.regs[v] = a;
        }
        self.newton(si, vars, residuals, false, ANCHOR_ITERATIONS)
            .is_ok()
    }

    /// Block `si` was solved after its anchor failed: its values are the next alternative.
    pub(super) fn remember_alternative(&mut self, si: usize, vars: &[usize]) {
        if let Some(a) = self.anchors.alternative.get_mut(si) {
            a.clear();
            a.extend(vars.iter().map(|&v| self.regs[v]));
        }
    }
}
