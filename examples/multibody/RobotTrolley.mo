model RobotTrolley "Wojtyra & Fraczek (2013), section 4: planar four-wheel mobile robot towing a one-wheel trolley"
  // Seven bodies in absolute planar coordinates (n = 21): the platform (1), the carriers of the
  // steered edges W1 and W2 (2, 3), two steering links (4, 5), the driven slider (6) and the
  // trolley (7). Revolute joints A..G, the translational joint H, the driving constraint on H and
  // five knife edges W1..W5 (m = 17 holonomic and h = 5 nonholonomic rows). Geometry of Table 3
  // (BD = CE = a, DF = EG = 5a, BC = LM = 8a, AC = 4a, AN = 7a), inertia of Table 2, the start
  // configuration of eq. (34) and velocities of eq. (39). `minimo reactions` reproduces eq. (35),
  // (36) and the list of uniquely determined reactions.
  import Minimo.Multibody.Planar;
  parameter Real a(unit = "m") = 0.05;
  parameter Real zeta(unit = "rad") = atan(1/4);
  parameter Real bx(unit = "m") = a*sin(zeta);
  parameter Real by(unit = "m") = a*cos(zeta);
  parameter Real cx(unit = "m") = 4*a - bx;
  parameter Real cy(unit = "m") = sqrt((5*a)^2 - cx^2);
  parameter Real v0(unit = "m/s") = 0.1 "initial speed of every body along x";
  Planar.Body platform(m = 10, J = 0.25, x_start = 20*a, vx_start = v0);
  Planar.Body carrier2(m = 1, J = 0.005, x_start = 24*a, vx_start = v0);
  Planar.Body carrier3(m = 1, J = 0.005, x_start = 16*a, vx_start = v0);
  Planar.Body link4(m = 1, J = 0.005, x_start = 20*a + cx/2, y_start = cy/2 - by, vx_start = v0);
  Planar.Body link5(m = 1, J = 0.005, x_start = 20*a - cx/2, y_start = cy/2 - by, vx_start = v0);
  Planar.Body slider(m = 1, J = 0.005, x_start = 20*a, vx_start = v0);
  Planar.Body trolley(m = 5, J = 0.05, x_start = 5*a, vx_start = v0);
  Planar.Revolute A(sA = {7*a, 0}, sB = {-8*a, 0});
  Planar.Revolute B(sA = {0, 0}, sB = {4*a, 0});
  Planar.Revolute C(sA = {0, 0}, sB = {-4*a, 0});
  Planar.Revolute D(sA = {cx/2, -cy/2}, sB = {-bx, -by});
  Planar.Revolute E(sA = {-cx/2, -cy/2}, sB = {bx, -by});
  Planar.Revolute F(sA = {0, cy - by}, sB = {-cx/2, cy/2});
  Planar.Revolute G(sA = {0, cy - by}, sB = {cx/2, cy/2});
  Planar.Prismatic H(sA = {0, 10*a}, sB = {0, -10*a}, v = {1, 0});
  Planar.LinearDrive drive(sA = {0, 10*a}, sB = {0, -10*a}, u = {0, 1}, s0 = -20*a);
  Planar.KnifeEdge W1(s = {0, 0});
  Planar.KnifeEdge W2(s = {0, 0});
  Planar.KnifeEdge W3(s = {0, -4*a});
  Planar.KnifeEdge W4(s = {0, 4*a});
  Planar.KnifeEdge W5(s = {0, 0});
equation
  connect(A.frame_a, trolley.frame);
  connect(A.frame_b, platform.frame);
  connect(B.frame_a, carrier2.frame);
  connect(B.frame_b, platform.frame);
  connect(C.frame_a, carrier3.frame);
  connect(C.frame_b, platform.frame);
  connect(D.frame_a, link4.frame);
  connect(D.frame_b, carrier2.frame);
  connect(E.frame_a, link5.frame);
  connect(E.frame_b, carrier3.frame);
  connect(F.frame_a, slider.frame);
  connect(F.frame_b, link4.frame);
  connect(G.frame_a, slider.frame);
  connect(G.frame_b, link5.frame);
  connect(H.frame_a, slider.frame);
  connect(H.frame_b, platform.frame);
  connect(drive.frame_a, slider.frame);
  connect(drive.frame_b, platform.frame);
  connect(W1.frame, carrier2.frame);
  connect(W2.frame, carrier3.frame);
  connect(W3.frame, platform.frame);
  connect(W4.frame, platform.frame);
  connect(W5.frame, trolley.frame);
  annotation(experiment(StartTime = 0, StopTime = 1));
end RobotTrolley;
