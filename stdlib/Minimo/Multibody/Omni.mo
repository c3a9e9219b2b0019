within Minimo.Multibody;
package Omni "Omni wheels and the omni vehicle (Kosenko & Gerasimov 2014; Gerasimov 2018)"

  function spindleInertia "Axial and transverse moments of inertia of a homogeneous spindle roller"
    input Real m(unit = "kg") "roller mass";
    input Real R(unit = "m") "radius of the generating arc (wheel radius)";
    input Integer nRollers "rollers per wheel (the roller spans 2*pi/nRollers)";
    output Real Iaxial(unit = "kg.m2") "about the roller axis";
    output Real Itrans(unit = "kg.m2") "about a transverse axis through the centre";
  protected
    Integer N = 200 "Simpson intervals (even)";
    Real alpha = 3.141592653589793/nRollers;
    Real R1 = R*cos(alpha);
    Real xm = R*sin(alpha);
    Real dx;
    Real x;
    Real rho;
    Real c;
    Real V = 0;
    Real Ja = 0;
    Real Jt = 0;
  algorithm
    // Profile rho(x) = sqrt(R^2 - x^2) - R1 on |x| <= R*sin(alpha); discs of radius rho.
    dx := 2*xm/N;
    for k in 0:N loop
      x := -xm + k*dx;
      rho := max(sqrt(max(R^2 - x^2, 0)) - R1, 0);
      c := if k == 0 or k == N then 1 else (if mod(k, 2) == 1 then 4 else 2);
      V := V + c*3.141592653589793*rho^2;
      Ja := Ja + c*3.141592653589793/2*rho^4;
      Jt := Jt + c*(3.141592653589793/4*rho^4 + 3.141592653589793*rho^2*x^2);
    end for;
    Iaxial := m*Ja/V;
    Itrans := m*Jt/V;
  end spindleInertia;

  model Roller "A roller on its wheel: rigid body, revolute joint to the wheel, contact with the ground plane"
    import Minimo.Multibody.Frames;
    parameter Integer j = 1 "roller index on the wheel (1: at the bottom when the wheel is upright)";
    parameter Integer nRollers = 4 "rollers per wheel";
    parameter Real R(unit = "m") = 0.05 "wheel radius (radius of the roller's generating arc)";
    parameter Real beta(unit = "rad") = 0 "inclination of the roller axis to the wheel plane";
    parameter Real m(unit = "kg") = 0.01 "roller mass";
    parameter Real muFriction = 0.5 "friction coefficient of the default friction law";
    parameter Real deltaFriction(unit = "m/s") = 1e-3 "linear zone of the default friction law";
    replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
      constrainedby Contacts.Interfaces.PartialTangentialForce "friction law at the roller-ground contact";
    replaceable model NormalLaw = Contacts.Elastic.Rigid
      constrainedby Contacts.Interfaces.PartialNormalElastic "normal contact law (rigid: the paper's der(v_n) = 0)";
    replaceable model DampingLaw = Contacts.Damping.None
      constrainedby Contacts.Interfaces.PartialNormalDamping "normal damping (for compliant normal laws)";
    // Start state of the wheel this roller sits on (the roller's start is placed consistently).
    parameter Real wheel_r_start[3](each unit = "m") = {0, R, 0};
    parameter Real wheel_v_start[3](each unit = "m/s") = zeros(3);
    parameter Real wheel_q_start[4] = {1, 0, 0, 0};
    parameter Real wheel_w_start[3](each unit = "rad/s") = zeros(3) "wheel angular velocity, wheel axes";
    parameter Real spin_start(unit = "rad/s") = 0 "initial spin relative to the wheel, about the roller axis";
    final parameter Real alpha = 3.141592653589793/nRollers;
    final parameter Real R1(unit = "m") = R*cos(alpha) "distance from the wheel centre to the roller axis";
    final parameter Real kappa(unit = "rad") = 2*3.141592653589793*(j - 1)/nRollers "angular position on the wheel";
    // Mounting: roller x axis along the rim tangent, then turned by beta about the radius.
    final parameter Real q_mount[4] = Frames.quatMul(Frames.axisAngle({1, 0, 0}, kappa), Frames.axisAngle({0, 1, 0}, beta - 3.141592653589793/2));
    final parameter Real p_mount[3](each unit = "m") = {0, -R1*cos(kappa), -R1*sin(kappa)} "roller centre, wheel axes";
    final parameter Real axis_mount[3] = Frames.rotate(q_mount, {1, 0, 0}) "roller axis, wheel axes";
    final parameter Real Tw[3, 3] = Frames.toMatrix(wheel_q_start);
    final parameter Real ww[3](each unit = "rad/s") = Tw*wheel_w_start "wheel angular velocity, world";
    final parameter Real q_roller[4] = Frames.quatMul(wheel_q_start, q_mount) "initial roller orientation";
    final parameter Real Iaxial(unit = "kg.m2") = spindleInertia(m, R, nRollers);
    final parameter Real Itrans(unit = "kg.m2") = Omni.spindleInertia2(m, R, nRollers);
    Interfaces.ConstraintFrame wheelFrame "the wheel disc";
    Interfaces.ConstraintFrame groundFrame "the ground";
    Parts.RigidBody body(m = m, I = diagonal({Iaxial, Itrans, Itrans}),
      r_start = wheel_r_start + Tw*p_mount,
      v_start = wheel_v_start + cross(ww, Tw*p_mount),
      q_start = q_roller,
      w_start = transpose(Frames.toMatrix(q_roller))*ww + {spin_start, 0, 0});
    Joints.Revolute joint(nA = axis_mount, rA = p_mount, rB = zeros(3));
    Contacts.PointContact contact(rRef = wheelFrame.r,
      redeclare model Geometry = Contacts.Geometries.InclinedRollerOnPlane(R = R, nRollers = nRollers, beta = beta),
      redeclare model NormalElastic = NormalLaw,
      redeclare model NormalDamping = DampingLaw,
      redeclare model TangentialForce = FrictionLaw);
  equation
    connect(wheelFrame, joint.frame_a);
    connect(joint.frame_b, body.frame);
    connect(groundFrame, contact.frame_a);
    connect(contact.frame_b, body.frame);
  end Roller;

  function spindleInertia2 "Transverse moment of inertia of a spindle roller (second output of spindleInertia)"
    input Real m(unit = "kg");
    input Real R(unit = "m");
    input Integer nRollers;
    output Real Itrans(unit = "kg.m2");
  protected
    Real Iaxial;
  algorithm
    (Iaxial, Itrans) := spindleInertia(m, R, nRollers);
  end spindleInertia2;

  model OmniWheel "Wheel disc with n rollers on revolute joints; roller 1 at the bottom when upright"
    import Minimo.Multibody.Frames;
    parameter Integer nRollers = 4 "rollers per wheel";
    parameter Real R(unit = "m") = 0.05 "wheel radius (outer profile of the rollers)";
    parameter Real beta(unit = "rad") = 0 "inclination of the roller axes to the wheel plane";
    parameter Real mWheel(unit = "kg") = 1 "mass of the wheel disc (without rollers)";
    parameter Real IWheel[3, 3](each unit = "kg.m2") = diagonal({mWheel*R^2/2, mWheel*R^2/4, mWheel*R^2/4})
      "wheel disc inertia (axis = x): a uniform disc of radius R by default";
    parameter Real mRoller(unit = "kg") = 0.01 "mass of one roller";
    parameter Real muFriction = 0.5 "friction coefficient of the default friction law";
    parameter Real deltaFriction(unit = "m/s") = 1e-3 "linear zone of the default friction law";
    replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
      constrainedby Contacts.Interfaces.PartialTangentialForce "friction law at every roller";
    replaceable model NormalLaw = Contacts.Elastic.Rigid
      constrainedby Contacts.Interfaces.PartialNormalElastic "normal contact law at every roller";
    replaceable model DampingLaw = Contacts.Damping.None
      constrainedby Contacts.Interfaces.PartialNormalDamping "normal damping at every roller";
    parameter Real r_start[3](each unit = "m") = {0, R, 0} "initial wheel centre";
    parameter Real v_start[3](each unit = "m/s") = zeros(3) "initial wheel centre velocity";
    parameter Real q_start[4] = {1, 0, 0, 0} "initial wheel orientation (x = wheel axis)";
    parameter Real w_start[3](each unit = "rad/s") = zeros(3) "initial angular velocity, wheel axes";
    parameter Boolean rollingStart = true "give roller 1 the spin of rolling without slip at t = 0 (beta = 0)";
    final parameter Real R1(unit = "m") = R*cos(3.141592653589793/nRollers);
    final parameter Real spin1(unit = "rad/s") = if rollingStart then -(v_start*Frames.rotate(q_start, {1, 0, 0}))/(R - R1) else 0
      "spin of roller 1 so that its contact point does not slip";
    Interfaces.BodyFrame frame "the wheel disc (hub)";
    Interfaces.ConstraintFrame ground "the ground plane";
    Parts.RigidBody wheel(m = mWheel, I = IWheel, r_start = r_start, v_start = v_start, q_start = q_start, w_start = w_start);
    Roller rollers[nRollers](j = {k for k in 1:nRollers}, each nRollers = nRollers, each R = R, each beta = beta, each m = mRoller,
      each muFriction = muFriction, each deltaFriction = deltaFriction, redeclare each model FrictionLaw = FrictionLaw,
      redeclare each model NormalLaw = NormalLaw, redeclare each model DampingLaw = DampingLaw,
      each wheel_r_start = r_start, each wheel_v_start = v_start, each wheel_q_start = q_start, each wheel_w_start = w_start,
      spin_start = {if k == 1 then spin1 else 0 for k in 1:nRollers});
  equation
    connect(wheel.frame, frame);
    for k in 1:nRollers loop
      connect(wheel.frame, rollers[k].wheelFrame);
      connect(rollers[k].groundFrame, ground);
    end for;
  end OmniWheel;

  model VehicleWheel "An omni wheel on its axle: revolute joint to the platform, at the polygon corner 'angle'"
    extends OmniWheel(final r_start = platform_r_start + Rp*dir, final v_start = vw,
      final q_start = {cos(angle/2), 0.0, sin(angle/2), 0.0}, final w_start = {chi, omega_start, 0.0});
    parameter Real angle(unit = "rad") = 0 "direction of the axle from the platform centre (about y, from x)";
    parameter Real Rp(unit = "m") = 0.15 "distance from the platform centre to the wheel centre";
    parameter Real platform_r_start[3](each unit = "m") = {0, R, 0} "initial platform centre (heading 0)";
    parameter Real platform_v_start[3](each unit = "m/s") = zeros(3) "initial platform velocity (horizontal)";
    parameter Real omega_start(unit = "rad/s") = 0 "initial yaw rate of the platform";
    final parameter Real dir[3] = {cos(angle), 0.0, -sin(angle)} "axle direction, platform axes";
    final parameter Real vw[3](each unit = "m/s") = platform_v_start + cross({0.0, omega_start, 0.0}, Rp*dir)
      "initial wheel centre velocity";
    final parameter Real chi(unit = "rad/s") = vw*cross(dir, {0.0, 1.0, 0.0})/R "wheel spin rate of rolling without slip";
    Interfaces.ConstraintFrame platform "the platform body";
    Joints.Revolute axle(nA = dir, rA = Rp*dir, rB = zeros(3));
  equation
    connect(platform, axle.frame_a);
    connect(axle.frame_b, wheel.frame);
  end VehicleWheel;

  model Vehicle "Platform with N omni wheels on revolute joints at the corners of a regular polygon (y up)"
    parameter Integer N = 3 "number of wheels";
    parameter Integer nRollers = 4 "rollers per wheel";
    parameter Real R(unit = "m") = 0.05 "wheel radius";
    parameter Real Rp(unit = "m") = 0.15 "distance from the platform centre to the wheel centres";
    parameter Real beta(unit = "rad") = 0 "inclination of the roller axes to the wheel planes";
    parameter Real mPlatform(unit = "kg") = 3.3 "platform mass";
    parameter Real IPlatform[3, 3](each unit = "kg.m2") = diagonal({mPlatform*Rp^2/4, mPlatform*Rp^2/2, mPlatform*Rp^2/4})
      "platform inertia (a uniform flat disc of radius Rp by default; y is its symmetry axis)";
    parameter Real mWheel(unit = "kg") = 1 "mass of a wheel disc";
    parameter Real mRoller(unit = "kg") = 0.01 "mass of one roller";
    parameter Real muFriction = 0.5 "friction coefficient of the default friction law";
    parameter Real deltaFriction(unit = "m/s") = 1e-3 "linear zone of the default friction law";
    replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
      constrainedby Contacts.Interfaces.PartialTangentialForce "friction law at every roller: swap it with one redeclare";
    replaceable model NormalLaw = Contacts.Elastic.Rigid
      constrainedby Contacts.Interfaces.PartialNormalElastic "normal contact law at every roller";
    replaceable model DampingLaw = Contacts.Damping.None
      constrainedby Contacts.Interfaces.PartialNormalDamping "normal damping at every roller";
    parameter Real r_start[3](each unit = "m") = {0, R, 0} "initial platform centre (wheel centres at height R)";
    parameter Real v_start[3](each unit = "m/s") = {1, 0, 0} "initial platform velocity (horizontal)";
    parameter Real omega_start(unit = "rad/s") = 0 "initial yaw rate (about y)";
    Parts.Ground ground;
    Parts.RigidBody platform(m = mPlatform, I = IPlatform, r_start = r_start, v_start = v_start, w_start = {0, omega_start, 0});
    VehicleWheel wheels[N](angle = {2*3.141592653589793*(i - 1.0)/N for i in 1:N}, each Rp = Rp,
      each platform_r_start = r_start, each platform_v_start = v_start, each omega_start = omega_start,
      each nRollers = nRollers, each R = R, each beta = beta, each mWheel = mWheel, each mRoller = mRoller,
      each muFriction = muFriction, each deltaFriction = deltaFriction, redeclare each model FrictionLaw = FrictionLaw,
      redeclare each model NormalLaw = NormalLaw, redeclare each model DampingLaw = DampingLaw);
    Real heading(unit = "rad") "platform heading: rotation about y";
  equation
    heading = 2*atan2(platform.q[3], platform.q[1]);
    for i in 1:N loop
      connect(platform.frame, wheels[i].platform);
      connect(wheels[i].ground, ground.frame);
    end for;
  end Vehicle;
end Omni;
