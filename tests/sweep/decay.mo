model Decay "n independent decays; n is structural (an array size)"
  parameter Integer n = 2;
  parameter Real k = 1;
  Real x[n](each start = 1, each fixed = true);
equation
  for i in 1:n loop
    der(x[i]) = -k * i * x[i];
  end for;
  assert(k < 5, "k must stay below 5");
  annotation(experiment(StopTime = 1, Interval = 0.01, Tolerance = 1e-10));
end Decay;
