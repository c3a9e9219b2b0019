model DoorTwoHinges "A door (free rigid body) held by two revolute joints on one vertical axis: redundantly constrained"
  // The hinges are Minimo.Multibody.Joints.Revolute, stated at acceleration level (Kosenko 2015).
  // Both hold the hinge line x = z = 0, 0.8 m apart. Each hinge alone leaves the door one degree of
  // freedom (rotation about y), so the second hinge repeats five constraints: p = 5, and no reaction
  // of either hinge is uniquely determined (only their sums are): `minimo reactions` says so.
  // Simulating it needs the redundancy removed (e.g. make one hinge a Spherical joint and drop
  // another's axial force): the model is meant for the reaction analysis.
  import Minimo.Multibody.*;
  parameter Real w = 0.8 "door width (x)";
  parameter Real hgt = 2.0 "door height (y)";
  parameter Real m = 20;
  inner Parts.World world "gravity: {0, -9.81, 0}, y up";
  Parts.Ground ground;
  Parts.RigidBody door(m = m, I = diagonal({m*hgt^2/12, m*w^2/12, m*(w^2 + hgt^2)/12}), r_start = {w/2, hgt/2, 0});
  Joints.Revolute upper(nA = {0, 1, 0}, nB = {0, 1, 0}, rA = {0, 1.4, 0}, rB = {-w/2, 0.4, 0});
  Joints.Revolute lower(nA = {0, 1, 0}, nB = {0, 1, 0}, rA = {0, 0.6, 0}, rB = {-w/2, -0.4, 0});
equation
  connect(ground.frame, upper.frame_a);
  connect(upper.frame_b, door.frame);
  connect(ground.frame, lower.frame_a);
  connect(lower.frame_b, door.frame);
end DoorTwoHinges;
