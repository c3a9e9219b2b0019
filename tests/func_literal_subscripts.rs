//! The function interpreter's fast path for elements subscripted by Integer literals (`o[3]`,
//! `a[2, 1]`), read and written: the same values, Integer-to-Real coercion and bounds errors
//! as the general subscript path.

mod flatten_common;
use minimo::flatten::{Val, Value, call_function};

const LIB: &str = r#"
package L
  function f
    input Real x;
    input Integer k;
    output Real y;
    output Real z;
  protected
    Real o[3];
    Real a[2, 2];
    Integer m[2];
  algorithm
    o[1] := x;
    o[2] := 2 "an Integer stored in a Real element";
    o[3] := o[1]*o[2];
    a[2, 1] := o[3] + 1;
    a[1, 2] := a[2, 1]*10;
    m[2] := 7;
    y := o[3] + a[2, 1] + a[1, 2] + m[2];
    z := o[2];
    if k > 3 then
      z := o[4];
    end if;
  end f;
  model Use
    Real y;
    Real z;
  equation
    (y, z) = f(time, 0);
  end Use;
end L;
"#;

#[test]
fn literal_subscripts_read_write_coerce_and_check_bounds() {
    let fs = flatten_common::flat_model(LIB, Some("L.Use")).functions;
    let out =
        call_function(&fs, "L.f", &[Value::real(1.5), Value::scalar(Val::Int(0))]).expect("runs");
    // o = {1.5, 2, 3}, a[2,1] = 4, a[1,2] = 40, m[2] = 7.
    assert_eq!(out[0].data[0], Val::Real(3.0 + 4.0 + 40.0 + 7.0));
    assert_eq!(out[1].data[0], Val::Real(2.0), "the Integer 2 is kept Real");
    let err = call_function(&fs, "L.f", &[Value::real(1.5), Value::scalar(Val::Int(5))])
        .expect_err("o[4] is out of bounds");
    assert!(err.contains("out of bounds"), "{err}");
}
