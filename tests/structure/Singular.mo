model Singular "x is determined twice, y never"
  Real x(start = 1);
  Real y;
  Real z;
equation
  der(x) = -x;
  z = sin(x);
  z = 2*x;
end Singular;
