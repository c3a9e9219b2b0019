model Chain "Masses connected by springs and dampers, written with arrays and for"
  parameter Integer n = 10 "number of masses";
  parameter Real m(unit = "kg") = 1;
  parameter Real k(unit = "N/m") = 100;
  parameter Real d(unit = "N.s/m") = 0.5;
  Real x[n](each unit = "m", each start = 0, each fixed = true) "displacements";
  Real v[n](each unit = "m/s", each start = 0, each fixed = true);
  Real f[n](each unit = "N") "force in the spring left of each mass";
  parameter Real F(unit = "N") = 1 "constant pull on the last mass";
equation
  f[1] = k * x[1] + d * v[1];
  for i in 2:n loop
    f[i] = k * (x[i] - x[i - 1]) + d * (v[i] - v[i - 1]);
  end for;
  for i in 1:n - 1 loop
    der(x[i]) = v[i];
    m * der(v[i]) = f[i + 1] - f[i];
  end for;
  der(x[n]) = v[n];
  m * der(v[n]) = F - f[n];
  annotation(experiment(StopTime = 10, Interval = 0.01));
end Chain;
