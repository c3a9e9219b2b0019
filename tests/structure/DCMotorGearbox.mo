model DCMotorGearbox "DC motor driving a load through a gearbox"
  import Minimo.Mechanics.Rotational.*;
  model Motor "Armature circuit and electromotive force"
    parameter Real R = 1, La = 0.01, k = 0.1, U = 12;
    Real i(start = 0) "armature current";
    Real w "rotor speed";
    Minimo.Mechanics.Rotational.Flange flange;
  equation
    La*der(i) = U - R*i - k*w;
    w = der(flange.phi);
    flange.tau = -k*i;
  end Motor;
  Motor motor;
  Inertia rotor(J = 1e-3);
  IdealGear gearbox(ratio = 10);
  Inertia load(J = 0.1);
  Damper friction(d = 0.2);
  Fixed housing;
equation
  connect(motor.flange, rotor.flange_a);
  connect(rotor.flange_b, gearbox.flange_a);
  connect(gearbox.flange_b, load.flange_a);
  connect(load.flange_b, friction.flange_a);
  connect(friction.flange_b, housing.flange);
end DCMotorGearbox;
