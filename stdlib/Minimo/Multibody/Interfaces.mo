within Minimo.Multibody;
package Interfaces "Frames: the connectors between bodies and constraints"

  connector BodyFrame "Frame of a rigid body (the body computes its kinematics)"
    output Units.Length r[3] "position of the body reference point (centre of mass), world axes";
    output Real T[3, 3] "rotation matrix: body axes to world axes";
    output Units.Velocity v[3] "velocity of the reference point, world axes";
    output Units.AngularVelocity w[3] "angular velocity, world axes";
    Units.Acceleration a[3] "acceleration of the reference point, world axes";
    Units.AngularAcceleration eps[3] "angular acceleration, world axes";
    flow Units.Force f[3] "force acting on the body, world axes";
    flow Units.Torque t[3] "torque about the reference point acting on the body, world axes";
  end BodyFrame;

  connector ConstraintFrame "Frame of a constraint: reads a body's kinematics, returns a wrench"
    input Units.Length r[3] "position of the body reference point, world axes";
    input Real T[3, 3] "rotation matrix of the body: body axes to world axes";
    input Units.Velocity v[3] "velocity of the reference point, world axes";
    input Units.AngularVelocity w[3] "angular velocity, world axes";
    Units.Acceleration a[3] "acceleration of the reference point, world axes";
    Units.AngularAcceleration eps[3] "angular acceleration, world axes";
    flow Units.Force f[3] "minus the force the constraint exerts on the body (flow into the constraint)";
    flow Units.Torque t[3] "minus the torque about the body reference point the constraint exerts on the body";
  end ConstraintFrame;
end Interfaces;
