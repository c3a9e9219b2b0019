model RLC "Series RLC circuit"
  import Minimo.Electrical.Analog.Basic.*;
  import Minimo.Electrical.Analog.Sources.*;
  SineVoltage src(V = 1, f = 50);
  Resistor R(R = 10);
  Inductor L(L = 0.1);
  Capacitor C(C = 1e-3);
  Ground ground;
equation
  connect(src.p, R.p);
  connect(R.n, L.p);
  connect(L.n, C.p);
  connect(C.n, src.n);
  connect(C.n, ground.p);
end RLC;
