//! Builds flat models in Rust for the structure tests (what flattening would produce).
#![allow(dead_code)]

use minimo::dae::{
    BinOp, Builtin, Equation, EquationKind, Expr, FlatModel, StateSelect, Variability, Variable,
};
use minimo::diag::Span;
use std::ops::{Add, Div, Mul, Neg, Sub};

#[derive(Clone, Debug)]
pub struct E(pub Expr);

impl Add for E {
    type Output = E;
    fn add(self, o: E) -> E {
        E(Expr::binary(BinOp::Add, self.0, o.0))
    }
}
impl Sub for E {
    type Output = E;
    fn sub(self, o: E) -> E {
        E(Expr::binary(BinOp::Sub, self.0, o.0))
    }
}
impl Mul for E {
    type Output = E;
    fn mul(self, o: E) -> E {
        E(Expr::binary(BinOp::Mul, self.0, o.0))
    }
}
impl Div for E {
    type Output = E;
    fn div(self, o: E) -> E {
        E(Expr::binary(BinOp::Div, self.0, o.0))
    }
}
impl Neg for E {
    type Output = E;
    fn neg(self) -> E {
        E(Expr::neg(self.0))
    }
}

pub fn c(v: f64) -> E {
    E(Expr::Real(v))
}
pub fn der(e: &E) -> E {
    E(Expr::Der(Box::new(e.0.clone())))
}
pub fn pow(a: &E, n: f64) -> E {
    E(Expr::binary(BinOp::Pow, a.0.clone(), Expr::Real(n)))
}
pub fn call(f: Builtin, a: &E) -> E {
    E(Expr::Call(f, vec![a.0.clone()]))
}
pub fn sin(a: &E) -> E {
    call(Builtin::Sin, a)
}
pub fn cos(a: &E) -> E {
    call(Builtin::Cos, a)
}
pub fn time() -> E {
    E(Expr::Time)
}

#[derive(Default)]
pub struct Builder {
    pub m: FlatModel,
}

impl Builder {
    pub fn new(name: &str) -> Builder {
        let mut b = Builder::default();
        b.m.name = name.to_string();
        b
    }
    fn span(&self) -> Span {
        // Distinct fake spans, so diagnostics can be told apart.
        let n = (self.m.variables.len() + self.m.equations.len()) as u32;
        Span {
            file: 0,
            start: n * 10,
            end: n * 10 + 5,
        }
    }
    pub fn var(&mut self, name: &str) -> E {
        let mut v = Variable::real(name, self.span());
        if let Some((comp, _)) = name.rsplit_once('.') {
            v.component = comp.to_string();
        }
        self.m.variables.push(v);
        E(Expr::Var(self.m.variables.len() - 1))
    }
    pub fn flow(&mut self, name: &str) -> E {
        let e = self.var(name);
        if let Some(v) = self.m.variables.last_mut() {
            v.flow = true;
        }
        e
    }
    pub fn param(&mut self, name: &str, value: f64) -> E {
        let e = self.var(name);
        if let Some(v) = self.m.variables.last_mut() {
            v.variability = Variability::Parameter;
            v.binding = Some(Expr::Real(value));
        }
        e
    }
    pub fn id(&self, name: &str) -> usize {
        self.m
            .variables
            .iter()
            .position(|v| v.name == name)
            .unwrap_or_else(|| panic!("no variable {name}"))
    }
    pub fn start(&mut self, name: &str, value: f64, fixed: bool) {
        let i = self.id(name);
        self.m.variables[i].start = Some(Expr::Real(value));
        self.m.variables[i].fixed = Some(fixed);
    }
    pub fn state_select(&mut self, name: &str, s: StateSelect) {
        let i = self.id(name);
        self.m.variables[i].state_select = s;
    }
    pub fn eq(&mut self, lhs: E, rhs: E) {
        let span = self.span();
        self.m.equations.push(Equation {
            kind: EquationKind::Simple {
                lhs: lhs.0,
                rhs: rhs.0,
            },
            component: String::new(),
            span,
        });
    }
    pub fn model(self) -> FlatModel {
        self.m
    }

    /// A two-pin electrical component `name` with pins p, n: returns (v, i).
    pub fn two_pin(&mut self, name: &str) -> (E, E) {
        let pv = self.var(&format!("{name}.p.v"));
        let pi = self.flow(&format!("{name}.p.i"));
        let nv = self.var(&format!("{name}.n.v"));
        let ni = self.flow(&format!("{name}.n.i"));
        let v = self.var(&format!("{name}.v"));
        let i = self.var(&format!("{name}.i"));
        self.eq(v.clone(), pv - nv);
        self.eq(c(0.0), pi.clone() + ni);
        self.eq(i.clone(), pi);
        (v, i)
    }
    /// `connect(a, b, ...)` of electrical pins: equal potentials, flows summing to zero.
    pub fn connect(&mut self, pins: &[&str]) {
        let v0 = self.var_ref(&format!("{}.v", pins[0]));
        let mut sum = self.var_ref(&format!("{}.i", pins[0]));
        for p in &pins[1..] {
            let v = self.var_ref(&format!("{p}.v"));
            self.eq(v0.clone(), v);
            sum = sum + self.var_ref(&format!("{p}.i"));
        }
        self.eq(c(0.0), sum);
    }
    pub fn var_ref(&self, name: &str) -> E {
        E(Expr::Var(self.id(name)))
    }
}

/// A sine source in series with R, L (when `inductor`) and C, written as flattening writes
/// connectors; grounded at the capacitor's negative pin when `ground`.
pub fn series_circuit(ground: bool, inductor: bool) -> Builder {
    let mut b = Builder::new("RLC");
    let (vs, _) = b.two_pin("src");
    let (vr, ir) = b.two_pin("R");
    let l = inductor.then(|| b.two_pin("L"));
    let (vc, ic) = b.two_pin("C");
    let rv = b.param("R.R", 10.0);
    let lv = inductor.then(|| b.param("L.L", 0.1));
    let cv = b.param("C.C", 1e-3);
    b.eq(vs, sin(&time()));
    b.eq(vr, rv * ir);
    if let (Some((vl, il)), Some(lv)) = (l, lv) {
        b.eq(lv * der(&il), vl);
    }
    b.eq(cv * der(&vc), ic);
    b.connect(&["src.p", "R.p"]);
    if inductor {
        b.connect(&["R.n", "L.p"]);
        b.connect(&["L.n", "C.p"]);
    } else {
        b.connect(&["R.n", "C.p"]);
    }
    if ground {
        let gv = b.var("g.p.v");
        b.flow("g.p.i");
        b.eq(gv, c(0.0));
        b.connect(&["C.n", "src.n", "g.p"]);
    } else {
        b.connect(&["C.n", "src.n"]);
    }
    b
}
