//! MLS 5.3: a function class in scope (imported, local, enclosing) is found before minimo's
//! built-in of the same name, in model equations, bindings and function bodies. Each model
//! defines functions whose results differ from the built-ins'. Also arrays of records as
//! function inputs, outputs and locals (the `Complex v[:]` of `Modelica.ComplexMath`).

mod flatten_common;
use flatten_common::{at, close, last, simulate_source};

const SHADOWING: &str = "
package P
  function abs \"not the built-in: ten times its argument\"
    input Real x;
    output Real y;
  algorithm
    y := 10*x;
  end abs;
  function max
    input Real a;
    input Real b;
    output Real y;
  algorithm
    y := a + b;
  end max;
  function useAbs \"calls P.abs, found in the enclosing package\"
    input Real x;
    output Real y;
  algorithm
    y := abs(x);
  end useAbs;
  model Inner \"sqrt is a local function of the model\"
    function sqrt
      input Real x;
      output Real y;
    algorithm
      y := x + 1;
    end sqrt;
    Real s = sqrt(4);
    Real m = max(1, 2);
  end Inner;
end P;
model M
  import P.abs;
  import P.max;
  Real a = abs(-2);
  Real b = max(1, 2);
  Real c = P.useAbs(-3);
  Real plain = sqrt(4) \"no sqrt in scope: the built-in\";
  P.Inner n;
  Real d(start = 1, fixed = true);
equation
  der(d) = -abs(d);
end M;
";

#[test]
fn imported_and_local_functions_shadow_builtins() {
    let r = simulate_source("shadow.mo", SHADOWING, "M");
    close(last(&r, "a"), -20.0, 1e-12, "imported abs");
    close(last(&r, "b"), 3.0, 1e-12, "imported max");
    close(
        last(&r, "c"),
        -30.0,
        1e-12,
        "abs in a function body of the package",
    );
    close(last(&r, "plain"), 2.0, 1e-12, "built-in sqrt");
    close(last(&r, "n.s"), 5.0, 1e-12, "local sqrt of the model");
    close(last(&r, "n.m"), 3.0, 1e-12, "max of the enclosing package");
    // der(d) = -10 d: the imported abs in an equation.
    close(last(&r, "d"), (-10.0f64).exp(), 1e-5, "d(1)");
}

const RECORD_ARRAYS: &str = r#"package Q
  record C
    Real re;
    Real im;
  end C;
  function csum "sum over an array of records with a loop"
    input C v[:];
    output C r;
  algorithm
    r := C(0, 0);
    for i in 1:size(v, 1) loop
      r := C(r.re + v[i].re, r.im + v[i].im);
    end for;
  end csum;
  function power "sum of re(v conj(i)) with the field arrays"
    input C v[:];
    input C i[size(v, 1)];
    output Real p;
  algorithm
    p := sum(v[:].re .* i[:].re + v[:].im .* i[:].im);
  end power;
  function largest "the element of largest norm and its index"
    input C v[:];
    output C r;
    output Integer k;
  algorithm
    k := 1;
    for j in 2:size(v, 1) loop
      if v[j].re^2 + v[j].im^2 > v[k].re^2 + v[k].im^2 then
        k := j;
      end if;
    end for;
    r := v[k];
  end largest;
  function rotated "each element times j"
    input C v[:];
    output C w[size(v, 1)];
  algorithm
    for j in 1:size(v, 1) loop
      w[j] := C(-v[j].im, v[j].re);
    end for;
  end rotated;
  function total "calls csum on the result of rotated"
    input C v[:];
    output C r;
  algorithm
    r := csum(rotated(v));
  end total;
end Q;
model M
  Q.C z[3] = {Q.C(1, 2), Q.C(time, -1), Q.C(-4, 0.5)};
  Q.C s = Q.csum(z);
  Real p = Q.power(z, {Q.C(1, 0), Q.C(0, 1), Q.C(2, 2)});
  Q.C big = Q.largest(z);
  Q.C w[3] = Q.rotated(z);
  Q.C t = Q.total(z);
end M;
"#;

#[test]
fn arrays_of_records_pass_through_functions() {
    let r = simulate_source("recarr.mo", RECORD_ARRAYS, "M");
    // At t = 1: z = {1 + 2j, 1 - j, -4 + 0.5j}.
    close(last(&r, "s.re"), -2.0, 1e-12, "sum re");
    close(last(&r, "s.im"), 1.5, 1e-12, "sum im");
    close(last(&r, "p"), -7.0, 1e-12, "sum of re(v conj(i))");
    close(last(&r, "big.re"), -4.0, 1e-12, "largest re");
    close(last(&r, "big.im"), 0.5, 1e-12, "largest im");
    close(last(&r, "w[3].re"), -0.5, 1e-12, "j z3 re");
    close(last(&r, "w[3].im"), -4.0, 1e-12, "j z3 im");
    close(last(&r, "t.re"), -1.5, 1e-12, "j sum re");
    close(last(&r, "t.im"), -2.0, 1e-12, "j sum im");
    close(at(&r, "s.re", 0.5), -2.5, 1e-12, "sum re at t = 0.5");
}
