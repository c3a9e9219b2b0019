within TinyLib;
package Sub "sub-package in its own folder"
  model Fixed
    parameter Real s0 = 0;
    TinyLib.Interfaces.Flange flange;
  equation
    flange.s = s0;
  end Fixed;
end Sub;
