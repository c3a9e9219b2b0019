//! If-equations, when-equations, alias attribute merging and user functions.

#[path = "structure/builder.rs"]
mod builder;

use builder::*;
use minimo::dae::{BinOp, Equation, EquationKind, Expr, StateSelect};
use minimo::diag::Span;
use minimo::structure::{AnalyzeOptions, BlockKind, analyze};

fn eq(lhs: E, rhs: E) -> Equation {
    Equation {
        kind: EquationKind::Simple {
            lhs: lhs.0,
            rhs: rhs.0,
        },
        component: String::new(),
        span: Span::DUMMY,
    }
}

#[test]
fn if_equation_uses_the_union_of_branch_incidences() {
    // Contact switched under noEvent: in contact the normal force is unknown and the gap is
    // zero; in flight the force is zero. Same number of equations in both branches.
    let mut b = Builder::new("Contact");
    let h = b.var("h");
    let v = b.var("v");
    let f = b.var("f");
    let m = b.param("m", 1.0);
    b.eq(der(&h), v.clone());
    b.eq(m * der(&v), f.clone() - c(9.81));
    let cond = Expr::NoEvent(Box::new(Expr::binary(
        BinOp::Lt,
        h.0.clone(),
        Expr::Real(0.0),
    )));
    b.m.equations.push(Equation {
        kind: EquationKind::If {
            branches: vec![(
                cond,
                vec![eq(f.clone(), c(-1000.0) * h.clone() - c(10.0) * v.clone())],
            )],
            else_: vec![eq(f, c(0.0))],
        },
        component: String::new(),
        span: Span::DUMMY,
    });
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("analyses");
    assert_eq!(a.report.states, vec!["h", "v"]);
    // The residual keeps both branches, the condition under noEvent.
    let r = a
        .system
        .equations
        .iter()
        .find(|e| matches!(e.residual, Expr::If { .. }))
        .expect("if residual");
    let Expr::If { branches, .. } = &r.residual else {
        unreachable!()
    };
    assert!(matches!(branches[0].0, Expr::NoEvent(_)));
    // f is linear in both branches: solved explicitly as an if-expression.
    let blk = a
        .system
        .blocks
        .iter()
        .find(|b| b.equations.len() == 1 && a.system.model.variables[b.vars[0]].name == "f")
        .expect("f block");
    assert!(
        matches!(
            &blk.kind,
            BlockKind::Explicit {
                expr: Expr::If { .. }
            }
        ),
        "{:?}",
        blk.kind
    );
}

#[test]
fn if_equation_with_unequal_branches_is_an_error() {
    let mut b = Builder::new("Bad");
    let x = b.var("x");
    let y = b.var("y");
    b.m.equations.push(Equation {
        kind: EquationKind::If {
            branches: vec![(
                Expr::binary(BinOp::Gt, Expr::Time, Expr::Real(1.0)),
                vec![eq(x.clone(), c(1.0)), eq(y.clone(), c(2.0))],
            )],
            else_: vec![eq(x, c(0.0))],
        },
        component: String::new(),
        span: Span::DUMMY,
    });
    let errs = analyze(b.model(), &AnalyzeOptions::default())
        .err()
        .expect("error");
    assert_eq!(
        errs[0].message,
        "the branches of this if-equation have different numbers of equations"
    );
    assert_eq!(errs[0].label, "branches have 2, 1 equations");
}

#[test]
fn when_assigned_variables_are_known_and_reinit_targets_kept() {
    // Bouncing ball with a bounce counter.
    let mut b = Builder::new("Ball");
    let h = b.var("h");
    let v = b.var("v");
    let vv = b.var("vel");
    let n = b.var("n");
    let k = b.var("k");
    b.eq(der(&h), v.clone());
    b.eq(der(&v), c(-9.81) - k.clone() * v.clone());
    let hh = b.var("height");
    b.eq(vv.clone(), v.clone()); // an alias of the reinit target
    b.eq(hh.clone(), h.clone()); // an alias used in the when condition
    b.eq(k, c(0.01) * n.clone());
    let vid = b.id("v");
    let nid = b.id("n");
    let b_h = b.id("h");
    let cond = Expr::binary(BinOp::Lt, hh.0.clone(), Expr::Real(0.0));
    b.m.equations.push(Equation {
        kind: EquationKind::When {
            branches: vec![(
                cond,
                vec![
                    Equation {
                        kind: EquationKind::Reinit {
                            var: vid,
                            value: Expr::neg(Expr::Pre(Box::new(Expr::Var(vid)))),
                        },
                        component: String::new(),
                        span: Span::DUMMY,
                    },
                    eq(n.clone(), E(Expr::Pre(Box::new(Expr::Var(nid)))) + c(1.0)),
                ],
            )],
        },
        component: String::new(),
        span: Span::DUMMY,
    });
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("analyses");
    assert_eq!(a.report.states, vec!["h", "v"]);
    assert_eq!(a.system.discrete_vars, vec![nid]);
    assert_eq!(a.system.discrete_equations.len(), 1);
    // `vel` is eliminated in favour of the reinit target `v`.
    let elim: Vec<&str> = a
        .system
        .eliminated
        .iter()
        .map(|(v, _)| a.system.model.variables[*v].name.as_str())
        .collect();
    assert_eq!(elim, vec!["vel", "height"]);
    // The when condition now refers to the kept variable h.
    let EquationKind::When { branches } = &a.system.discrete_equations[0].kind else { panic!("when") };
    assert_eq!(branches[0].0, Expr::binary(BinOp::Lt, Expr::Var(b_h), Expr::Real(0.0)));
}

#[test]
fn alias_elimination_keeps_attributes() {
    let mut b = Builder::new("Alias");
    let x = b.var("x");
    let p = b.var("sub.p");
    let q = b.var("sub.q");
    b.eq(der(&x), -x.clone());
    b.eq(p.clone(), -x.clone());
    b.eq(q, p);
    b.start("sub.p", 2.0, true);
    b.state_select("sub.q", StateSelect::Prefer);
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("analyses");
    let vars = &a.system.model.variables;
    // `sub.q` has stateSelect = prefer, so it is kept and x = -sub.q goes; sub.p = -x = sub.q,
    // so sub.p's fixed start 2 moves onto sub.q unchanged, and the state is sub.q.
    let q = vars.iter().find(|v| v.name == "sub.q").expect("q");
    assert_eq!(q.start, Some(Expr::Real(2.0)));
    assert_eq!(q.fixed, Some(true));
    assert_eq!(q.state_select, StateSelect::Prefer);
    let mut elim: Vec<(String, String)> = a
        .system
        .eliminated
        .iter()
        .map(|(v, e)| {
            (
                vars[*v].name.clone(),
                minimo::structure::print::expr_text(e, vars),
            )
        })
        .collect();
    elim.sort();
    assert_eq!(
        elim,
        vec![
            ("sub.p".to_string(), "sub.q".to_string()),
            ("x".to_string(), "-sub.q".to_string())
        ]
    );
    assert_eq!(a.report.states, vec!["sub.q"]);
    // Without the preference, the variable written under der() is kept: x.
    let mut b = Builder::new("Alias2");
    let x = b.var("x");
    let p = b.var("p");
    b.eq(der(&x), -x.clone());
    b.eq(p, -x);
    b.start("p", 2.0, true);
    let a = analyze(b.model(), &AnalyzeOptions::default()).expect("analyses");
    let x = a
        .system
        .model
        .variables
        .iter()
        .find(|v| v.name == "x")
        .expect("x");
    assert_eq!(x.start, Some(Expr::Real(-2.0)));
    assert_eq!(x.fixed, Some(true));
    assert_eq!(a.report.states, vec!["x"]);
}

#[test]
fn user_function_in_a_differentiated_constraint() {
    let mut sources = minimo::diag::SourceMap::new();
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/structure/UserFunction.mo");
    let opts = minimo::flatten::LoadOptions {
        files: vec![path],
        libs: Vec::new(),
        model: None,
    };
    let flat = minimo::flatten::load_and_flatten(&opts, &mut sources)
        .unwrap_or_else(|d| panic!("{}", minimo::diag::render_all(&sources, &d)));
    let a = analyze(flat, &AnalyzeOptions::default())
        .unwrap_or_else(|d| panic!("{}", minimo::diag::render_all(&sources, &d)));
    assert_eq!(
        a.report.differentiations.iter().map(|d| d.times).max(),
        Some(2)
    );
    assert_eq!(a.report.states.len(), 2);
    // The dynamic choice is still recorded, its Jacobian through the generated partials.
    assert_eq!(a.system.state_sets.len(), 2);
    // The partial derivatives are generated functions (central differences of radius2).
    let names: Vec<&String> = a
        .system
        .model
        .functions
        .keys()
        .filter(|k| k.contains("__pder"))
        .collect();
    // First partials, and their partials for the second differentiation.
    assert_eq!(names.len(), 6, "{names:?}");
    let f = &a.system.model.functions[names[0]];
    assert_eq!(f.inputs.len(), 2);
    assert_eq!(f.outputs.len(), 1);
    assert_eq!(f.body.len(), 4);
}
