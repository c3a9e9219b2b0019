within Minimo.Multibody;
package Interfaces "Frames: the connectors between bodies and constraints"

  connector BodyFrame "Frame of a rigid body (the body computes its kinematics)"
    output Real r[3](each unit = "m") "position of the body reference point (centre of mass), world axes";
    output Real T[3, 3] "rotation matrix: body axes to world axes";
    output Real v[3](each unit = "m/s") "velocity of the reference point, world axes";
    output Real w[3](each unit = "rad/s") "angular velocity, world axes";
    Real a[3](each unit = "m/s2") "acceleration of the reference point, world axes";
    Real eps[3](each unit = "rad/s2") "angular acceleration, world axes";
    flow Real f[3](each unit = "N") "force acting on the body, world axes";
    flow Real t[3](each unit = "N.m") "torque about the reference point acting on the body, world axes";
  end BodyFrame;

  connector ConstraintFrame "Frame of a constraint: reads a body's kinematics, returns a wrench"
    input Real r[3](each unit = "m") "position of the body reference point, world axes";
    input Real T[3, 3] "rotation matrix of the body: body axes to world axes";
    input Real v[3](each unit = "m/s") "velocity of the reference point, world axes";
    input Real w[3](each unit = "rad/s") "angular velocity, world axes";
    Real a[3](each unit = "m/s2") "acceleration of the reference point, world axes";
    Real eps[3](each unit = "rad/s2") "angular acceleration, world axes";
    flow Real f[3](each unit = "N") "minus the force the constraint exerts on the body (flow into the constraint)";
    flow Real t[3](each unit = "N.m") "minus the torque about the body reference point the constraint exerts on the body";
  end ConstraintFrame;
end Interfaces;
