"""A notebook-style study of the pendulum: one run, then a sweep, plotted to a PNG.

    python python/examples/pendulum_study.py [out.png]      # needs matplotlib and pandas

Each `# %%` cell can be run on its own in Jupyter or VS Code.
"""

# %% Load once: parse, flatten, index-reduce, select the states.
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only; drop this line in a notebook
import matplotlib.pyplot as plt
import numpy as np

import minimo

here = os.path.dirname(os.path.abspath(__file__))
model = minimo.load(os.path.join(here, "..", "..", "examples", "pendulum.mo"))
print(model.name, {n: p.value for n, p in model.parameters.items()})

# %% One simulation: numpy arrays (and res.df, a pandas DataFrame).
res = model.simulate(stop_time=5, params={"phi0": 1.2})
print(res, res.stats["steps"], "steps")

# %% A sweep: the period grows with the length and with the amplitude.
table = minimo.sweep(model, {"L": np.linspace(0.25, 2.0, 8), "phi0": [0.2, 0.8, 1.4]},
                     stop_time=5, vars="^x$")
print(table.head())

# %% Plot: a trajectory, and the final x against L for each amplitude.
fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
a.plot(res.time, res["x"], label="x")
a.plot(res.time, res["y"], label="y")
a.set_xlabel("time [s]")
a.set_ylabel("position [m]")
a.set_title("phi0 = 1.2 rad, L = 1 m")
a.legend()
for phi0, rows in table.groupby("phi0"):
    b.plot(rows["L"], rows["x"] / rows["L"], "o-", label=f"phi0 = {phi0}")
b.set_xlabel("L [m]")
b.set_ylabel("x / L at t = 5 s")
b.set_title("sweep: 24 runs")
b.legend()
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "pendulum_study.png"
fig.savefig(out, dpi=100)
print("wrote", out)
