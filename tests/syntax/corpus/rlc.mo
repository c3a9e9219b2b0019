within Examples;
// A series RLC circuit built from connectors and components.
package Electrical "Simple electrical components"
  import SI = Modelica.Units.SI;
  connector Pin "Electrical pin"
    Real v(unit = "V") "potential";
    flow Real i(unit = "A");
  end Pin;

  partial model OnePort
    Pin p, n;
    Real v, i;
  equation
    v = p.v - n.v;
    0 = p.i + n.i;
    i = p.i;
  end OnePort;

  model Resistor
    extends OnePort;
    parameter Real R(start = 1, min = 0) = 100 "resistance";
  equation
    v = R * i;
  end Resistor;

  model Capacitor
    extends OnePort(v(start = 0, fixed = true));
    parameter Real C = 1e-3;
  equation
    C * der(v) = i;
  end Capacitor;

  model Inductor
    extends OnePort;
    parameter Real L = .5;
  equation
    L * der(i) = v;
  end Inductor;

  model Ground
    Pin p;
  equation
    p.v = 0;
  end Ground;

  model Source
    extends OnePort;
    parameter Real V0 = 10, f = 50;
  equation
    v = if time < 0.1 then 0 else V0 * sin(2 * Modelica.Constants.pi * f * time);
  end Source;

  model RLC
    Resistor r(R = 10);
    Capacitor c(C = 2.5E-3);
    Inductor l(L = 1.);
    Source s;
    Ground g;
  equation
    connect(s.p, r.p);
    connect(r.n, l.p);
    connect(l.n, c.p);
    connect(c.n, s.n);
    connect(s.n, g.p);
    annotation(experiment(StopTime = 1, Interval = 1e-3));
  end RLC;
end Electrical;
