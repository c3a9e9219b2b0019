model Pendulum "Cartesian pendulum: index 3"
  parameter Real m = 1, g = 9.81, L = 1;
  Real x(start = 1), y(start = 0), vx, vy, F;
equation
  der(x) = vx;
  der(y) = vy;
  m*der(vx) = -x*F/L;
  m*der(vy) = -y*F/L - m*g;
  x^2 + y^2 = L^2;
end Pendulum;
