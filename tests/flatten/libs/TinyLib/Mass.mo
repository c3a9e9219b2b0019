within TinyLib;
model Mass "sliding mass with weight"
  parameter Real m = 1;
  Interfaces.Flange flange;
  Real v;
equation
  v = der(flange.s);
  m*der(v) = flange.f - m*g;
end Mass;
