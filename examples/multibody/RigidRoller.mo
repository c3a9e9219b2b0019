model RigidRoller "A spindle roller rocking on the plane with the paper's rigid contact (der(v_n) = 0)"
  // The roller starts touching the plane (gap 0, normal velocity 0) with its axis tilted by 0.2 rad and
  // spinning about the vertical; the rigid contact keeps it on the plane. Frictionless by default,
  // so the energy is conserved.
  import Minimo.Multibody.*;
  parameter Real R = 0.05;
  parameter Integer nRollers = 4;
  parameter Real m = 0.1;
  parameter Real tilt = 0.2;
  final parameter Real R1 = R*cos(3.141592653589793/nRollers);
  replaceable model FrictionLaw = Contacts.Friction.None
    constrainedby Contacts.Interfaces.PartialTangentialForce;
  inner Parts.World world "gravity: {0, -9.81, 0}, y up";
  Parts.Ground ground;
  Omni.RollerBody roller(m = m, R = R, nRollers = nRollers,
    r_start = {0, R - R1*cos(tilt), 0}, q_start = {cos(tilt/2), 0, 0, sin(tilt/2)}, w_start = {0, 3, 0});
  Contacts.RollerPlaneContact contact(R = R, nRollers = nRollers, redeclare model TangentialForce = FrictionLaw);
equation
  connect(ground.frame, contact.frame_a);
  connect(contact.frame_b, roller.frame);
  annotation(experiment(StartTime = 0, StopTime = 2, Interval = 0.001, Tolerance = 1e-8));
end RigidRoller;
