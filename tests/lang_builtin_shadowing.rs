//! MLS 5.3: a function class in scope (imported, local, enclosing) is found before minimo's
//! built-in of the same name, in model equations, bindings and function bodies. Each model
//! defines functions whose results differ from the built-ins'.

mod flatten_common;
use flatten_common::{close, last, simulate_source};

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
