//! The diffsol adapter: the compiled system as diffsol's `OdeEquations`.
//!
//! ODE mode: diffsol sees only the states; the right-hand side runs the compiled BLT blocks.
//! The equations implement diffsol's `OdeEquations` directly (not the closure builder) so that
//! the Jacobian sparsity comes from the program structure and large systems never pay for a
//! dense probe. Small systems use dense nalgebra matrices, large ones faer's sparse LU; both use
//! a column colouring so a Jacobian costs a few Jacobian-vector products.

use super::engine::Engine;
use super::jacobian::{register_pattern, state_jacobian_pattern};
use diffsol::jacobian::JacobianColoring;
use diffsol::matrix::sparsity::MatrixSparsity;
use diffsol::op::ParameterisedOp;
use diffsol::{
    ConstantOp, LinearOp, Matrix, NonLinearOp, NonLinearOpJacobian, OdeEquations, OdeEquationsRef,
    Op, UnitCallable, Vector, VectorIndex,
};
use std::cell::RefCell;

pub(super) type Index<M> = <<M as diffsol::MatrixCommon>::V as Vector>::Index;

/// Where the entries of the Jacobian pattern go in the matrix data: entry `src[p]` of the values
/// (in pattern order) to data slot `dst[p]`.
pub(super) struct Scatter<M: Matrix<T = f64>> {
    pub(super) dst: Index<M>,
    pub(super) src: Index<M>,
    pub(super) pattern: Vec<(usize, usize)>,
}

pub struct SimEqn<M: Matrix<T = f64>> {
    pub engine: RefCell<Engine>,
    pub y0: RefCell<Vec<f64>>,
    /// Size of diffsol's state vector: the states, then the algebraic components `alg`.
    pub(super) n: usize,
    /// Number of states (the differential components).
    pub(super) nx: usize,
    /// Registers of the algebraic components (see [`error_controlled`]): component `nx + i` is
    /// `regs[alg[i]]`, with the residual `regs[alg[i]] - y[nx + i]` and a zero row in the mass
    /// matrix, so that diffsol's error test covers them.
    pub(super) alg: Vec<u32>,
    pub(super) nroots: usize,
    pub(super) ctx: M::C,
    pub(super) sparsity: Option<M::Sparsity>,
    pub(super) coloring: Option<JacobianColoring<M>>,
    /// Set when the engine builds the state Jacobian itself ([`Engine::state_jacobian`]).
    pub(super) scatter: Option<Scatter<M>>,
    pub jacobians: RefCell<usize>,
    /// The dense state Jacobian of the engine, kept between Jacobians (an allocation of this
    /// size is a fresh mapping each time: its pages are zeroed by the kernel on every call).
    pub(super) dense: RefCell<Vec<f64>>,
    /// The bands that start each segment's crossing functions agreeing with their relations.
    pub(super) baseline: RefCell<super::root_baseline::RootBaseline>,
}

impl<M: Matrix<T = f64>> SimEqn<M> {
    pub(super) fn new(engine: Engine, alg: Vec<u32>) -> SimEqn<M> {
        let ctx = M::C::default();
        let nx = engine.nstates();
        let n = nx + alg.len();
        let mut y0 = engine.states();
        y0.extend(alg.iter().map(|&r| engine.regs[r as usize]));
        let nroots = engine.prog.relations.len();
        let baseline = super::root_baseline::RootBaseline::new(&engine.prog.relations);
        let mut pattern = state_jacobian_pattern(&engine.prog);
        if !alg.is_empty() {
            let rows: Vec<usize> = alg.iter().map(|&r| r as usize).collect();
            for (i, j) in register_pattern(&engine.prog, &rows) {
                pattern.push((nx + i, j));
            }
            pattern.extend((nx..n).map(|i| (i, i)));
            pattern.sort_unstable();
        }
        let sparsity = M::Sparsity::try_from_indices(n, n, pattern.clone()).ok();
        let coloring = sparsity
            .as_ref()
            .map(|s| JacobianColoring::new(s, &pattern, ctx.clone()));
        // The engine's state Jacobian covers the states' rows only.
        let scatter = match &sparsity {
            Some(s) if engine.has_state_jacobian() && alg.is_empty() => Some(Scatter {
                dst: s.get_index(&pattern, ctx.clone()),
                src: Index::<M>::from_vec((0..pattern.len()).collect(), ctx.clone()),
                pattern,
            }),
            _ => None,
        };
        SimEqn {
            engine: RefCell::new(engine),
            y0: RefCell::new(y0),
            n,
            nx,
            alg,
            nroots,
            ctx,
            sparsity,
            coloring,
            scatter,
            jacobians: RefCell::new(0),
            dense: RefCell::new(Vec::new()),
            baseline: RefCell::new(baseline),
        }
    }
}

pub struct SimRhs<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);
pub struct SimInit<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);
pub struct SimRoot<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);
pub struct SimMass<'a, M: Matrix<T = f64>>(&'a SimEqn<M>);

macro_rules! sim_op {
    ($name:ident, $nout:expr) => {
        impl<M: Matrix<T = f64>> Op for $name<'_, M> {
            type M = M;
            type V = M::V;
            type T = f64;
            type C = M::C;
            fn nstates(&self) -> usize {
                self.0.n
            }
            #[allow(clippy::redundant_closure_call)]
            fn nout(&self) -> usize {
                ($nout)(self.0)
            }
            fn nparams(&self) -> usize {
                0
            }
            fn context(&self) -> &M::C {
                &self.0.ctx
            }
        }
    };
}
sim_op!(SimRhs, |e: &SimEqn<M>| e.n);
sim_op!(SimInit, |e: &SimEqn<M>| e.n);
sim_op!(SimRoot, |e: &SimEqn<M>| e.nroots);
sim_op!(SimMass, |e: &SimEqn<M>| e.n);

impl<M: Matrix<T = f64>> SimEqn<M> {
    /// The algebraic residuals `regs[alg[i]] - y[nx + i]` after a main pass at `y[..nx]`.
    pub(super) fn alg_residuals(&self, e: &Engine, y: &[f64], out: &mut [f64]) {
        for (i, &r) in self.alg.iter().enumerate() {
            out[i] = e.regs[r as usize] - y[i];
        }
    }
}

impl<M: Matrix<T = f64>> NonLinearOp for SimRhs<'_, M> {
    fn call_inplace(&self, x: &M::V, t: f64, y: &mut M::V) {
        let eq = self.0;
        let nx = eq.nx;
        let mut e = eq.engine.borrow_mut();
        y.for_each_batch_host([x], |y, [x], _| match e.eval_at(t, &x[..nx]) {
            Ok(()) => {
                let (dx, res) = y.split_at_mut(nx);
                e.derivatives(dx);
                eq.alg_residuals(&e, &x[nx..], res);
            }
            Err(_) => y.iter_mut().for_each(|v| *v = f64::NAN),
        });
    }
}

impl<M: Matrix<T = f64>> NonLinearOpJacobian for SimRhs<'_, M> {
    fn jac_mul_inplace(&self, x: &M::V, t: f64, v: &M::V, y: &mut M::V) {
        let eq = self.0;
        let nx = eq.nx;
        let mut e = eq.engine.borrow_mut();
        y.for_each_batch_host([x, v], |y, [x, v], _| match e.eval_at(t, &x[..nx]) {
            Ok(()) => {
                let (dx, res) = y.split_at_mut(nx);
                e.jvp(&v[..nx], dx);
                for (i, &r) in eq.alg.iter().enumerate() {
                    res[i] = e.tangent(r) - v[nx + i];
                }
            }
            Err(_) => y.iter_mut().for_each(|v| *v = f64::NAN),
        });
    }
    fn jacobian_inplace(&self, x: &M::V, t: f64, y: &mut M) {
        *self.0.jacobians.borrow_mut() += 1;
        if let Some(Scatter { dst, src, pattern }) = &self.0.scatter {
            let n = self.0.n;
            let mut dense = self.0.dense.borrow_mut();
            dense.resize(n * n, 0.0);
            let mut ok = false;
            let mut e = self.0.engine.borrow_mut();
            x.clone().for_each_batch_host([x], |_, [x], _| {
                ok = e.eval_at(t, x).is_ok() && e.state_jacobian(&mut dense);
            });
            if ok {
                let vals = pattern.iter().map(|&(i, j)| dense[i * n + j]).collect();
                y.set_data_with_indices(dst, src, &M::V::from_vec(vals, self.0.ctx.clone()));
                return;
            }
        }
        match &self.0.coloring {
            Some(c) => c.jacobian_inplace(self, x, t, y),
            None => self._default_jacobian_inplace(x, t, y),
        }
    }
    fn jacobian_sparsity(&self) -> Option<M::Sparsity> {
        self.0.sparsity.clone()
    }
}

impl<M: Matrix<T = f64>> ConstantOp for SimInit<'_, M> {
    fn call_inplace(&self, _t: f64, y: &mut M::V) {
        let y0 = self.0.y0.borrow();
        y.for_each_batch_host([], |y, [], _| y.copy_from_slice(&y0));
    }
}

impl<M: Matrix<T = f64>> NonLinearOp for SimRoot<'_, M> {
    fn call_inplace(&self, x: &M::V, t: f64, y: &mut M::V) {
        let nx = self.0.nx;
        let mut e = self.0.engine.borrow_mut();
        y.for_each_batch_host([x], |y, [x], _| match e.eval_at(t, &x[..nx]) {
            Ok(()) => {
                e.run_outputs();
                e.roots(y);
                let rel = &e.prog.relations;
                let regs = &e.regs;
                self.0.baseline.borrow_mut().apply(y, |i| {
                    1.0 + regs[rel[i].a as usize].abs() + regs[rel[i].b as usize].abs()
                });
                if std::env::var_os("MINIMO_DEBUG_ROOTS").is_some() {
                    eprintln!(
                        "root fn at t={t}: {:?}",
                        y.iter()
                            .enumerate()
                            .filter(|(_, v)| v.abs() < 1e-3 || !v.is_finite())
                            .collect::<Vec<_>>()
                    );
                }
            }
            Err(_) => y.iter_mut().for_each(|v| *v = f64::NAN),
        });
    }
}

/// `diag(1, ..., 1, 0, ..., 0)`: ones for the states, zeros for the algebraic components.
impl<M: Matrix<T = f64>> LinearOp for SimMass<'_, M> {
    fn gemv_inplace(&self, x: &M::V, _t: f64, beta: f64, y: &mut M::V) {
        let nx = self.0.nx;
        y.for_each_batch_host([x], |y, [x], _| {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = if i < nx {
                    x[i] + beta * *yi
                } else {
                    beta * *yi
                };
            }
        });
    }
    fn matrix_inplace(&self, _t: f64, y: &mut M) {
        let (n, nx) = (self.0.n, self.0.nx);
        let diag = (0..n).map(|i| if i < nx { 1.0 } else { 0.0 }).collect();
        *y = M::from_diagonal(&M::V::from_vec(diag, self.0.ctx.clone()));
    }
    fn sparsity(&self) -> Option<M::Sparsity> {
        Some(M::Sparsity::new_diagonal(self.0.n))
    }
}

impl<M: Matrix<T = f64>> Op for SimEqn<M> {
    type M = M;
    type V = M::V;
    type T = f64;
    type C = M::C;
    fn nstates(&self) -> usize {
        self.n
    }
    fn nout(&self) -> usize {
        self.n
    }
    fn nparams(&self) -> usize {
        0
    }
    fn context(&self) -> &M::C {
        &self.ctx
    }
}

impl<'a, M: Matrix<T = f64>> OdeEquationsRef<'a> for SimEqn<M> {
    type Rhs = SimRhs<'a, M>;
    type Init = SimInit<'a, M>;
    type Mass = SimMass<'a, M>;
    type Root = SimRoot<'a, M>;
    type Out = ParameterisedOp<'a, UnitCallable<M>>;
    type Reset = ParameterisedOp<'a, UnitCallable<M>>;
}

impl<M: Matrix<T = f64>> OdeEquations for SimEqn<M> {
    fn rhs(&self) -> SimRhs<'_, M> {
        SimRhs(self)
    }
    fn mass(&self) -> Option<SimMass<'_, M>> {
        // Without algebraic components this stays a plain ODE (no consistent-initialization
        // solve, identity mass).
        (!self.alg.is_empty()).then_some(SimMass(self))
    }
    fn root(&self) -> Option<SimRoot<'_, M>> {
        (self.nroots > 0).then_some(SimRoot(self))
    }
    fn init(&self) -> SimInit<'_, M> {
        SimInit(self)
    }
    fn set_params(&mut self, _p: &M::V) {}
    fn get_params(&self, _p: &mut M::V) {}
}
