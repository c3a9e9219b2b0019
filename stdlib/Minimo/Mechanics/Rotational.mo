within Minimo.Mechanics;
package Rotational "1-D rotational mechanics: flanges carry an angle and a torque"

  connector Flange "Rotational flange: absolute angle and cut torque"
    Units.Angle phi "absolute rotation angle of the flange";
    flow Units.Torque tau "cut torque acting on the component at the flange";
  end Flange;

  partial model PartialCompliant "Two flanges with a compliant element between them"
    Flange flange_a;
    Flange flange_b;
    Units.Angle phi_rel "relative angle flange_b.phi - flange_a.phi";
    Units.Torque tau "torque from flange_a to flange_b";
  equation
    phi_rel = flange_b.phi - flange_a.phi;
    flange_b.tau = tau;
    flange_a.tau = -tau;
  end PartialCompliant;

  model Fixed "Flange fixed in the housing"
    parameter Units.Angle phi0 = 0 "fixed angle";
    Flange flange;
  equation
    flange.phi = phi0;
  end Fixed;

  model Inertia "Rotating inertia"
    parameter Units.Inertia J(min = 0) = 1 "moment of inertia";
    Flange flange_a;
    Flange flange_b;
    Units.Angle phi "absolute angle";
    Units.AngularVelocity w "angular velocity";
    Units.AngularAcceleration a "angular acceleration";
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
    parameter Units.RotationalSpringConstant c(min = 0) = 1 "spring constant";
    parameter Units.Angle phi_rel0 = 0 "unstretched angle";
  equation
    tau = c*(phi_rel - phi_rel0);
  end Spring;

  model Damper "Linear torsional damper"
    extends PartialCompliant;
    parameter Units.RotationalDampingConstant d(min = 0) = 0 "damping constant";
  equation
    tau = d*der(phi_rel);
  end Damper;

  model ConstantTorque "Constant torque driving the flange in the positive direction"
    parameter Units.Torque tau_constant = 1 "torque";
    Flange flange;
  equation
    flange.tau = -tau_constant;
  end ConstantTorque;
end Rotational;
