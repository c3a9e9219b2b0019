model Expressions
  Real a, b, c, d, e;
  Real v[3], m[2, 2];
  Boolean p, q;
  String s;
equation
  a = -b ^ 2 + c * d / e - 1.5e-3 * .5 + 2.;
  b = (a + c) * (d - e) / (1 + a ^ (b + 1));
  c = if p then 1 elseif q then 2 else 3;
  d = if a > b and not p or q then a else b;
  e = a .* b ./ c .^ 2 .+ d .- e;
  p = a <= b and b >= c or a == d and b <> e;
  q = not (a < b);
  v = {1, 2, 3} + {i * 2 for i in 1:3};
  m = [1, 2; 3, 4] * [a, b; c, d];
  v[end] = v[end - 1] + v[1:2] * {1, 1};
  v[2:end] = v[1:end - 1];
  m[:, 1] = {1, 2};
  a = sum(v[i] ^ 2 for i in 1:3);
  b = max(v) + min(1, 2) + abs(-1) + sign(a) + sqrt(4);
  c = Modelica.Math.sin(time) + .Modelica.Constants.pi;
  s = "line one\nline \"two\"\t\\ end" + String(a, significantDigits = 3);
  s = "a string
spanning two lines";
  'quoted var' = 'x.y' + 1;
  d = interp(table = [0, 0; 1, 1], u = time);
  e = 1:2:10 * 0 + 3;
  a = integrate(function f(k = 2), 0, 1);
  (a, b) = (c, d);
  b = noEvent(if a > 0 then a else 0) + smooth(1, a) + delay(a, 0.1);
  c = homotopy(actual = a, simplified = b) + semiLinear(a, b, c);
  d = cat(1, {1}, {2}) * transpose(m) * identity(2);
  e = 9223372036854775807 + 0.0;
end Expressions;
