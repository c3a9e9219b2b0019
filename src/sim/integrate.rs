//! One integration phase with a diffsol method, on dense (nalgebra) or sparse (faer) matrices:
//! tolerances, the problem with its options, segments between events, the algebraic components
//! under error control.

use super::Method;
use super::diffsol_adapter::SimEqn;
use super::engine::Engine;
use super::errors::{block_error, solver_error};
use super::params::{ParamValues, eval_param_expr};
use super::stepping::{
    PhaseEnd, SegmentEnd, Stepper, check_chattering, handle_event, terminal_event,
};
use crate::dae::VarId;
use crate::diag::Diagnostic;
use crate::structure::SortedSystem;
use diffsol::{
    FaerSparseLU, FaerSparseMat, Matrix, NalgebraLU, NalgebraMat, OdeBuilder, Tableau, Vector,
};

/// The variables diffsol's error test covers besides the states: the dummy states of the
/// dynamic state sets (the pendulum's `y` and `der(y)` while `x`, `vx` are the states). The main
/// pass computes them from the states, so an error test on the states alone leaves their error
/// to the sensitivity of that solve, and a dynamic set exists because that sensitivity grows
/// without bound as the choice nears a singular one (`dy/dx = -x/y` near the horizontal; the
/// re-selection hysteresis lets it grow about tenfold). Measured on the pendulum released at
/// 2.5 rad: the error stopped following the tolerance (1.8e-5 at 1e-8, rumoca 5.6e-7). A DAE
/// solver (and rumoca) tests every unknown; here these become algebraic components of
/// diffsol's state vector with zero rows in the mass matrix, computed by the same main pass, so
/// the integrator's Newton settles them in one iteration and the evaluation is unchanged.
/// Static choices keep a plain ODE: their dummy states include contact quantities switched under
/// `noEvent` (the omni vehicle), which no error test can follow.
/// Sets of more candidates than [`MAX_CONTROLLED_SET`] are left out: a mechanism that large
/// (the six crank loops of MultiBody's EngineV6: 427 candidates, one state) put hundreds of
/// components into diffsol's matrix, and BDF then stopped at a relation crossing with 40 error
/// test failures while it integrates to the end without them (esdirk34 agrees).
pub(super) fn error_controlled(sys: &SortedSystem, engine: &Engine) -> Vec<(VarId, u32)> {
    let states: std::collections::HashSet<VarId> =
        engine.prog.states.iter().map(|&(x, _)| x).collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for set in &sys.state_sets {
        if set.candidates.len() > MAX_CONTROLLED_SET {
            continue;
        }
        for (k, cand) in set.candidates.iter().enumerate() {
            let Some(&v) = set.candidate_states.get(k) else {
                continue;
            };
            if !set.dummies.contains(cand) || states.contains(&v) || !seen.insert(v) {
                continue;
            }
            // Variables the main pass does not compute (eliminated aliases) are left out, and
            // so is a copy of a state (`der(x)` read from `vx`): the error test covers it.
            if let Some(r) = engine.value_reg(v)
                && !states.contains(&(r as usize))
            {
                out.push((v, r));
            }
        }
    }
    out
}

/// The largest state set whose dummy states join diffsol's error test.
const MAX_CONTROLLED_SET: usize = 100;

macro_rules! integrate_with {
    ($fname:ident, $m:ty, $ls:ty) => {
        pub(super) fn $fname(
            run: &mut Stepper,
            engine: Engine,
            tol: f64,
            method: Method,
        ) -> Result<PhaseEnd, Vec<Diagnostic>> {
            let model = &run.sys().model;
            // An explicit method cannot take a mass matrix: plain ODE there.
            let alg = match method {
                Method::Tsit45 => Vec::new(),
                _ => error_controlled(run.sys(), &engine),
            };
            // Absolute tolerances scaled by each component's nominal value.
            let atol: Vec<f64> = engine
                .prog
                .states
                .iter()
                .map(|&(x, _)| x)
                .chain(alg.iter().map(|&(v, _)| v))
                .map(|x| {
                    let nominal = model.variables[x]
                        .nominal
                        .as_ref()
                        .and_then(|e| {
                            eval_param_expr(
                                model,
                                &ParamValues {
                                    values: engine.prog.init_regs[..model.variables.len()].to_vec(),
                                },
                                e,
                            )
                            .ok()
                        })
                        .map(f64::abs)
                        .filter(|x| *x > 0.0)
                        .unwrap_or(1.0);
                    tol * nominal
                })
                .collect();
            let eqn = SimEqn::<$m>::new(engine, alg.iter().map(|&(_, r)| r).collect());
            let span = run.t_end - run.t0;
            let mut reselect = None;
            let mut problem = OdeBuilder::<$m>::new()
                .rtol(tol)
                .atol(atol)
                .t0(run.t_restart)
                .h0((span * 1e-6).min(run.interval))
                .build_from_eqn(eqn)
                .map_err(|e| solver_error(e, run.t_restart))?;
            // diffsol counts Newton failures over the solver's whole life (50 by default), not
            // per step: a bouncing contact costs a few at every touchdown and the run stopped
            // after the fifth bounce with the step still healthy. A step that really cannot
            // converge still ends, by the step size falling below the minimum.
            problem.ode_options.max_nonlinear_solver_failures = usize::MAX;
            // diffsol's smallest step is an absolute 1e-13: a circuit simulated for 1e-7 s
            // starts each segment with a step of 1e-13 (span * 1e-6) and fails at its first
            // rejection after an event. The floor follows the span of the run.
            problem.ode_options.min_timestep = problem.ode_options.min_timestep.min(span * 1e-14);
            loop {
                // Each segment's solver takes the crossing functions' initial value anew.
                problem.eqn.baseline.borrow_mut().restart();
                // The loops start from the solution where the segment starts (the
                // initialization's or the event's), not from the solver's first trial points.
                problem.eqn.engine.borrow_mut().anchor_here();
                let end = {
                    let p = &problem;
                    match method {
                        Method::Bdf => {
                            let mut state =
                                p.bdf_state::<$ls>().map_err(|e| solver_error(e, p.t0))?;
                            floor_first_step(&mut state, p);
                            start_algebraic_rates(&mut state, &p.eqn);
                            let mut s = p
                                .bdf_solver::<$ls>(state)
                                .map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                        Method::Esdirk34 => {
                            let mut state = p
                                .rk_state_and_consistent::<$ls>(&Tableau::esdirk34())
                                .map_err(|e| solver_error(e, p.t0))?;
                            floor_first_step(&mut state, p);
                            let mut s = p
                                .esdirk34_solver::<$ls>(state)
                                .map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                        Method::TrBdf2 => {
                            let mut state = p
                                .rk_state_and_consistent::<$ls>(&Tableau::tr_bdf2())
                                .map_err(|e| solver_error(e, p.t0))?;
                            floor_first_step(&mut state, p);
                            let mut s = p
                                .tr_bdf2_solver::<$ls>(state)
                                .map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                        Method::Tsit45 => {
                            let mut s = p.tsit45().map_err(|e| solver_error(e, p.t0))?;
                            run.segment(&mut s, &p.eqn)?
                        }
                    }
                };
                match end {
                    SegmentEnd::Finished => {
                        let mut engine = problem.eqn.engine.borrow_mut();
                        terminal_event(run, &mut engine)?;
                        break;
                    }
                    SegmentEnd::Reselect { t, y, prefer } => {
                        let mut engine = problem.eqn.engine.borrow_mut();
                        engine
                            .eval_at(t, &y)
                            .map_err(|e| vec![block_error(run.sys(), &engine.prog, &e)])?;
                        engine.run_outputs();
                        let n = run.sys().model.variables.len();
                        reselect = Some((t, engine.regs[..n].to_vec(), prefer));
                        break;
                    }
                    SegmentEnd::Event { t, y, triggered } => {
                        let mut engine = problem.eqn.engine.borrow_mut();
                        if let Some(idx) = triggered {
                            check_chattering(run, &engine, t, idx)?;
                        }
                        let time = engine.prog.time as usize;
                        engine.regs[time] = t;
                        for (i, &(s, _)) in engine.prog.states.clone().iter().enumerate() {
                            engine.regs[s] = y[i];
                        }
                        handle_event(run, &mut engine, t, triggered)?;
                        if run.es.terminated.is_some() {
                            terminal_event(run, &mut engine)?;
                            break;
                        }
                        let mut y_new = engine.states();
                        y_new.extend(problem.eqn.alg.iter().map(|&r| engine.regs[r as usize]));
                        drop(engine);
                        *problem.eqn.y0.borrow_mut() = y_new;
                        problem.t0 = t;
                        problem.h0 = (span * 1e-6).min(run.interval);
                    }
                }
            }
            let jac = *problem.eqn.jacobians.borrow();
            let stats = problem.eqn.engine.borrow().stats.clone();
            Ok(PhaseEnd {
                stats,
                jacobians: jac,
                reselect,
            })
        }
    };
}

/// Raises a fresh state's first step to a size the integrator can work with. diffsol estimates
/// it by Hairer's rule (`0.01 ||y|| / ||f||`, then from the change of `f` over an explicit Euler
/// probe), which suits non-stiff problems; right after an event that starts a fast stiff
/// transient with states near zero it gave 2e-16 at t = 1.05 (CauerLowPassSC: eleven switched
/// capacitors dumping their charge through 1e-5 Ohm), one ulp of the time: the first step could
/// not be reduced at all and BDF, ESDIRK34 and TR-BDF2 all stopped with "step size too small"
/// (tsit45 and looser tolerances passed). The floor is 100 times diffsol's smallest step, so a
/// too large start still has room for several rejections, and 1e4 ulps of the time, so that
/// `t + h` resolves `h` to four digits; the error test then takes the step from there.
pub(super) fn floor_first_step<M, S, Eqn>(state: &mut S, p: &diffsol::OdeSolverProblem<Eqn>)
where
    M: Matrix<T = f64>,
    Eqn: diffsol::OdeEquations<T = f64, M = M, V = M::V>,
    S: diffsol::OdeSolverState<M::V>,
{
    let st = state.as_mut();
    let floor = (100.0 * p.ode_options.min_timestep).max(1e4 * f64::EPSILON * st.t.abs());
    if st.h.abs() < floor {
        *st.h = floor.copysign(*st.h);
    }
}

/// The rates of the algebraic components in a fresh BDF state (`sim/alg_rates.rs`).
pub(super) fn start_algebraic_rates<M: Matrix<T = f64>, S: diffsol::OdeSolverState<M::V>>(
    state: &mut S,
    eqn: &SimEqn<M>,
) {
    if eqn.alg.is_empty() {
        return;
    }
    let st = state.as_mut();
    let y = st.y.clone_as_vec();
    let dy = st.dy.clone_as_vec();
    let rates = super::alg_rates::rates(
        &mut eqn.engine.borrow_mut(),
        &eqn.alg,
        *st.t,
        &y[..eqn.nx],
        &dy[..eqn.nx],
        *st.h,
    );
    for (i, r) in rates.into_iter().enumerate() {
        st.dy.set_index(eqn.nx + i, r);
    }
}

integrate_with!(integrate_dense, NalgebraMat<f64>, NalgebraLU<f64>);
integrate_with!(integrate_sparse, FaerSparseMat<f64>, FaerSparseLU<f64>);
