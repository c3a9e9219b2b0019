model Equations
  parameter Integer n = 3;
  Real x[n], y, z(start = 1);
  Boolean b;
  discrete Real t0;
initial equation
  x = fill(0, n);
  pre(b) = false;
equation
  y = sum(x);
  (a, b2) = swap(1, 2);
  connect(p1.flange, p2.flange) "connection" annotation(Line(points = {{0, 0}, {10, 0}}));
  connect(bus.signals[1], sensor.y);
  for i in 1:n loop
    der(x[i]) = -i * x[i];
  end for;
  for i in 1:2, j in 1:3 loop
    m[i, j] = i + j;
  end for;
  for e in Mode loop
    v[e] = 0;
  end for;
  if y > 1 then
    der(z) = 1;
  elseif y < -1 then
    der(z) = -1;
  else
    der(z) = 0;
  end if;
  when sample(0, 0.1) then
    t0 = time;
  elsewhen {x[1] < 0, initial()} then
    reinit(z, 1);
  end when;
  when z > 2 then
    b = true;
    terminate("z reached 2");
  end when;
  assert(y < 100, "y too large", AssertionLevel.warning);
  assert(z > -10, "z " + String(z) + " too small");
  customEquation(x[1]);
end Equations;
