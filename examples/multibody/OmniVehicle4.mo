model OmniVehicle4 "The omni vehicle on four omni wheels with rigid roller contacts: redundantly constrained"
  // As OmniVehicle.mo with N = 4. A rigid platform standing on four rigid point contacts has one
  // redundant constraint (three points fix its height, roll and pitch): the four normal forces are
  // not uniquely determined, only their resultant and moments are. `minimo reactions` reports it.
  // Since the friction forces are proportional to the normal forces, the motion computed with rigid
  // contacts depends on how the solver splits them: use a compliant normal law for such vehicles.
  inner Minimo.Multibody.Parts.World world "gravity: {0, -9.81, 0}, y up";
  Minimo.Multibody.Omni.Vehicle vehicle(N = 4, nRollers = 4, R = 0.05, Rp = 0.15, mPlatform = 3.3, mWheel = 1,
    mRoller = 0.01, muFriction = 0.5, deltaFriction = 1e-3, v_start = {1, 0, 0}, omega_start = 0);
end OmniVehicle4;
