package Minimo "The built-in library of minimo: small, MSL-like component libraries"
  annotation(Documentation(info = "Minimo.Electrical.Analog, Minimo.Mechanics.Translational,
Minimo.Mechanics.Rotational and Minimo.Multibody (rigid bodies, joints, contact templates and the
omni vehicle). See stdlib/README.md."));
end Minimo;
