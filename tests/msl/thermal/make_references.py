"""Regenerates the Thermal reference results in tests/msl/thermal/ (not official MSL results).

Usage: /work/venv/bin/python tests/msl/thermal/make_references.py [--msl DIR] [--only NAME]

For every example of Modelica.Thermal.HeatTransfer.Examples and
Modelica.Thermal.FluidHeatFlow.Examples (MSL 4.1.0, from the package.order files):
- the settings of its `experiment` annotation (StartTime, StopTime, Tolerance);
- a reference from the analytic solution where one is written below (ANALYTIC), else from
  rumoca 0.10.2 (a separate Rust Modelica tool), run in a fresh process from an empty working
  folder with rtol = atol = min(Tolerance, 1e-6) and output every (StopTime - StartTime)/1000;
- the signals: the states rumoca selects plus the model's own (top-level) outputs; every one
  is a variable of the model, so the comparison does not depend on minimo selecting the same
  states; values with 10 significant digits;
- written as <out>/Modelica/Thermal/.../Name/Name.csv with comparisonSignals.txt beside it, the
  layout `minimo regress --reference` reads.
Where rumoca fails, nothing is written and the reason is printed (and must be recorded in the
README); where an analytic solution exists, rumoca's largest deviation from it is printed as a
check of the peer.
"""
import argparse
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
PACKAGES = ["Modelica.Thermal.HeatTransfer.Examples", "Modelica.Thermal.FluidHeatFlow.Examples"]
POINTS = 1000

RUMOCA = r"""
import sys, rumoca, numpy as np
lib, model, t0, t1, dt, tol, out = sys.argv[1:8]
src = "model RefWrapper\n  extends %s;\nend RefWrapper;\n" % model
m = rumoca.Session(roots=[lib]).loads(src, model="RefWrapper", filename="RefWrapper.mo")
r = m.simulate(float(t1), dt=float(dt), config=rumoca.SimConfig(rtol=float(tol), atol=float(tol)))
keys = [v.name for v in m.states] + [v.name for v in m.outputs if "." not in v.name]
keys = [k for k in dict.fromkeys(keys) if k in r.names]
with open(out, "w") as f:
    f.write("time," + ",".join(keys) + "\n")
    cols = [np.asarray(r[k], dtype=float) for k in keys]
    for i, t in enumerate(np.asarray(r.time, dtype=float)):
        f.write(repr(float(t)) + "," + ",".join("%.10g" % float(c[i]) for c in cols) + "\n")
"""


def two_masses(t):
    """Two capacities C1 = C2 = 15 J/K through G = 10 W/K, T1(0) = 373.15 K, T2(0) = 273.15 K:
    the difference decays with tau = C1 C2 / (G (C1 + C2)) = 0.75 s around the mean
    Tf = (C1 T1 + C2 T2) / (C1 + C2) = 323.15 K."""
    c1, c2, g, t1, t2 = 15.0, 15.0, 10.0, 373.15, 273.15
    tau = c1 * c2 / (g * (c1 + c2))
    tf = (c1 * t1 + c2 * t2) / (c1 + c2)
    d = (t1 - t2) * math.exp(-t / tau)
    m1, m2 = tf + c2 / (c1 + c2) * d, tf - c1 / (c1 + c2) * d
    return {"mass1.T": m1, "mass2.T": m2, "Tsensor1.T": m1 - 273.15, "Tsensor2.T": m2 - 273.15,
            "conduction.Q_flow": g * (m1 - m2)}


def generation_of_fmus(t):
    """Q = 1000 sin(w t), w = 4 pi, into two capacities at 293.15 K. Upper part: C = 1.1 and
    2.2 moving together (3.3 J/K): T = T0 + Q^/(3.3 w) (1 - cos w t). Lower part: C1 = 1.1
    (heated) through G = 10 to C2 = 2.2: the energy S = C1 T1 + C2 T2 grows as above, the
    difference D = T1 - T2 obeys D' = -a D + (Q^/C1) sin w t with a = G (1/C1 + 1/C2), D(0) = 0:
    D = (Q^/C1) (a sin w t - w cos w t + w exp(-a t)) / (a^2 + w^2)."""
    q, w, t0, c1, c2, g = 1000.0, 4 * math.pi, 293.15, 1.1, 2.2, 10.0
    rise = q / w * (1 - math.cos(w * t))
    a = g * (1 / c1 + 1 / c2)
    d = q / c1 * (a * math.sin(w * t) - w * math.cos(w * t) + w * math.exp(-a * t)) / (a * a + w * w)
    s = (c1 + c2) * t0 + rise
    return {"directCapacity.heatCapacitor.T": t0 + rise / (c1 + c2),
            "inverseCapacity.mass.T": t0 + rise / (c1 + c2),
            "capacitor3a.T": (s + c2 * d) / (c1 + c2), "capacitor3b.T": (s - c1 * d) / (c1 + c2)}


def controlled_temperature(ts):
    """Not closed-form: the model's equations integrated here by classical RK4 (step 1e-4 s),
    each switching instant located by bisection to 1e-13 s. C = 1 J/K heated by the resistor
    R(T) = 10 (1 + (T - 293.15)/255) on 10 V through an ideal switch (Ron = Goff = 1e-5),
    losing G = 0.1 W/K to 293.15 K; the controller heats (y) while T - 273.15 < ref + 1 after
    heating, and starts when T - 273.15 < ref - 1; ref = 25 + 25 (t - 2)/6 on [2, 8]."""
    def ref(t):
        return 25.0 + (0.0 if t < 2 else min(t - 2.0, 6.0) * 25.0 / 6.0)

    def f(T, on):
        r = 10.0 * (1 + (T - 293.15) / 255.0)
        i = 10.0 / (r + 1e-5) if on else 10.0 / (r + 1e5)
        return i * i * r - 0.1 * (T - 293.15)

    def rk4(T, on, h):
        k1 = f(T, on); k2 = f(T + h / 2 * k1, on); k3 = f(T + h / 2 * k2, on); k4 = f(T + h * k3, on)
        return T + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def g(t, T, on):  # the relation that ends the current mode changes sign at zero
        return (T - 273.15) - (ref(t) + 1) if on else (ref(t) - 1) - (T - 273.15)

    T, on, t, h = 293.15, True, 0.0, 1e-4
    out = []
    for te in ts:
        while t < te - 1e-12:
            hh = min(h, te - t)
            for brk in (2.0, 8.0):  # the ramp's kinks are step ends
                if t < brk < t + hh:
                    hh = brk - t
            T1 = rk4(T, on, hh)
            if g(t + hh, T1, on) >= 0:
                lo, hi = 0.0, hh
                while hi - lo > 1e-13:
                    mid = 0.5 * (lo + hi)
                    if g(t + mid, rk4(T, on, mid), on) >= 0:
                        hi = mid
                    else:
                        lo = mid
                T, t, on = rk4(T, on, hi), t + hi, not on
                continue
            T, t = T1, t + hh
        out.append({"heatCapacitor.T": T, "TRes": T, "temperatureSensor.T": T - 273.15,
                    "ramp.y": ref(te)})
    return out


# Per model: values at one time (a function of t), or at every output time (`many`).
ANALYTIC = {"Modelica.Thermal.HeatTransfer.Examples.TwoMasses": two_masses,
            "Modelica.Thermal.HeatTransfer.Examples.GenerationOfFMUs": generation_of_fmus}
MANY = {"Modelica.Thermal.HeatTransfer.Examples.ControlledTemperature": controlled_temperature}


def examples(msl):
    out = []
    for pkg in PACKAGES:
        folder = msl.joinpath(*pkg.split("."))
        for name in (folder / "package.order").read_text().split():
            f = folder / f"{name}.mo"
            if f.is_file() and "extends Modelica.Icons.Example" in f.read_text():
                out.append((f"{pkg}.{name}", f))
    return out


def experiment(path):
    text = path.read_text()
    m = re.search(r"experiment\s*\(([^)]*)\)", text)
    args = dict(re.findall(r"(\w+)\s*=\s*([-+0-9.eE]+)", m.group(1) if m else ""))
    return (float(args.get("StartTime", 0)), float(args.get("StopTime", 1)),
            float(args.get("Tolerance", 1e-6)))


# Signals the model does not determine, left out of a rumoca reference. ParallelPumpDropOut:
# from t = 0.4 to 0.6 the pump stands still and every mass flow is exactly zero; then each
# port enthalpy enters its equations only as semiLinear(0, h, ...) = 0, so the temperatures
# read from port enthalpies (dTCoolant1/2 = T - T_a or T_b - T, dTmixedCoolant from the
# ambients' port temperatures) are not determined: MLS 3.7.4.5 rule 1 fixes a two-port
# chain's only by the sign convention of the written equations, and no rule covers a
# junction of three ports. rumoca's values there follow its rounding (a circulation of
# 1e-17 through the parallel pipes); the states are determined and stay compared (the
# official Dymola reference of this model compares the five states only).
UNDETERMINED = {
    "Modelica.Thermal.FluidHeatFlow.Examples.ParallelPumpDropOut":
        ["dTCoolant1", "dTCoolant2", "dTmixedCoolant"],
}


def without(keys, rows, drop):
    """The table without the columns named in `drop`."""
    keep = [i for i, k in enumerate(keys) if k not in drop]
    return [keys[i] for i in keep], [[r[0]] + [r[1 + i] for i in keep] for r in rows]


def write(folder, name, keys, rows):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.csv", "w") as f:
        f.write("time," + ",".join(keys) + "\n")
        for row in rows:
            f.write(",".join("%.10g" % float(x) for x in row) + "\n")
    (folder / "comparisonSignals.txt").write_text("time\n" + "\n".join(keys) + "\n")


def read(path):
    lines = path.read_text().split("\n")
    keys = lines[0].split(",")[1:]
    rows = [[float(x) for x in ln.split(",")] for ln in lines[1:] if ln]
    return keys, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--msl", default=str(HERE.parents[3] / "shared" / "msl" / "v4.1.0"))
    ap.add_argument("--out", default=str(HERE))
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    msl = pathlib.Path(args.msl).resolve()
    for model, path in examples(msl):
        if args.only not in model:
            continue
        t0, t1, tol = experiment(path)
        name = model.split(".")[-1]
        folder = pathlib.Path(args.out).joinpath(*model.split("."))
        ts = [t0 + (t1 - t0) * k / POINTS for k in range(POINTS + 1)]
        work = pathlib.Path(tempfile.mkdtemp(prefix="rumoca-"))  # empty: rumoca reads stray .mo
        out = work / "r.csv"
        cmd = [sys.executable, "-c", RUMOCA, str(msl.parent), model, str(t0), str(t1),
               str((t1 - t0) / POINTS), str(min(tol, 1e-6)), str(out)]
        try:
            p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=args.timeout)
            err = p.stderr.strip().splitlines()[-1:] if p.returncode else []
        except subprocess.TimeoutExpired:
            err = [f"rumoca took more than {args.timeout} s"]
        rum = read(out) if out.is_file() and not err else None
        if model in MANY:
            vals = MANY[model](ts)
            f = lambda t, _v=dict(zip(ts, vals)): _v[min(_v, key=lambda x: abs(x - t))]
        elif model in ANALYTIC:
            f = ANALYTIC[model]
        else:
            f = None
        if f is not None:
            kind = "own RK4 integration" if model in MANY else "analytic"
            keys = list(f(0.0))
            write(folder, name, keys, [[t] + [f(t)[k] for k in keys] for t in ts])
            if rum:
                rk, rrows = rum
                dev = max(abs(r[1 + rk.index(k)] - f(r[0])[k]) for r in rrows for k in keys if k in rk)
                print(f"{model}: {kind}; rumoca deviates by at most {dev:.2e}")
            else:
                print(f"{model}: {kind}; rumoca failed: {' '.join(err)[:300]}")
        elif rum:
            keys, rows = without(*rum, UNDETERMINED.get(model, []))
            write(folder, name, keys, rows)
            print(f"{model}: rumoca, {len(rows)} rows, signals {', '.join(keys)}")
        else:
            print(f"{model}: NO REFERENCE, rumoca failed: {' '.join(err)[:300]}")
        for f in work.iterdir():
            f.unlink()
        work.rmdir()


if __name__ == "__main__":
    main()
