//! The working state shared by the phases: the model being transformed, its residual
//! equations and the derivative links between variables and between equations.

use super::derivative::{Tangent, diff};
use super::expr::lit;
use super::userfn;
use crate::dae::{Expr, FlatModel, ScalarType, VarId, Variability, Variable};
use crate::structure::SortedEquation;

/// What a variable is for the continuous system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Determined by the continuous equations.
    Unknown,
    /// Parameter or constant.
    Known,
    /// Assigned in `when` equations: held between events, known to the continuous system.
    Discrete,
    /// Removed by alias elimination.
    Eliminated,
}

/// The system the phases transform: the model, its residual equations, each variable's role and
/// the derivative links between variables and between equations.
#[derive(Clone)]
pub struct WorkingSystem {
    pub model: FlatModel,
    pub eqs: Vec<SortedEquation>,
    pub role: Vec<Role>,
    /// `deriv[v]`: the variable holding `der(v)`, once created.
    pub deriv: Vec<Option<VarId>>,
    /// `eq_deriv[e]`: the time derivative of equation `e`, once created (Pantelides).
    pub eq_deriv: Vec<Option<usize>>,
    /// `eq_parent[e]`: the equation `e` is the derivative of.
    pub eq_parent: Vec<Option<usize>>,
    /// Whether the variable appears under `der()` in the model as written.
    pub in_der: Vec<bool>,
    pub eliminated: Vec<(VarId, Expr)>,
    /// What Pantelides did, step by step (for the teaching views).
    pub pantelides_steps: Vec<PantelidesStep>,
}

/// One failed augmentation of Pantelides' algorithm and what it did about it.
#[derive(Clone, Debug)]
pub struct PantelidesStep {
    /// The equation that could not be matched.
    pub equation: usize,
    /// The equations the failed search visited: a structurally singular subset (they involve
    /// fewer highest-derivative unknowns than there are equations).
    pub equations: Vec<usize>,
    /// The unknowns the search visited (all matched to those equations but one short).
    pub variables: Vec<VarId>,
    /// Each equation differentiated in this step and its derivative.
    pub differentiated: Vec<(usize, usize)>,
}

impl WorkingSystem {
    pub fn new(model: FlatModel) -> WorkingSystem {
        let n = model.variables.len();
        let role = model
            .variables
            .iter()
            .map(|v| match v.variability {
                Variability::Parameter | Variability::Constant => Role::Known,
                _ => Role::Unknown,
            })
            .collect();
        WorkingSystem {
            model,
            eqs: Vec::new(),
            role,
            deriv: vec![None; n],
            eq_deriv: Vec::new(),
            eq_parent: Vec::new(),
            in_der: vec![false; n],
            eliminated: Vec::new(),
            pantelides_steps: Vec::new(),
        }
    }

    pub fn is_unknown(&self, v: VarId) -> bool {
        self.role.get(v) == Some(&Role::Unknown)
    }

    /// Whether the variable can change continuously (its derivative is not identically zero).
    pub fn is_continuous(&self, v: VarId) -> bool {
        let var = &self.model.variables[v];
        self.role[v] == Role::Unknown
            && var.ty == ScalarType::Real
            && var.variability == Variability::Continuous
    }

    /// The variable holding `der(v)`, created on first use.
    pub fn der_var(&mut self, v: VarId) -> VarId {
        if let Some(d) = self.deriv[v] {
            return d;
        }
        let base = &self.model.variables[v];
        let mut var = Variable::real(format!("der({})", base.name), base.span);
        var.component = base.component.clone();
        var.derivative_of = Some(v);
        var.unit = base.unit.as_ref().map(|u| format!("({u})/s"));
        let id = self.model.variables.len();
        self.model.variables.push(var);
        self.role.push(Role::Unknown);
        self.deriv.push(None);
        self.in_der.push(false);
        self.deriv[v] = Some(id);
        id
    }

    /// The base variable of a derivative chain (`x` for `der(der(x))`) and the order.
    pub fn root(&self, mut v: VarId) -> (VarId, u32) {
        let mut order = 0;
        while let Some(p) = self.model.variables[v].derivative_of {
            v = p;
            order += 1;
        }
        (v, order)
    }

    /// The time derivative of an expression, creating derivative variables as needed.
    pub fn time_derivative(&mut self, e: &Expr) -> Result<Expr, String> {
        let mut t = TimeTangent {
            work: self,
            create: true,
            missing: false,
        };
        diff(e, &mut t)
    }

    /// Like [`WorkingSystem::time_derivative`] but never creates a derivative variable (`None` when one
    /// would be needed).
    pub fn time_derivative_existing(&mut self, e: &Expr) -> Option<Expr> {
        let mut t = TimeTangent {
            work: self,
            create: false,
            missing: false,
        };
        let d = diff(e, &mut t).ok()?;
        if t.missing { None } else { Some(d) }
    }

    /// Adds a residual equation, returns its index.
    pub fn push_eq(&mut self, eq: SortedEquation) -> usize {
        self.eqs.push(eq);
        self.eq_deriv.push(None);
        self.eq_parent.push(None);
        self.eqs.len() - 1
    }
}

struct TimeTangent<'a> {
    work: &'a mut WorkingSystem,
    create: bool,
    missing: bool,
}

impl Tangent for TimeTangent<'_> {
    fn var(&mut self, v: VarId) -> Expr {
        if !self.work.is_continuous(v) {
            // Parameters, constants and discrete values do not change between events.
            return lit(0.0);
        }
        if self.create {
            Expr::Var(self.work.der_var(v))
        } else if let Some(d) = self.work.deriv[v] {
            Expr::Var(d)
        } else {
            self.missing = true;
            lit(0.0)
        }
    }
    fn time(&self) -> Expr {
        lit(1.0)
    }
    fn declared_derivative(&self, function: &str) -> Option<super::derivative::DeclaredDerivative> {
        super::derivative::declared_derivative(&self.work.model.functions, function)
    }
    fn inline(&self, function: &str, args: &[Expr], output: usize) -> Option<Expr> {
        userfn::inline_call(&self.work.model, function, args, output)
    }
    fn user_partial(
        &mut self,
        function: &str,
        args: &[Expr],
        output: usize,
        element: usize,
        k: usize,
    ) -> Result<Expr, String> {
        userfn::partial_call(&mut self.work.model, function, args, output, element, k)
    }
    fn user_partial_element(
        &mut self,
        function: &str,
        args: &[Expr],
        output: (usize, usize),
        k: usize,
        j: usize,
    ) -> Result<Expr, String> {
        userfn::partial_element_call(&mut self.work.model, function, args, output, k, j)
    }
}
