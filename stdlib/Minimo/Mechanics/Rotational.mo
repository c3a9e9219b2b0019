within Minimo.Mechanics;
package Rotational "1-D rotational mechanics: flanges carry an angle and a torque"

  connector Flange "Rotational flange: absolute angle and cut torque"
    Real phi(unit = "rad") "absolute rotation angle of the flange";
    flow Real tau(unit = "N.m") "cut torque acting on the component at the flange";
  end Flange;

  partial model PartialCompliant "Two flanges with a compliant element between them"
    Flange flange_a;
    Flange flange_b;
    Real phi_rel(unit = "rad") "relative angle flange_b.phi - flange_a.phi";
    Real tau(unit = "N.m") "torque from flange_a to flange_b";
  equation
    phi_rel = flange_b.phi - flange_a.phi;
    flange_b.tau = tau;
    flange_a.tau = -tau;
  end PartialCompliant;

  model Fixed "Flange fixed in the housing"
    parameter Real phi0(unit = "rad") = 0 "fixed angle";
    Flange flange;
  equation
    flange.phi = phi0;
  end Fixed;

  model Inertia "Rotating inertia"
    parameter Real J(unit = "kg.m2", min = 0) = 1 "moment of inertia";
    Flange flange_a;
    Flange flange_b;
    Real phi(unit = "rad") "absolute angle";
    Real w(unit = "rad/s") "angular velocity";
    Real a(unit = "rad/s2") "angular acceleration";
  equation
    phi = flange_a.phi;
    phi = flange_b.phi;
    w = der(phi);
    a = der(w);
    J*a = flange_a.tau + flange_b.tau;
  end Inertia;

  model IdealGear "Ideal gear without inertia: flange_a.phi = ratio*flange_b.phi"
    parameter Real ratio = 1 "transmission ratio (flange_a.phi/flange_b.phi)";
    Flange flange_a;
    Flange flange_b;
  equation
    flange_a.phi = ratio*flange_b.phi;
    0 = ratio*flange_a.tau + flange_b.tau;
  end IdealGear;

  model Spring "Linear torsional spring"
    extends PartialCompliant;
    parameter Real c(unit = "N.m/rad", min = 0) = 1 "spring constant";
    parameter Real phi_rel0(unit = "rad") = 0 "unstretched angle";
  equation
    tau = c*(phi_rel - phi_rel0);
  end Spring;

  model Damper "Linear torsional damper"
    extends PartialCompliant;
    parameter Real d(unit = "N.m.s/rad", min = 0) = 0 "damping constant";
  equation
    tau = d*der(phi_rel);
  end Damper;

  model ConstantTorque "Constant torque driving the flange in the positive direction"
    parameter Real tau_constant(unit = "N.m") = 1 "torque";
    Flange flange;
  equation
    flange.tau = -tau_constant;
  end ConstantTorque;
end Rotational;
