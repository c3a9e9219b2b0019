model RLC "Series RLC circuit driven by a voltage step"
  connector Pin
    Real v(unit = "V");
    flow Real i(unit = "A");
  end Pin;
  partial model TwoPin
    Pin p, n;
    Real v(unit = "V");
    Real i(unit = "A");
  equation
    v = p.v - n.v;
    0 = p.i + n.i;
    i = p.i;
  end TwoPin;
  model Resistor
    extends TwoPin;
    parameter Real R(unit = "Ohm") = 1;
  equation
    v = R * i;
  end Resistor;
  model Inductor
    extends TwoPin;
    parameter Real L(unit = "H") = 1;
  equation
    L * der(i) = v;
  end Inductor;
  model Capacitor
    extends TwoPin;
    parameter Real C(unit = "F") = 1;
  equation
    C * der(v) = i;
  end Capacitor;
  model StepVoltage
    extends TwoPin;
    parameter Real V = 1;
    parameter Real startTime = 0.5;
  equation
    v = if time < startTime then 0 else V;
  end StepVoltage;
  model Ground
    Pin p;
  equation
    p.v = 0;
  end Ground;
  StepVoltage src;
  Resistor r(R = 1);
  Inductor l(L = 1);
  Capacitor c(C = 1);
  Ground g;
equation
  connect(src.p, r.p);
  connect(r.n, l.p);
  connect(l.n, c.p);
  connect(c.n, src.n);
  connect(src.n, g.p);
  annotation(experiment(StopTime = 5, Interval = 0.01));
end RLC;
