"""Writes the chain models used by the benchmarks and the rumoca comparison.

Usage: python gen_chain.py OUTDIR
  chain_N.mo        : N masses built from connectors and component arrays (N = 1000 ... 50000)
  chain_index2.mo   : 100 masses, the first one driven by a prescribed position (index 3)
  chain_speed.mo    : 100 masses, the first one driven by a prescribed velocity (index 2)
"""
import pathlib
import sys

LIB = """  connector Flange
    Real s(unit = "m");
    flow Real f(unit = "N");
  end Flange;
  model Mass
    parameter Real m(unit = "kg") = 1;
    Flange a, b;
    Real s(unit = "m", start = 0, fixed = true);
    Real v(unit = "m/s", start = 0, fixed = true);
  equation
    s = a.s;
    s = b.s;
    der(s) = v;
    m * der(v) = a.f + b.f;
  end Mass;
  model SpringDamper
    parameter Real c(unit = "N/m") = 100;
    parameter Real d(unit = "N.s/m") = 0.5;
    Flange a, b;
    Real f(unit = "N");
  equation
    f = c * (b.s - a.s) + d * (der(b.s) - der(a.s));
    a.f = -f;
    b.f = f;
  end SpringDamper;
  model Fixed
    Flange a;
  equation
    a.s = 0;
  end Fixed;
  model Force
    parameter Real F(unit = "N") = 1;
    Flange a;
  equation
    a.f = -F;
  end Force;
  model Speed "prescribed velocity of the flange: der(s) = V sin(w t)"
    parameter Real V(unit = "m/s") = 0.3;
    parameter Real w(unit = "rad/s") = 3;
    Flange a;
  equation
    der(a.s) = V * sin(w * time);
  end Speed;
  model Position "prescribed position s = A (1 - cos(w t)): at rest at t = 0, like the masses"
    parameter Real A(unit = "m") = 0.1;
    parameter Real w(unit = "rad/s") = 3;
    Flange a;
  equation
    a.s = A * (1 - cos(w * time));
  end Position;
"""


def chain(name, n, driven):
    first = "  Position src;\n" if driven else "  Fixed wall;\n"
    conn0 = "src.a" if driven else "wall.a"
    pull = "" if driven else "  Force pull;\n"
    end = "" if driven else "  connect(mass[n].b, pull.a);\n"
    return f"""model {name}
{LIB}  constant Integer n = {n};
{first}  SpringDamper sd[n];
  Mass mass[n];
{pull}equation
  connect({conn0}, sd[1].a);
  for i in 1:n loop
    connect(sd[i].b, mass[i].a);
  end for;
  for i in 1:n - 1 loop
    connect(mass[i].b, sd[i + 1].a);
  end for;
{end}  annotation(experiment(StopTime = 1, Interval = 0.01, Tolerance = 1e-6));
end {name};
"""


def _source_chain(name, source, n):
    return f"""model {name}
{LIB}  constant Integer n = {n};
  {source} src;
  Mass mass[n];
  SpringDamper sd[n - 1];
equation
  connect(src.a, mass[1].a);
  for i in 1:n - 1 loop
    connect(mass[i].b, sd[i].a);
    connect(sd[i].b, mass[i + 1].a);
  end for;
  annotation(experiment(StopTime = 1, Interval = 0.01, Tolerance = 1e-6));
end {name};
"""


def driven_chain(n):
    # The prescribed position acts directly on the first mass: its position is known, so its
    # velocity and acceleration come from differentiating the constraint (index reduction).
    return _source_chain("ChainIndex2", "Position", n)


def speed_chain(n):
    # A prescribed velocity on the first mass: a velocity-level constraint whose reaction force is
    # algebraic. Index 2: the constraint is differentiated once (the position-driven chain above
    # differentiates its constraint twice: index 3).
    return _source_chain("ChainSpeed", "Speed", n)


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    for n in (100, 500, 1000, 5000, 50000):
        (out / f"chain_{n}.mo").write_text(chain(f"Chain{n}", n, False))
    (out / "chain_index2.mo").write_text(driven_chain(100))
    (out / "chain_speed.mo").write_text(speed_chain(100))
