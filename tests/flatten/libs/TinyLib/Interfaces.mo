within TinyLib;
package Interfaces
  connector Flange
    Real s;
    flow Real f;
  end Flange;
end Interfaces;
