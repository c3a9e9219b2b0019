model SliderCrank "Slider-crank with a massless rod; constraint forces as multipliers"
  parameter Real r = 0.1, l = 0.3, J = 0.01, m = 0.5, tau = 1;
  Real phi(start = 0.3) "crank angle";
  Real w "crank speed";
  Real psi "rod angle";
  Real s "slider position";
  Real v "slider speed";
  Real lambda1, lambda2 "constraint forces";
equation
  der(phi) = w;
  der(s) = v;
  J*der(w) = tau + lambda1*r*sin(phi) - lambda2*r*cos(phi);
  0 = lambda1*l*sin(psi) - lambda2*l*cos(psi);
  m*der(v) = lambda1;
  r*cos(phi) + l*cos(psi) = s;
  r*sin(phi) + l*sin(psi) = 0;
end SliderCrank;
