model UsesLib
  TinyLib.Mass mass(m = 2);
  TinyLib.Sub.Fixed fixed(s0 = 1);
  Real y2 = Single.twice(mass.v);
equation
  connect(mass.flange, fixed.flange);
end UsesLib;
