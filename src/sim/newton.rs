//! The simulator's one damped Newton iteration. Algebraic loops during integration
//! (`block_solve.rs`: compiled block Jacobians, sparse or dense LU) and the initial system
//! (`init.rs`: finite-difference Jacobian, dense LU) are two policies of [`damped_newton`].
//!
//! The loop owns the iterate and the order of the work: a convergence test, the Jacobian
//! (taken past a kink when the last line search stopped at one), the Newton step or, at a
//! singular Jacobian, the regularized step (a limited number of times in a row), the test on
//! the step's size, the line search, a second convergence test. A policy supplies the
//! residuals, the Jacobian and its solves, the regularized step, both convergence tests and
//! its [`Rules`] (iteration limit, step test, line search rule).

/// Where in an iteration the loop asks a policy whether the iterate has converged.
#[derive(Clone, Copy, Debug)]
pub(super) enum Check {
    /// Before the Jacobian is taken at the current iterate (residual max-norm `norm`).
    BeforeStep,
    /// After the line search: `step` is the scaled size of this iteration's full Newton step
    /// (max over `|dx_i| / (1 + |x_i|)`), `prev_step` that of the iteration before (infinite
    /// in the first).
    AfterStep { step: f64, prev_step: f64 },
}

/// How much of the Newton step an iteration takes.
#[derive(Clone, Copy, Debug)]
pub(super) enum LineSearch {
    /// The step is halved until the residual max-norm decreases by a small fraction of the
    /// predicted decrease (Armijo). An equal residual is no progress: on a piecewise-linear
    /// loop (an op-amp clamp under `noEvent`) the full step lands on the other saturated side
    /// with the same residual, and accepting it cycles. When no step length down to
    /// [`MIN_DAMPING`] decreases the residual, the best one tried is taken so that the
    /// iteration still moves; when only a tiny step does, a kink lies just ahead, which is
    /// located by bisection, and the next Jacobian is taken just past it.
    Armijo,
    /// The step is halved until the residual max-norm decreases; a step shorter than
    /// `accept_below` is taken if its residual is finite, and once the step falls below
    /// `give_up_below` the last one tried is taken whatever its residual.
    Decrease {
        accept_below: f64,
        give_up_below: f64,
    },
}

/// The fixed choices of a policy.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rules {
    /// Iterations (Jacobians) before the loop gives up.
    pub max_iter: usize,
    /// The full Newton step is taken and the iterate is converged when its scaled size is at
    /// most this (at round-off no step decreases the residual, so no line search then).
    pub step_tol: Option<f64>,
    pub line_search: LineSearch,
    /// Regularized steps in a row at singular Jacobians before the solve is reported singular.
    pub max_singular_steps: usize,
}

/// Smallest step fraction of the Armijo line search.
pub(super) const MIN_DAMPING: f64 = 1e-10;
/// An Armijo line search that accepts less than this fraction of the Newton step has stopped
/// at a kink.
pub(super) const STALLED_DAMPING: f64 = 1.0 / 1024.0;
/// Bisections that locate such a kink along the Newton direction.
pub(super) const KINK_BISECTIONS: usize = 50;

/// One system solved by [`damped_newton`].
pub(super) trait NewtonPolicy {
    type Error;
    fn rules(&self) -> Rules;
    /// The residual max-norm at the starting iterate `x` (NaN when a residual is NaN).
    fn start(&mut self, x: &[f64]) -> Result<f64, Self::Error>;
    /// Sets the unknowns to `x` and evaluates the residuals; returns their max-norm (NaN when
    /// one is NaN). The residuals of the last evaluation are those the other methods read.
    fn eval(&mut self, x: &[f64]) -> Result<f64, Self::Error>;
    /// Whether the iterate (residual max-norm `norm`) is a solution; an error stops the loop.
    fn converged(&mut self, norm: f64, check: Check) -> Result<bool, Self::Error>;
    /// Builds and factors the Jacobian at `x`, or at `probe` (the piece past a kink where the
    /// last line search stopped) with the residuals left as they are at `x`. `Ok(Err(column))`:
    /// singular, `column` has no pivot.
    fn factor(
        &mut self,
        x: &[f64],
        probe: Option<&[f64]>,
    ) -> Result<Result<(), usize>, Self::Error>;
    /// The residuals of the last evaluation, into `out`.
    fn residuals(&self, out: &mut Vec<f64>);
    /// Solves with the Jacobian just factored, in place (`dx` holds the residuals).
    fn solve(&mut self, dx: &mut [f64]);
    /// The regularized step where the Jacobian is singular in `column`, in place (`dx` holds
    /// the residuals); an error when there is none.
    fn regularized(&mut self, column: usize, dx: &mut [f64]) -> Result<(), Self::Error>;
    /// The error for too many regularized steps in a row, the last singular in `column`.
    fn singular(&mut self, column: usize) -> Self::Error;
    /// Called after each line search (for debugging output).
    fn trace(&self, _norm: f64, _new_norm: f64, _lambda: f64, _step: f64) {}
}

/// The iterate and the loop's buffers; `x` is the start on entry and the last iterate on return
/// (the policy's last evaluation is there).
#[derive(Clone, Debug, Default)]
pub(super) struct NewtonWork {
    pub x: Vec<f64>,
    x0: Vec<f64>,
    dx: Vec<f64>,
}

impl NewtonWork {
    pub(super) fn starting_at(x: Vec<f64>) -> NewtonWork {
        NewtonWork {
            x,
            ..Default::default()
        }
    }
}

/// How a [`damped_newton`] run ended without an error.
#[derive(Clone, Copy, Debug)]
pub(super) struct Outcome {
    pub converged: bool,
    /// The residual max-norm at the last iterate.
    pub norm: f64,
    /// Whether any step was a regularized one (the Jacobian was singular somewhere).
    pub singular_seen: bool,
}

/// Damped Newton on policy `p` from `w.x`.
pub(super) fn damped_newton<P: NewtonPolicy>(
    p: &mut P,
    w: &mut NewtonWork,
) -> Result<Outcome, P::Error> {
    let rules = p.rules();
    let mut norm = p.start(&w.x)?;
    let mut singular_steps = 0;
    let mut singular_seen = false;
    let mut probe: Option<Vec<f64>> = None;
    let mut prev_step = f64::INFINITY;
    let done = |norm, singular_seen| Outcome {
        converged: true,
        norm,
        singular_seen,
    };
    for _ in 0..rules.max_iter {
        if p.converged(norm, Check::BeforeStep)? {
            return Ok(done(norm, singular_seen));
        }
        let factored = p.factor(&w.x, probe.take().as_deref())?;
        p.residuals(&mut w.dx);
        match factored {
            Ok(()) => {
                singular_steps = 0;
                p.solve(&mut w.dx);
            }
            // Singular at this iterate (often the start values, not the solution): a
            // regularized step, at most a few times in a row.
            Err(column) => {
                singular_steps += 1;
                singular_seen = true;
                if singular_steps > rules.max_singular_steps {
                    return Err(p.singular(column));
                }
                p.regularized(column, &mut w.dx)?;
            }
        }
        w.x0.clone_from(&w.x);
        let step = max_abs(w.dx.iter().zip(&w.x0).map(|(d, z)| d / (1.0 + z.abs())));
        if rules.step_tol.is_some_and(|tol| step <= tol) {
            let norm = try_step(p, w, 1.0)?;
            return Ok(done(norm, singular_seen));
        }
        let (new_norm, lambda) = match rules.line_search {
            LineSearch::Armijo => armijo(p, w, norm, &mut probe)?,
            LineSearch::Decrease {
                accept_below,
                give_up_below,
            } => decrease(p, w, norm, accept_below, give_up_below)?,
        };
        p.trace(norm, new_norm, lambda, step);
        norm = new_norm;
        if p.converged(norm, Check::AfterStep { step, prev_step })? {
            return Ok(done(norm, singular_seen));
        }
        prev_step = step;
    }
    Ok(Outcome {
        converged: false,
        norm,
        singular_seen,
    })
}

/// The iterate `x0 - lambda dx`, evaluated; its residual max-norm.
fn try_step<P: NewtonPolicy>(p: &mut P, w: &mut NewtonWork, lambda: f64) -> Result<f64, P::Error> {
    for ((x, x0), d) in w.x.iter_mut().zip(&w.x0).zip(&w.dx) {
        *x = x0 - lambda * d;
    }
    p.eval(&w.x)
}

/// The Armijo line search ([`LineSearch::Armijo`]); the accepted residual norm and step
/// fraction, with the iterate evaluated there.
fn armijo<P: NewtonPolicy>(
    p: &mut P,
    w: &mut NewtonWork,
    norm: f64,
    probe: &mut Option<Vec<f64>>,
) -> Result<(f64, f64), P::Error> {
    let sufficient = |m: f64, lambda: f64| m.is_finite() && m <= (1.0 - 1e-4 * lambda) * norm;
    let mut lambda = 1.0;
    let mut best = (f64::INFINITY, 1.0);
    loop {
        let new_norm = try_step(p, w, lambda)?;
        if new_norm.is_finite() && new_norm < best.0 {
            best = (new_norm, lambda);
        }
        if sufficient(new_norm, lambda) {
            if lambda >= STALLED_DAMPING {
                return Ok((new_norm, lambda));
            }
            // A tiny step: the residual decreases up to a kink just ahead and grows past it (a
            // saturation limit under `noEvent`), and the next direction, from the same piece,
            // would stop there again. The kink is located between this step and the rejected
            // double, and the next Jacobian is taken just past it.
            let (mut lo, mut hi) = (lambda, 2.0 * lambda);
            for _ in 0..KINK_BISECTIONS {
                let mid = 0.5 * (lo + hi);
                if sufficient(try_step(p, w, mid)?, mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            *probe = Some(w.x0.iter().zip(&w.dx).map(|(z, d)| z - hi * d).collect());
            return Ok((try_step(p, w, lo)?, lo));
        }
        if lambda < MIN_DAMPING {
            if best.0.is_finite() && best.1 != lambda {
                try_step(p, w, best.1)?;
                return Ok(best);
            }
            return Ok((new_norm, lambda));
        }
        lambda *= 0.5;
    }
}

/// The simple-decrease line search ([`LineSearch::Decrease`]).
fn decrease<P: NewtonPolicy>(
    p: &mut P,
    w: &mut NewtonWork,
    norm: f64,
    accept_below: f64,
    give_up_below: f64,
) -> Result<(f64, f64), P::Error> {
    let mut lambda = 1.0;
    loop {
        let new_norm = try_step(p, w, lambda)?;
        if new_norm.is_finite() && (new_norm < norm || lambda < accept_below) {
            return Ok((new_norm, lambda));
        }
        if 0.5 * lambda < give_up_below {
            return Ok((new_norm, lambda));
        }
        lambda *= 0.5;
    }
}

/// The largest magnitude; NaN when any element is NaN.
pub(super) fn max_abs(it: impl Iterator<Item = f64>) -> f64 {
    let mut m = 0.0f64;
    for x in it {
        if x.is_nan() {
            return f64::NAN;
        }
        m = m.max(x.abs())
    }
    m
}
