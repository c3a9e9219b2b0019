within Modelica.Mechanics;
package Translational "1-dimensional translational mechanical components"
  import SI = Modelica.Units.SI;
  import Modelica.Units.Conversions.{from_deg, to_deg};
  extends Modelica.Icons.Package;

  package Interfaces
    connector Flange_a "Left flange"
      SI.Position s "Absolute position of flange";
      flow SI.Force f "Cut force directed into flange";
      annotation(defaultComponentName = "flange_a");
    end Flange_a;

    connector Flange_b = Flange_a "Right flange";

    partial model PartialCompliant "Compliant connection of two translational 1D flanges"
      Flange_a flange_a annotation(Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
      Flange_b flange_b;
      SI.Distance s_rel(start = 0) "Relative distance (= flange_b.s - flange_a.s)";
      SI.Force f "Force between flanges (positive in direction of flange axis R)";
    equation
      s_rel = flange_b.s - flange_a.s;
      flange_b.f = f;
      flange_a.f = -f;
    end PartialCompliant;

    partial model PartialFriction "Base model of Coulomb friction elements"
      parameter SI.Position s_small = 1e-10 annotation(Dialog(tab = "Advanced"));
      SI.Velocity v_relfric;
      SI.Acceleration a_relfric;
      SI.Force f0 "Friction force for v=0 and forward sliding";
      SI.Force f0_max "Maximum friction force for v=0 and locked";
      Boolean free "true, if frictional element is not active";
      Real sa(final unit = "1") "Path parameter of friction characteristic f = f(a_relfric)";
      Boolean startForward(start = false, fixed = true);
      Boolean startBackward(start = false, fixed = true);
      Boolean locked(start = false) "true, if frictional element is locked";
      constant Integer Unknown = 3 "Value of mode is not known";
      constant Integer Free = 2 "Element is not active";
      constant Integer Forward = 1 "v_relfric > 0 (forward sliding)";
      constant Integer Stuck = 0 "v_relfric = 0 (forward sliding, locked or backward sliding)";
      constant Integer Backward = -1 "v_relfric < 0 (backward sliding)";
      Integer mode(final min = Backward, final max = Unknown, start = Unknown, fixed = true);
    protected
      constant SI.Acceleration unitAcceleration = 1 annotation(HideResult = true);
      constant SI.Force unitForce = 1 annotation(HideResult = true);
    equation
      startForward = pre(mode) == Stuck and (sa > f0_max / unitForce or pre(startForward) and sa > f0 / unitForce) or
        pre(mode) == Backward and v_relfric > v_small or initial() and v_relfric > 0;
      locked = not free and not (pre(mode) == Forward or startForward or pre(mode) == Backward or startBackward);
      a_relfric / unitAcceleration = if locked then 0 else if free then sa else if startForward then sa - f0_max / unitForce
        else if startBackward then sa + f0_max / unitForce else if pre(mode) == Forward then sa - f0_max / unitForce
        else sa + f0_max / unitForce;
      mode = if free then Free else (if (pre(mode) == Forward or pre(mode) == Free or startForward) and v_relfric > 0
        then Forward else if (pre(mode) == Backward or pre(mode) == Free or startBackward) and v_relfric < 0
        then Backward else Stuck);
    end PartialFriction;
  end Interfaces;

  package Components
    model Mass "Sliding mass with inertia"
      parameter SI.Mass m(min = 0, start = 1) "Mass of the sliding mass";
      parameter StateSelect stateSelect = StateSelect.default "Priority to use s and v as states"
        annotation(Dialog(tab = "Advanced"));
      extends Translational.Interfaces.PartialRigid(L = 0, s(start = 0, stateSelect = stateSelect));
      SI.Velocity v(start = 0, stateSelect = stateSelect) "Absolute velocity of component";
      SI.Acceleration a(start = 0) "Absolute acceleration of component";
    equation
      v = der(s);
      a = der(v);
      m * a = flange_a.f + flange_b.f;
    end Mass;

    model Spring "Linear 1D translational spring"
      extends Translational.Interfaces.PartialCompliant;
      parameter SI.TranslationalSpringConstant c(final min = 0, start = 1) "Spring constant";
      parameter SI.Distance s_rel0 = 0 "Unstretched spring length";
    equation
      f = c * (s_rel - s_rel0);
    end Spring;

    model MassWithFriction "Mass with replaceable friction law"
      replaceable model Friction = Coulomb constrainedby PartialFrictionLaw "friction law"
        annotation(choicesAllMatching = true);
      Friction friction(final v = v);
      Mass mass(m = 1);
      inner Modelica.Mechanics.MultiBody.World world;
      outer parameter Real g_outer;
    end MassWithFriction;

    model ViscousSystem = MassWithFriction(redeclare model Friction = Viscous(d = 2)) "viscous variant";
  end Components;

  package Sources
    block Force "External force"
      extends Modelica.Blocks.Interfaces.SISO;
      Modelica.Blocks.Interfaces.RealInput f(unit = "N") annotation(Placement(transformation(extent = {{-140, -20}, {-100, 20}})));
    equation
      y = f;
    end Force;
  end Sources;

  function limitValue "Limit a value"
    extends Modelica.Icons.Function;
    input Real u;
    input Real limit(min = 0) = 1;
    output Real y;
  algorithm
    y := if u > limit then limit else if u < -limit then -limit else u;
    annotation(smoothOrder = 1);
  end limitValue;
  annotation(preferredView = "info", Documentation(info = "<html>
<p>This package contains components to model <em>1-dimensional translational mechanical</em> systems.</p>
</html>"));
end Translational;
