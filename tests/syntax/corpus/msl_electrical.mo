within Modelica.Electrical.Analog;
package Basic "Basic electrical components"
  extends Modelica.Icons.Package;

  model Resistor "Ideal linear electrical resistor"
    parameter SI.Resistance R(start = 1) "Resistance at temperature T_ref";
    parameter SI.Temperature T_ref = 300.15 "Reference temperature";
    parameter SI.LinearTemperatureCoefficient alpha = 0
      "Temperature coefficient of resistance (R_actual = R*(1 + alpha*(T_heatPort - T_ref))";
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    extends Modelica.Electrical.Analog.Interfaces.ConditionalHeatPort(T = T_ref);
    SI.Resistance R_actual "Actual resistance = R*(1 + alpha*(T_heatPort - T_ref))";
  equation
    assert((1 + alpha * (T_heatPort - T_ref)) >= Modelica.Constants.eps,
      "Temperature outside scope of model!");
    R_actual = R * (1 + alpha * (T_heatPort - T_ref));
    v = R_actual * i;
    LossPower = v * i;
    annotation(
      Documentation(info = "<html>
<p>The linear resistor connects the branch voltage <em>v</em> with the branch current <em>i</em> by <em>i*R = v</em>.</p>
</html>", revisions = "<html>
<ul><li><em>August 07, 2009</em> by Anton Haumer: temperature dependency of resistance added</li></ul>
</html>"),
      Icon(coordinateSystem(preserveAspectRatio = true, extent = {{-100, -100}, {100, 100}}), graphics = {
        Rectangle(extent = {{-70, 30}, {70, -30}}, lineColor = {0, 0, 255}, fillColor = {255, 255, 255},
          fillPattern = FillPattern.Solid),
        Line(points = {{-90, 0}, {-70, 0}}, color = {0, 0, 255}),
        Line(points = {{70, 0}, {90, 0}}, color = {0, 0, 255}),
        Line(visible = useHeatPort, points = {{0, -100}, {0, -30}}, color = {127, 0, 0}, pattern = LinePattern.Dot),
        Text(extent = {{-150, 90}, {150, 50}}, textString = "%name", textColor = {0, 0, 255})}));
  end Resistor;

  model HeatingResistor "Temperature dependent electrical resistor"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    parameter SI.Resistance R_ref(start = 1);
    SI.Resistance R;
    Modelica.Thermal.HeatTransfer.Interfaces.HeatPort_a heatPort annotation(
      Placement(transformation(origin = {0, -100}, extent = {{-10, -10}, {10, 10}}, rotation = 90)));
  equation
    R = R_ref * (1 + alpha * (heatPort.T - T_ref));
    v = R * i;
    heatPort.Q_flow = -v * i;
  end HeatingResistor;

  model VariableResistor "Ideal linear electrical resistor with variable resistance"
    extends Modelica.Electrical.Analog.Interfaces.OnePort;
    Modelica.Blocks.Interfaces.RealInput R(unit = "Ohm") annotation(Placement(transformation(
      origin = {0, 120}, extent = {{-20, -20}, {20, 20}}, rotation = 270)));
  equation
    assert(R >= 0, "Resistance must not be negative", level = AssertionLevel.warning);
    v = R * i;
  end VariableResistor;

  partial model ConditionalHeatPort
    parameter Boolean useHeatPort = false "=true, if heatPort is enabled" annotation(
      Evaluate = true, HideResult = true, choices(checkBox = true));
    parameter SI.Temperature T = 293.15 "Fixed device temperature if useHeatPort = false"
      annotation(Dialog(enable = not useHeatPort));
    Modelica.Thermal.HeatTransfer.Interfaces.HeatPort_a heatPort(T(start = T) = T_heatPort,
      Q_flow = -LossPower) if useHeatPort;
    SI.Power LossPower "Loss power leaving component via heatPort";
    SI.Temperature T_heatPort "Temperature of heatPort";
  equation
    if not useHeatPort then
      T_heatPort = T;
    end if;
  end ConditionalHeatPort;

  model Ground "Ground node"
    Interfaces.Pin p annotation(Placement(transformation(origin = {0, 100}, extent = {{10, -10}, {-10, 10}},
      rotation = 270)));
  equation
    p.v = 0.0;
  end Ground;

  expandable connector ControlBus "Control bus"
    extends Modelica.Icons.SignalBus;
    SI.AngularVelocity motorSpeed "Speed of the motor" annotation(HideResult = false);
  end ControlBus;

  model Transformer "Transformer with two ports"
    extends Interfaces.TwoPort;
    parameter SI.Inductance L1(start = 1) "Primary inductance";
    parameter SI.Inductance L2(start = 1) "Secondary inductance";
    parameter SI.Inductance M(start = 1) "Coupling inductance";
  equation
    v1 = L1 * der(i1) + M * der(i2);
    v2 = M * der(i1) + L2 * der(i2);
  end Transformer;

  model MultiSensor
    parameter Integer m(final min = 1) = 3 "Number of phases";
    Interfaces.PositivePin pc[m];
    Interfaces.NegativePin nc[m];
    Modelica.Blocks.Interfaces.RealOutput i[m](each final quantity = "ElectricCurrent", each final unit = "A");
  equation
    for k in 1:m loop
      pc[k].i + nc[k].i = 0;
      i[k] = pc[k].i;
    end for;
    connect(pc, nc) annotation(Line(points = {{-100, 0}, {100, 0}}, color = {0, 0, 255}));
  end MultiSensor;
  annotation(Documentation(info = "<html><p>Basic components.</p></html>"));
end Basic;
