within Minimo.Multibody;
package Joints "Constraints between two bodies; joints written at the acceleration level"

  partial model Constraint "Base class of every constraint: Newton's third law between bodies A and B"
    Interfaces.ConstraintFrame frame_a "body A";
    Interfaces.ConstraintFrame frame_b "body B";
    Units.Force FA[3] "force acting on body A, world axes";
    Units.Torque MA[3] "couple acting on body A (about P), world axes";
    Units.Force FB[3] "force acting on body B, world axes";
    Units.Torque MB[3] "couple acting on body B (about P), world axes";
    Units.Length P[3] "point where both forces act, world axes";
  equation
    FA + FB = zeros(3);
    MA + MB = zeros(3);
    // The frames carry the wrench about each body's reference point, with the flow sign convention.
    frame_a.f = -FA;
    frame_a.t = -(MA + cross(P - frame_a.r, FA));
    frame_b.f = -FB;
    frame_b.t = -(MB + cross(P - frame_b.r, FB));
  end Constraint;

  partial model Joint "Joint along an axis: B moves relative to A, relative kinematics at acceleration level"
    extends Constraint;
    parameter Real nA[3] = {1, 0, 0} "joint axis, body A axes (unit vector)";
    parameter Units.Length rA[3] = zeros(3) "point on the axis, body A axes (from A's centre of mass)";
    parameter Units.Length rB[3] = zeros(3) "point on the axis, body B axes (from B's centre of mass)";
    parameter Real nB[3] = {1, 0, 0} "joint axis, body B axes (unit; used by the drift stabilization only)";
    parameter Units.Rate wStab(min = 0) = 0
      "drift stabilization (Baumgarte) of the point off the axis and of the axis misalignment; 0: none";
    Units.Length RB[3] "the marked point of B, world";
    Real nAi[3] "joint axis, world axes";
    Units.Velocity vBa[3] "absolute velocity of B's marked point";
    Units.Velocity vBe[3] "convective velocity (point of A coinciding with it)";
    Units.Velocity vBr[3] "relative velocity of B's marked point";
    Units.Acceleration aBa[3] "absolute acceleration of B's marked point";
    Units.Acceleration aBe[3] "convective acceleration";
    Units.Acceleration aBr[3] "relative acceleration";
    Units.AngularVelocity wr[3] "relative angular velocity";
    Units.AngularAcceleration epsr[3] "relative angular acceleration";
    Units.Length dRel[3] "B's marked point relative to A's point on the axis, world";
    Real nBi[3] "B's copy of the joint axis, world";
    Units.Acceleration mu "relative acceleration along the axis";
    Units.AngularAcceleration lambda "relative angular acceleration about the axis";
    Units.Force F "force on A along the axis";
    Units.Torque M "couple on A about the axis";
  equation
    RB = frame_b.r + frame_b.T*rB;
    nAi = frame_a.T*nA;
    P = RB;
    // Velocities (Euler's formula), then accelerations (Euler + Coriolis) as in Kosenko 2015.
    vBa = frame_b.v + cross(frame_b.w, RB - frame_b.r);
    vBe = frame_a.v + cross(frame_a.w, RB - frame_a.r);
    vBr = vBa - vBe;
    aBa = frame_b.a + cross(frame_b.eps, RB - frame_b.r) + cross(frame_b.w, cross(frame_b.w, RB - frame_b.r));
    aBe = frame_a.a + cross(frame_a.eps, RB - frame_a.r) + cross(frame_a.w, cross(frame_a.w, RB - frame_a.r));
    aBa = aBe + 2*cross(frame_a.w, vBr) + aBr;
    // Imposed at acceleration level, the constraints drift with the integration error; with
    // wStab > 0 the distance of B's point from the axis and the angle between the axes decay
    // (critically damped). A fast-spinning roller otherwise tilts its axis enough to upset the
    // roller handover of the omni wheel.
    aBr = mu*nAi - 2*wStab*(vBr - (vBr*nAi)*nAi) - wStab^2*(dRel - (dRel*nAi)*nAi);
    dRel = RB - frame_a.r - frame_a.T*rA;
    nBi = frame_b.T*nB;
    wr = frame_b.w - frame_a.w;
    frame_b.eps = frame_a.eps + cross(frame_a.w, wr) + epsr;
    epsr = lambda*nAi - 2*wStab*(wr - (wr*nAi)*nAi) - wStab^2*cross(nAi, nBi);
    F = FA*nAi;
    M = MA*nAi;
  end Joint;

  model Revolute "Revolute joint: free rotation about the axis (optional viscous damping), no sliding"
    extends Joint;
    parameter Units.RotationalDampingConstant d(min = 0) = 0 "viscous damping in the joint";
    Units.AngularVelocity wrel "rotation rate of B relative to A about the axis";
  equation
    wrel = wr*nAi;
    mu = 0;
    M = d*wrel;
  end Revolute;

  model Prismatic "Prismatic joint: free sliding along the axis (optional viscous damping), no rotation"
    extends Joint;
    parameter Units.TranslationalDampingConstant d(min = 0) = 0 "viscous damping in the joint";
    Units.Velocity vrel "sliding rate of B relative to A along the axis";
  equation
    vrel = vBr*nAi;
    lambda = 0;
    F = d*vrel;
  end Prismatic;

  model Fixed "Fixed joint: no relative motion"
    extends Joint;
  equation
    mu = 0;
    lambda = 0;
  end Fixed;

  model Spherical "Spherical (ball) joint: B's marked point stays on A's point, free rotation, no couple"
    extends Constraint;
    parameter Units.Length rA[3] = zeros(3) "the joint point, body A axes (from A's centre of mass)";
    parameter Units.Length rB[3] = zeros(3) "the joint point, body B axes (from B's centre of mass)";
    parameter Units.Rate wStab(min = 0) = 0 "drift stabilization (Baumgarte) of the distance between the points; 0: none";
    Units.Length RB[3] "the marked point of B, world";
    Units.Length dRel[3] "B's point relative to A's point, world";
    Units.Velocity vBa[3] "absolute velocity of B's marked point";
    Units.Velocity vBe[3] "convective velocity (point of A coinciding with it)";
    Units.Velocity vBr[3] "relative velocity of B's marked point";
    Units.Acceleration aBa[3] "absolute acceleration of B's marked point";
    Units.Acceleration aBe[3] "convective acceleration";
  equation
    RB = frame_b.r + frame_b.T*rB;
    P = RB;
    dRel = RB - frame_a.r - frame_a.T*rA;
    vBa = frame_b.v + cross(frame_b.w, RB - frame_b.r);
    vBe = frame_a.v + cross(frame_a.w, RB - frame_a.r);
    vBr = vBa - vBe;
    aBa = frame_b.a + cross(frame_b.eps, RB - frame_b.r) + cross(frame_b.w, cross(frame_b.w, RB - frame_b.r));
    aBe = frame_a.a + cross(frame_a.eps, RB - frame_a.r) + cross(frame_a.w, cross(frame_a.w, RB - frame_a.r));
    // No relative acceleration of the point (as Joint with mu = 0), no couple.
    aBa = aBe + 2*cross(frame_a.w, vBr) - 2*wStab*vBr - wStab^2*dRel;
    MA = zeros(3);
  end Spherical;

  model RevoluteBody = Parts.HingedBody
    "Revolute joint in joint coordinates: a rigid body on a revolute joint to its parent, the angle and rate are its states (the same class as Parts.HingedBody)";
end Joints;
