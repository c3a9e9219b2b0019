//! Builds sorted systems by hand, so the numeric stack is tested without the front end.
#![allow(dead_code)]

use minimo::dae::{BinOp, Builtin, Equation, EquationKind, Expr, FlatModel, Variability, Variable};
use minimo::diag::Span;
use minimo::structure::{Block, BlockKind, SortedEquation, SortedSystem, State};

pub struct B {
    pub model: FlatModel,
    pub equations: Vec<SortedEquation>,
    pub blocks: Vec<Block>,
    pub states: Vec<State>,
    pub discrete: Vec<Equation>,
    pub discrete_vars: Vec<usize>,
}

pub fn v(i: usize) -> Expr {
    Expr::Var(i)
}
pub fn c(x: f64) -> Expr {
    Expr::Real(x)
}
pub fn add(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Sub, a, b)
}
pub fn mul(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Mul, a, b)
}
pub fn div(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Div, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinOp::Lt, a, b)
}
pub fn sq(a: Expr) -> Expr {
    Expr::binary(BinOp::Pow, a, c(2.0))
}
pub fn call(f: Builtin, a: Vec<Expr>) -> Expr {
    Expr::Call(f, a)
}

impl B {
    pub fn new(name: &str) -> B {
        B {
            model: FlatModel {
                name: name.into(),
                ..Default::default()
            },
            equations: vec![],
            blocks: vec![],
            states: vec![],
            discrete: vec![],
            discrete_vars: vec![],
        }
    }
    pub fn param(&mut self, name: &str, value: f64) -> usize {
        let mut var = Variable::real(name, Span::DUMMY);
        var.variability = Variability::Parameter;
        var.binding = Some(Expr::Real(value));
        self.model.variables.push(var);
        self.model.variables.len() - 1
    }
    pub fn param_expr(&mut self, name: &str, e: Expr) -> usize {
        let mut var = Variable::real(name, Span::DUMMY);
        var.variability = Variability::Parameter;
        var.binding = Some(e);
        self.model.variables.push(var);
        self.model.variables.len() - 1
    }
    pub fn var(&mut self, name: &str, start: Option<f64>) -> usize {
        let mut var = Variable::real(name, Span::DUMMY);
        var.start = start.map(Expr::Real);
        self.model.variables.push(var);
        self.model.variables.len() - 1
    }
    /// A state with its derivative variable `der(name)`; returns (state, derivative).
    pub fn state(&mut self, name: &str, start: f64) -> (usize, usize) {
        let x = self.var(name, Some(start));
        let d = self.var(&format!("der({name})"), None);
        self.model.variables[d].derivative_of = Some(x);
        self.states.push(State {
            var: x,
            derivative: d,
        });
        (x, d)
    }
    fn eq(&mut self, residual: Expr) -> usize {
        self.equations.push(SortedEquation {
            residual,
            origin: self.equations.len(),
            differentiated: 0,
            span: Span::DUMMY,
            component: String::new(),
        });
        self.equations.len() - 1
    }
    /// `var := expr` (residual `var - expr`).
    pub fn assign(&mut self, var: usize, expr: Expr) {
        let e = self.eq(sub(v(var), expr.clone()));
        self.blocks.push(Block {
            kind: BlockKind::Explicit { expr },
            vars: vec![var],
            equations: vec![e],
        });
    }
    /// An algebraic loop `0 = residuals` in `vars`.
    pub fn solve(&mut self, vars: Vec<usize>, residuals: Vec<Expr>, linear: bool) {
        let eqs = residuals.into_iter().map(|r| self.eq(r)).collect();
        let kind = if linear {
            BlockKind::Linear
        } else {
            BlockKind::Nonlinear
        };
        self.blocks.push(Block {
            kind,
            vars,
            equations: eqs,
        });
    }
    pub fn when(&mut self, cond: Expr, body: Vec<EquationKind>) {
        let body = body
            .into_iter()
            .map(|k| Equation {
                kind: k,
                component: String::new(),
                span: Span::DUMMY,
            })
            .collect();
        self.discrete.push(Equation {
            kind: EquationKind::When {
                branches: vec![(cond, body)],
            },
            component: String::new(),
            span: Span::DUMMY,
        });
    }
    pub fn build(self) -> SortedSystem {
        SortedSystem {
            model: self.model,
            states: self.states,
            equations: self.equations,
            blocks: self.blocks,
            eliminated: vec![],
            dummy_derivatives: vec![],
            discrete_equations: self.discrete,
            discrete_vars: self.discrete_vars,
            state_sets: vec![],
        }
    }
}
