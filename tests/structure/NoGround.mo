model NoGround "An RC circuit whose ground was forgotten"
  import Minimo.Electrical.Analog.Basic.*;
  import Minimo.Electrical.Analog.Sources.*;
  ConstantVoltage src(V = 1);
  Resistor R(R = 10);
  Capacitor C(C = 1e-3);
equation
  connect(src.p, R.p);
  connect(R.n, C.p);
  connect(C.n, src.n);
end NoGround;
