model FourWheelCart "A platform on four fixed knife-edge wheels: a redundantly constrained vehicle (two wheels per axle)"
  // Each axle's two edges give the same row of the constraint Jacobian: p = 2, and only the sum of
  // the lateral forces of an axle is determined, not how the two wheels share it.
  import Minimo.Multibody.Planar;
  parameter Real L(unit = "m") = 0.3 "half wheelbase";
  parameter Real W(unit = "m") = 0.2 "half track";
  Planar.Body platform(m = 20, J = 0.5, vx_start = 1);
  Planar.KnifeEdge frontLeft(s = {L, W});
  Planar.KnifeEdge frontRight(s = {L, -W});
  Planar.KnifeEdge rearLeft(s = {-L, W});
  Planar.KnifeEdge rearRight(s = {-L, -W});
equation
  connect(frontLeft.frame, platform.frame);
  connect(frontRight.frame, platform.frame);
  connect(rearLeft.frame, platform.frame);
  connect(rearRight.frame, platform.frame);
  annotation(experiment(StartTime = 0, StopTime = 1));
end FourWheelCart;
