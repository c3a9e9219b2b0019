"""Side by side: minimo and rumoca 0.10.2 on the same .mo files, same tolerance.

Usage: PYTHON benches/peers/compare_rumoca.py [--minimo target/release/minimo] [--reps 3]
(PYTHON = a venv with rumoca 0.10.2, see setup.sh; /work/venv has it.)

For each model: whole-process wall time of `minimo simulate FILE ... -o out.csv` (parse,
flatten, structure, simulate, write), and of a fresh `python -c` process that loads, compiles
and simulates the file with rumoca (both include start-up); the median of --reps runs. Accuracy:
the pendulum against an RK4 solution in angle coordinates, the largest error over every output
point (the position error of a pendulum oscillates with its speed, so a few sample times can
catch one solver near a zero and the other near a peak: at 1e-6, t = 1, 2, 3 gave minimo 6.7e-6
vs rumoca 1.4e-6 while the maxima over the run are 7.3e-6 vs 6.1e-6); the chains against each
other and a tighter-tolerance minimo run.
"""
import argparse
import csv
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import gen_chain  # noqa: E402

RUMOCA = """
import sys, rumoca, numpy as np
path, model, stop, dt, tol, out = sys.argv[1:7]
m = rumoca.Session().load(path, model=model)
cfg = rumoca.SimConfig(rtol=float(tol), atol=float(tol))
r = m.simulate(float(stop), dt=float(dt), config=cfg)
keys = [k for k in sys.argv[7].split(',')]
with open(out, 'w') as f:
    f.write('time,' + ','.join(keys) + '\\n')
    cols = [np.asarray(r[k]) for k in keys]
    for i, t in enumerate(np.asarray(r.time)):
        f.write(repr(float(t)) + ',' + ','.join(repr(float(c[i])) for c in cols) + '\\n')
"""


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    names = rows[0]
    cols = {n: [float(r[i]) for r in rows[1:]] for i, n in enumerate(names)}
    return cols


def at(cols, name, t):
    ts, ys = cols["time"], cols[name]
    for i in range(1, len(ts)):
        if ts[i] >= t:
            t0, t1 = ts[i - 1], ts[i]
            if t1 == t0:
                return ys[i]
            return ys[i - 1] + (ys[i] - ys[i - 1]) * (t - t0) / (t1 - t0)
    return ys[-1]


LIMIT = [600.0]


def timed(cmd):
    limit = LIMIT[0]
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{cmd[0]} took more than {limit} s")
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {p.stderr[-2000:]}")
    return dt


def pendulum_angles(phi0, ts, h=1e-5):
    """phi at each of the increasing times ts, by RK4 with a step of about h."""
    p, w, t0, out = phi0, 0.0, 0.0, []
    f = lambda p: -9.81 * math.sin(p)
    for t in ts:
        n = round((t - t0) / h)
        if n > 0:
            hh = (t - t0) / n
            for _ in range(n):
                k1p, k1w = w, f(p)
                k2p, k2w = w + 0.5 * hh * k1w, f(p + 0.5 * hh * k1p)
                k3p, k3w = w + 0.5 * hh * k2w, f(p + 0.5 * hh * k2p)
                k4p, k4w = w + hh * k3w, f(p + hh * k3p)
                p += hh / 6 * (k1p + 2 * k2p + 2 * k3p + k4p)
                w += hh / 6 * (k1w + 2 * k2w + 2 * k3w + k4w)
            t0 = t
        out.append(p)
    return out


def pendulum_error(cols, ts, phis):
    """Largest position error over the times ts (output points)."""
    return max(max(abs(at(cols, "x", t) - math.sin(phi)), abs(at(cols, "y", t) + math.cos(phi)))
               for t, phi in zip(ts, phis))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minimo", default=str(ROOT / "target" / "release" / "minimo"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--only", default="", help="run only the cases whose label contains this")
    ap.add_argument("--limit", type=float, default=600, help="seconds before a run counts as failed")
    args = ap.parse_args()
    LIMIT[0] = args.limit
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="minimo-peers-"))
    gen_chain.__dict__  # models written below
    (tmp / "chain_1000.mo").write_text(gen_chain.chain("Chain1000", 1000, False))
    (tmp / "chain_index2.mo").write_text(gen_chain.driven_chain(100))
    (tmp / "chain_speed.mo").write_text(gen_chain.speed_chain(100))
    cases = [
        ("pendulum", str(ROOT / "examples" / "pendulum.mo"), "Pendulum", 3.0, 0.01, ["x", "y"]),
        ("chain 1000 (connectors, arrays)", str(tmp / "chain_1000.mo"), "Chain1000", 1.0, 0.01,
         ["mass[1].s", "mass[500].s", "mass[1000].s"]),
        ("chain 100 speed-driven (index 2)", str(tmp / "chain_speed.mo"), "ChainSpeed", 1.0, 0.01,
         ["mass[2].s", "mass[50].s", "mass[100].s"]),
        ("chain 100 position-driven (index 3)", str(tmp / "chain_index2.mo"), "ChainIndex2", 1.0, 0.01,
         ["mass[2].s", "mass[50].s", "mass[100].s"]),
    ]
    print(f"tolerance {args.tol}, median of {args.reps} runs, whole process")
    print(f"{'model':38} {'minimo [s]':>11} {'rumoca [s]':>11} {'ratio':>7}  accuracy")
    for label, path, model, stop, dt, keys in cases:
        if args.only not in label:
            continue
        out_m = str(tmp / "m.csv")
        out_r = str(tmp / "r.csv")
        cmd_m = [args.minimo, "simulate", path, "-m", model, "--stop-time", str(stop), "--interval", str(dt),
                 "--tolerance", str(args.tol), "-o", out_m]
        cmd_r = [sys.executable, "-c", RUMOCA, path, model, str(stop), str(dt), str(args.tol), out_r, ",".join(keys)]
        tm = statistics.median(timed(cmd_m) for _ in range(args.reps))
        try:
            tr = statistics.median(timed(cmd_r) for _ in range(args.reps))
        except RuntimeError as e:
            tr = float("nan")
            print(f"   rumoca: {str(e).strip().splitlines()[-1][:300]}", flush=True)
        m = read_csv(out_m)
        acc = []
        if model == "Pendulum":
            ts = [round(k * dt, 10) for k in range(1, round(stop / dt) + 1)]
            phis = pendulum_angles(0.6, ts)
            acc.append(f"max over t: minimo {pendulum_error(m, ts, phis):.1e}")
            if os.path.exists(out_r) and not math.isnan(tr):
                acc[-1] += f" rumoca {pendulum_error(read_csv(out_r), ts, phis):.1e}"
        else:
            ref = str(tmp / "ref.csv")
            cmd_ref = [a if a != str(args.tol) else "1e-10" for a in cmd_m[:-2]] + ["-o", ref]
            subprocess.run(cmd_ref, check=True, capture_output=True)
            ref = read_csv(ref)
            em = max(abs(at(m, k, stop) - at(ref, k, stop)) for k in keys)
            acc.append(f"minimo {em:.1e}")
            if os.path.exists(out_r) and not math.isnan(tr):
                r = read_csv(out_r)
                er = max(abs(at(r, k, stop) - at(ref, k, stop)) for k in keys)
                acc.append(f"rumoca {er:.1e} (vs minimo at 1e-10)")
        print(f"{label:38} {tm:11.3f} {tr:11.3f} {tm / tr:7.3f}  {'; '.join(acc)}", flush=True)
        for f in (out_m, out_r):
            if os.path.exists(f):
                os.remove(f)


if __name__ == "__main__":
    main()
