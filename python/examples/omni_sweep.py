"""The omni wheel over friction and roller count: 1000 runs on a local Dask cluster.

    python python/examples/omni_sweep.py [--runs-per-count 250] [--workers 2] [--stop-time 0.3]
           [--address tcp://scheduler:8786] [-o omni_sweep.csv] [--png omni_sweep.png]

`wheel.nRollers` is structural: it is the size of the roller arrays, so it changes the equations.
The sweep flattens the model once per roller count (on each worker that meets it) and reuses that
model for every friction value; `wheel.muFriction` is an ordinary parameter. With --address the
runs go to an existing Dask scheduler instead of a local cluster (the package must be installed
on its workers).
"""

import argparse
import os
import time

import numpy as np

import minimo

here = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(here, "..", "..", "examples", "multibody", "OmniWheelRolling.mo")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs-per-count", type=int, default=250)
    ap.add_argument("--counts", default="3,4,5,6", help="roller counts")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--stop-time", type=float, default=0.3)
    ap.add_argument("--address", help="a Dask scheduler to use instead of a local cluster")
    ap.add_argument("-o", "--output", default="omni_sweep.csv")
    ap.add_argument("--png", help="also plot the final speed against friction")
    a = ap.parse_args()

    from dask.distributed import Client, LocalCluster

    model = minimo.load(MODEL)
    p = model.parameters
    print(f"{model.name}: wheel.nRollers structural = {p['wheel.nRollers'].structural}, "
          f"wheel.muFriction structural = {p['wheel.muFriction'].structural}")
    grid = {
        "wheel.nRollers": [int(c) for c in a.counts.split(",")],
        "wheel.muFriction": np.linspace(0.05, 1.0, a.runs_per_count),
    }
    if a.address:
        client, cluster = Client(a.address), None
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    try:
        t0 = time.perf_counter()
        table = minimo.sweep(model, grid, client=client, stop_time=a.stop_time, interval=0.01,
                             vars=r"^wheel\.frame\.(r|v)\[")
        spent = time.perf_counter() - t0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    failed = int(table["error"].notna().sum())
    print(f"{len(table)} runs on {a.workers if not a.address else 'the'} workers in {spent:.1f} s "
          f"({failed} failed)")
    table.to_csv(a.output)
    print("wrote", a.output)
    if a.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for n, rows in table.groupby("wheel.nRollers"):
            speed = np.hypot(rows["wheel.frame.v[1]"], rows["wheel.frame.v[3]"])
            ax.plot(rows["wheel.muFriction"], speed, label=f"{int(n)} rollers")
        ax.set_xlabel("muFriction")
        ax.set_ylabel(f"ground speed at t = {a.stop_time} s [m/s]")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.png, dpi=100)
        print("wrote", a.png)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
