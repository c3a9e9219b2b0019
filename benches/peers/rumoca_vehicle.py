"""Peer timing: the omni vehicle (compliant roller contacts) in minimo and in rumoca 0.10.2.

The same library model as tests/multibody/rumoca_vehicle_compliant.py (every roller's normal law
a linear penalty, k = 1e5 N/m, d = 1e3 N.s/m; motion 1; 1 s of model time; rtol 1e-6): rumoca
cannot run the rigid contact (no index reduction). rumoca gets the library copy of
tests/multibody/rumoca_patch.py (causal prefixes of the frames dropped). Prints whole-process
wall times (minimo: parse, flatten, structure, simulate, write; rumoca: compile and simulate in
this process, Python start-up excluded) and the largest differences of the platform's
trajectory over the output points.

Usage: PYTHON benches/peers/rumoca_vehicle.py [--minimo target/release/minimo]
(PYTHON = the venv of setup.sh.)
"""
import argparse
import bisect
import csv
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

import numpy as np  # noqa: E402
import rumoca  # noqa: E402
from rumoca_patch import patched_stdlib  # noqa: E402

MODEL = """model VehicleCompliant
  Minimo.Multibody.Omni.Vehicle vehicle(
    redeclare model NormalLaw = Minimo.Multibody.Contacts.Elastic.LinearPenalty(k = 1e5),
    redeclare model DampingLaw = Minimo.Multibody.Contacts.Damping.Linear(d = 1e3));
end VehicleCompliant;
"""
COLS = ["vehicle.platform.r[1]", "vehicle.platform.v[1]", "vehicle.heading"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minimo", default=str(ROOT / "target" / "release" / "minimo"))
    args = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="minimo-vehicle-"))
    src = tmp / "VehicleCompliant.mo"
    src.write_text(MODEL)

    out = tmp / "minimo.csv"
    t0 = time.perf_counter()
    subprocess.run([args.minimo, "simulate", str(src), "--stop-time", "1", "--interval", "0.01",
                    "--tolerance", "1e-6", "-o", str(out)], check=True)
    wall_m = time.perf_counter() - t0
    with open(out) as f:
        rows = list(csv.reader(f))
    names = rows[0]
    mine = {n: [float(r[i]) for r in rows[1:]] for i, n in enumerate(names)}

    t0 = time.perf_counter()
    lib = patched_stdlib(tmp / "stdlib")
    m = rumoca.Session(roots=[str(lib)]).load(str(src), model="VehicleCompliant")
    r = m.simulate(1.0, dt=0.01, config=rumoca.SimConfig(rtol=1e-6, atol=1e-8))
    wall_r = time.perf_counter() - t0

    print(f"minimo: {wall_m:.2f} s   rumoca {rumoca.version()}: {wall_r:.1f} s   "
          f"ratio {wall_r / wall_m:.0f}x")
    ts = mine["time"]
    for c in COLS:
        theirs = np.array(r[c])
        worst = 0.0
        for t, y in zip(np.array(r.time), theirs):
            i = min(bisect.bisect_left(ts, t - 1e-12), len(ts) - 1)
            worst = max(worst, abs(mine[c][i] - y))
        print(f"  {c}: largest difference {worst:.2e}")


if __name__ == "__main__":
    main()
