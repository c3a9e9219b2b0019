"""Validate and simulate the multibody examples with rumoca 0.10.2 (an independent Modelica compiler).

Usage: /work/venv/bin/python tests/multibody/rumoca_check.py [Model ...]
Prints, per example: rumoca's diagnostics on the original file, then whether it compiles and
simulates against the patched library copy (see rumoca_patch.py), with a few physics figures.
"""
import glob
import pathlib
import sys
import time

import numpy as np
import rumoca

from rumoca_patch import ROOT, patched_stdlib

LIB = patched_stdlib(pathlib.Path("/tmp/minimo_stdlib_rumoca"))


def load(path, name):
    return rumoca.Session(roots=[str(LIB)]).load(str(path), model=name)


def main(names):
    files = sorted(glob.glob(str(ROOT / "examples" / "multibody" / "*.mo")))
    for f in files:
        name = pathlib.Path(f).stem
        if names and name not in names:
            continue
        print(f"== {name}: validate {rumoca.validate(f)}")
        try:
            t = time.time()
            m = load(f, name)
            print(f"   compiled in {time.time() - t:.1f}s: {m.summary()}")
        except Exception as e:  # rumoca raises its own error types
            print("   compile error:", str(e).splitlines()[0])
            continue
        try:
            t = time.time()
            r = m.simulate(float(sys.argv[-1]) if sys.argv[-1].replace('.', '').isdigit() else 1.0, dt=0.01)
            print(f"   simulated in {time.time() - t:.1f}s, {r.metrics}")
            yield name, r
        except Exception as e:
            print("   simulation error:", str(e).splitlines()[0])


if __name__ == "__main__":
    for name, r in main([a for a in sys.argv[1:] if not a.replace('.', '').isdigit()]):
        for key in ("roller.E", "E", "contact.h", "disc.r[1]", "disc.r[3]", "wheel.wheel.r[2]", "vehicle.platform.r[1]"):
            if key in r.names:
                v = np.array(r[key])
                print(f"   {key}: first {v[0]:.6g} last {v[-1]:.6g} min {v.min():.6g} max {v.max():.6g}")
