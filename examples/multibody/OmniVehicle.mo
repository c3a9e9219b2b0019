model OmniVehicle "Three-wheel omni vehicle, four rollers per wheel: 16 rigid bodies"
  // Geometry and masses after Gerasimov 2018 ch. 3 (unit of mass = wheel disc): platform 3.3 kg,
  // wheel discs 1 kg, rollers 0.01 kg (mass ratio 1e-2), wheel radius 0.05 m, platform radius 0.15 m,
  // rollers not truncated (n = 4). The dissertation gives no friction data: muFriction = 0.5, deltaFriction = 1e-3 m/s
  // are chosen here. Start: translation at 1 m/s towards wheel 1 ("Motion 1").
  // Wheels and rollers sit on revolute joints in joint coordinates (the default Mount,
  // Parts.HingedBody): 43 states. OmniVehiclePaperJoints.mo is the same vehicle with the paper's
  // joints (free bodies held by constraints at acceleration level, 208 states).
  inner Minimo.Multibody.Parts.World world "gravity: {0, -9.81, 0}, y up";
  Minimo.Multibody.Omni.Vehicle vehicle(N = 3, nRollers = 4, R = 0.05, Rp = 0.15, mPlatform = 3.3, mWheel = 1,
    mRoller = 0.01, muFriction = 0.5, deltaFriction = 1e-3, v_start = {1, 0, 0}, omega_start = 0);
  annotation(experiment(StartTime = 0, StopTime = 4, Interval = 0.01, Tolerance = 1e-6));
end OmniVehicle;
