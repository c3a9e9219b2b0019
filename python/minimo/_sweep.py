"""Parameter sweeps: local threads by default, a Dask cluster when given a client.

Why Dask (and not Ray): the results are a pandas table, and Dask is the scheduler of the
pandas/numpy world: ``dask.distributed`` is a pure-Python install from PyPI, ``LocalCluster``
runs the same code on one machine (the tests use it), and a real cluster is one address away
(``Client("tcp://scheduler:8786")``, or dask-jobqueue on SLURM/PBS, dask-kubernetes,
Coiled). Ray would bring its own object store and a much larger install for a task that is
embarrassingly parallel and ships only a few numbers per run.

On a cluster the runs are cut into chunks; a task loads the model on its worker (once per
worker process: the model travels as its text, so the workers need no shared file system;
``libs`` folders must exist on the workers), groups its runs by structural values (one
flattening per value per worker) and runs them with the GIL released. The rows come back in
the order of the runs, so the table is the same as the local one.
"""

from __future__ import annotations

import itertools
from typing import Mapping, Optional, Sequence

import numpy as np

_COLUMNS_ERROR = "error"


def grid(axes: Mapping[str, Sequence[float]]):
    """The Cartesian product of ``{name: values}``, the first name varying slowest (like
    ``minimo sweep --set-grid``): returns ``(names, runs)``."""
    names = list(axes)
    runs = [list(map(float, r)) for r in itertools.product(*(list(axes[n]) for n in names))]
    return names, runs


def samples(axes: Mapping, n: int, seed: int = 0):
    """``n`` random runs: an axis ``(lo, hi)`` is drawn uniformly, a list one of its values.
    Uses numpy's ``default_rng(seed)``. Returns a pandas DataFrame (one row per run) when pandas
    is installed, else ``(names, runs)``."""
    rng = np.random.default_rng(seed)
    cols = {}
    for name, ax in axes.items():
        if isinstance(ax, tuple) and len(ax) == 2:
            cols[name] = rng.uniform(float(ax[0]), float(ax[1]), n)
        else:
            values = np.asarray(list(ax), dtype=float)
            cols[name] = values[rng.integers(0, len(values), n)]
    try:
        import pandas as pd
    except ImportError:
        names = list(cols)
        return names, [[float(cols[k][i]) for k in names] for i in range(n)]
    return pd.DataFrame(cols)


def _runs(grid_or_samples):
    """(names, runs) from a dict of axes, a list of dicts, a DataFrame or (names, runs)."""
    g = grid_or_samples
    if isinstance(g, Mapping):
        return grid(g)
    if hasattr(g, "columns") and hasattr(g, "to_numpy"):  # a pandas DataFrame
        return [str(c) for c in g.columns], g.to_numpy(dtype=float).tolist()
    if isinstance(g, tuple) and len(g) == 2 and not isinstance(g[0], Mapping):
        names, runs = g
        return list(names), [list(map(float, r)) for r in runs]
    rows = list(g)
    if not rows:
        return [], []
    names = list(rows[0])
    for r in rows:
        if list(r) != names:
            raise ValueError("every run must set the same parameters, in the same order")
    return names, [[float(r[n]) for n in names] for r in rows]


def _chunk(model, names, runs, opts, jobs):
    """Runs ``runs`` on this process: (columns, values, errors). Runs are grouped by their
    structural values; each group uses the model flattened for them (cached per process)."""
    info = model.parameters
    skeys = [i for i, n in enumerate(names) if n in info and info[n].structural]
    if not skeys:
        cols, values, errors = model._c.sweep(names, runs, *opts, jobs)
        return list(cols), np.asarray(values), list(errors)
    rest = [i for i in range(len(names)) if i not in skeys]
    groups = {}
    for k, r in enumerate(runs):
        key = tuple(sorted((names[i], float(r[i])) for i in skeys))
        groups.setdefault(key, []).append(k)
    out_cols, out = [], [None] * len(runs)
    for key, idx in groups.items():
        try:
            m = model._variant(key)
        except Exception as e:  # the structural value cannot be flattened: its runs fail
            for k in idx:
                out[k] = ({}, getattr(e, "text", str(e)))
            continue
        cols, values, errors = m._c.sweep([names[i] for i in rest],
                                          [[runs[k][i] for i in rest] for k in idx], *opts, jobs)
        for c in cols:
            if c not in out_cols:
                out_cols.append(c)
        for j, k in enumerate(idx):
            out[k] = (dict(zip(cols, values[j])), errors[j])
    # Columns in order of first appearance over the runs, as the command line writes them.
    order = []
    for row, _ in out:
        for c in row:
            if c not in order:
                order.append(c)
    values = np.array([[row.get(c, np.nan) for c in order] for row, _ in out], dtype=float)
    values = values.reshape(len(runs), len(order))
    return order, values, [e for _, e in out]


def _task(model, names, runs, opts, jobs):
    return _chunk(model, names, runs, opts, jobs)


def _table(names, runs, parts):
    """One pandas DataFrame: index ``run``, the parameters, the reported columns, ``error``."""
    import pandas as pd

    frames = []
    start = 0
    for cols, values, errors in parts:
        n = len(errors)
        df = pd.DataFrame(np.asarray(values).reshape(n, len(cols)), columns=list(cols))
        df.index = pd.RangeIndex(start, start + n, name="run")
        df[_COLUMNS_ERROR] = pd.Series(errors, index=df.index, dtype=object)
        frames.append(df)
        start += n
    out = pd.concat(frames, sort=False) if frames else pd.DataFrame({_COLUMNS_ERROR: []})
    # Parameters first, then the outputs in order of first appearance, then `error`.
    outputs = [c for c in out.columns if c != _COLUMNS_ERROR]
    params = pd.DataFrame(np.asarray(runs, dtype=float).reshape(len(runs), len(names)),
                          columns=names, index=pd.RangeIndex(0, len(runs), name="run"))
    out = out.reindex(params.index)
    return pd.concat([params, out[outputs], out[[_COLUMNS_ERROR]]], axis=1)


def sweep(model, grid_or_samples, client=None, *, stop_time: Optional[float] = None,
          start_time: Optional[float] = None, interval: Optional[float] = None,
          tolerance: Optional[float] = None, solver: str = "bdf",
          params: Optional[Mapping[str, float]] = None, vars: Optional[str] = None,
          stats: Sequence[str] = ("final",), jobs: int = 0, chunks: Optional[int] = None):
    """Simulates ``model`` once per run and returns one pandas DataFrame (one row per run).

    ``grid_or_samples``: ``{name: values}`` (the Cartesian grid, the first name varying
    slowest), a DataFrame or a list of ``{name: value}`` dicts (one run each, e.g. from
    :func:`samples`). ``params``: overrides common to every run. ``vars``: a regular expression
    of the reported variables (default: the states); ``stats``: any of final, min, max, mean
    (columns ``x``, ``min(x)``, ...). Without ``client`` the runs use ``jobs`` threads of this
    process (0: one per core). With a ``dask.distributed.Client`` they are cut into ``chunks``
    tasks (default: four per worker thread) run on the cluster. A failed run is a row with its
    message in ``error`` and NaN values; the columns are the same as ``minimo sweep`` writes.
    """
    names, runs = _runs(grid_or_samples)
    common = dict(params or {})
    structural_common, rest_common = model._split(common)
    base = model._variant(structural_common)
    opts = (start_time, stop_time, interval, tolerance, solver, rest_common, vars, list(stats))
    if client is None:
        # minimo::sweep groups the runs by structural values (one flattening per group, the
        # groups in parallel) and runs them on `jobs` threads, the GIL released.
        cols, values, errors = base._c.sweep(names, runs, *opts, jobs)
        return _table(names, runs, [(list(cols), np.asarray(values), list(errors))])
    if chunks is None:
        threads = sum(client.nthreads().values()) or 1
        chunks = 4 * threads
    chunks = max(1, min(int(chunks), len(runs)))
    bounds = np.linspace(0, len(runs), chunks + 1).astype(int)
    pieces = [runs[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    [remote] = client.scatter([base], broadcast=True)
    futures = client.map(_task, [remote] * len(pieces), [names] * len(pieces), pieces,
                         [opts] * len(pieces), [1] * len(pieces), pure=False)
    parts = client.gather(futures)
    return _table(names, runs, parts)
