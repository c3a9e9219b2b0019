"""Peer timing: Exudyn on the compliant rolling disc of examples/multibody/RollingDisc.mo.

Runs the same case as tests/multibody/exudyn_rolling_disc.py (2 s of model time) with several fixed
steps and prints wall time per run, so it can be compared with
`minimo simulate examples/multibody/RollingDisc.mo --stats` (adaptive BDF, tolerance 1e-8).
Exudyn is a peer for measurement only, never a dependency.

Usage: /work/venv/bin/python benches/peers/exudyn_rolling_disc.py
"""
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "multibody"))

import numpy as np  # noqa: E402
from exudyn_rolling_disc import build  # noqa: E402


def main():
    ref = None
    for step in (1e-3, 1e-4, 2e-5):
        SC, mbs, sim, sensors = build(step)
        t0 = time.perf_counter()
        mbs.SolveDynamic(sim)
        wall = time.perf_counter() - t0
        pos = mbs.GetSensorStoredData(sensors["pos"])
        if ref is None or step < 5e-5:
            ref = pos if ref is None else ref
        print(f"exudyn step {step:g}: wall {wall:.3f} s, {int(round(2.0 / step))} steps, "
              f"final centre {np.round(pos[-1, 1:4], 6)}")


if __name__ == "__main__":
    main()
