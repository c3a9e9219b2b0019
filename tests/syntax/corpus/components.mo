model Components
  flow Real f;
  stream Real h_outflow;
  discrete Integer n(start = 0);
  parameter Real p = 1 "parameter";
  constant Real c = 3.0;
  input Real u;
  output Real y;
  parameter input Real pu;
  Real[3] a = {1, 2, 3};
  Real b[2, 3];
  Real[2] c2[4];
  Real x(start = 1, fixed = true, stateSelect = StateSelect.prefer, nominal = 1e3, min = -1, max = 10);
  Body body(m = 2, r_CM(each start = 0) = {0, 0, 0}, final I = diagonal({1, 2, 3}));
  Rod rod[3](each length = 0.5, mass = {1, 2, 3});
  Friction fr(redeclare model Law = Coulomb(mu = 0.3), redeclare each final Real w = 2);
  Spring s1(c = 10), s2(c = 20) "two springs";
  Damper d(d = 1) if useDamper "only when enabled" annotation(Dialog(group = "Damping"));
  parameter Boolean useDamper = true annotation(Evaluate = true, choices(checkBox = true));
  parameter String name = "a" + "b";
  replaceable Spring s3 constrainedby PartialSpring(c = 1) "replaceable spring";
  Container box(redeclare replaceable Spring spring(c = 2) constrainedby PartialSpring);
  Real z(unit = "m") = 2 * p "with binding and description";
  Real w := 1;
  parameter Real tab[:, 2] = [0, 1; 1, 2; 2, 4];
equation
  der(x) = -x;
end Components;
