model SphericalPendulum "A rigid body hanging from a spherical joint (3-D): every reaction is unique"
  import Minimo.Multibody.*;
  parameter Real L = 0.5 "distance from the joint to the centre of mass";
  inner Parts.World world "gravity: {0, -9.81, 0}, y up";
  Parts.Ground ground;
  Parts.RigidBody bob(m = 1, I = diagonal({0.01, 0.02, 0.03}), r_start = {L*sin(0.3), -L*cos(0.3), 0},
    q_start = {cos(0.15), 0, 0, sin(0.15)}, w_start = {0, 1, 0.5});
  Joints.Spherical joint(rB = {0, L, 0}, wStab = 50);
equation
  connect(ground.frame, joint.frame_a);
  connect(joint.frame_b, bob.frame);
  annotation(experiment(StartTime = 0, StopTime = 2, Interval = 0.01, Tolerance = 1e-8));
end SphericalPendulum;
