//! A redeclared conditional component keeps the condition of the declaration it replaces
//! (MLS 4.4.5, 7.3), evaluated where that declaration was written. The MSL machines write
//! `replaceable ThermalAmbient thermalAmbient if not useThermalPort` and redeclare it in an
//! `extends` modifier; losing the condition left a second ambient on the thermal port.

mod flatten_common;

const MACHINE: &str = r#"
package CondRedecl
  connector HeatPort
    Real T;
    flow Real Q;
  end HeatPort;
  model Src "fixed temperature"
    parameter Real T0 = 300;
    HeatPort port;
  equation
    port.T = T0;
  end Src;
  model HotSrc
    extends Src(T0 = 400);
  end HotSrc;
  model Loss "heat injected into its port"
    parameter Real P = 10;
    HeatPort port;
  equation
    port.Q = -P;
  end Loss;
  model Machine
    parameter Boolean usePort = false;
    HeatPort port if usePort;
    replaceable Src amb if not usePort;
    Loss loss;
  equation
    connect(loss.port, amb.port);
    connect(loss.port, port);
  end Machine;
  model Derived "redeclaration in an extends modifier"
    extends Machine(redeclare HotSrc amb);
  end Derived;
  model ViaExtends
    parameter Boolean usePort = false "a name the condition must not see";
    Derived m(usePort = true);
    Src sink(T0 = 350);
  equation
    connect(m.port, sink.port);
  end ViaExtends;
  model ViaModifier
    parameter Boolean usePort = false "a name the condition must not see";
    Machine m(usePort = true, redeclare HotSrc amb);
    Src sink(T0 = 350);
  equation
    connect(m.port, sink.port);
  end ViaModifier;
  model Kept "condition true: the redeclared ambient is there"
    Derived m;
  end Kept;
end CondRedecl;
"#;

/// With the external port in use, the redeclared ambient is removed (in an `extends`
/// modifier and in an instance modifier alike): the loss heats the sink at its temperature.
#[test]
fn redeclared_conditional_component_keeps_its_condition() {
    for model in ["CondRedecl.ViaExtends", "CondRedecl.ViaModifier"] {
        let r = flatten_common::simulate_source("cr.mo", MACHINE, model);
        flatten_common::close(
            flatten_common::last(&r, "m.loss.port.T"),
            350.0,
            1e-12,
            model,
        );
        flatten_common::close(flatten_common::last(&r, "sink.port.Q"), 10.0, 1e-12, model);
    }
}

/// With the condition true the redeclared class is used (the hot ambient's temperature).
#[test]
fn redeclared_conditional_component_present_when_condition_holds() {
    let r = flatten_common::simulate_source("cr.mo", MACHINE, "CondRedecl.Kept");
    flatten_common::close(flatten_common::last(&r, "m.loss.port.T"), 400.0, 1e-12, "T");
    flatten_common::close(flatten_common::last(&r, "m.amb.port.Q"), 10.0, 1e-12, "Q");
}
