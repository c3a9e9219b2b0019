model FrictionSlider "A block pushed along a floor; the friction law is a replaceable model"
  partial model FrictionLaw
    input Real v "sliding velocity";
    input Real N "normal force";
    output Real f "friction force, opposing v";
  end FrictionLaw;
  model Viscous
    extends FrictionLaw;
    parameter Real c = 2 "viscous coefficient";
  equation
    f = c * v;
  end Viscous;
  model RegularizedCoulomb
    extends FrictionLaw;
    parameter Real mu = 0.3;
    parameter Real vReg = 1e-3 "regularization velocity";
  equation
    f = mu * N * tanh(v / vReg);
  end RegularizedCoulomb;
  model Slider
    parameter Real m(unit = "kg") = 1;
    parameter Real g(unit = "m/s2") = 9.81;
    parameter Real v0(unit = "m/s") = 2;
    replaceable model Law = Viscous constrainedby FrictionLaw;
    Law law(v = v, N = m * g);
    Real x(unit = "m", start = 0, fixed = true);
    Real v(unit = "m/s", start = v0, fixed = true);
  equation
    der(x) = v;
    m * der(v) = -law.f;
  end Slider;
  Slider viscous;
  Slider coulomb(redeclare model Law = RegularizedCoulomb);
  annotation(experiment(StopTime = 1, Interval = 0.001));
end FrictionSlider;
