"""minimo.sweep: local threads, structural values, and a Dask LocalCluster equal to serial runs."""

import numpy as np
import pytest

import minimo

pd = pytest.importorskip("pandas")


def test_local_grid_equals_single_simulations(pendulum_path):
    m = minimo.load(pendulum_path)
    t = minimo.sweep(m, {"L": [0.5, 1.0, 2.0], "phi0": [0.1, 0.4]}, stop_time=1,
                     stats=("final", "max"))
    assert list(t.columns[:2]) == ["L", "phi0"] and t.columns[-1] == "error"
    assert len(t) == 6 and t.index.name == "run"
    assert list(t["L"]) == [0.5, 0.5, 1.0, 1.0, 2.0, 2.0]
    assert t["error"].isna().all()
    for _, row in t.iterrows():
        r = m.simulate(stop_time=1, params={"L": row["L"], "phi0": row["phi0"]})
        assert row["x"] == r["x"][-1]
        assert row["max(x)"] == r["x"].max()


def test_threads_do_not_change_the_table(pendulum_path):
    m = minimo.load(pendulum_path)
    runs = minimo.samples({"L": (0.5, 2.0), "m": [1.0, 2.0]}, 12, seed=3)
    a = minimo.sweep(m, runs, stop_time=0.5, jobs=1)
    b = minimo.sweep(m, runs, stop_time=0.5, jobs=3)
    pd.testing.assert_frame_equal(a, b)


def test_structural_axis_and_failures(decay_path):
    m = minimo.load(decay_path)
    t = minimo.sweep(m, {"n": [1, 3], "k": [0.5, 7.0]})
    assert list(t.columns) == ["n", "k", "x[1]", "x[2]", "x[3]", "error"]
    ok = t[t["error"].isna()]
    assert list(ok["n"]) == [1.0, 3.0]
    assert np.isnan(ok["x[2]"].iloc[0])
    np.testing.assert_allclose(ok["x[3]"].iloc[1], np.exp(-1.5), atol=1e-6)
    bad = t[t["error"].notna()]
    assert len(bad) == 2 and bad["error"].str.contains("k must stay below 5").all()
    assert bad["x[1]"].isna().all()


def test_dask_local_cluster_equals_serial(pendulum_path, decay_path):
    distributed = pytest.importorskip("distributed")
    m = minimo.load(pendulum_path)
    d = minimo.load(decay_path)
    grid = {"L": np.linspace(0.5, 2.0, 5), "phi0": [0.1, 0.3, 0.5]}
    serial = minimo.sweep(m, grid, stop_time=0.5, jobs=1, vars="^(x|y)$", stats=("final", "min"))
    dgrid = {"n": [1, 2, 3], "k": [0.5, 1.0, 7.0]}
    dserial = minimo.sweep(d, dgrid, jobs=1)
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert len(client.nthreads()) == 3
        with distributed.get_task_stream(client) as ts:
            dist = minimo.sweep(m, grid, client=client, stop_time=0.5, vars="^(x|y)$",
                                stats=("final", "min"))
            ddist = minimo.sweep(d, dgrid, client=client, chunks=4)
        # The work was spread: more than one worker ran tasks.
        workers = {t["worker"] for t in ts.data if str(t["key"]).startswith("_task")}
        assert len(workers) >= 2, workers
    pd.testing.assert_frame_equal(serial, dist)
    pd.testing.assert_frame_equal(dserial, ddist)
    assert dserial["error"].notna().sum() == 3
