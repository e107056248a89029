"""Exporting root API methods as standalone models: the part every backend shares.

:meth:`Executor.export <rlworkbench.core.executor.Executor.export>` writes one root API method — or a chain of
them, each one's output the next one's only input (``preprocess`` → ``act_greedy``) — as a model file a runtime
loads without rlworkbench (TorchScript, ONNX, SavedModel). An :class:`ExportPlan` says what the model takes and
gives: its inputs and outputs are flat tensors, one per leaf of the API method's (possibly nested) spaces, named
by parameter and key path (``states``, ``states_camera``), with the batch/time ranks as dynamic axes. The
backend's exporter traces ``plan(*flat_inputs)`` — plain calls of the built root's API methods — and a JSON
sidecar ``<path>.json`` describes the format and the input and output spaces.
"""

from __future__ import annotations

import importlib.metadata
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from rlworkbench import nest
from rlworkbench.core.records import Record
from rlworkbench.errors import BuildError, ConfigError, SpaceError
from rlworkbench.nest import JSONValue
from rlworkbench.spaces import BoxSpace, ContainerSpace, FloatBox, IntBox, NumericBox, Space, TextBox

if TYPE_CHECKING:
    from rlworkbench.core.graph import ComponentGraph
    from rlworkbench.core.records import ApiCall

SIDECAR_VERSION = 1
_NAME = re.compile(r"\W")


def _package_version() -> str:
    try:
        return importlib.metadata.version("rlworkbench")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def sidecar_path(path: str | Path) -> Path:
    """Where the JSON description of an exported model at ``path`` lives: ``<path>.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def check_format(format: str | None, supported: Sequence[str], backend: str) -> str:
    """``format`` (``None``: the backend's default, the first supported one) if the backend can write it."""
    if not supported:
        raise ConfigError(f"the {backend} backend cannot export models", argument="format", expected=[],
                          got=format)
    if format is None:
        return supported[0]
    if format not in supported:
        raise ConfigError(f"the {backend} backend cannot export to this format", argument="format",
                          expected=list(supported), got=format)
    return format


@dataclass(frozen=True)
class ExportTensor:
    """One flat input or output of an exported model: a leaf of an API parameter's (or the output's) space."""

    name: str  # the model's name for it
    argument: str  # the API parameter (inputs) or the output's name (outputs)
    key_path: str  # where it sits inside a container space ("" for a leaf space)
    space: BoxSpace  # the leaf space, batch/time ranks included

    @property
    def shape(self) -> tuple[int | None, ...]:
        """The tensor shape, ``None`` for the batch/time dimensions."""
        return tuple(self.space.get_shape(with_batch_rank=True, with_time_rank=True))

    @property
    def dynamic_axes(self) -> dict[int, str]:
        """``{axis: "batch" | "time"}`` for the dimensions whose size is free."""
        space = self.space
        batch, time = ["batch"] * space.has_batch_rank, ["time"] * space.has_time_rank
        return dict(enumerate(time + batch if space.time_major else batch + time))

    def describe(self) -> dict[str, JSONValue]:
        return {"name": self.name, "argument": self.argument, "key_path": self.key_path,
                "shape": list(self.shape), "dtype": self.space.dtype.name,
                "dynamic_axes": {str(axis): name for axis, name in self.dynamic_axes.items()},
                "space": space_to_json(self.space)}


class ExportPlan:
    """What an export of ``api_methods`` (root API methods, chained) takes and gives, and the function that
    computes it on the built root: ``plan(*flat_inputs)`` → list of flat outputs (backend tensors).

    ``input_names`` renames the first API method's parameters (one name per parameter that takes a value);
    ``output_name`` names the output (its leaves: ``<output_name>_<key path>``).
    """

    def __init__(self, graph: ComponentGraph, api_methods: str | Sequence[str],
                 input_names: Sequence[str] | None = None, output_name: str = "outputs"):
        self.graph, self.root = graph, graph.root
        self.api_methods = [api_methods] if isinstance(api_methods, str) else list(api_methods)
        if not self.api_methods:
            raise BuildError("nothing to export: name at least one root API method", component=self.root.path)
        calls = []
        for name in self.api_methods:
            if name not in graph.root_inputs:
                raise BuildError("no such built API method to export", component=self.root.path, api_method=name,
                                 expected=sorted(graph.root_inputs))
            calls.append(graph.root_call(name))
        self._calls = calls
        first = calls[0].input_records()
        names = list(first) if input_names is None else list(input_names)
        if len(names) != len(first) or len(set(names)) != len(names):
            raise ConfigError("one distinct input name per parameter of the exported API method",
                              argument="input_names", api_method=self.api_methods[0], expected=list(first),
                              got=names)
        self.input_spaces: dict[str, Space] = {name: record.space for name, record in zip(names, first.values())}
        for previous, call in itertools.pairwise(calls):
            _check_chain(graph, previous, call)
        self.output_name = output_name
        self.output_space = graph.output_space(self.api_methods[-1])
        self.inputs = [ExportTensor(_tensor_name(argument, key), argument, key, leaf)
                       for argument, space in self.input_spaces.items() for key, leaf in space.flatten().items()]
        self.outputs = [ExportTensor(_tensor_name(output_name, key), output_name, key, leaf)
                        for key, leaf in _space_leaves(self.output_space, "")]
        where = {"component": self.root.path, "api_method": self.api_methods[-1]}
        if not self.outputs:
            raise BuildError("the exported API method returns nothing", **where)
        for tensor in self.inputs + self.outputs:
            if isinstance(tensor.space, TextBox):
                raise SpaceError("text cannot be exported (no string tensors in every format)",
                                 argument=tensor.argument, key_path=tensor.key_path or None, expected="numbers",
                                 got=tensor.space, **where)
        for group in (self.inputs, self.outputs):
            seen = [t.name for t in group]
            if len(set(seen)) != len(seen):
                raise ConfigError("exported tensor names collide", expected="distinct names", got=seen, **where)

    # ----- running the chain ------------------------------------------------------------------------------------
    def __call__(self, *flat_inputs: object) -> list[object]:
        """The chained API methods on backend tensors (one per input leaf): a list, one per output leaf."""
        supplied = iter(flat_inputs)
        args = []
        for value in self._calls[0].inputs.values():
            if isinstance(value, Record):
                args.append(value.space.unflatten({key: next(supplied) for key in value.space.flatten()}))
            else:
                args.append(value)
        result = getattr(self.root, self.api_methods[0])(*args)
        for call in self._calls[1:]:
            result = getattr(self.root, call.name)(*[result if isinstance(v, Record) else v
                                                     for v in call.inputs.values()])
        return _value_leaves(self.output_space, result)

    def example_inputs(self, batch_size: int, time_size: int = 3, seed: int = 0) -> list[np.ndarray]:
        """NumPy values for the inputs, sampled from their spaces (``batch_size`` rows, ``time_size`` steps);
        float elements with huge or infinite bounds get standard normals instead (clipped into the bounds), so
        that examples do not overflow into inf/NaN outputs."""
        rng = np.random.default_rng(seed)
        values = []
        for space in self.input_spaces.values():
            batch, time = space.has_batch_rank, space.has_time_rank
            size = (batch_size, time_size) if batch and time else batch_size if batch else time_size if time else None
            sample = space.flatten(space.sample(size, seed=rng))
            values.extend(_moderate(leaf, np.asarray(sample[key]), rng) for key, leaf in space.flatten().items())
        return values

    # ----- describing it ------------------------------------------------------------------------------------------
    def describe(self, format: str, backend: str, path: Path, metadata: Mapping[str, object] | None = None,
                 ) -> dict[str, object]:
        return {"rlworkbench_export": SIDECAR_VERSION, "rlworkbench_version": _package_version(), "format": format,
                "backend": backend, "model": path.name, "api_methods": list(self.api_methods),
                "inputs": [t.describe() for t in self.inputs], "outputs": [t.describe() for t in self.outputs],
                "input_spaces": {name: space_to_json(space) for name, space in self.input_spaces.items()},
                "output_space": nest.map_structure(space_to_json, self.output_space),
                "metadata": dict(metadata or {})}

    def write_sidecar(self, format: str, backend: str, path: Path, metadata: Mapping[str, object] | None = None,
                      ) -> Path:
        target = sidecar_path(path)
        text = json.dumps(self.describe(format, backend, path, metadata), indent=2, allow_nan=False)
        target.write_text(text + "\n")
        return target


def _moderate(space: BoxSpace, value: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if not isinstance(space, FloatBox):
        return value
    low, high = np.asarray(space.low, np.float64), np.asarray(space.high, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        huge = ~(np.isfinite(high - low) & (high - low <= 1e4))
    if not np.any(huge):
        return value
    normal = np.clip(rng.standard_normal(value.shape), low, high)
    return np.where(huge, normal, value).astype(value.dtype)


def _check_chain(graph: ComponentGraph, previous: ApiCall, call: ApiCall) -> None:
    """``call`` must take exactly one value, and ``previous``'s output must fit it."""
    records = call.input_records()
    where = {"component": graph.root.path, "api_method": call.name}
    if len(records) != 1:
        raise BuildError("a chained API method must take exactly one value (the previous method's output)",
                         expected=1, got=list(records), **where)
    (param, record), = records.items()
    given = graph.output_space(previous.name)
    if not isinstance(given, Space) or _leaf_signature(given) != _leaf_signature(record.space):
        raise SpaceError(f"'{previous.name}' gives what '{call.name}' cannot take", argument=param,
                         expected=record.space, got=given, **where)


def _leaf_signature(space: Space) -> list[tuple[str, tuple, str]]:
    return [(key, tuple(leaf.get_shape(True, True)), leaf.dtype.name) for key, leaf in space.flatten().items()]


def _tensor_name(base: str, key_path: str) -> str:
    """``states``, ``states_camera`` (a Python identifier: every format takes it as a name)."""
    return _NAME.sub("_", base if not key_path else f"{base}_{key_path}")


def _space_leaves(structure: object, prefix: str) -> list[tuple[str, BoxSpace]]:
    """``(key_path, leaf space)`` of an API method's output structure (spaces, or tuples/dicts of them)."""
    if isinstance(structure, Space):
        return [(nest.join(prefix, key) if key else prefix, leaf) for key, leaf in structure.flatten().items()]
    if isinstance(structure, Mapping):
        return [pair for key, child in structure.items() for pair in _space_leaves(child, nest.join(prefix, key))]
    if isinstance(structure, (tuple, list)):
        return [pair for i, child in enumerate(structure) for pair in _space_leaves(child, nest.join(prefix, i))]
    return []


def _value_leaves(structure: object, value: object) -> list[object]:
    """The leaves of an output value (of the structure of the output's spaces), in the order of
    :func:`_space_leaves`."""
    if isinstance(structure, Space):
        return list(structure.flatten(value).values())
    if isinstance(structure, Mapping):
        mapping = cast("Mapping[str, object]", value)
        return [leaf for key, child in structure.items() for leaf in _value_leaves(child, mapping[key])]
    if isinstance(structure, (tuple, list)):
        items = cast("Sequence[object]", value)
        return [leaf for i, child in enumerate(structure) for leaf in _value_leaves(child, items[i])]
    return []


def space_to_json(space: Space | None) -> dict[str, JSONValue] | None:
    """A JSON description of a space: type, core shape, dtype, bounds (``"inf"`` for infinite ones), ranks."""
    if space is None:
        return None
    ranks = {"batch_rank": space.has_batch_rank, "time_rank": space.has_time_rank, "time_major": space.time_major}
    if isinstance(space, ContainerSpace):
        children = {str(key): space_to_json(child) for key, child in space.children()}
        return {"type": type(space).__name__, "children": children, **ranks}
    described: dict[str, JSONValue] = {"type": type(space).__name__, "shape": list(space.shape),
                                 "dtype": space.dtype.name, **ranks}
    if isinstance(space, NumericBox):
        described.update(low=_json_array(space.low), high=_json_array(space.high))
    if isinstance(space, IntBox) and space.num_categories is not None:
        described["num_categories"] = space.num_categories
    return described


def _json_array(array: np.ndarray) -> JSONValue:
    return _json_number(array.item()) if array.ndim == 0 else [_json_array(row) for row in array]


def _json_number(value: float) -> int | float | str:
    value = float(value)
    if np.isfinite(value):
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    return "nan" if np.isnan(value) else ("inf" if value > 0 else "-inf")
