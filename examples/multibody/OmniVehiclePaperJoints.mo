model OmniVehiclePaperJoints "The omni vehicle with the joints of Kosenko et al.: free bodies held by constraints at acceleration level"
  // One redeclare changes how all 15 bodies on joints (3 wheels, 12 rollers) are modelled: each
  // becomes a free RigidBody (13 states) held by a Joints.Revolute written at acceleration level,
  // with Baumgarte stabilization of the joint drift (wStab = 200/s): 208 states, as in the papers.
  extends OmniVehicle(vehicle(redeclare model Mount = Minimo.Multibody.Parts.ConstrainedHingedBody));
  annotation(experiment(StartTime = 0, StopTime = 4, Interval = 0.01, Tolerance = 1e-6));
end OmniVehiclePaperJoints;
