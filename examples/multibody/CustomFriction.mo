package CustomFriction "How to write a friction law and plug it into a contact with one redeclare"
  model Stribeck "Coulomb friction falling from mu_s to mu_k with the slip speed, regularized at 0"
    extends Minimo.Multibody.Contacts.Interfaces.PartialTangentialForce;
    parameter Real mu_s = 0.6 "static friction coefficient";
    parameter Real mu_k = 0.4 "kinetic friction coefficient";
    parameter Real vs(unit = "m/s") = 0.05 "Stribeck speed";
    parameter Real delta(unit = "m/s") = 1e-3 "linear zone around zero slip";
  protected
    Real speed2 = vt*vt "squared slip speed (no square root at zero slip)";
  equation
    Ft = -(mu_k + (mu_s - mu_k)*exp(-speed2/vs^2))*Fn*
         (if noEvent(speed2 <= delta^2) then vt/delta else vt/sqrt(speed2));
  end Stribeck;

  model DroppedRoller "The dropped roller of FreeRoller.mo, with the Stribeck law at its contact"
    extends FreeRoller(redeclare model FrictionLaw = Stribeck);
    annotation(experiment(StartTime = 0, StopTime = 1, Interval = 0.001, Tolerance = 1e-8));
  end DroppedRoller;
end CustomFriction;
