model UserFunction "Pendulum whose constraint goes through a user function"
  function radius2 "squared distance from the pivot"
    input Real x;
    input Real y;
    output Real r2;
  algorithm
    r2 := x^2 + y^2;
  end radius2;
  parameter Real m = 1, g = 9.81, L = 1;
  Real x(start = 1), y(start = 0), vx, vy, F;
equation
  der(x) = vx;
  der(y) = vy;
  m*der(vx) = -x*F/L;
  m*der(vy) = -y*F/L - m*g;
  radius2(x, y) = L^2;
end UserFunction;
