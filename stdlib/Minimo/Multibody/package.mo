within Minimo;
package Multibody "3-D rigid multibody dynamics after Kosenko et al.: bodies, constraints, contact templates, omni vehicle"
  annotation(Documentation(info = "World frame: y points up (as in the omni-vehicle paper), gravity g = {0, -9.81, 0}.
Bodies expose a BodyFrame (kinematics as outputs, accelerations and wrench acausal); constraints take
ConstraintFrames. See stdlib/README.md for the design."));
end Multibody;
