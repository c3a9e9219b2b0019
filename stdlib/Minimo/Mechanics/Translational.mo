within Minimo.Mechanics;
package Translational "1-D translational mechanics: flanges carry a position and a force"

  connector Flange "Translational flange: position and cut force"
    Units.Length s "absolute position of the flange";
    flow Units.Force f "cut force acting on the component at the flange";
  end Flange;

  partial model PartialCompliant "Two flanges with a compliant element between them"
    Flange flange_a;
    Flange flange_b;
    Units.Length s_rel "relative position flange_b.s - flange_a.s";
    Units.Force f "force from flange_a to flange_b";
  equation
    s_rel = flange_b.s - flange_a.s;
    flange_b.f = f;
    flange_a.f = -f;
  end PartialCompliant;

  model Fixed "Flange fixed in the housing"
    parameter Units.Length s0 = 0 "fixed position";
    Flange flange;
  equation
    flange.s = s0;
  end Fixed;

  model Mass "Sliding mass"
    parameter Units.Mass m(min = 0) = 1 "mass";
    parameter Units.Length L = 0 "length (distance between the flanges)";
    Flange flange_a;
    Flange flange_b;
    Units.Length s "position of the centre";
    Units.Velocity v "velocity";
    Units.Acceleration a "acceleration";
  equation
    flange_a.s = s - L/2;
    flange_b.s = s + L/2;
    v = der(s);
    a = der(v);
    m*a = flange_a.f + flange_b.f;
  end Mass;

  model Spring "Linear spring"
    extends PartialCompliant;
    parameter Units.TranslationalSpringConstant c(min = 0) = 1 "spring constant";
    parameter Units.Length s_rel0 = 0 "unstretched length";
  equation
    f = c*(s_rel - s_rel0);
  end Spring;

  model Damper "Linear damper"
    extends PartialCompliant;
    parameter Units.TranslationalDampingConstant d(min = 0) = 0 "damping constant";
  equation
    f = d*der(s_rel);
  end Damper;

  model SpringDamper "Linear spring and damper in parallel"
    extends PartialCompliant;
    parameter Units.TranslationalSpringConstant c(min = 0) = 1 "spring constant";
    parameter Units.TranslationalDampingConstant d(min = 0) = 0 "damping constant";
    parameter Units.Length s_rel0 = 0 "unstretched length";
  equation
    f = c*(s_rel - s_rel0) + d*der(s_rel);
  end SpringDamper;

  model ConstantForce "Constant force pushing the flange in the positive direction"
    parameter Units.Force f_constant = 1 "force";
    Flange flange;
  equation
    flange.f = -f_constant;
  end ConstantForce;
end Translational;
