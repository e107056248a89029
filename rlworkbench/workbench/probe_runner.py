"""Running one API method of a component on either backend, and the table of what went in and came out.

On the backend the component is built on, the probe calls it in place (``executor.call``: the sub-graph, the
real weights). On the other backend — or for a component that is not built — it builds a *mirror*: a
``copy()`` of the component built as a root from the spaces the component was built with (or ``input_spaces``),
with the component's weights copied in before every run, so both backends compute the same function. Mirrors
are kept and rebuilt when the component's build or structure changes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from rlworkbench import nest
from rlworkbench.core.assembly import root_params
from rlworkbench.core.builder import build
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.core.records import Record
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Space
from rlworkbench.workbench.explorer_target import Target
from rlworkbench.workbench.probe_inputs import Argument

TABLE_COLUMNS = ["side", "key_path", "shape", "dtype", "min", "max", "first_rows", "counts", "call_ms"]
FIRST_ROWS = 3  #: rows of each value the table shows


class ProbeRunner:
    """Runs API methods of ``target.component``; ``input_spaces`` (by parameter name) serve an unbuilt one."""

    def __init__(self, target: Target, input_spaces: Mapping[str, Space] | None = None, weight_seed: int = 0,
                 in_place: bool = False):
        self.target = target
        self.in_place = in_place
        self.input_spaces = dict(input_spaces or {})
        self.weight_seed = weight_seed
        self._mirrors: dict[str, tuple[tuple, Component, Executor]] = {}

    @property
    def component(self) -> Component:
        return self.target.component

    @property
    def home_backend(self) -> str | None:
        """The backend the component is built on (None: not built, every run uses a mirror)."""
        return self.target.graph.backend_name if self.target.built else None

    # ----- what can be probed -------------------------------------------------------------------------------------
    def api_methods(self) -> list[str]:
        if self.target.built:
            graph = self.target.graph
            return [name for name in self.component.api_methods if graph.calls_of(self.component, name)]
        return self._buildable(self.input_spaces)

    def arguments(self, api: str) -> list[Argument]:
        """The API method's parameters with their spaces (or the constants the graph was built with)."""
        self._check_api(api)
        if self.target.built:
            call = self.target.graph.calls_of(self.component, api)[0]
            return [Argument(name, value.space) if isinstance(value, Record) else Argument(name, constant=value)
                    for name, value in call.inputs.items()]
        spec = self.component.api_methods[api]
        return [Argument(name, self.input_spaces.get(name))
                for name in root_params(spec, self._arity(spec), set(self.input_spaces))]

    def output_spaces(self, api: str, backend: str | None = None) -> dict[str, Space | None]:
        """Output spaces by key path (``output`` for a single output), as the graph knows them."""
        if self.target.built:
            return self.target.graph.api_spaces(self.component, api)[1]
        graph = self._mirror(backend or self.target.backend_name)[1].graph
        return graph.api_spaces(graph.root, api)[1]

    def _check_api(self, api: str) -> None:
        available = self.api_methods()
        if api not in available:
            raise ConfigError("no such API method to probe", component=self.component.path, argument="api",
                              expected=available, got=api)

    # ----- running ------------------------------------------------------------------------------------------------
    def run(self, api: str, values: Mapping[str, object], backend: str) -> tuple[Any, float]:
        """``(outputs, seconds)`` of one call of ``api`` with ``values`` (by parameter name) on ``backend``."""
        spec = self.component.api_methods[api]
        names = [a.name for a in self.arguments(api) if a.name not in self._left_out(api)]
        args = [values[name] for name in names if name not in spec.keyword_only]
        by_name = {name: values[name] for name in names if name in spec.keyword_only}
        if backend == self.home_backend and self.in_place:
            executor = self.target.executor()
            trace = getattr(executor, "graph_function", None)
            if trace is not None:  # a tracing backend (TF): trace before the clock starts, as a mirror's build did
                trace(self.component, api)
            started = time.perf_counter()
            outputs = executor.call(self.component, api, *args, **by_name)
        else:
            copy, executor = self._mirror(backend)
            if self.target.built:
                copy.set_weights(self.component.get_weights())
            started = time.perf_counter()
            outputs = executor.execute(api, *args, **by_name)
        return outputs, time.perf_counter() - started

    def mirror(self, backend: str) -> Component:
        """The copy of the component built on ``backend`` (built now if needed)."""
        return self._mirror(backend)[0]

    def _mirror(self, backend: str) -> tuple[Component, Executor]:
        key = self._signature()
        cached = self._mirrors.get(backend)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        spaces = dict(self.component.input_spaces) if self.target.built else dict(self.input_spaces)
        if not spaces:
            raise ConfigError("this component is not built: give input_spaces to probe it", argument="input_spaces",
                              component=self.component.path, expected="a mapping of its API parameters to spaces",
                              got=None)
        methods = self._buildable(spaces)
        if self.target.built:
            called = set(self.api_methods())
            methods = [m for m in methods if m in called]
        needed = {p for m in methods for p in root_params(self.component.api_methods[m],
                                                          self._arity(self.component.api_methods[m], spaces),
                                                          set(spaces))}
        needed -= {p for m in methods for p in self._left_out(m)}
        copy = self.component.copy()
        executor = build(copy, {p: s for p, s in spaces.items() if p in needed}, backend=backend,
                         seed=self.weight_seed, api_methods=methods)
        self._mirrors[backend] = (key, copy, executor)
        return copy, executor

    def _left_out(self, api: str) -> set[str]:
        """Optional inputs the probed call leaves out (``None`` in the graph): neither passed nor in a mirror."""
        optional = self.component.api_methods[api].optional
        return {a.name for a in self.arguments(api) if a.name in optional and a.is_constant and a.constant is None}

    def _signature(self) -> tuple:
        """Changes when the component is rebuilt or its structure changes (then mirrors are stale)."""
        graph = self.target.graph
        return (id(graph) if graph is not None else None,
                tuple((c.path, type(c)) for c in self.component.walk()))

    def _buildable(self, spaces: Mapping[str, Space]) -> list[str]:
        """API methods whose parameters all have a space in ``spaces``."""
        methods = []
        for name, spec in self.component.api_methods.items():
            params = root_params(spec, self._arity(spec, spaces), set(spaces))
            if all(p in spaces for p in params):
                methods.append(name)
        return methods

    def _arity(self, spec: Any, spaces: Mapping[str, Space] | None = None) -> dict[str, int]:
        spaces = self.input_spaces if spaces is None else spaces
        if not spec.var_param:
            return {}
        return {spec.name: sum(1 for key in spaces if key.startswith(f"{spec.var_param}["))}


def probe_table(inputs: Mapping[str, object], arguments: list[Argument], given: set[str], outputs: Any,
                seconds: float) -> pd.DataFrame:
    """What went in and what came out, one row per leaf: ``side`` (``input (sampled|given|constant)`` or
    ``output``), ``key_path`` (``argument/key`` for inputs; as the graph names outputs, ``output`` for a single
    one), ``shape``, ``dtype``, ``min`` and ``max`` (of the finite values, to 4 digits), ``first_rows`` (the values
    of the first :data:`FIRST_ROWS` rows), ``counts`` (an extra for discrete values: booleans and ints with a few
    distinct values; for floats, how many are NaN/inf) and, on output rows, ``call_ms``. ``attrs["call_s"]``: the
    call time."""
    rows = []
    for argument in arguments:
        source = "constant" if argument.is_constant else ("given" if argument.name in given else "sampled")
        for path, leaf in nest.items(inputs[argument.name]):
            if leaf is not None:
                key = f"{argument.name}/{path}" if path else argument.name
                rows.append({**leaf_row(f"input ({source})", key, leaf), "call_ms": ""})
    for path, leaf in nest.items(outputs):
        if leaf is not None:
            rows.append({**leaf_row("output", path or "output", leaf), "call_ms": round(seconds * 1000, 3)})
    table = pd.DataFrame(rows, columns=TABLE_COLUMNS, dtype=object)  # object: ints stay ints
    table.attrs["call_s"] = seconds
    return table


def leaf_row(side: str, key_path: str, leaf: Any) -> dict[str, object]:
    """One row of :func:`probe_table` (without ``call_ms``)."""
    array = np.asarray(leaf)
    low = high = ""
    if array.size and array.dtype.kind in "biuf":
        finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
        if finite.size:
            low, high = (_rounded(value.item()) for value in (finite.min(), finite.max()))
    return {"side": side, "key_path": key_path, "shape": tuple(array.shape), "dtype": str(array.dtype),
            "min": low, "max": high, "first_rows": first_rows(array), "counts": value_counts(array)}


def _rounded(value: object) -> Any:
    return float(f"{value:.4g}") if isinstance(value, float) else value


def first_rows(array: np.ndarray, rows: int = FIRST_ROWS, width: int = 160) -> str:
    """The first ``rows`` rows (entries along the first axis) as text, ``…`` and how many more after them."""
    if array.ndim == 0:
        return _values(array)
    text = ", ".join(_values(row) for row in array[:rows])
    if len(array) > rows:
        text += f", … (+{len(array) - rows})"
    return text if len(text) <= width else text[:width - 1] + "…"


def _values(value: object) -> str:
    array = np.asarray(value)
    if array.dtype.kind in "OUS":
        return np.array2string(array, threshold=6, edgeitems=2, separator=", ",
                               formatter={"all": lambda v: repr(str(v)[:16])})
    return np.array2string(array, threshold=12, edgeitems=3, separator=", ", max_line_width=10_000,
                           formatter={"float_kind": lambda v: f"{v:.3g}"})


def value_counts(array: np.ndarray, most: int = 8) -> str:
    """``0: 3, 1: 5`` for booleans and ints with at most ``most`` distinct values; NaN/inf counts for floats;
    else ``""``."""
    kind = array.dtype.kind
    if array.size <= 1 or kind not in "biuf":
        return ""
    if kind == "f":
        special = {"NaN": int(np.isnan(array).sum()), "inf": int(np.isinf(array).sum())}
        return ", ".join(f"{name}: {count}" for name, count in special.items() if count)
    values, counts = np.unique(array, return_counts=True)
    if len(values) > most:
        return ""
    return ", ".join(f"{value}: {count}" for value, count in zip(values.tolist(), counts.tolist()))


__all__ = ["FIRST_ROWS", "TABLE_COLUMNS", "ProbeRunner", "first_rows", "leaf_row", "probe_table", "value_counts"]
