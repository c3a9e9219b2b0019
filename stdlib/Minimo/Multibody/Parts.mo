within Minimo.Multibody;
package Parts "Rigid bodies and the fixed ground"

  model RigidBody "Rigid body: Newton-Euler equations in body axes, quaternion kinematics with the unit norm kept"
    parameter Real m(unit = "kg", min = 0) = 1 "mass";
    parameter Real I[3, 3](each unit = "kg.m2") = identity(3) "inertia tensor about the centre of mass, body axes";
    parameter Real g[3](each unit = "m/s2") = {0, -9.81, 0} "gravity acceleration, world axes (y up)";
    parameter Real r_start[3](each unit = "m") = zeros(3) "initial position of the centre of mass";
    parameter Real v_start[3](each unit = "m/s") = zeros(3) "initial velocity of the centre of mass, world axes";
    parameter Real q_start[4] = {1, 0, 0, 0} "initial orientation: unit quaternion (scalar first), body to world";
    parameter Real w_start[3](each unit = "rad/s") = zeros(3) "initial angular velocity, body axes";
    parameter Real k_q(unit = "1/s") = 10 "gain pulling the quaternion back to unit norm (0: none)";
    Interfaces.BodyFrame frame "centre of mass frame";
    Real r[3](start = r_start, each fixed = true, each stateSelect = StateSelect.always, each unit = "m") "position of the centre of mass";
    Real v[3](start = v_start, each fixed = true, each stateSelect = StateSelect.always, each unit = "m/s") "velocity of the centre of mass";
    Real q[4](start = q_start, each fixed = true, each stateSelect = StateSelect.always) "orientation quaternion, body to world";
    Real wb[3](start = w_start, each fixed = true, each stateSelect = StateSelect.always, each unit = "rad/s") "angular velocity, body axes";
    Real dwb[3](each unit = "rad/s2") "angular acceleration, body axes";
    Real tb[3](each unit = "N.m") "torque about the centre of mass, body axes";
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
    Real Ekin(unit = "J") "kinetic energy";
    Real Epot(unit = "J") "potential energy in the gravity field (zero at r = 0)";
    Real E(unit = "J") "total mechanical energy";
  equation
    Ekin = 0.5*m*(v*v) + 0.5*(wb*(I*wb));
    Epot = -m*(g*r);
    E = Ekin + Epot;
  end RigidBodyWithEnergy;

  model Ground "The fixed ground: the inertial frame"
    parameter Real r0[3](each unit = "m") = zeros(3) "position of the ground frame origin";
    Interfaces.BodyFrame frame;
  equation
    frame.r = r0;
    frame.T = identity(3);
    frame.v = zeros(3);
    frame.w = zeros(3);
    frame.a = zeros(3);
    frame.eps = zeros(3);
  end Ground;
end Parts;
