"""minimo.load / Model / simulate: parameters, variables, structure, results, errors, reuse."""

import pickle
import threading
import time

import numpy as np
import pytest

import minimo

PENDULUM_TEXT = open(__file__.replace("tests/test_model.py", "../examples/pendulum.mo")).read()


def test_load_file_lists_parameters_and_variables(pendulum_path):
    m = minimo.load(pendulum_path)
    assert m.name == "Pendulum"
    p = m.parameters
    assert p["L"].value == 1.0 and p["L"].unit == "m" and not p["L"].structural
    assert p["phi0"].description == "initial angle from the vertical"
    kinds = {n: v.kind for n, v in m.variables.items()}
    assert {"x", "y", "vx", "vy", "F"} <= set(kinds)
    assert sorted(n for n, k in kinds.items() if k == "state")  # some states chosen
    assert "Pendulum" in m.structure()
    assert isinstance(m.structure(json=True), dict)


def test_simulate_returns_numpy_and_pandas(pendulum_path):
    m = minimo.load(pendulum_path)
    r = m.simulate(stop_time=1, interval=0.01)
    assert isinstance(r.time, np.ndarray) and r.time.shape == (101,)
    assert r["x"].shape == r.time.shape
    assert r.time[-1] == pytest.approx(1.0)
    # At rest at x = L sin(phi0), y = -L cos(phi0).
    assert r["x"][0] == pytest.approx(np.sin(0.6), abs=1e-12)
    np.testing.assert_allclose(r["x"] ** 2 + r["y"] ** 2, 1.0, atol=1e-6)
    pd = pytest.importorskip("pandas")
    df = r.df
    assert isinstance(df, pd.DataFrame) and df.index.name == "time"
    np.testing.assert_array_equal(df["x"].to_numpy(), r["x"])


def test_params_on_the_compiled_model_equal_a_model_written_with_them(pendulum_path):
    m = minimo.load(pendulum_path)
    base = m.simulate(stop_time=2)
    r = m.simulate(stop_time=2, params={"L": 2.0, "phi0": 0.3})
    written = minimo.load(PENDULUM_TEXT.replace("L(unit = \"m\") = 1", "L(unit = \"m\") = 2")
                          .replace("= 0.6 \"initial", "= 0.3 \"initial"))
    w = written.simulate(stop_time=2)
    np.testing.assert_allclose(r["x"], w["x"], rtol=0, atol=1e-12)
    assert r.parameters["L"] == 2.0
    assert base["x"][-1] != r["x"][-1]
    # The compiled model is unchanged by a run's parameters.
    np.testing.assert_array_equal(m.simulate(stop_time=2)["x"], base["x"])


def test_structural_parameter_flattens_again(decay_path):
    m = minimo.load(decay_path)
    assert m.parameters["n"].structural and m.parameters["n"].type == "Integer"
    r = m.simulate(params={"n": 3, "k": 0.5})
    for i in (1, 2, 3):
        assert r[f"x[{i}]"][-1] == pytest.approx(np.exp(-0.5 * i), abs=1e-6)
    assert "x[3]" not in m.simulate()  # the loaded model keeps n = 2


def test_model_errors_carry_location_and_text():
    with pytest.raises(minimo.ModelError) as e:
        minimo.load("model Bad\n  Real x\nend Bad;\n")
    d = e.value.diagnostics[0]
    assert d["file"] == "<string>" and d["line"] == 2 and d["severity"] == "error"
    assert "<string>:2:" in str(e.value)
    assert d["message"] in str(e.value)


def test_unknown_parameter_and_failed_run(decay_path, pendulum_path):
    m = minimo.load(pendulum_path)
    with pytest.raises(minimo.ModelError, match="did you mean `L`"):
        m.simulate(params={"Lx": 1})
    with pytest.raises(minimo.ModelError, match="k must stay below 5"):
        minimo.load(decay_path).simulate(params={"k": 7})
    with pytest.raises(ValueError, match="unknown solver"):
        m.simulate(solver="rk4")
    with pytest.raises(FileNotFoundError):
        minimo.load("no/such/file.mo")


def test_pickle_reloads_the_model(pendulum_path, decay_path):
    m = pickle.loads(pickle.dumps(minimo.load(pendulum_path)))
    assert m.name == "Pendulum"
    v = minimo.load(decay_path)._variant((("n", 3.0),))
    v2 = pickle.loads(pickle.dumps(v))
    assert "x[3]" in v2.simulate()


def test_gil_is_released_while_simulating(pendulum_path):
    m = minimo.load(pendulum_path)
    started = threading.Event()
    spent = []

    def run():
        started.set()
        t0 = time.perf_counter()
        m.simulate(stop_time=400, interval=0.1)
        spent.append(time.perf_counter() - t0)

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    ticks = 0
    while t.is_alive():
        ticks += 1
        time.sleep(0.001)
    t.join()
    # With the GIL held for the whole run this thread could not wake up while it lasts.
    assert spent[0] > 0.05, spent
    assert ticks >= max(5, 0.02 * spent[0] / 0.001), (ticks, spent)
