//! The function interpreter (`minimo::flatten::call_function`), which the simulator calls for
//! every user-function call: results compared with values computed by hand.

mod flatten_common;
use minimo::flatten::{Val, Value, call_function};

const LIB: &str = r#"
package F
  function poly "a + b*x + c*x^2, with defaults"
    input Real x;
    input Real a = 1;
    input Real b = 2;
    input Real c = 0;
    output Real y;
  algorithm
    y := a + b*x + c*x^2;
  end poly;
  function norm2 input Real v[:]; output Real n; algorithm n := sqrt(v*v); end norm2;
  function rot "rotation of v about z by angle phi"
    input Real v[3];
    input Real phi;
    output Real w[3];
  protected
    Real R[3, 3];
  algorithm
    R := [cos(phi), -sin(phi), 0; sin(phi), cos(phi), 0; 0, 0, 1];
    w := R*v;
  end rot;
  function newton "square root by Newton iterations with while, break and return"
    input Real a;
    output Real x;
    output Integer iterations;
  algorithm
    x := a;
    iterations := 0;
    if a <= 0 then
      x := 0;
      return;
    end if;
    while true loop
      iterations := iterations + 1;
      x := 0.5*(x + a/x);
      if abs(x*x - a) < 1e-12 then
        break;
      end if;
    end while;
  end newton;
  function sumTo input Integer n; output Integer s; algorithm s := 0; for i in 1:n loop s := s + i; end for; end sumTo;
  function fib input Integer n; output Integer f; algorithm f := if n < 2 then n else fib(n - 1) + fib(n - 2); end fib;
  model Use
    Real t = time;
    Real p1 = poly(t);
    Real p2 = poly(t, c = 3);
    Real n = norm2({t, 1});
    Real w[3] = rot({t, 0, 0}, 0.5);
    Real r;
    Integer it;
    Integer s = sumTo(integer(t));
    Integer fb = fib(integer(t));
  equation
    (r, it) = newton(t);
  end Use;
end F;
"#;

fn functions() -> std::collections::BTreeMap<String, minimo::dae::Function> {
    flatten_common::flat_model(LIB, Some("F.Use")).functions
}

fn num(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

#[test]
fn defaults_and_named_inputs() {
    let f = functions();
    // poly(2) = 1 + 2*2
    let out = call_function(&f, "F.poly", &[Value::real(2.0)]).expect("runs");
    assert!((num(&out[0]) - 5.0).abs() < 1e-12);
    let out = call_function(
        &f,
        "F.poly",
        &[
            Value::real(2.0),
            Value::real(0.0),
            Value::real(1.0),
            Value::real(3.0),
        ],
    )
    .expect("runs");
    assert!((num(&out[0]) - 14.0).abs() < 1e-12);
}

#[test]
fn array_inputs_and_outputs() {
    let f = functions();
    let out = call_function(&f, "F.norm2", &[Value::reals(vec![2], &[3.0, 4.0])]).expect("runs");
    assert!((num(&out[0]) - 5.0).abs() < 1e-12);
    let phi: f64 = 0.3;
    let out = call_function(
        &f,
        "F.rot",
        &[Value::reals(vec![3], &[1.0, 2.0, 3.0]), Value::real(phi)],
    )
    .expect("runs");
    let w = out[0].to_f64s().expect("numbers");
    let expect = [
        phi.cos() - 2.0 * phi.sin(),
        phi.sin() + 2.0 * phi.cos(),
        3.0,
    ];
    assert_eq!(out[0].dims, vec![3]);
    for (a, b) in w.iter().zip(expect) {
        assert!((a - b).abs() < 1e-12, "{w:?}");
    }
}

#[test]
fn loops_break_return_and_several_outputs() {
    let f = functions();
    let out = call_function(&f, "F.newton", &[Value::real(2.0)]).expect("runs");
    assert!((num(&out[0]) - 2f64.sqrt()).abs() < 1e-12);
    let it = num(&out[1]);
    assert!((1.0..10.0).contains(&it), "{it}");
    assert_eq!(out[1].data[0], Val::Int(it as i64));
    let out = call_function(&f, "F.newton", &[Value::real(-1.0)]).expect("runs");
    assert_eq!(num(&out[0]), 0.0);
    let out = call_function(&f, "F.sumTo", &[Value::scalar(Val::Int(100))]).expect("runs");
    assert_eq!(out[0].data[0], Val::Int(5050));
    let out = call_function(&f, "F.fib", &[Value::scalar(Val::Int(15))]).expect("runs");
    assert_eq!(out[0].data[0], Val::Int(610));
}

#[test]
fn errors_are_messages_not_panics() {
    let f = functions();
    let e = call_function(&f, "F.nope", &[]).expect_err("unknown");
    assert!(e.contains("unknown function `F.nope`"), "{e}");
    let e = call_function(
        &f,
        "F.rot",
        &[Value::reals(vec![2], &[1.0, 2.0]), Value::real(0.1)],
    )
    .expect_err("bad size");
    assert!(e.contains("cannot multiply"), "{e}");
}

#[test]
fn calls_with_constant_arguments_are_evaluated_while_flattening() {
    let text = r#"
function sq input Real x; output Real y; algorithm y := x*x; end sq;
model M
  parameter Integer n = integer(sq(3));
  Real v[n];
  Real c = sq(4);
equation
  v = fill(c, n);
end M;
"#;
    let m = flatten_common::flat_model(text, Some("M"));
    assert_eq!(
        m.variables
            .iter()
            .filter(|v| v.name.starts_with("v["))
            .count(),
        9
    );
    let flat = minimo::dae::print_flat(&m);
    assert!(flat.contains("c = 16.0;"), "{flat}");
}
