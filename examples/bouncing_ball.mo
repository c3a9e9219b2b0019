model BouncingBall "A ball dropped on the floor: when / reinit"
  parameter Real g(unit = "m/s2") = 9.81;
  parameter Real e = 0.8 "coefficient of restitution";
  parameter Real h0(unit = "m") = 1;
  Real h(unit = "m", start = h0, fixed = true) "height";
  Real v(unit = "m/s", start = 0, fixed = true);
  Integer bounces(start = 0);
equation
  der(h) = v;
  der(v) = -g;
  when h < 0 then
    reinit(v, -e * pre(v));
    bounces = pre(bounces) + 1;
  end when;
  annotation(experiment(StopTime = 2, Interval = 0.001));
end BouncingBall;
