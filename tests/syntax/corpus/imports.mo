package Imports
  import Modelica.Units.SI;
  import C = Modelica.Constants;
  import Modelica.Math.*;
  import Modelica.Blocks.Interfaces.{RealInput, RealOutput};
  import .Modelica.Constants.pi "global import";
  model M
    import Modelica.Math.sin;
  public
    parameter SI.Length L = 1;
  protected
    Real phi;
  public
    Real y;
  equation
    y = L * sin(phi) + C.g_n;
    phi = pi * time;
  end M;
  model OnlyProtected
  protected
    Real hidden = 1;
  end OnlyProtected;
end Imports;
