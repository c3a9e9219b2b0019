model PlanarPendulum "A bar on a revolute joint to the ground: no redundancy, every reaction unique"
  import Minimo.Multibody.Planar;
  parameter Real l(unit = "m") = 0.5;
  Planar.Ground ground;
  Planar.Body bar(m = 1, J = 0.02, g = {0, -9.81}, x_start = l);
  Planar.Revolute pivot(sA = {0, 0}, sB = {-l, 0});
equation
  connect(pivot.frame_a, ground.frame);
  connect(pivot.frame_b, bar.frame);
  annotation(experiment(StopTime = 1));
end PlanarPendulum;
