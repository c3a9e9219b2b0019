model Gear "Two inertias coupled by an ideal gear, driven by a constant torque"
  connector Flange
    Real phi(unit = "rad");
    flow Real tau(unit = "N.m");
  end Flange;
  model Inertia
    Flange a, b;
    parameter Real J(unit = "kg.m2") = 1;
    Real phi(unit = "rad", start = 0, fixed = true);
    Real w(unit = "rad/s", start = 0, fixed = true);
  equation
    phi = a.phi;
    phi = b.phi;
    w = der(phi);
    J * der(w) = a.tau + b.tau;
  end Inertia;
  model IdealGear "phi_a = ratio * phi_b, lossless"
    Flange a, b;
    parameter Real ratio = 2;
  equation
    a.phi = ratio * b.phi;
    0 = ratio * a.tau + b.tau;
  end IdealGear;
  model ConstantTorque
    Flange b;
    parameter Real tau(unit = "N.m") = 1;
  equation
    b.tau = -tau;
  end ConstantTorque;
  ConstantTorque drive(tau = 3);
  Inertia j1(J = 0.5);
  IdealGear gear(ratio = 4);
  Inertia j2(J = 2, phi(fixed = false), w(fixed = false));
equation
  connect(drive.b, j1.a);
  connect(j1.b, gear.a);
  connect(gear.b, j2.a);
  annotation(experiment(StopTime = 2, Interval = 0.01));
end Gear;
