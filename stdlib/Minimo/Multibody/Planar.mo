within Minimo.Multibody;
package Planar "Planar rigid bodies in absolute coordinates (x, y, phi per body) with holonomic joints and knife edges (Wojtyra & Fraczek 2013)"
  connector Frame "Planar frame of a body: position and angle; force and torque as flows"
    Real x(unit = "m") "position of the body reference point, world x";
    Real y(unit = "m") "position of the body reference point, world y";
    Real phi(unit = "rad") "body angle";
    flow Real fx(unit = "N") "force on the body, world x";
    flow Real fy(unit = "N") "force on the body, world y";
    flow Real tau(unit = "N.m") "torque about the body reference point";
  end Frame;

  model Body "Planar rigid body, centre of mass at the reference point"
    parameter Real m(unit = "kg", min = 0) = 1 "mass";
    parameter Real J(unit = "kg.m2", min = 0) = 1 "moment of inertia about the centre of mass";
    parameter Real g[2](each unit = "m/s2") = {0, 0} "gravity, world axes (none: a robot on a horizontal floor)";
    parameter Real x_start(unit = "m") = 0;
    parameter Real y_start(unit = "m") = 0;
    parameter Real phi_start(unit = "rad") = 0;
    parameter Real vx_start(unit = "m/s") = 0;
    parameter Real vy_start(unit = "m/s") = 0;
    parameter Real w_start(unit = "rad/s") = 0;
    Frame frame;
    Real x(start = x_start, fixed = true, unit = "m");
    Real y(start = y_start, fixed = true, unit = "m");
    Real phi(start = phi_start, fixed = true, unit = "rad");
    Real vx(start = vx_start, fixed = true, unit = "m/s");
    Real vy(start = vy_start, fixed = true, unit = "m/s");
    Real w(start = w_start, fixed = true, unit = "rad/s");
  equation
    frame.x = x;
    frame.y = y;
    frame.phi = phi;
    der(x) = vx;
    der(y) = vy;
    der(phi) = w;
    m*der(vx) = frame.fx + m*g[1];
    m*der(vy) = frame.fy + m*g[2];
    J*der(w) = frame.tau;
  end Body;

  model Ground "The fixed ground frame"
    parameter Real x0(unit = "m") = 0;
    parameter Real y0(unit = "m") = 0;
    parameter Real phi0(unit = "rad") = 0;
    Frame frame;
  equation
    frame.x = x0;
    frame.y = y0;
    frame.phi = phi0;
  end Ground;

  model Revolute "Revolute joint: point sA of body a coincides with point sB of body b (2 holonomic rows)"
    parameter Real sA[2](each unit = "m") = {0, 0} "joint point, body a axes";
    parameter Real sB[2](each unit = "m") = {0, 0} "joint point, body b axes";
    Frame frame_a "body a";
    Frame frame_b "body b";
    Real F[2](each unit = "N") "multipliers: force of body a on body b, world axes";
  protected
    Real ra[2](each unit = "m") "sA in world axes";
    Real rb[2](each unit = "m") "sB in world axes";
  equation
    frame_a.x + cos(frame_a.phi)*sA[1] - sin(frame_a.phi)*sA[2] = frame_b.x + cos(frame_b.phi)*sB[1] - sin(frame_b.phi)*sB[2];
    frame_a.y + sin(frame_a.phi)*sA[1] + cos(frame_a.phi)*sA[2] = frame_b.y + sin(frame_b.phi)*sB[1] + cos(frame_b.phi)*sB[2];
    ra = {cos(frame_a.phi)*sA[1] - sin(frame_a.phi)*sA[2], sin(frame_a.phi)*sA[1] + cos(frame_a.phi)*sA[2]};
    rb = {cos(frame_b.phi)*sB[1] - sin(frame_b.phi)*sB[2], sin(frame_b.phi)*sB[1] + cos(frame_b.phi)*sB[2]};
    // Flows = (constraint Jacobian)' * multipliers.
    frame_a.fx = F[1];
    frame_a.fy = F[2];
    frame_a.tau = -ra[2]*F[1] + ra[1]*F[2];
    frame_b.fx = -F[1];
    frame_b.fy = -F[2];
    frame_b.tau = rb[2]*F[1] - rb[1]*F[2];
  end Revolute;

  partial model PartialSlider "Relative displacement of point sB of body b from point sA of body a, along a direction of body b"
    parameter Real sA[2](each unit = "m") = {0, 0} "point on body a, body a axes";
    parameter Real sB[2](each unit = "m") = {0, 0} "point on body b, body b axes";
    Frame frame_a "body a";
    Frame frame_b "body b";
  protected
    Real ra[2](each unit = "m") "sA in world axes";
    Real w[2](each unit = "m") "reference point of b minus the point of a, world axes";
  equation
    ra = {cos(frame_a.phi)*sA[1] - sin(frame_a.phi)*sA[2], sin(frame_a.phi)*sA[1] + cos(frame_a.phi)*sA[2]};
    w = {frame_b.x - frame_a.x - ra[1], frame_b.y - frame_a.y - ra[2]};
  end PartialSlider;

  model Prismatic "Translational joint: body a slides along the axis of body b; v (body b axes) is across the axis (2 holonomic rows)"
    extends PartialSlider;
    parameter Real v[2] = {1, 0} "unit vector across the sliding axis, body b axes";
    parameter Real phiRel(unit = "rad") = 0 "angle of body a relative to body b";
    Real F(unit = "N") "multiplier of the offset across the axis";
    Real M(unit = "N.m") "multiplier of the relative angle";
  protected
    Real e[2] "v in world axes";
  equation
    (frame_b.x + cos(frame_b.phi)*sB[1] - sin(frame_b.phi)*sB[2] - frame_a.x - cos(frame_a.phi)*sA[1] + sin(frame_a.phi)*sA[2])
      *(cos(frame_b.phi)*v[1] - sin(frame_b.phi)*v[2])
      + (frame_b.y + sin(frame_b.phi)*sB[1] + cos(frame_b.phi)*sB[2] - frame_a.y - sin(frame_a.phi)*sA[1] - cos(frame_a.phi)*sA[2])
      *(sin(frame_b.phi)*v[1] + cos(frame_b.phi)*v[2]) = 0;
    frame_a.phi - frame_b.phi = phiRel;
    e = {cos(frame_b.phi)*v[1] - sin(frame_b.phi)*v[2], sin(frame_b.phi)*v[1] + cos(frame_b.phi)*v[2]};
    frame_a.fx = -e[1]*F;
    frame_a.fy = -e[2]*F;
    frame_a.tau = -(-e[1]*ra[2] + e[2]*ra[1])*F + M;
    frame_b.fx = e[1]*F;
    frame_b.fy = e[2]*F;
    frame_b.tau = (e[1]*w[2] - e[2]*w[1])*F - M;
  end Prismatic;

  model LinearDrive "Driving constraint: the displacement of sB from sA along u (body b axes) follows s0 + amplitude*sin(2*pi*time/period) (1 rheonomic row)"
    extends PartialSlider;
    parameter Real u[2] = {0, 1} "unit vector along the sliding axis, body b axes";
    parameter Real s0(unit = "m") = 0 "displacement at time 0";
    parameter Real amplitude(unit = "m") = 0;
    parameter Real period(unit = "s") = 1;
    Real F(unit = "N") "multiplier: the driving force";
  protected
    Real e[2] "u in world axes";
  equation
    (frame_b.x + cos(frame_b.phi)*sB[1] - sin(frame_b.phi)*sB[2] - frame_a.x - cos(frame_a.phi)*sA[1] + sin(frame_a.phi)*sA[2])
      *(cos(frame_b.phi)*u[1] - sin(frame_b.phi)*u[2])
      + (frame_b.y + sin(frame_b.phi)*sB[1] + cos(frame_b.phi)*sB[2] - frame_a.y - sin(frame_a.phi)*sA[1] - cos(frame_a.phi)*sA[2])
      *(sin(frame_b.phi)*u[1] + cos(frame_b.phi)*u[2]) = s0 + amplitude*sin(2*3.141592653589793*time/period);
    e = {cos(frame_b.phi)*u[1] - sin(frame_b.phi)*u[2], sin(frame_b.phi)*u[1] + cos(frame_b.phi)*u[2]};
    frame_a.fx = -e[1]*F;
    frame_a.fy = -e[2]*F;
    frame_a.tau = -(-e[1]*ra[2] + e[2]*ra[1])*F;
    frame_b.fx = e[1]*F;
    frame_b.fy = e[2]*F;
    frame_b.tau = (e[1]*w[2] - e[2]*w[1])*F;
  end LinearDrive;

  model KnifeEdge "Knife edge (wheel without lateral slip) at point s of the body: the velocity of s along the normal n is zero (1 nonholonomic row)"
    parameter Real s[2](each unit = "m") = {0, 0} "edge point, body axes";
    parameter Real n[2] = {0, 1} "unit normal of the edge plane (the forbidden direction), body axes";
    Frame frame "the body carrying the edge";
    Real F(unit = "N") "multiplier: minus the lateral force of the ground on the edge, along the normal";
  equation
    (cos(frame.phi)*n[1] - sin(frame.phi)*n[2])*der(frame.x) + (sin(frame.phi)*n[1] + cos(frame.phi)*n[2])*der(frame.y)
      + (s[1]*n[2] - s[2]*n[1])*der(frame.phi) = 0;
    frame.fx = (cos(frame.phi)*n[1] - sin(frame.phi)*n[2])*F;
    frame.fy = (sin(frame.phi)*n[1] + cos(frame.phi)*n[2])*F;
    frame.tau = (s[1]*n[2] - s[2]*n[1])*F;
  end KnifeEdge;
  annotation(Documentation(info = "Every body has its own coordinates x, y, phi (absolute coordinates), so every
joint and edge adds rows to the constraint Jacobian, as in the paper. Constraints are written in the
coordinates and their derivatives only: a joint states its position-level constraint, a knife edge its
velocity-level (nonholonomic) constraint; `minimo reactions` reads these equations. The reaction
variables of each constraint are its Lagrange multipliers: the frame flows are the constraint
Jacobian's transpose times them (the flow into a constraint's frame is minus the force on the body)."));
end Planar;
