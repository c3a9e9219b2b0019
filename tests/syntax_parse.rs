//! Parser tests: the tree built for each construct.

use minimo::syntax::ast::*;
use minimo::syntax::parse;

fn parse_ok(text: &str) -> StoredDefinition {
    match parse(text, 0) {
        Ok(t) => t,
        Err(ds) => panic!("unexpected diagnostics for:\n{text}\n{ds:#?}"),
    }
}

/// The long-class body of the first class.
fn body(def: &StoredDefinition) -> &LongClass {
    match &def.classes[0].body {
        ClassBody::Long(l) => l,
        other => panic!("not a long class: {other:?}"),
    }
}

/// A fully parenthesised rendering of an expression, to check precedence and associativity.
fn sexpr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Integer(i) => i.to_string(),
        ExprKind::Real(r) => format!("{r:?}"),
        ExprKind::String(s) => format!("{s:?}"),
        ExprKind::Boolean(b) => b.to_string(),
        ExprKind::End => "end".into(),
        ExprKind::Ref(r) => cref(r),
        ExprKind::Call { func, args } => {
            let mut parts: Vec<String> = args.positional.iter().map(sexpr).collect();
            parts.extend(
                args.named
                    .iter()
                    .map(|n| format!("{}={}", n.name.name, sexpr(&n.value))),
            );
            let mut s = format!("{}({})", cref(func), parts.join(","));
            for it in &args.iterators {
                s.push_str(&format!(
                    " for {} in {}",
                    it.name.name,
                    it.range.as_ref().map(sexpr).unwrap_or_default()
                ));
            }
            s
        }
        ExprKind::Array(args) => {
            let mut s = format!(
                "{{{}}}",
                args.positional
                    .iter()
                    .map(sexpr)
                    .collect::<Vec<_>>()
                    .join(",")
            );
            for it in &args.iterators {
                s.push_str(&format!(
                    " for {} in {}",
                    it.name.name,
                    it.range.as_ref().map(sexpr).unwrap_or_default()
                ));
            }
            s
        }
        ExprKind::Matrix(rows) => format!(
            "[{}]",
            rows.iter()
                .map(|r| r.iter().map(sexpr).collect::<Vec<_>>().join(","))
                .collect::<Vec<_>>()
                .join(";")
        ),
        ExprKind::Tuple(items) => format!(
            "tuple({})",
            items
                .iter()
                .map(|i| i.as_ref().map(sexpr).unwrap_or_default())
                .collect::<Vec<_>>()
                .join(",")
        ),
        ExprKind::Range { start, step, stop } => match step {
            Some(st) => format!("range({},{},{})", sexpr(start), sexpr(st), sexpr(stop)),
            None => format!("range({},{})", sexpr(start), sexpr(stop)),
        },
        ExprKind::Unary { op, operand } => format!("({op:?} {})", sexpr(operand)),
        ExprKind::Binary { op, lhs, rhs } => format!("({op:?} {} {})", sexpr(lhs), sexpr(rhs)),
        ExprKind::If { branches, else_ } => {
            let mut s = String::from("(if");
            for (c, v) in branches {
                s.push_str(&format!(" {} {}", sexpr(c), sexpr(v)));
            }
            s.push_str(&format!(" else {})", sexpr(else_)));
            s
        }
        ExprKind::PartialFunction { func, .. } => format!("function {}", name(func)),
    }
}

fn cref(r: &ComponentRef) -> String {
    let mut s = if r.global {
        ".".to_string()
    } else {
        String::new()
    };
    let parts: Vec<String> = r
        .parts
        .iter()
        .map(|p| {
            if p.subscripts.is_empty() {
                p.ident.name.clone()
            } else {
                let subs: Vec<String> = p
                    .subscripts
                    .iter()
                    .map(|s| match s {
                        Subscript::Colon(_) => ":".into(),
                        Subscript::Expr(e) => sexpr(e),
                    })
                    .collect();
                format!("{}[{}]", p.ident.name, subs.join(","))
            }
        })
        .collect();
    s.push_str(&parts.join("."));
    s
}

fn name(n: &Name) -> String {
    let parts: Vec<&str> = n.parts.iter().map(|p| p.name.as_str()).collect();
    format!("{}{}", if n.global { "." } else { "" }, parts.join("."))
}

/// Parse `x = <expr>;` in a model and render the right-hand side.
fn rhs(expr: &str) -> String {
    let def = parse_ok(&format!("model M equation x = {expr}; end M;"));
    match &body(&def).sections[0] {
        Section::Equations { equations, .. } => match &equations[0].kind {
            EquationKind::Simple { rhs, .. } => sexpr(rhs),
            k => panic!("not a simple equation: {k:?}"),
        },
        s => panic!("not an equation section: {s:?}"),
    }
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(rhs("a + b * c"), "(Add a (Mul b c))");
    assert_eq!(rhs("a - b - c"), "(Sub (Sub a b) c)");
    assert_eq!(rhs("a / b / c"), "(Div (Div a b) c)");
    assert_eq!(rhs("-a ^ b"), "(Neg (Pow a b))");
    assert_eq!(rhs("-a * b + c"), "(Add (Neg (Mul a b)) c)");
    assert_eq!(rhs("a or b and not c < d"), "(Or a (And b (Not (Lt c d))))");
    assert_eq!(
        rhs("a .* b ./ c .+ d .- e"),
        "(ElemSub (ElemAdd (ElemDiv (ElemMul a b) c) d) e)"
    );
    assert_eq!(rhs("a .^ 2"), "(ElemPow a 2)");
    assert_eq!(rhs("(a + b) * c"), "(Mul (Add a b) c)");
    assert_eq!(rhs("a <> b"), "(Ne a b)");
    assert_eq!(rhs("1 : 2 : n + 1"), "range(1,2,(Add n 1))");
    assert_eq!(
        rhs("if a > 0 then 1 elseif a < 0 then -1 else 0"),
        "(if (Gt a 0) 1 (Lt a 0) (Neg 1) else 0)"
    );
}

#[test]
fn literals() {
    assert_eq!(rhs("1"), "1");
    assert_eq!(rhs("1."), "1.0");
    assert_eq!(rhs(".5"), "0.5");
    assert_eq!(rhs("1e-3"), "0.001");
    assert_eq!(rhs("2.5E+3"), "2500.0");
    assert_eq!(rhs("true and false"), "(And true false)");
    assert_eq!(rhs(r#""a\"b\n""#), r#""a\"b\n""#);
    assert_eq!(rhs("'quoted name' + 1"), "(Add 'quoted name' 1)");
    assert_eq!(rhs("99999999999999999999"), "1e20");
}

#[test]
fn calls_arrays_and_references() {
    assert_eq!(rhs("der(x) + initial()"), "(Add der(x) initial())");
    assert_eq!(rhs("f(1, b = 2)"), "f(1,b=2)");
    assert_eq!(rhs("{1, 2, 3}"), "{1,2,3}");
    assert_eq!(
        rhs("{i ^ 2 for i in 1:n}"),
        "{(Pow i 2)} for i in range(1,n)"
    );
    assert_eq!(
        rhs("sum(x[i] for i in 1:3)"),
        "sum(x[i]) for i in range(1,3)"
    );
    assert_eq!(rhs("[1, 2; 3, 4]"), "[1,2;3,4]");
    assert_eq!(rhs("a.b[1, end].c[:]"), "a.b[1,end].c[:]");
    assert_eq!(rhs(".Modelica.Constants.pi"), ".Modelica.Constants.pi");
    assert_eq!(rhs("x[end - 1]"), "x[(Sub end 1)]");
    assert_eq!(rhs("f(function g(k = 2))"), "f(function g)");
}

fn elements(l: &LongClass) -> &Vec<Element> {
    match &l.sections[0] {
        Section::Elements { elements, .. } => elements,
        s => panic!("not elements: {s:?}"),
    }
}

#[test]
fn components_modifications_and_extends() {
    let def = parse_ok(
        r#"model M "doc"
          extends Base(k = 2, redeclare model L = Coulomb(mu = 0.3)) annotation(x = 1);
          parameter Real[3] a = {1, 2, 3}, b[2](each start = 0, final fixed = true) "b doc";
          flow Real i;
          input Real u if useInput;
          Foo foo(redeclare replaceable Bar c(x = 1) constrainedby Base);
        end M;"#,
    );
    let l = body(&def);
    assert_eq!(
        l.description.as_ref().map(|d| d.value.as_str()),
        Some("doc")
    );
    let els = elements(l);
    assert_eq!(els.len(), 5);
    let Element::Extends(ext) = &els[0] else {
        panic!("{:?}", els[0])
    };
    assert_eq!(name(&ext.base), "Base");
    let args = &ext.modification.as_ref().unwrap().args;
    assert!(matches!(&args[0], Argument::Modify { name: n, .. } if n.parts[0].name == "k"));
    let Argument::Redeclare {
        redeclare: true,
        element: RedeclaredElement::Class(cd),
        ..
    } = &args[1]
    else {
        panic!("{:?}", args[1])
    };
    assert_eq!(cd.name.name, "L");
    assert_eq!(cd.kind, ClassKind::Model);
    assert!(ext.annotation.is_some());

    let Element::Component(cc) = &els[1] else {
        panic!()
    };
    assert_eq!(cc.prefix.variability, Variability::Parameter);
    assert_eq!(cc.type_dims.len(), 1);
    assert_eq!(cc.components.len(), 2);
    assert_eq!(cc.components[1].dims.len(), 1);
    assert_eq!(
        cc.components[1].comment.description.as_ref().unwrap().value,
        "b doc"
    );
    let Some(Modification::Class {
        args,
        binding: None,
        ..
    }) = &cc.components[1].modification
    else {
        panic!()
    };
    assert!(matches!(
        &args.args[0],
        Argument::Modify {
            each: true,
            final_: false,
            ..
        }
    ));
    assert!(matches!(
        &args.args[1],
        Argument::Modify {
            each: false,
            final_: true,
            ..
        }
    ));

    let Element::Component(flow) = &els[2] else {
        panic!()
    };
    assert_eq!(flow.prefix.connection, Connection::Flow);
    let Element::Component(inp) = &els[3] else {
        panic!()
    };
    assert_eq!(inp.prefix.causality, Causality::Input);
    assert!(inp.components[0].condition.is_some());
    let Element::Component(foo) = &els[4] else {
        panic!()
    };
    let Some(Modification::Class { args, .. }) = &foo.components[0].modification else {
        panic!()
    };
    let Argument::Redeclare {
        replaceable: true,
        element: RedeclaredElement::Component(c),
        ..
    } = &args.args[0]
    else {
        panic!("{:?}", args.args[0])
    };
    assert_eq!(name(&c.constrainedby.as_ref().unwrap().name), "Base");
}

#[test]
fn equations_and_algorithms() {
    let def = parse_ok(
        r#"model M
          Real x[3];
        initial equation
          x = zeros(3);
        equation
          for i in 1:3, j in 1:2 loop
            der(x[i]) = -x[i];
          end for;
          if a > 1 then b = 1; elseif a < 0 then b = 2; else b = 3; end if;
          when x[1] < 0 then reinit(x[1], 0); elsewhen time > 1 then terminate("done"); end when;
          assert(x[1] < 10, "too large");
        algorithm
          y := 1;
          (a, , b) := f(x);
          while y < 10 loop y := y + 1; if y > 5 then break; end if; end while;
          for i loop return; end for;
        end M;"#,
    );
    let l = body(&def);
    assert_eq!(l.sections.len(), 4);
    assert!(matches!(
        &l.sections[1],
        Section::Equations { initial: true, .. }
    ));
    let Section::Equations {
        initial: false,
        equations,
        ..
    } = &l.sections[2]
    else {
        panic!()
    };
    let EquationKind::For { indices, body } = &equations[0].kind else {
        panic!()
    };
    assert_eq!(indices.len(), 2);
    assert_eq!(body.len(), 1);
    let EquationKind::If { branches, else_ } = &equations[1].kind else {
        panic!()
    };
    assert_eq!((branches.len(), else_.len()), (2, 1));
    let EquationKind::When { branches } = &equations[2].kind else {
        panic!()
    };
    assert_eq!(branches.len(), 2);
    assert!(
        matches!(&branches[0].1[0].kind, EquationKind::Call { func, .. } if cref(func) == "reinit")
    );
    assert!(
        matches!(&equations[3].kind, EquationKind::Call { func, .. } if cref(func) == "assert")
    );
    let Section::Algorithm { statements, .. } = &l.sections[3] else {
        panic!()
    };
    assert!(matches!(&statements[0].kind, StatementKind::Assign { .. }));
    let StatementKind::MultiAssign { targets, .. } = &statements[1].kind else {
        panic!()
    };
    assert_eq!(targets.len(), 3);
    assert!(targets[1].is_none());
    let StatementKind::While { body, .. } = &statements[2].kind else {
        panic!()
    };
    assert!(matches!(&body[1].kind, StatementKind::If { .. }));
    let StatementKind::For { indices, body } = &statements[3].kind else {
        panic!()
    };
    assert!(indices[0].range.is_none());
    assert!(matches!(body[0].kind, StatementKind::Return));
}

#[test]
fn spans_point_at_the_text() {
    let text = "model M\n  Real x;\nequation\n  x = 1;\nend M;\n";
    let def = parse_ok(text);
    let l = body(&def);
    let Element::Component(cc) = &elements(l)[0] else {
        panic!()
    };
    let s = cc.components[0].name.span;
    assert_eq!(&text[s.start as usize..s.end as usize], "x");
    let Section::Equations { equations, .. } = &l.sections[1] else {
        panic!()
    };
    let s = equations[0].span;
    assert_eq!(&text[s.start as usize..s.end as usize], "x = 1");
    assert_eq!(def.classes[0].span.start, 0);
}
