model RollingDisc "A disc rolling on the plane with the compliant contact of Exudyn's ObjectConnectorRollingDiscPenalty"
  // Disc: radius 0.5 m, mass 1 kg, thin (axial inertia m r^2/2, transverse m r^2/4), axis = body x.
  // Start: upright, centre at height r, rolling at 1 m/s along +z (spin 2 rad/s about x) with a yaw
  // rate of 0.5 rad/s, so it leans and curves. Contact (same names as Exudyn): contactStiffness 1e5 N/m,
  // contactDamping 1e3 N.s/m, dryFriction 0.5, dryFrictionProportionalZone 0.01 m/s, quadratic phi.
  // The same case is run by tests/multibody/exudyn_rolling_disc.py for the reference data.
  import Minimo.Multibody.*;
  parameter Real r = 0.5;
  parameter Real m = 1;
  parameter Real v0 = 1;
  parameter Real yawRate = 0.5;
  inner Parts.World world "gravity: {0, -9.81, 0}, y up";
  Parts.Ground ground;
  Parts.RigidBody disc(m = m, I = diagonal({m*r^2/2, m*r^2/4, m*r^2/4}), r_start = {0, r, 0},
    v_start = {0, 0, v0}, w_start = {v0/r, yawRate, 0});
  Contacts.CompliantDiscContact contact(radius = r, discAxis = {1, 0, 0}, contactStiffness = 1e5, contactDamping = 1e3,
    dryFriction = 0.5, dryFrictionProportionalZone = 0.01, useLinearProportionalZone = false);
equation
  connect(ground.frame, contact.frame_a);
  connect(contact.frame_b, disc.frame);
  annotation(experiment(StartTime = 0, StopTime = 2, Interval = 0.01, Tolerance = 1e-8));
end RollingDisc;
