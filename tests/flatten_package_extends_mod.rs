//! A modifier on a package's `extends` applies to the constants it inherits (MLS 7.2), also
//! in the code inherited with them: in `package D1 extends Base(c = 2)`, the function
//! `Base.f` called as `D1.f` and the model `Base.M` used as `D1.M` see `c = 2`, as
//! Modelica.Media needs (`extends PartialSimpleMedium(MM_const = ...)`). `k` has no value in
//! `Base`, so reading it there is an error, not a silent default.

mod flatten_common;

const SRC: &str = r#"
package P
  partial package Base
    constant Real c = 1;
    constant Real k;
    function f
      input Real x;
      output Real y;
    algorithm
      y := c*x + k;
    end f;
    model M
      Real v = c + k;
      Real w = f(2);
    end M;
  end Base;
  package D1
    extends Base(c = 2, k = 10);
  end D1;
  package D2
    extends D1(c = 3);
  end D2;
  model UseModel
    Real a = D1.c;
    Real b = D1.f(1);
    D1.M m;
  end UseModel;
  model UseRepl
    replaceable package Medium = Base;
    Real a = Medium.c;
    Real b = Medium.f(1);
    Medium.M m;
  end UseRepl;
  model R
    UseRepl u(redeclare package Medium = D1);
  end R;
  model Chain
    Real a = D2.c;
    Real b = D2.f(1);
    Real b1 = D1.f(1);
    D2.M m;
  end Chain;
end P;
"#;

fn at(r: &minimo::sim::SimResult, n: &str) -> f64 {
    flatten_common::at(r, n, 0.0)
}

#[test]
fn derived_package_constant_in_model_function_and_inherited_model() {
    let r = flatten_common::simulate_source("p.mo", SRC, "P.UseModel");
    flatten_common::close(at(&r, "a"), 2.0, 1e-12, "a");
    flatten_common::close(at(&r, "b"), 12.0, 1e-12, "b");
    flatten_common::close(at(&r, "m.v"), 12.0, 1e-12, "m.v");
    flatten_common::close(at(&r, "m.w"), 14.0, 1e-12, "m.w");
}

#[test]
fn redeclared_replaceable_package_takes_the_modified_constants() {
    let r = flatten_common::simulate_source("p.mo", SRC, "P.R");
    flatten_common::close(at(&r, "u.a"), 2.0, 1e-12, "u.a");
    flatten_common::close(at(&r, "u.b"), 12.0, 1e-12, "u.b");
    flatten_common::close(at(&r, "u.m.v"), 12.0, 1e-12, "u.m.v");
    flatten_common::close(at(&r, "u.m.w"), 14.0, 1e-12, "u.m.w");
}

#[test]
fn chain_of_extends_the_outer_modifier_wins() {
    let r = flatten_common::simulate_source("p.mo", SRC, "P.Chain");
    flatten_common::close(at(&r, "a"), 3.0, 1e-12, "a");
    flatten_common::close(at(&r, "b"), 13.0, 1e-12, "b");
    flatten_common::close(at(&r, "b1"), 12.0, 1e-12, "b1");
    flatten_common::close(at(&r, "m.v"), 13.0, 1e-12, "m.v");
    flatten_common::close(at(&r, "m.w"), 16.0, 1e-12, "m.w");
}

/// A record of the package, redeclared by `record extends` in a base (as a medium's
/// `ThermodynamicState` with its `X[nX]`), declared through the derived package: its field
/// sizes read the derived package's constants. Before, `Conc.State` saw `Base.names` and got
/// `X[1]`.
const RECORD_SIZE: &str = r#"
package P
  partial package Base
    constant String names[:] = {"a"};
    final constant Integer n = size(names, 1);
    replaceable record State
      Real X[n];
    end State;
  end Base;
  partial package Mid
    extends Base;
    redeclare record extends State
      Real T;
    end State;
  end Mid;
  package Conc
    extends Mid(names = {"a", "b", "c"});
  end Conc;
  model M
    Conc.State s(X = {time, 2, 3}, T = 4);
    Real total = sum(s.X) + s.T;
  end M;
end P;
"#;

#[test]
fn a_record_reached_through_a_derived_package_takes_its_sizes() {
    let r = flatten_common::simulate_source("rs.mo", RECORD_SIZE, "P.M");
    flatten_common::close(at(&r, "s.X[3]"), 3.0, 0.0, "s.X[3]");
    flatten_common::close(at(&r, "total"), 9.0, 1e-12, "total");
}
