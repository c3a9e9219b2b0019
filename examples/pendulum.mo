model Pendulum "Point mass on a massless rod, in Cartesian coordinates (index 3)"
  parameter Real m(unit = "kg") = 1;
  parameter Real L(unit = "m") = 1;
  parameter Real g(unit = "m/s2") = 9.81;
  parameter Real phi0(unit = "rad") = 0.6 "initial angle from the vertical";
  Real x(unit = "m", start = L * sin(phi0), fixed = true);
  Real y(unit = "m", start = -L * cos(phi0));
  Real vx(unit = "m/s", start = 0, fixed = true);
  Real vy(unit = "m/s", start = 0);
  Real F(unit = "N") "rod force";
equation
  der(x) = vx;
  der(y) = vy;
  m * der(vx) = -F * x / L;
  m * der(vy) = -F * y / L - m * g;
  x^2 + y^2 = L^2;
  annotation(experiment(StopTime = 3, Interval = 0.001, Tolerance = 1e-8));
end Pendulum;
