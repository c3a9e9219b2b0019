model RCCircuit "A capacitor charged through a resistor from a constant source"
  // The time constant is R*C = 0.1 s: after one time constant the capacitor holds 63 % of V.
  import Minimo.Electrical.Analog.Basic.*;
  import Minimo.Electrical.Analog.Sources.ConstantVoltage;
  ConstantVoltage source(V = 10);
  Resistor resistor(R = 100);
  Capacitor capacitor(C = 1e-3, v(start = 0, fixed = true));
  Ground ground;
equation
  connect(source.p, resistor.p);
  connect(resistor.n, capacitor.p);
  connect(capacitor.n, source.n);
  connect(source.n, ground.p);
  annotation(experiment(StopTime = 0.5, Interval = 0.001));
end RCCircuit;
