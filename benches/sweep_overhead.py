"""Per-run overhead of sweeps: the 1000-run pendulum sweep against 1000 x one integration.

    python benches/sweep_overhead.py [path/to/minimo]     # the venv with the minimo package

Measures, on examples/pendulum.mo (stop time 3 s, 3001 output points, tolerance 1e-8):
  - one run's integration time (the `integrate_time` statistic, median of 20 runs);
  - `minimo.sweep` of 1000 runs over L on one thread (and on every core);
  - 1000 x `model.simulate(params=...)` from Python (all trajectories returned);
  - `minimo sweep --set-grid L=0.5:2:1000 -j 1` (the CLI, one process);
  - 100 x `minimo simulate --set L=...` processes, scaled to 1000 (the CLI one run at a time).
The goal of issue 15: the sweep costs under 2 x (1000 x one integration).
"""

import os
import statistics
import subprocess
import tempfile
import sys
import time

import numpy as np

import minimo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PENDULUM = os.path.join(ROOT, "examples", "pendulum.mo")
EXE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "minimo")
N = 1000
OUT = tempfile.mkdtemp(prefix="minimo-bench-")


def wall(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def main():
    t_load, m = wall(lambda: minimo.load(PENDULUM))
    runs = [m.simulate(params={"L": 1.0}) for _ in range(20)]
    integ = statistics.median(r.stats["integrate_time"] for r in runs)
    compile_t = statistics.median(r.stats["compile_time"] for r in runs)
    grid = {"L": np.linspace(0.5, 2.0, N)}
    t_sweep1, table = wall(lambda: minimo.sweep(m, grid, jobs=1))
    assert table["error"].isna().all()
    t_sweep_all, _ = wall(lambda: minimo.sweep(m, grid, jobs=0))
    t_loop, _ = wall(lambda: [m.simulate(params={"L": float(x)}) for x in grid["L"]])
    t_cli_sweep, p = wall(lambda: subprocess.run(
        [EXE, "sweep", PENDULUM, "--set-grid", f"L=0.5:2:{N}", "-j", "1", "-o", os.path.join(OUT, "sweep.csv")],
        capture_output=True))
    assert p.returncode == 0, p.stderr
    k = 100

    def cli_runs():
        for x in np.linspace(0.5, 2.0, k):
            q = subprocess.run([EXE, "simulate", PENDULUM, "--set", f"L={float(x)!r}", "-o", os.path.join(OUT, "run.csv")],
                               capture_output=True)
            assert q.returncode == 0, q.stderr

    t_cli_k, _ = wall(cli_runs)
    t_cli = t_cli_k * N / k
    ideal = N * integ
    print(f"cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.1f}")
    print(f"load + flatten + analyse once:          {t_load * 1e3:8.1f} ms")
    print(f"one run: integration {integ * 1e3:.2f} ms, compile {compile_t * 1e3:.3f} ms")
    print(f"1000 x one integration:                 {ideal:8.2f} s   (1.00)")
    print(f"minimo.sweep, 1 thread:                 {t_sweep1:8.2f} s   ({t_sweep1 / ideal:.2f})")
    print(f"minimo.sweep, every core:               {t_sweep_all:8.2f} s   ({t_sweep_all / ideal:.2f})")
    print(f"1000 x model.simulate (Python loop):    {t_loop:8.2f} s   ({t_loop / ideal:.2f})")
    print(f"minimo sweep -j 1 (CLI, one process):   {t_cli_sweep:8.2f} s   ({t_cli_sweep / ideal:.2f})")
    print(f"1000 x minimo simulate (CLI, from {k}): {t_cli:8.2f} s   ({t_cli / ideal:.2f})")


if __name__ == "__main__":
    main()
