"""minimo from Python: load a Modelica model once, simulate it many times, sweep parameters.

    import minimo
    model = minimo.load("examples/pendulum.mo")          # a file, a list of files, or model text
    res = model.simulate(stop_time=5, params={"L": 2.0})  # numpy arrays: res.time, res["x"]
    res.df                                                 # a pandas DataFrame (needs pandas)
    table = minimo.sweep(model, {"L": [0.5, 1, 2], "phi0": [0.1, 0.3]})  # one row per run

Loading parses, flattens and analyses the model (the structure report: ``model.structure()``);
each ``simulate`` only evaluates the parameters, compiles them into the register program and
integrates, with the GIL released. A structural parameter (an array size, a ``for`` range, a
condition: ``model.parameters[name].structural``) needs a new flattening: ``simulate`` and
``sweep`` do it through a modifier, once per structural value. Problems in the model or the run
raise :class:`ModelError` with the same ``file:line:col`` text as the command line.
"""

from __future__ import annotations

import os
from collections import namedtuple
from typing import Iterable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _minimo
from ._minimo import ModelError

__all__ = ["load", "Model", "Result", "Parameter", "Variable", "ModelError", "sweep", "grid",
           "samples"]


def _error_text(self):
    return self.args[0] if self.args else ""


ModelError.__str__ = _error_text
ModelError.text = property(_error_text, doc="The diagnostics rendered as the command line shows them.")
ModelError.diagnostics = property(
    lambda self: list(self.args[1]) if len(self.args) > 1 else [],
    doc="The diagnostics: dictionaries with severity, message, file, line, column, location, "
        "help and notes.",
)

Parameter = namedtuple("Parameter", "name value structural type unit description")
Variable = namedtuple("Variable", "name kind unit description")


def _looks_like_text(s: str) -> bool:
    return "\n" in s or ";" in s


def _spec(source, model, libs):
    """What to load, in a form that can be pickled to another machine: single files are sent
    as their text (under their path, so messages read the same), folders as paths."""
    files, texts = [], []
    if source is None:
        pass
    elif isinstance(source, (list, tuple)):
        for s in source:
            f, t = _spec(s, None, ())[:2]
            files += f
            texts += t
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and not _looks_like_text(source)):
        path = os.fspath(source)
        if os.path.isdir(path):
            files.append(path)
        elif os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                texts.append((path, f.read()))
        else:
            raise FileNotFoundError(f"no model file or folder `{path}`")
    elif isinstance(source, str):
        texts.append(("<string>", source))
    else:
        raise TypeError("source must be a path, a list of paths, or model text")
    return (tuple(files), tuple(texts), model, tuple(os.fspath(l) for l in libs))


def load(source=None, model: Optional[str] = None, libs: Iterable = ()) -> "Model":
    """Loads, flattens and analyses a model.

    ``source``: a ``.mo`` file, a package folder, a list of them, or model text (a string
    holding a newline or ``;``); ``None`` with ``model`` naming a class of ``libs`` or
    MODELICAPATH. ``model``: the class (``A.B.C``) when the files hold several. ``libs``: extra
    library folders or files. Raises :class:`ModelError` with the located diagnostics.
    """
    return Model._from_spec(_spec(source, model, libs))


_loaded = {}


def _load_cached(spec) -> "Model":
    """A model per spec and process: Dask workers load each model once."""
    m = _loaded.get(spec)
    if m is None:
        m = _loaded[spec] = Model._from_spec(spec)
    return m


class Model:
    """A loaded, flattened and analysed model (see :func:`load`)."""

    def __init__(self, compiled, spec, structural=()):
        self._c = compiled
        self._spec = spec
        self._structural = tuple(structural)
        self._variants = {}
        self._params = None

    @classmethod
    def _from_spec(cls, spec):
        files, texts, model, libs = spec
        return cls(_minimo.load(list(files), [tuple(t) for t in texts], model, list(libs)), spec)

    def __reduce__(self):
        # Pickled as what to load (for Dask workers): the worker loads it once.
        return (_restore, (self._spec, self._structural))

    def __repr__(self):
        return f"<minimo.Model {self.name}>"

    @property
    def name(self) -> str:
        """The qualified name of the model's class."""
        return self._c.name

    @property
    def warnings(self) -> str:
        """Warnings of loading, rendered (empty when none)."""
        return self._c.warnings

    @property
    def parameters(self) -> dict:
        """The parameters by name: :class:`Parameter` (value before overrides, structural)."""
        if self._params is None:
            self._params = {p[0]: Parameter(*p) for p in self._c.parameters()}
        return self._params

    @property
    def variables(self) -> dict:
        """The variables a simulation records, by name: :class:`Variable` (kind: state,
        derivative, algebraic or discrete)."""
        return {v[0]: Variable(*v) for v in self._c.variables()}

    def structure(self, json: bool = False):
        """The structural analysis report (``minimo structure``): text, or a dict with ``json=True``."""
        if json:
            import json as _json
            return _json.loads(self._c.structure(True))
        return self._c.structure(False)

    def _split(self, params: Optional[Mapping]):
        """Overrides split into structural ones (sorted) and the others."""
        params = dict(params or {})
        info = self.parameters
        structural = tuple(sorted((k, float(v)) for k, v in params.items()
                                  if k in info and info[k].structural))
        rest = [(k, float(v)) for k, v in params.items() if not (k in info and info[k].structural)]
        return structural, rest

    def _variant(self, structural) -> "Model":
        """This model flattened again with structural values (cached)."""
        if not structural:
            return self
        m = self._variants.get(structural)
        if m is None:
            c = self._c.with_structural(list(structural))
            m = self._variants[structural] = Model(c, self._spec, self._structural + structural)
        return m

    def simulate(self, stop_time: Optional[float] = None, interval: Optional[float] = None,
                 tolerance: Optional[float] = None, solver: str = "bdf",
                 params: Optional[Mapping[str, float]] = None, start_time: Optional[float] = None,
                 vars: Optional[str] = None) -> "Result":
        """Simulates once and returns a :class:`Result`.

        Times default to the model's ``experiment`` annotation (else 0 to 1 s, 500 intervals,
        tolerance 1e-6). ``solver``: bdf, esdirk34, tr-bdf2 or tsit45. ``params``: parameter
        values for this run; the compiled model is reused (a structural parameter flattens the
        model again, once per value). ``vars``: a regular expression selecting the recorded
        variables. Raises :class:`ModelError` when the run fails.
        """
        structural, rest = self._split(params)
        m = self._variant(structural)
        out = m._c.simulate(start_time, stop_time, interval, tolerance, solver, rest, vars)
        return Result(*out)


def _restore(spec, structural):
    return _load_cached(spec)._variant(tuple(structural))


class Result:
    """One simulation: ``time`` (numpy array), ``values`` (points x variables), ``names``;
    ``res["x"]`` is a column; ``res.df`` a pandas DataFrame indexed by time."""

    def __init__(self, time, names, kinds, values, parameters, stats, messages):
        self.time = time
        self.names = list(names)
        self.kinds = dict(zip(names, kinds))
        self.values = values
        self.parameters = dict(parameters)
        self.stats = stats
        self.messages = list(messages)
        self._index = {n: i for i, n in enumerate(self.names)}

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "time":
            return self.time
        if name in self._index:
            return self.values[:, self._index[name]]
        if name in self.parameters:
            return np.full(len(self.time), self.parameters[name])
        raise KeyError(f"no variable `{name}` in the result")

    def __contains__(self, name) -> bool:
        return name == "time" or name in self._index or name in self.parameters

    def keys(self):
        return ["time"] + self.names

    def __repr__(self):
        return f"<minimo.Result {len(self.time)} points x {len(self.names)} variables>"

    def to_pandas(self):
        """The trajectories as a pandas DataFrame indexed by time (needs pandas)."""
        import pandas as pd
        df = pd.DataFrame(self.values, columns=self.names, copy=False)
        df.index = pd.Index(self.time, name="time")
        return df

    @property
    def df(self):
        """The trajectories as a pandas DataFrame (needs pandas)."""
        return self.to_pandas()


from ._sweep import grid, samples, sweep  # noqa: E402
