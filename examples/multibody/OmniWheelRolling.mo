model OmniWheelRolling "One omni wheel (4 rollers) rolling on the plane with rigid roller contacts"
  // Wheel radius 0.05 m, disc 1 kg, rollers 0.05 kg each; starts upright rolling at 0.5 m/s along +z
  // (wheel spin 10 rad/s about its axis x), roller 1 in contact and spinning so nothing slips.
  // Friction: regularized Coulomb muFriction = 0.5, deltaFriction = 1e-3 m/s (not given in the papers: chosen).
  import Minimo.Multibody.*;
  parameter Real R = 0.05;
  parameter Real v0 = 0.5 "rolling speed";
  inner Parts.World world "gravity: {0, -9.81, 0}, y up";
  Parts.Ground ground;
  Omni.OmniWheel wheel(nRollers = 4, R = R, mWheel = 1, mRoller = 0.05, muFriction = 0.5, deltaFriction = 1e-3,
    r_start = {0, R, 0}, v_start = {0, 0, v0}, w_start = {v0/R, 0, 0});
equation
  connect(wheel.ground, ground.frame);
  // A lone omni wheel is not stable upright (its rollers let it slide along its axis): the
  // round-off lean grows until it tips over at about 0.6 s, onto parts no contact models; the
  // contact template then stops the run with an error. So the experiment ends at 0.4 s.
  annotation(experiment(StartTime = 0, StopTime = 0.4, Interval = 0.001, Tolerance = 1e-8));
end OmniWheelRolling;
