model DuplicatedJoint "The same revolute joint constraint written twice, each with its reaction"
  parameter Real L = 1, m = 1, g = 9.81;
  Real x(start = 1), y(start = 0), vx, vy;
  Real F "reaction of the joint";
  Real F2 "reaction of its duplicate";
equation
  der(x) = vx;
  der(y) = vy;
  m*der(vx) = -x*(F + F2)/L;
  m*der(vy) = -y*(F + F2)/L - m*g;
  x^2 + y^2 = L^2;
  x^2 + y^2 = L^2 "the same joint again";
end DuplicatedJoint;
