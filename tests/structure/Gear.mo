model Gear "Two inertias joined by an ideal gear"
  import Minimo.Mechanics.Rotational.*;
  Inertia J1(J = 1);
  Inertia J2(J = 2);
  IdealGear gear(ratio = 3);
  ConstantTorque drive(tau_constant = 1);
equation
  connect(drive.flange, J1.flange_a);
  connect(J1.flange_b, gear.flange_a);
  connect(gear.flange_b, J2.flange_a);
end Gear;
