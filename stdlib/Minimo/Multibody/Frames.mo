within Minimo.Multibody;
package Frames "Quaternion helper functions, used for parameters and start values (not in the hot path)"

  function quatMul "Quaternion product p*q (scalar part first)"
    input Real p[4];
    input Real q[4];
    output Real r[4];
  algorithm
    r[1] := p[1]*q[1] - p[2]*q[2] - p[3]*q[3] - p[4]*q[4];
    r[2] := p[1]*q[2] + p[2]*q[1] + p[3]*q[4] - p[4]*q[3];
    r[3] := p[1]*q[3] - p[2]*q[4] + p[3]*q[1] + p[4]*q[2];
    r[4] := p[1]*q[4] + p[2]*q[3] - p[3]*q[2] + p[4]*q[1];
  end quatMul;

  function axisAngle "Unit quaternion of a rotation by angle about axis"
    input Real axis[3] "rotation axis (need not be unit)";
    input Units.Angle angle;
    output Real q[4];
  protected
    Real len;
  algorithm
    len := sqrt(axis*axis);
    q[1] := cos(angle/2);
    q[2] := sin(angle/2)*axis[1]/len;
    q[3] := sin(angle/2)*axis[2]/len;
    q[4] := sin(angle/2)*axis[3]/len;
  end axisAngle;

  function toMatrix "Rotation matrix (body to world) of a unit quaternion"
    input Real q[4];
    output Real T[3, 3];
  algorithm
    T := {{q[1]^2 + q[2]^2 - q[3]^2 - q[4]^2, 2*(q[2]*q[3] - q[1]*q[4]), 2*(q[2]*q[4] + q[1]*q[3])},
          {2*(q[2]*q[3] + q[1]*q[4]), q[1]^2 - q[2]^2 + q[3]^2 - q[4]^2, 2*(q[3]*q[4] - q[1]*q[2])},
          {2*(q[2]*q[4] - q[1]*q[3]), 2*(q[3]*q[4] + q[1]*q[2]), q[1]^2 - q[2]^2 - q[3]^2 + q[4]^2}};
  end toMatrix;

  function rotate "Vector v (body axes) resolved in world axes with quaternion q"
    input Real q[4];
    input Real v[3];
    output Real w[3];
  algorithm
    w := toMatrix(q)*v;
  end rotate;

  function resolveInBody "Vector w (world axes) resolved in body axes with quaternion q"
    input Real q[4];
    input Real w[3];
    output Real v[3];
  algorithm
    v := transpose(toMatrix(q))*w;
  end resolveInBody;
end Frames;
