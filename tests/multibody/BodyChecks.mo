package BodyChecks "Small models with analytic answers, used by tests/multibody_bodies.rs"
  model FreeBody "Asymmetric body thrown in gravity: parabola, energy, world angular momentum, |q| = 1"
    inner Minimo.Multibody.Parts.World world;
    Minimo.Multibody.Parts.RigidBodyWithEnergy body(m = 2, I = {{0.1, 0.01, 0}, {0.01, 0.2, 0}, {0, 0, 0.3}},
      r_start = {0, 1, 0}, v_start = {1, 2, -0.5}, q_start = {cos(0.2), sin(0.2)/sqrt(2), sin(0.2)/sqrt(2), 0},
      w_start = {0.2, 3, 0.5});
    Real L[3] "angular momentum about the centre of mass, world axes";
    Real qnorm "quaternion norm";
  equation
    L = body.frame.T*(body.I*body.wb);
    qnorm = sqrt(body.q*body.q);
    annotation(experiment(StopTime = 5, Interval = 0.01, Tolerance = 1e-8));
  end FreeBody;

  model Pendulum "Body on a revolute joint about z: energy conserved, the joint point stays put"
    inner Minimo.Multibody.Parts.World world;
    Minimo.Multibody.Parts.Ground ground;
    Minimo.Multibody.Joints.Revolute joint(nA = {0, 0, 1}, rA = zeros(3), rB = {-0.5, 0, 0});
    Minimo.Multibody.Parts.RigidBodyWithEnergy body(m = 1, I = diagonal({0.01, 0.02, 0.03}), r_start = {0.5, 0, 0});
    Real drift "distance of the joint point of the body from the ground origin";
  equation
    drift = sqrt(joint.RB*joint.RB);
    connect(ground.frame, joint.frame_a);
    connect(joint.frame_b, body.frame);
    annotation(experiment(StopTime = 5, Interval = 0.01, Tolerance = 1e-8));
  end Pendulum;

  model HingedPendulum "The same pendulum in joint coordinates (Parts.HingedBody): the angle is the state"
    inner Minimo.Multibody.Parts.World world;
    // Body x = the joint axis = world z: q_mount turns x into z (-90 degrees about y), so the
    // pendulum's inertia diag(0.01, 0.02, 0.03) (world axes at the start) reads diag(0.03, 0.02, 0.01)
    // and the centre of mass, 0.5 m along world x, is at c = {0, 0, -0.5} in body axes.
    Minimo.Multibody.Parts.Ground ground;
    Minimo.Multibody.Parts.HingedBody body(m = 1, I = diagonal({0.03, 0.02, 0.01}), c = {0, 0, -0.5},
      q_mount = {cos(-3.141592653589793/4), 0, sin(-3.141592653589793/4), 0});
    Real E "kinetic plus potential energy";
  equation
    E = 0.5*body.m*(body.frame.v*body.frame.v) + 0.5*body.frame.w*(body.Iw*body.frame.w) - body.m*(body.g*body.frame.r);
    connect(ground.frame, body.parent);
    annotation(experiment(StopTime = 5, Interval = 0.01, Tolerance = 1e-8));
  end HingedPendulum;

  model Slider "Body on a frictionless prismatic joint inclined by 30 degrees: s = g*sin(30 deg)*t^2/2"
    inner Minimo.Multibody.Parts.World world;
    Minimo.Multibody.Parts.Ground ground;
    Minimo.Multibody.Joints.Prismatic joint(nA = {cos(0.5235987755982988), -sin(0.5235987755982988), 0});
    Minimo.Multibody.Parts.RigidBody body(m = 3, I = diagonal({0.1, 0.1, 0.1}));
    Real s "distance travelled along the axis";
  equation
    s = body.r*joint.nA;
    connect(ground.frame, joint.frame_a);
    connect(joint.frame_b, body.frame);
    annotation(experiment(StopTime = 2, Interval = 0.01, Tolerance = 1e-8));
  end Slider;

  model Glued "Two bodies joined by a Fixed joint fall and spin as one body"
    inner Minimo.Multibody.Parts.World world;
    Minimo.Multibody.Parts.RigidBody a(m = 1, I = diagonal({0.01, 0.01, 0.01}), r_start = {0, 0, 0},
      v_start = {0, 0, -0.2}, w_start = {0, 0, 2});
    Minimo.Multibody.Parts.RigidBody b(m = 2, I = diagonal({0.02, 0.02, 0.02}), r_start = {0.3, 0, 0},
      v_start = {0, 0.6, -0.2}, w_start = {0, 0, 2});
    Minimo.Multibody.Joints.Fixed joint(rA = {0.3, 0, 0}, rB = zeros(3));
    Real c[3] "centre of mass of the pair";
    Real gap "distance between the bodies' centres";
  equation
    c = (a.m*a.r + b.m*b.r)/(a.m + b.m);
    gap = sqrt((b.r - a.r)*(b.r - a.r));
    connect(a.frame, joint.frame_a);
    connect(joint.frame_b, b.frame);
    annotation(experiment(StopTime = 2, Interval = 0.01, Tolerance = 1e-8));
  end Glued;
end BodyChecks;
