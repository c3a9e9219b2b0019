model OmniVehicleViscous "The omni vehicle with viscous friction at the rollers instead of Coulomb: one redeclare"
  // Viscous coefficient 1e3 N.s/m (Gerasimov 2018 uses 1e5 in dimensionless units to emulate no slip).
  extends OmniVehicle(vehicle(redeclare model FrictionLaw = Minimo.Multibody.Contacts.Friction.Viscous(gamma = 1e3)));
  annotation(experiment(StartTime = 0, StopTime = 4, Interval = 0.01, Tolerance = 1e-6));
end OmniVehicleViscous;
