within Minimo.Multibody;
package Omni "Omni wheels and the omni vehicle (Kosenko & Gerasimov 2014; Gerasimov 2018)"

  function spindleInertia "Axial and transverse inertia of a homogeneous spindle roller, by Simpson's rule (a check of RollerBody)"
    input Units.Mass m "roller mass";
    input Units.Length R "radius of the generating arc (wheel radius)";
    input Integer nRollers "rollers per wheel (the roller spans 2*pi/nRollers)";
    output Units.Inertia Iaxial "about the roller axis";
    output Units.Inertia Itrans "about a transverse axis through the centre";
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

  model RollerBody "Homogeneous spindle roller as a rigid body (x = roller axis); inertia in closed form"
    extends Parts.RigidBodyWithEnergy(final I = diagonal({Iaxial, Itrans, Itrans}));
    parameter Units.Length R = 0.05 "radius of the generating arc (the wheel radius)";
    parameter Integer nRollers = 4 "rollers per wheel: the roller spans the angle 2*pi/nRollers";
    // Profile rho(x) = sqrt(R^2 - x^2) - c on |x| <= a; the integrals of rho^2, rho^4 and
    // rho^2*x^2 in closed form (same values as the function spindleInertia).
    final parameter Real alpha = 3.141592653589793/nRollers;
    final parameter Units.Length a = R*sin(alpha) "half length";
    final parameter Units.Length c = R*cos(alpha) "distance from the axis to the arc centre";
    final parameter Real J1 = a*c + R^2*alpha "integral of sqrt(R^2 - x^2)";
    final parameter Real J3 = a*(5*R^2 - 2*a^2)*c/4 + 3*R^4*alpha/4 "integral of (R^2 - x^2)^(3/2)";
    final parameter Real K1 = a*(2*a^2 - R^2)*c/4 + R^4*alpha/4 "integral of x^2*sqrt(R^2 - x^2)";
    final parameter Real P2 = (R^2 + c^2)*2*a - 2*a^3/3 - 2*c*J1 "integral of rho^2";
    final parameter Real P4 = (R^4*2*a - 2*R^2*2*a^3/3 + 2*a^5/5) - 4*c*J3 + 6*c^2*(R^2*2*a - 2*a^3/3)
      - 4*c^3*J1 + c^4*2*a "integral of rho^4";
    final parameter Real X2 = (R^2 + c^2)*2*a^3/3 - 2*a^5/5 - 2*c*K1 "integral of rho^2*x^2";
    final parameter Units.Inertia Iaxial = m*P4/(2*P2) "moment of inertia about the roller axis";
    final parameter Units.Inertia Itrans = m*(P4/4 + X2)/P2 "about a transverse axis through the centre";
  end RollerBody;

  function rollerInertia "Inertia tensor of a homogeneous spindle roller about its centre (x = roller axis), closed form"
    input Units.Mass m "roller mass";
    input Units.Length R "radius of the generating arc (wheel radius)";
    input Integer nRollers "rollers per wheel (the roller spans 2*pi/nRollers)";
    output Units.Inertia I[3, 3];
  protected
    Real alpha = 3.141592653589793/nRollers;
    Real a = R*sin(alpha) "half length";
    Real c = R*cos(alpha) "distance from the axis to the arc centre";
    // Profile rho(x) = sqrt(R^2 - x^2) - c on |x| <= a: the integrals of rho^2, rho^4 and
    // rho^2*x^2 (the same as RollerBody's; spindleInertia checks them by Simpson's rule).
    Real J1 = a*c + R^2*alpha;
    Real J3 = a*(5*R^2 - 2*a^2)*c/4 + 3*R^4*alpha/4;
    Real K1 = a*(2*a^2 - R^2)*c/4 + R^4*alpha/4;
    Real P2 = (R^2 + c^2)*2*a - 2*a^3/3 - 2*c*J1;
    Real P4 = (R^4*2*a - 2*R^2*2*a^3/3 + 2*a^5/5) - 4*c*J3 + 6*c^2*(R^2*2*a - 2*a^3/3) - 4*c^3*J1 + c^4*2*a;
    Real X2 = (R^2 + c^2)*2*a^3/3 - 2*a^5/5 - 2*c*K1;
  algorithm
    I := diagonal({m*P4/(2*P2), m*(P4/4 + X2)/P2, m*(P4/4 + X2)/P2});
  end rollerInertia;

  model Roller "A roller on its wheel: rigid body on a revolute joint to the wheel, contact with the ground plane"
    parameter Integer j = 1 "roller index on the wheel (1: at the bottom when the wheel is upright)";
    parameter Integer nRollers = 4 "rollers per wheel";
    parameter Units.Length R = 0.05 "wheel radius (radius of the roller's generating arc)";
    parameter Units.Angle beta = 0 "inclination of the roller axis to the wheel plane";
    parameter Units.Mass m = 0.01 "roller mass";
    parameter Real muFriction = 0.5 "friction coefficient of the default friction law";
    parameter Units.Velocity deltaFriction = 1e-3 "linear zone of the default friction law";
    replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
      constrainedby Contacts.Interfaces.PartialTangentialForce "friction law at the roller-ground contact";
    replaceable model NormalLaw = Contacts.Elastic.Rigid(wStab = 200)
      constrainedby Contacts.Interfaces.PartialNormalElastic "normal contact law (rigid: the paper's der(v_n) = 0, with drift stabilization)";
    replaceable model DampingLaw = Contacts.Damping.None
      constrainedby Contacts.Interfaces.PartialNormalDamping "normal damping (for compliant normal laws)";
    replaceable model Mount = Parts.HingedBody constrainedby Parts.PartialHingedBody
      "the roller on its joint: joint coordinates (HingedBody) or the paper's constraint form (ConstrainedHingedBody)";
    // Start state of the wheel this roller sits on (used by the constraint form of the joint).
    parameter Units.Length wheel_r_start[3] = {0, R, 0};
    parameter Units.Velocity wheel_v_start[3] = zeros(3);
    parameter Real wheel_q_start[4] = {1, 0, 0, 0};
    parameter Units.AngularVelocity wheel_w_start[3] = zeros(3) "wheel angular velocity, wheel axes";
    parameter Units.AngularVelocity spin_start = 0 "initial spin relative to the wheel, about the roller axis";
    final parameter Real alpha = 3.141592653589793/nRollers;
    final parameter Units.Length R1 = R*cos(alpha) "distance from the wheel centre to the roller axis";
    final parameter Units.Angle kappa = 2*3.141592653589793*(j - 1)/nRollers "angular position on the wheel";
    // Mounting: roller x axis along the rim tangent, then turned by beta about the radius:
    // q_mount = rotation(x, kappa) * rotation(y, beta - pi/2). Written out (no function calls), so
    // the start values stay plain parameter expressions.
    final parameter Real c1 = cos(kappa/2);
    final parameter Real s1 = sin(kappa/2);
    final parameter Real c2 = cos((beta - 3.141592653589793/2)/2);
    final parameter Real s2 = sin((beta - 3.141592653589793/2)/2);
    final parameter Real q_mount[4] = {c1*c2, s1*c2, c1*s2, s1*s2} "roller orientation relative to the wheel";
    final parameter Units.Length p_mount[3] = {0, -R1*cos(kappa), -R1*sin(kappa)} "roller centre, wheel axes";
    Interfaces.ConstraintFrame wheelFrame "the wheel disc";
    Interfaces.ConstraintFrame groundFrame "the ground";
    Mount body(m = m, I = rollerInertia(m, R, nRollers), p = p_mount, q_mount = q_mount, w_start = spin_start,
      parent_r_start = wheel_r_start, parent_v_start = wheel_v_start, parent_q_start = wheel_q_start,
      parent_w_start = wheel_w_start);
    Contacts.PointContact contact(rRef = wheelFrame.r,
      redeclare model Geometry = Contacts.Geometries.InclinedRollerOnPlane(R = R, nRollers = nRollers, beta = beta),
      redeclare model NormalElastic = NormalLaw,
      redeclare model NormalDamping = DampingLaw,
      redeclare model TangentialForce = FrictionLaw);
  equation
    connect(wheelFrame, body.parent);
    connect(groundFrame, contact.frame_a);
    connect(contact.frame_b, body.frame);
  end Roller;

  partial model PartialOmniWheel "n rollers around a wheel hub; the hub body is added by the subclass"
    parameter Integer nRollers = 4 "rollers per wheel";
    parameter Units.Length R = 0.05 "wheel radius (outer profile of the rollers)";
    parameter Units.Angle beta = 0 "inclination of the roller axes to the wheel plane";
    parameter Units.Mass mWheel = 1 "mass of the wheel disc (without rollers)";
    parameter Units.Inertia IWheel[3, 3] = diagonal({mWheel*R^2/2, mWheel*R^2/4, mWheel*R^2/4})
      "wheel disc inertia (axis = x): a uniform disc of radius R by default";
    parameter Units.Mass mRoller = 0.01 "mass of one roller";
    parameter Real muFriction = 0.5 "friction coefficient of the default friction law";
    parameter Units.Velocity deltaFriction = 1e-3 "linear zone of the default friction law";
    replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
      constrainedby Contacts.Interfaces.PartialTangentialForce "friction law at every roller";
    replaceable model NormalLaw = Contacts.Elastic.Rigid(wStab = 200)
      constrainedby Contacts.Interfaces.PartialNormalElastic "normal contact law at every roller";
    replaceable model DampingLaw = Contacts.Damping.None
      constrainedby Contacts.Interfaces.PartialNormalDamping "normal damping at every roller";
    replaceable model Mount = Parts.HingedBody constrainedby Parts.PartialHingedBody
      "how each roller (and a vehicle's wheel) is held on its joint";
    parameter Units.Length r_start[3] = {0, R, 0} "initial wheel centre";
    parameter Units.Velocity v_start[3] = zeros(3) "initial wheel centre velocity";
    parameter Real q_start[4] = {1, 0, 0, 0} "initial wheel orientation (x = wheel axis)";
    parameter Units.AngularVelocity w_start[3] = zeros(3) "initial angular velocity, wheel axes";
    parameter Boolean rollingStart = true "give roller 1 the spin of rolling without slip at t = 0 (beta = 0)";
    final parameter Units.Length R1 = R*cos(3.141592653589793/nRollers);
    final parameter Real axis_start[3] = {q_start[1]^2 + q_start[2]^2 - q_start[3]^2 - q_start[4]^2,
      2*(q_start[2]*q_start[3] + q_start[1]*q_start[4]), 2*(q_start[2]*q_start[4] - q_start[1]*q_start[3])}
      "wheel axis at the start, world";
    final parameter Units.AngularVelocity spin1 = if rollingStart then -(v_start*axis_start)/(R - R1) else 0
      "spin of roller 1 so that its contact point does not slip";
    Interfaces.BodyFrame frame "the wheel disc (hub)";
    Interfaces.ConstraintFrame ground "the ground plane";
    Roller rollers[nRollers](j = {k for k in 1:nRollers}, each nRollers = nRollers, each R = R, each beta = beta, each m = mRoller,
      each muFriction = muFriction, each deltaFriction = deltaFriction, redeclare each model FrictionLaw = FrictionLaw,
      redeclare each model NormalLaw = NormalLaw, redeclare each model DampingLaw = DampingLaw,
      redeclare each model Mount = Mount,
      each wheel_r_start = r_start, each wheel_v_start = v_start, each wheel_q_start = q_start, each wheel_w_start = w_start,
      spin_start = {if k == 1 then spin1 else 0 for k in 1:nRollers});
  equation
    for k in 1:nRollers loop
      connect(frame, rollers[k].wheelFrame);
      connect(rollers[k].groundFrame, ground);
    end for;
  end PartialOmniWheel;

  model OmniWheel "A free omni wheel: wheel disc with n rollers on revolute joints; roller 1 at the bottom when upright"
    extends PartialOmniWheel;
    Parts.RigidBody wheel(m = mWheel, I = IWheel, r_start = r_start, v_start = v_start, q_start = q_start, w_start = w_start);
  equation
    connect(wheel.frame, frame);
  end OmniWheel;

  model VehicleWheel "An omni wheel on its axle: revolute joint to the platform, at the polygon corner 'angle'"
    extends PartialOmniWheel(final r_start = platform_r_start + Rp*dir, final v_start = vw,
      final q_start = {cos(angle/2), 0.0, sin(angle/2), 0.0}, final w_start = {chi, omega_start, 0.0});
    parameter Units.Angle angle = 0 "direction of the axle from the platform centre (about y, from x)";
    parameter Units.Length Rp = 0.15 "distance from the platform centre to the wheel centre";
    parameter Units.Length platform_r_start[3] = {0, R, 0} "initial platform centre (heading 0)";
    parameter Units.Velocity platform_v_start[3] = zeros(3) "initial platform velocity (horizontal)";
    parameter Units.AngularVelocity omega_start = 0 "initial yaw rate of the platform";
    final parameter Real dir[3] = {cos(angle), 0.0, -sin(angle)} "axle direction, platform axes";
    final parameter Units.Velocity vw[3] = platform_v_start + cross({0.0, omega_start, 0.0}, Rp*dir)
      "initial wheel centre velocity";
    final parameter Units.AngularVelocity chi = vw*cross(dir, {0.0, 1.0, 0.0})/R "wheel spin rate of rolling without slip";
    Interfaces.ConstraintFrame platform "the platform body";
    Mount wheel(m = mWheel, I = IWheel, p = Rp*dir, q_mount = q_start, w_start = chi, parent_r_start = platform_r_start,
      parent_v_start = platform_v_start, parent_q_start = {1, 0, 0, 0}, parent_w_start = {0, omega_start, 0})
      "the wheel disc on its axle";
  equation
    connect(platform, wheel.parent);
    connect(wheel.frame, frame);
  end VehicleWheel;

  model Vehicle "Platform with N omni wheels on revolute joints at the corners of a regular polygon (y up)"
    parameter Integer N = 3 "number of wheels";
    parameter Integer nRollers = 4 "rollers per wheel";
    parameter Units.Length R = 0.05 "wheel radius";
    parameter Units.Length Rp = 0.15 "distance from the platform centre to the wheel centres";
    parameter Units.Angle beta = 0 "inclination of the roller axes to the wheel planes";
    parameter Units.Mass mPlatform = 3.3 "platform mass";
    parameter Units.Inertia IPlatform[3, 3] = diagonal({mPlatform*Rp^2/4, mPlatform*Rp^2/2, mPlatform*Rp^2/4})
      "platform inertia (a uniform flat disc of radius Rp by default; y is its symmetry axis)";
    parameter Units.Mass mWheel = 1 "mass of a wheel disc";
    parameter Units.Mass mRoller = 0.01 "mass of one roller";
    parameter Real muFriction = 0.5 "friction coefficient of the default friction law";
    parameter Units.Velocity deltaFriction = 1e-3 "linear zone of the default friction law";
    replaceable model FrictionLaw = Contacts.Friction.RegularizedCoulomb(mu = muFriction, delta = deltaFriction)
      constrainedby Contacts.Interfaces.PartialTangentialForce "friction law at every roller: swap it with one redeclare";
    replaceable model NormalLaw = Contacts.Elastic.Rigid(wStab = 200)
      constrainedby Contacts.Interfaces.PartialNormalElastic "normal contact law at every roller";
    replaceable model DampingLaw = Contacts.Damping.None
      constrainedby Contacts.Interfaces.PartialNormalDamping "normal damping at every roller";
    replaceable model Mount = Parts.HingedBody constrainedby Parts.PartialHingedBody
      "how wheels and rollers are held on their joints: joint coordinates (default, 43 states) or the paper's constraint form (Parts.ConstrainedHingedBody, 208 states)";
    parameter Units.Length r_start[3] = {0, R, 0} "initial platform centre (wheel centres at height R)";
    parameter Units.Velocity v_start[3] = {1, 0, 0} "initial platform velocity (horizontal)";
    parameter Units.AngularVelocity omega_start = 0 "initial yaw rate (about y)";
    Parts.Ground ground;
    Parts.RigidBody platform(m = mPlatform, I = IPlatform, r_start = r_start, v_start = v_start, w_start = {0, omega_start, 0});
    VehicleWheel wheels[N](angle = {2*3.141592653589793*(i - 1.0)/N for i in 1:N}, each Rp = Rp,
      each platform_r_start = r_start, each platform_v_start = v_start, each omega_start = omega_start,
      each nRollers = nRollers, each R = R, each beta = beta, each mWheel = mWheel, each mRoller = mRoller,
      each muFriction = muFriction, each deltaFriction = deltaFriction, redeclare each model FrictionLaw = FrictionLaw,
      redeclare each model NormalLaw = NormalLaw, redeclare each model DampingLaw = DampingLaw,
      redeclare each model Mount = Mount);
    Units.Angle heading "platform heading: rotation about y";
  equation
    heading = 2*atan2(platform.q[3], platform.q[1]);
    for i in 1:N loop
      connect(platform.frame, wheels[i].platform);
      connect(wheels[i].ground, ground.frame);
    end for;
  end Vehicle;
end Omni;
