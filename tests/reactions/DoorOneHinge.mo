model DoorOneHinge "DoorTwoHinges with the upper hinge only: 5 rows, rank 5, p = 0, its reaction is unique"
  import Minimo.Multibody.*;
  parameter Real w = 0.8;
  parameter Real hgt = 2.0;
  parameter Real m = 20;
  inner Parts.World world;
  Parts.Ground ground;
  Parts.RigidBody door(m = m, I = diagonal({m*hgt^2/12, m*w^2/12, m*(w^2 + hgt^2)/12}), r_start = {w/2, hgt/2, 0});
  Joints.Revolute upper(nA = {0, 1, 0}, nB = {0, 1, 0}, rA = {0, 1.4, 0}, rB = {-w/2, 0.4, 0});
equation
  connect(ground.frame, upper.frame_a);
  connect(upper.frame_b, door.frame);
end DoorOneHinge;
