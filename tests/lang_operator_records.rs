//! Operator records (MLS 14): operators on records resolved to the record's operator
//! functions (exact match, implicit construction, element by element over vectors),
//! overloaded constructors, operators inside function bodies, flow operator records in
//! connectors, and the rules on operator functions.

mod flatten_common;
use flatten_common::{assert_err, at, close, simulate_source};

/// A planar vector with the usual operators; `'*'` scales by a Real on either side.
const VEC2: &str = r#"
package Geo
  operator record Vec2
    Real x;
    Real y;
    encapsulated operator 'constructor'
      import Geo.Vec2;
      function fromReal
        input Real x;
        input Real y = 0;
        output Vec2 v(x = x, y = y);
      algorithm
      end fromReal;
    end 'constructor';
    encapsulated operator function '+'
      import Geo.Vec2;
      input Vec2 a;
      input Vec2 b;
      output Vec2 c;
    algorithm
      c := Vec2(a.x + b.x, a.y + b.y);
    end '+';
    encapsulated operator '-'
      import Geo.Vec2;
      function negate
        input Vec2 a;
        output Vec2 c;
      algorithm
        c := Vec2(-a.x, -a.y);
      end negate;
      function minus
        input Vec2 a;
        input Vec2 b;
        output Vec2 c;
      algorithm
        c := Vec2(a.x - b.x, a.y - b.y);
      end minus;
    end '-';
    encapsulated operator '*'
      import Geo.Vec2;
      function scaleLeft
        input Real k;
        input Vec2 a;
        output Vec2 c;
      algorithm
        c := Vec2(k * a.x, k * a.y);
      end scaleLeft;
      function dot
        input Vec2 a;
        input Vec2 b;
        output Real d;
      algorithm
        d := a.x * b.x + a.y * b.y;
      end dot;
    end '*';
    encapsulated operator function '=='
      import Geo.Vec2;
      input Vec2 a;
      input Vec2 b;
      output Boolean same;
    algorithm
      same := a.x == b.x and a.y == b.y;
    end '==';
    encapsulated operator function '0'
      import Geo.Vec2;
      output Vec2 z;
    algorithm
      z := Vec2(0, 0);
    end '0';
  end Vec2;

  function lengthSquared
    input Vec2 a;
    input Vec2 b;
    output Real l;
  protected
    Vec2 s;
  algorithm
    s := a + b;
    l := s * s;
  end lengthSquared;
end Geo;
"#;

fn run(model: &str, name: &str) -> minimo::sim::SimResult {
    simulate_source("geo.mo", &format!("{VEC2}\n{model}"), name)
}

#[test]
fn binary_and_unary_operators_call_the_record_functions() {
    let r = run(
        r#"
model Ops
  import Geo.Vec2;
  Vec2 a = Vec2(1, 2);
  Vec2 b = Vec2(10, 20);
  Vec2 s = a + b;
  Vec2 d = b - a;
  Vec2 n = -a;
  Vec2 k = 3 * a;
  Real p = a * b;
  parameter Vec2 pa = Vec2(1, 2);
  // A relation on records is a function call: discrete-time only on discrete operands.
  Boolean same = pa == Vec2(1, 2);
  Vec2 t;
equation
  t = a + Vec2(time, 2 * time);
end Ops;
"#,
        "Ops",
    );
    for (name, want) in [
        ("s.x", 11.0),
        ("s.y", 22.0),
        ("d.x", 9.0),
        ("d.y", 18.0),
        ("n.x", -1.0),
        ("n.y", -2.0),
        ("k.x", 3.0),
        ("k.y", 6.0),
        ("p", 50.0),
        ("same", 1.0),
    ] {
        close(at(&r, name, 0.5), want, 1e-12, name);
    }
    close(at(&r, "t.x", 0.5), 1.5, 1e-9, "t.x");
    close(at(&r, "t.y", 0.5), 3.0, 1e-9, "t.y");
}

#[test]
fn an_operand_of_another_type_is_built_with_the_constructor() {
    // No '+' takes a Real: `a + 4` is `'+'(a, fromReal(4))` (MLS 14.4, second step), and the
    // constructor's default fills `y`.
    let r = run(
        r#"
model Implicit
  import Geo.Vec2;
  Vec2 a = Vec2(1, 2);
  Vec2 c = a + 4;
  Vec2 e = 4 + a;
end Implicit;
"#,
        "Implicit",
    );
    close(at(&r, "c.x", 0.0), 5.0, 1e-12, "c.x");
    close(at(&r, "c.y", 0.0), 2.0, 1e-12, "c.y");
    close(at(&r, "e.x", 0.0), 5.0, 1e-12, "e.x");
}

#[test]
fn vectors_of_records_are_added_element_by_element() {
    let r = run(
        r#"
model Vectors
  import Geo.Vec2;
  Vec2 a = Vec2(1, 2);
  Vec2 b = Vec2(3, 5);
  Vec2[2] u = {a, b};
  Vec2[2] w = u + {b, a};
  Vec2[2] m = -u;
end Vectors;
"#,
        "Vectors",
    );
    close(at(&r, "w[1].x", 0.0), 4.0, 1e-12, "w[1].x");
    close(at(&r, "w[2].y", 0.0), 7.0, 1e-12, "w[2].y");
    close(at(&r, "m[2].x", 0.0), -3.0, 1e-12, "m[2].x");
}

#[test]
fn operators_work_inside_function_bodies() {
    let r = run(
        r#"
model InFunction
  import Geo.Vec2;
  Vec2 a = Vec2(1, 2);
  Real l;
equation
  l = Geo.lengthSquared(a, Vec2(time, 0));
end InFunction;
"#,
        "InFunction",
    );
    // (1 + t)^2 + 2^2 at t = 1
    close(at(&r, "l", 1.0), 8.0, 1e-9, "l");
}

#[test]
fn flow_operator_records_connect_field_by_field() {
    let r = run(
        r#"
connector Pin2
  Geo.Vec2 v;
  flow Geo.Vec2 i;
end Pin2;
model Source
  Pin2 p;
equation
  p.v = Geo.Vec2(1, 2);
  p.i = Geo.Vec2(3, 4);
end Source;
model Sink
  Pin2 p;
end Sink;
model Top
  Source s;
  Sink k;
equation
  connect(s.p, k.p);
end Top;
"#,
        "Top",
    );
    close(at(&r, "k.p.v.y", 0.0), 2.0, 1e-12, "k.p.v.y");
    close(at(&r, "k.p.i.x", 0.0), -3.0, 1e-12, "k.p.i.x");
}

#[test]
fn an_operator_without_a_matching_function_is_a_located_error() {
    assert_err(
        &format!(
            "{VEC2}\nmodel Bad\n  Geo.Vec2 a = Geo.Vec2(1, 2);\n  Geo.Vec2 c = a / a;\nend Bad;\n"
        ),
        Some("Bad"),
        &["no function of the operator '/'", "Geo.Vec2", "MLS 14.4"],
    );
}

#[test]
fn a_constructor_must_have_one_output_of_the_record_type() {
    assert_err(
        r#"
package P
  operator record R
    Real v;
    encapsulated operator 'constructor'
      import P.R;
      function make
        input Real v;
        output Real w;
      algorithm
        w := v;
      end make;
    end 'constructor';
  end R;
end P;
model Bad
  P.R r = P.R(1);
end Bad;
"#,
        Some("Bad"),
        &["must be of the operator record", "MLS 14.3"],
    );
}

#[test]
fn a_flow_operator_record_needs_zero_plus_and_minus() {
    assert_err(
        r#"
package P
  operator record R
    Real v;
    encapsulated operator function '+'
      import P.R;
      input R a;
      input R b;
      output R c;
    algorithm
      c := R(a.v + b.v);
    end '+';
  end R;
end P;
connector C
  Real e;
  flow P.R f;
end C;
model Bad
  C c;
equation
  c.e = 1;
  c.f = P.R(1);
end Bad;
"#,
        Some("Bad"),
        &["defines no operator '0'", "MLS 9.2"],
    );
}

#[test]
fn an_operator_holds_only_functions() {
    assert_err(
        r#"
package P
  operator record R
    Real v;
    encapsulated operator '+'
      import P.R;
      model Inside
        Real z;
      end Inside;
      function add
        input R a;
        input R b;
        output R c;
      algorithm
        c := R(a.v + b.v);
      end add;
    end '+';
  end R;
end P;
model Bad
  P.R a = P.R(1);
  P.R b = a + a;
end Bad;
"#,
        Some("Bad"),
        &["an operator may only contain functions", "MLS 4.7"],
    );
}

#[test]
fn a_function_of_a_record_applies_element_by_element_to_an_array_of_records() {
    // MLS 12.4.6: `norm2(v)` with `v` a vector of records is `{norm2(v[1]), ...}`, and a
    // record result stacks into an array of records.
    let r = run(
        r#"
function norm2
  input Geo.Vec2 a;
  output Real n;
algorithm
  n := a.x * a.x + a.y * a.y;
end norm2;
function swap
  input Geo.Vec2 a;
  output Geo.Vec2 b;
algorithm
  b := Geo.Vec2(a.y, a.x);
end swap;
model Vectorized
  import Geo.Vec2;
  Vec2 v[3] = {Vec2(3, 4), Vec2(time, 0), Vec2(0, -2)};
  Real n[3] = norm2(v);
  Vec2 s[3] = swap(v);
end Vectorized;
"#,
        "Vectorized",
    );
    for (name, want) in [
        ("n[1]", 25.0),
        ("n[2]", 1.0),
        ("n[3]", 4.0),
        ("s[1].x", 4.0),
        ("s[1].y", 3.0),
        ("s[2].y", 1.0),
        ("s[3].x", -2.0),
    ] {
        // At the run's stop time, t = 1: v[2] = Vec2(1, 0).
        close(at(&r, name, 1.0), want, 1e-9, name);
    }
}

#[test]
fn a_record_binding_without_field_parts_binds_the_record_as_a_whole() {
    // `if c then flip(u) else u` and `{... for k in 1:3}` have no syntactic fields: the value
    // is the record's scalars (an array of them for an array of records), element by element.
    let r = run(
        r#"
function flip
  input Geo.Vec2 a;
  output Geo.Vec2 b;
algorithm
  b := Geo.Vec2(a.y, a.x);
end flip;
model Whole
  import Geo.Vec2;
  parameter Boolean c = true;
  parameter Boolean cs[3] = {true, false, true};
  Vec2 u = Vec2(time, 2 * time + 1);
  Vec2 us[3] = {Vec2(k, 10 * k) for k in 1:3};
  Vec2 a = (if c then flip(u) else u);
  Vec2 b = if not c then flip(u) else u;
  Vec2 w[3] = {if cs[k] then flip(us[k]) else us[k] for k in 1:3};
  Vec2 s[3] = {us[k] + u for k in 1:3};
end Whole;
"#,
        "Whole",
    );
    for (name, want) in [
        ("a.x", 3.0),
        ("a.y", 1.0),
        ("b.x", 1.0),
        ("b.y", 3.0),
        ("w[1].x", 10.0),
        ("w[1].y", 1.0),
        ("w[2].x", 2.0),
        ("w[2].y", 20.0),
        ("w[3].x", 30.0),
        ("w[3].y", 3.0),
        ("s[2].x", 3.0),
        ("s[3].y", 33.0),
    ] {
        close(at(&r, name, 1.0), want, 1e-9, name);
    }
}

#[test]
fn a_scalar_bound_to_a_record_is_not_spread_over_its_fields() {
    assert_err(
        &format!("{VEC2}\nmodel Bad\n  Geo.Vec2 z = 2.0 * time;\nend Bad;\n"),
        Some("Bad"),
        &["record binding has a value of size scalar", "2 scalars"],
    );
}
