model Annotated "with graphical annotations"
  Real x "state" annotation(Dialog(tab = "Initialization", enable = true));
  parameter Real k = 1 annotation(Evaluate = true);
equation
  der(x) = -k * x annotation(__minimo_note = "decay");
  annotation(
    Icon(coordinateSystem(preserveAspectRatio = false, extent = {{-100, -100}, {100, 100}}),
      graphics = {
        Line(points = {{-100, 0}, {100, 0}}, color = {0, 0, 255}),
        Rectangle(extent = {{-70, 30}, {70, -30}}, lineColor = {0, 0, 255}, fillColor = {255, 255, 255},
          fillPattern = FillPattern.Solid),
        Text(extent = {{-150, 90}, {150, 50}}, textString = "%name", textColor = {0, 0, 255}),
        Polygon(points = {{-10, 10}, {10, 0}, {-10, -10}}, smooth = Smooth.Bezier)}),
    Diagram(graphics = {Ellipse(extent = {{-20, 20}, {20, -20}}, startAngle = 0, endAngle = 360)}),
    Documentation(info = "<html>
<p>A first-order <b>decay</b>: der(x) = -k*x.</p>
</html>", revisions = "<html><ul><li>2026: first version</li></ul></html>"),
    experiment(StartTime = 0, StopTime = 10, Tolerance = 1e-06, Interval = 0.02),
    __Dymola_experimentSetupOutput(equidistant = true),
    uses(Modelica(version = "4.0.0")));
end Annotated;
