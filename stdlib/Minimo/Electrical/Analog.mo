within Minimo.Electrical;
package Analog "Lumped analog circuits: pins carry a potential and a current"

  package Interfaces "Pins and partial models"
    connector Pin "Electrical pin: potential and current flowing into the component"
      Units.Voltage v "potential at the pin";
      flow Units.Current i "current flowing into the pin";
    end Pin;

    connector PositivePin "Positive pin (the current i flows into the component)"
      extends Pin;
    end PositivePin;

    connector NegativePin "Negative pin"
      extends Pin;
    end NegativePin;

    partial model TwoPin "Two pins, voltage drop between them"
      PositivePin p;
      NegativePin n;
      Units.Voltage v "voltage drop p.v - n.v";
    equation
      v = p.v - n.v;
    end TwoPin;

    partial model OnePort "Two pins carrying the same current"
      extends TwoPin;
      Units.Current i "current from p to n through the component";
    equation
      0 = p.i + n.i;
      i = p.i;
    end OnePort;
  end Interfaces;

  package Basic "Basic components"
    model Ground "Ground node: zero potential"
      Interfaces.Pin p;
    equation
      p.v = 0;
    end Ground;

    model Resistor "Ideal linear resistor: v = R*i"
      extends Interfaces.OnePort;
      parameter Units.Resistance R = 1 "resistance";
    equation
      v = R*i;
    end Resistor;

    model Conductor "Ideal linear conductor: i = G*v"
      extends Interfaces.OnePort;
      parameter Units.Conductance G = 1 "conductance";
    equation
      i = G*v;
    end Conductor;

    model Capacitor "Ideal capacitor: i = C*der(v)"
      extends Interfaces.OnePort;
      parameter Units.Capacitance C(min = 0) = 1 "capacitance";
    equation
      i = C*der(v);
    end Capacitor;

    model Inductor "Ideal inductor: v = L*der(i)"
      extends Interfaces.OnePort;
      parameter Units.Inductance L(min = 0) = 1 "inductance";
    equation
      L*der(i) = v;
    end Inductor;
  end Basic;

  package Sources "Ideal voltage and current sources"
    model ConstantVoltage "Source of constant voltage"
      extends Interfaces.OnePort;
      parameter Units.Voltage V = 1 "value of the constant voltage";
    equation
      v = V;
    end ConstantVoltage;

    model StepVoltage "Voltage step at startTime"
      extends Interfaces.OnePort;
      parameter Units.Voltage V = 1 "height of the step";
      parameter Units.Voltage offset = 0 "voltage before the step";
      parameter Units.Time startTime = 0 "time of the step";
    equation
      v = offset + (if time < startTime then 0 else V);
    end StepVoltage;

    model SineVoltage "Sine voltage source"
      extends Interfaces.OnePort;
      parameter Units.Voltage V = 1 "amplitude";
      parameter Units.Frequency f = 1 "frequency";
      parameter Units.Angle phase = 0 "phase";
      parameter Units.Voltage offset = 0 "offset";
    equation
      v = offset + V*sin(2*3.141592653589793*f*time + phase);
    end SineVoltage;

    model ConstantCurrent "Source of constant current"
      extends Interfaces.OnePort;
      parameter Units.Current I = 1 "value of the constant current";
    equation
      i = I;
    end ConstantCurrent;
  end Sources;
end Analog;
