//! Code inherited from a base package sees the redeclarations of the derived package (MLS
//! 7.3.1), as Modelica.Media needs: `PartialMedium` declares a replaceable, empty
//! `ThermodynamicState` and functions and models that use it; a medium package extends it,
//! redeclares the record with its fields (`redeclare record extends ThermodynamicState`) and
//! the functions (`redeclare function extends density`). The inherited `input
//! ThermodynamicState state` of such a function, and the `state` component of the medium's
//! `BaseProperties`, are then of the medium's record, not of the empty one.

mod flatten_common;

const MEDIUM: &str = r#"
package Media
  partial package Partial
    replaceable record State
    end State;
    replaceable partial function density
      input State state;
      output Real d;
    end density;
    replaceable partial model Base
      State state;
      Real d;
    end Base;
  end Partial;
  package Gas
    extends Partial;
    redeclare record extends State
      Real p;
      Real T;
    end State;
    redeclare function extends density
    algorithm
      d := state.p/(287*state.T);
    end density;
    redeclare model extends Base
    equation
      state.p = 1e5 + 1e4*time;
      state.T = 300;
      d = density(state);
    end Base;
  end Gas;
  model Use
    package Medium = Gas;
    Medium.Base medium;
    Medium.State s(p = 2e5, T = 400);
    Real d2 = Medium.density(s);
  end Use;
end Media;
"#;

#[test]
fn inherited_function_input_and_component_take_the_redeclared_record() {
    let r = flatten_common::simulate_source("media.mo", MEDIUM, "Media.Use");
    let at = |n: &str, t: f64| flatten_common::at(&r, n, t);
    flatten_common::close(at("d2", 0.0), 2e5 / (287.0 * 400.0), 1e-12, "d2");
    flatten_common::close(at("medium.state.p", 1.0), 1.1e5, 1e-9, "state.p");
    flatten_common::close(
        at("medium.d", 1.0),
        1.1e5 / (287.0 * 300.0),
        1e-9,
        "medium.d",
    );
}

/// The record redeclared in the `extends` modifier of the medium package
/// (`extends PartialMedium(redeclare record ThermodynamicState = Common.BaseProps_Tpoly)`, as
/// Modelica.Media.Incompressible.TableBased writes it), seen by the input of an inherited
/// function that a further package (`Oil extends Table(R = 300)`) reaches (MLS 7.3).
const MEDIUM_EXTENDS_MOD: &str = r#"
package Media
  partial package Partial
    replaceable record State
    end State;
    replaceable partial function density
      input State state;
      output Real d;
    end density;
  end Partial;
  package Common
    record Props
      Real p;
      Real T;
    end Props;
  end Common;
  partial package Table
    extends Partial(redeclare record State = Common.Props);
    constant Real R = 287;
    redeclare function extends density
    algorithm
      d := state.p/(R*state.T);
    end density;
  end Table;
  package Oil
    extends Table(R = 300);
  end Oil;
  model Use
    package Medium = Oil;
    Medium.State s(p = 2e5, T = 400);
    Real d2 = Medium.density(s);
  end Use;
end Media;
"#;

#[test]
fn record_redeclared_in_extends_modifier_reaches_inherited_function() {
    let r = flatten_common::simulate_source("media2.mo", MEDIUM_EXTENDS_MOD, "Media.Use");
    flatten_common::close(
        flatten_common::at(&r, "d2", 0.0),
        2e5 / (300.0 * 400.0),
        1e-12,
        "d2",
    );
}
