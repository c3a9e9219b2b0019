//! Mass-spring chains of connected component instances, for the flattening snapshot and the
//! flattening benchmark.

/// A chain of `n` component instances: a wall, then n/2 springs and n/2 masses connected in
/// `for` loops.
pub fn mass_spring_chain(n: usize) -> String {
    format!(
        "connector Flange Real s; flow Real f; end Flange;
model Mass parameter Real m = 1; Flange a; Flange b; Real v;
equation a.s = b.s; v = der(a.s); m*der(v) = a.f + b.f; end Mass;
model Spring parameter Real c = 10; Flange a; Flange b;
equation b.f = c*(b.s - a.s); a.f + b.f = 0; end Spring;
model Fixed Flange a; equation a.s = 0; end Fixed;
model Chain
  parameter Integer n = {};
  Fixed wall;
  Spring s[n];
  Mass m[n];
equation
  connect(wall.a, s[1].a);
  for i in 1:n loop
    connect(s[i].b, m[i].a);
  end for;
  for i in 1:n - 1 loop
    connect(m[i].b, s[i + 1].a);
  end for;
end Chain;
",
        n / 2
    )
}
