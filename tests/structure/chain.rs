//! Generated chains of masses and springs for the scaling test and the benchmark: 5 scalar
//! equations per element (two connector aliases, the spring law, position and velocity).
#![allow(dead_code)]

use minimo::dae::{BinOp, Equation, EquationKind, Expr, FlatModel, Variability, Variable};
use minimo::diag::Span;

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// A flat chain of `n` elements (`5 n` equations), as flattening would produce it.
pub fn flat_chain(n: usize) -> FlatModel {
    let mut m = FlatModel {
        name: "Chain".into(),
        ..Default::default()
    };
    let var = |m: &mut FlatModel, name: String, param: Option<f64>| {
        let mut v = Variable::real(name, Span::DUMMY);
        if let Some(p) = param {
            v.variability = Variability::Parameter;
            v.binding = Some(Expr::Real(p));
        }
        m.variables.push(v);
        m.variables.len() - 1
    };
    let k = var(&mut m, "k".into(), Some(100.0));
    let mass = var(&mut m, "m".into(), Some(1.0));
    let mut x = Vec::new();
    let mut v = Vec::new();
    let mut pa = Vec::new();
    let mut pb = Vec::new();
    let mut tau = Vec::new();
    for i in 0..n {
        x.push(var(&mut m, format!("mass[{}].x", i + 1), None));
        v.push(var(&mut m, format!("mass[{}].v", i + 1), None));
        pa.push(var(&mut m, format!("spring[{}].phi_a", i + 1), None));
        pb.push(var(&mut m, format!("spring[{}].phi_b", i + 1), None));
        tau.push(var(&mut m, format!("spring[{}].tau", i + 1), None));
    }
    let eq = |m: &mut FlatModel, lhs: Expr, rhs: Expr| {
        m.equations.push(Equation {
            kind: EquationKind::Simple { lhs, rhs },
            component: String::new(),
            span: Span::DUMMY,
        })
    };
    let xv = |i: usize| Expr::Var(x[i]);
    for i in 0..n {
        // spring[i] connects mass[i-1] (or the fixed wall) to mass[i].
        let left = if i == 0 { Expr::Real(0.0) } else { xv(i - 1) };
        eq(&mut m, Expr::Var(pa[i]), left);
        eq(&mut m, Expr::Var(pb[i]), xv(i));
        eq(
            &mut m,
            Expr::Var(tau[i]),
            bin(
                BinOp::Mul,
                Expr::Var(k),
                bin(BinOp::Sub, Expr::Var(pb[i]), Expr::Var(pa[i])),
            ),
        );
        eq(&mut m, Expr::Der(Box::new(xv(i))), Expr::Var(v[i]));
        let next = if i + 1 < n {
            Expr::Var(tau[i + 1])
        } else {
            Expr::Real(0.0)
        };
        eq(
            &mut m,
            bin(
                BinOp::Mul,
                Expr::Var(mass),
                Expr::Der(Box::new(Expr::Var(v[i]))),
            ),
            bin(BinOp::Sub, next, Expr::Var(tau[i])),
        );
    }
    m
}

/// The same chain as Modelica text (for flatten + structure).
pub fn mo_chain(n: usize) -> String {
    format!(
        "model Chain
  parameter Integer n = {n};
  parameter Real k = 100, m = 1;
  Real x[n](each start = 0.1), v[n], phi_a[n], phi_b[n], tau[n];
equation
  phi_a[1] = 0;
  for i in 2:n loop
    phi_a[i] = x[i-1];
  end for;
  for i in 1:n loop
    phi_b[i] = x[i];
    tau[i] = k*(phi_b[i] - phi_a[i]);
    der(x[i]) = v[i];
  end for;
  for i in 1:n-1 loop
    m*der(v[i]) = tau[i+1] - tau[i];
  end for;
  m*der(v[{n}]) = -tau[{n}];
end Chain;
"
    )
}
