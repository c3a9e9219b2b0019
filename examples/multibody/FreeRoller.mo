model FreeRoller "A free spindle roller dropped on the plane (compliant Hertz contact, tips included)"
  // Roller of an n = 4 omni wheel of radius R = 0.05 m: R1 = R*cos(pi/4), half length R*sin(pi/4).
  // Mass 0.1 kg, inertia of the homogeneous spindle (Omni.spindleInertia).
  // Dropped from 1 cm with its axis tilted by 0.3 rad (within the arc part, alpha = pi/4) and a spin.
  // Contact: Hertz k = 1e7 N/m^1.5 (steel-like, static penetration ~ 0.02 mm), Hunt-Crossley damping
  // d = 1e5, regularized Coulomb friction mu = 0.5, delta = 1e-3 m/s. These values are chosen here:
  // the papers use a rigid contact for the roller and give no friction data.
  import Minimo.Multibody.*;
  parameter Real R = 0.05 "wheel radius = radius of the generating arc";
  parameter Integer nRollers = 4;
  parameter Real m = 0.1 "roller mass";
  parameter Real tilt = 0.3 "initial tilt of the roller axis (rad)";
  parameter Real drop = 0.01 "initial gap of the lowest point (m)";
  final parameter Real R1 = R*cos(3.141592653589793/nRollers);
  replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = 0.5, delta = 1e-3)
    constrainedby Contacts.Interfaces.PartialTangentialForce;
  replaceable model DampingLaw = Contacts.Damping.HuntCrossley(d = 1e5)
    constrainedby Contacts.Interfaces.PartialNormalDamping;
  inner Parts.World world "gravity: {0, -9.81, 0}, y up";
  Parts.Ground ground;
  Omni.RollerBody roller(m = m, R = R, nRollers = nRollers,
    r_start = {0, R - R1*cos(tilt) + drop, 0}, q_start = {cos(tilt/2), 0, 0, sin(tilt/2)}, w_start = {5, 0, 2});
  Contacts.PointContact contact(
    redeclare model Geometry = Contacts.Geometries.RollerOnPlane(R = R, nRollers = nRollers),
    redeclare model NormalElastic = Contacts.Elastic.Hertz(k = 1e7),
    redeclare model NormalDamping = DampingLaw,
    redeclare model TangentialForce = FrictionLaw);
  Real E "roller energy plus the elastic energy of the contact";
equation
  connect(ground.frame, contact.frame_a);
  connect(contact.frame_b, roller.frame);
  E = roller.E + contact.elastic.Epot;
  annotation(experiment(StartTime = 0, StopTime = 1, Interval = 0.001, Tolerance = 1e-8));
end FreeRoller;
