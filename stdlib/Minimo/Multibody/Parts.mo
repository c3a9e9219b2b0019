within Minimo.Multibody;
package Parts "Rigid bodies and the fixed ground"

  model World "The world: the one gravity field of a model (declare `inner Parts.World world` at its top)"
    parameter Units.Acceleration g[3] = {0, -9.81, 0} "gravity acceleration, world axes (y up)";
  end World;

  model RigidBody "Rigid body: Newton-Euler equations in body axes, quaternion kinematics with the unit norm kept"
    parameter Units.Mass m(min = 0) = 1 "mass";
    parameter Units.Inertia I[3, 3] = identity(3) "inertia tensor about the centre of mass, body axes";
    outer World world "the gravity field";
    parameter Units.Acceleration g[3] = world.g "gravity acceleration, world axes (y up)";
    parameter Units.Length r_start[3] = zeros(3) "initial position of the centre of mass";
    parameter Units.Velocity v_start[3] = zeros(3) "initial velocity of the centre of mass, world axes";
    parameter Real q_start[4] = {1, 0, 0, 0} "initial orientation: unit quaternion (scalar first), body to world";
    parameter Units.AngularVelocity w_start[3] = zeros(3) "initial angular velocity, body axes";
    parameter Units.Rate k_q = 10 "gain pulling the quaternion back to unit norm (0: none)";
    Interfaces.BodyFrame frame "centre of mass frame";
    Units.Length r[3](start = r_start, each fixed = true, each stateSelect = StateSelect.always) "position of the centre of mass";
    Units.Velocity v[3](start = v_start, each fixed = true, each stateSelect = StateSelect.always) "velocity of the centre of mass";
    Real q[4](start = q_start, each fixed = true, each stateSelect = StateSelect.always) "orientation quaternion, body to world";
    Units.AngularVelocity wb[3](start = w_start, each fixed = true, each stateSelect = StateSelect.always) "angular velocity, body axes";
    Units.AngularAcceleration dwb[3] "angular acceleration, body axes";
    Units.Torque tb[3] "torque about the centre of mass, body axes";
    Real qerr "quaternion norm error q*q - 1";
  equation
    // r, v, q, wb are always states: constraints act on accelerations only (see Joints).
    // Translation (Newton).
    der(r) = v;
    der(v) = frame.a;
    m*frame.a = frame.f + m*g;
    // Rotation: der(q) = q * (0, wb) / 2, plus a term that decays any drift of the norm.
    qerr = q*q - 1;
    der(q[1]) = 0.5*(-q[2]*wb[1] - q[3]*wb[2] - q[4]*wb[3]) - k_q*qerr*q[1];
    der(q[2]) = 0.5*(q[1]*wb[1] + q[3]*wb[3] - q[4]*wb[2]) - k_q*qerr*q[2];
    der(q[3]) = 0.5*(q[1]*wb[2] + q[4]*wb[1] - q[2]*wb[3]) - k_q*qerr*q[3];
    der(q[4]) = 0.5*(q[1]*wb[3] + q[2]*wb[2] - q[3]*wb[1]) - k_q*qerr*q[4];
    frame.T = {{q[1]^2 + q[2]^2 - q[3]^2 - q[4]^2, 2*(q[2]*q[3] - q[1]*q[4]), 2*(q[2]*q[4] + q[1]*q[3])},
               {2*(q[2]*q[3] + q[1]*q[4]), q[1]^2 - q[2]^2 + q[3]^2 - q[4]^2, 2*(q[3]*q[4] - q[1]*q[2])},
               {2*(q[2]*q[4] - q[1]*q[3]), 2*(q[3]*q[4] + q[1]*q[2]), q[1]^2 - q[2]^2 - q[3]^2 + q[4]^2}};
    // Euler's equations in body axes.
    der(wb) = dwb;
    tb = transpose(frame.T)*frame.t;
    I*dwb + cross(wb, I*wb) = tb;
    // Kinematics handed to the constraints, in world axes.
    frame.r = r;
    frame.v = v;
    frame.w = frame.T*wb;
    frame.eps = frame.T*dwb;
  end RigidBody;

  model RigidBodyWithEnergy "RigidBody that also reports its energy (for checks)"
    extends RigidBody;
    Units.Energy Ekin "kinetic energy";
    Units.Energy Epot "potential energy in the gravity field (zero at r = 0)";
    Units.Energy E "total mechanical energy";
  equation
    Ekin = 0.5*m*(v*v) + 0.5*(wb*(I*wb));
    Epot = -m*(g*r);
    E = Ekin + Epot;
  end RigidBodyWithEnergy;

  model Ground "The fixed ground: the inertial frame"
    parameter Units.Length r0[3] = zeros(3) "position of the ground frame origin";
    Interfaces.BodyFrame frame;
  equation
    frame.r = r0;
    frame.T = identity(3);
    frame.v = zeros(3);
    frame.w = zeros(3);
    frame.a = zeros(3);
    frame.eps = zeros(3);
  end Ground;
  partial model PartialHingedBody "A rigid body on a revolute joint to a parent body (the joint axis is the body's x axis)"
    parameter Units.Mass m(min = 0) = 1 "mass";
    parameter Units.Inertia I[3, 3] = identity(3) "inertia tensor about the centre of mass, body axes";
    outer World world "the gravity field";
    parameter Units.Acceleration g[3] = world.g "gravity acceleration, world axes (y up)";
    parameter Units.Length p[3] = zeros(3) "joint point, parent axes (from the parent's reference point)";
    parameter Units.Length c[3] = zeros(3) "centre of mass relative to the joint point, body axes";
    parameter Real q_mount[4] = {1, 0, 0, 0}
      "orientation relative to the parent at the start (unit quaternion, body to parent); body x = joint axis";
    parameter Units.AngularVelocity w_start = 0 "rotation rate relative to the parent at the start";
    parameter Units.RotationalDampingConstant d(min = 0) = 0 "viscous damping in the joint";
    // The parent's start state: a body integrated in absolute coordinates starts consistently from it.
    parameter Units.Length parent_r_start[3] = zeros(3) "parent reference point at the start";
    parameter Units.Velocity parent_v_start[3] = zeros(3) "parent velocity at the start, world axes";
    parameter Real parent_q_start[4] = {1, 0, 0, 0} "parent orientation at the start";
    parameter Units.AngularVelocity parent_w_start[3] = zeros(3) "parent angular velocity at the start, parent axes";
    final parameter Real Tm[3, 3] = Frames.toMatrix(q_mount)
      "body axes to parent axes at the start";
    Interfaces.ConstraintFrame parent "the parent body";
    Interfaces.BodyFrame frame "centre of mass frame of this body";
  end PartialHingedBody;

  model HingedBody "Rigid body on a revolute joint, in joint coordinates: the angle and rate relative to the parent are its states"
    extends PartialHingedBody;
    Units.Angle phi(start = 0, fixed = true, stateSelect = StateSelect.always) "rotation angle relative to the parent";
    Units.AngularVelocity wrel(start = w_start, fixed = true, stateSelect = StateSelect.always) "rotation rate relative to the parent";
    Units.AngularAcceleration dwrel "angular acceleration relative to the parent";
    Real e[3] "joint axis, world axes";
    Units.Length dp[3] "parent reference point to the joint point, world axes";
    Units.Length dc[3] "joint point to the centre of mass, world axes";
    Units.Force Fj[3] "force of the joint on this body, world axes";
    Units.Torque Mj[3] "couple of the joint on this body, world axes";
    Units.Inertia Iw[3, 3] "inertia tensor in world axes";
  equation
    der(phi) = wrel;
    der(wrel) = dwrel;
    // The kinematics of a body on a revolute joint, from the parent's (Euler's and Rivals'
    // formulas): no constraint is left to drift, and a fast spin only moves phi.
    frame.T = parent.T*(Tm*{{1, 0, 0}, {0, cos(phi), -sin(phi)}, {0, sin(phi), cos(phi)}});
    e = parent.T*Tm[:, 1];
    dp = parent.T*p;
    dc = frame.T*c;
    frame.r = parent.r + dp + dc;
    frame.w = parent.w + wrel*e;
    frame.v = parent.v + cross(parent.w, dp) + cross(frame.w, dc);
    frame.eps = parent.eps + dwrel*e + cross(parent.w, wrel*e);
    frame.a = parent.a + cross(parent.eps, dp) + cross(parent.w, cross(parent.w, dp)) + cross(frame.eps, dc)
      + cross(frame.w, cross(frame.w, dc));
    // Newton-Euler about the centre of mass in world axes; the joint couple has no component
    // along the axis but the damping.
    Iw = frame.T*I*transpose(frame.T);
    m*frame.a = frame.f + Fj + m*g;
    Mj = Iw*frame.eps + cross(frame.w, Iw*frame.w) - frame.t + cross(dc, Fj);
    Mj*e = -d*wrel;
    // The reaction on the parent, about its reference point (flows: minus the wrench on it).
    parent.f = Fj;
    parent.t = Mj + cross(dp, Fj);
  end HingedBody;

  model ConstrainedHingedBody "Free rigid body held by a Joints.Revolute at acceleration level (Kosenko 2015): 13 states, the joint drifts"
    extends PartialHingedBody;
    parameter Units.Rate wStab(min = 0) = 200 "drift stabilization of the joint (see Joints.Joint)";
    final parameter Real qp[4] = parent_q_start;
    final parameter Real Tp[3, 3] = Frames.toMatrix(qp)
      "parent rotation matrix at the start";
    final parameter Real qb[4] = Frames.quatMul(qp, q_mount) "body orientation at the start";
    final parameter Real Tb[3, 3] = Tp*Tm "body rotation matrix at the start";
    final parameter Units.AngularVelocity wp[3] = Tp*parent_w_start "parent angular velocity at the start, world";
    final parameter Units.AngularVelocity wb0[3] = wp + w_start*Tb[:, 1] "body angular velocity at the start, world";
    RigidBody body(m = m, I = I, g = g, r_start = parent_r_start + Tp*p + Tb*c,
      v_start = parent_v_start + cross(wp, Tp*p) + cross(wb0, Tb*c), q_start = qb, w_start = transpose(Tb)*wb0);
    Joints.Revolute joint(nA = Tm[:, 1], rA = p, rB = -c, nB = {1, 0, 0}, wStab = wStab, d = d);
  equation
    connect(parent, joint.frame_a);
    connect(joint.frame_b, body.frame);
    connect(body.frame, frame);
  end ConstrainedHingedBody;
end Parts;
