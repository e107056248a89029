"""PyTorch as a backend: parameters from NumPy initial values, probe runs that are real forward passes."""

from __future__ import annotations

import re
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlworkbench import nest
from rlworkbench.backends.torch import ops
from rlworkbench.core import probing
from rlworkbench.core.backend import Backend
from rlworkbench.core.container_calls import with_container_options
from rlworkbench.core.records import GraphFnCall, Record
from rlworkbench.errors import ConfigError

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.executor import Executor
    from rlworkbench.core.graph import ComponentGraph
    from rlworkbench.spaces import Space

_TF_DEVICE = re.compile(r"^/?(?:device:)?(CPU|GPU):(\d+)$", re.IGNORECASE)


class TorchBackend(Backend):
    name = "torch"
    ops = ops

    def normalize_device(self, device: str | None) -> str:
        if device is None:
            return "cpu"
        match = _TF_DEVICE.match(device)
        if match:
            kind, index = match.group(1).upper(), match.group(2)
            return "cpu" if kind == "CPU" else f"cuda:{index}"
        return str(torch.device("cuda" if device.lower() == "gpu" else device.lower()))

    def available_devices(self) -> list[str]:
        return ["cpu"] + [f"cuda:{index}" for index in range(torch.cuda.device_count())]

    def device_scope(self, device: str | None) -> torch.device:
        return torch.device(device or "cpu")

    def run_build(self, graph: ComponentGraph, propagate: Callable[[dict[int, Any]], None]) -> None:
        """Probe runs use tiny batches: one intra-op thread avoids waiting on descheduled OpenMP workers."""
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            propagate({})
        finally:
            torch.set_num_threads(threads)

    def create_variable(self, component: Component, name: str, value: np.ndarray, trainable: bool,
                        layout: str = "row_major") -> torch.Tensor:
        if layout == "column_major" and value.ndim == 2:  # (in, out) stored like nn.Linear's weight
            tensor = torch.as_tensor(np.ascontiguousarray(value.T), device=component.resolved_device).t()
        else:
            tensor = torch.as_tensor(value, device=component.resolved_device)
        if tensor.is_floating_point():
            return torch.nn.Parameter(tensor, requires_grad=trainable)
        return tensor

    def limit_threads(self, count: int) -> None:
        torch.set_num_threads(count)

    def create_generator(self, component: Component, seed: int) -> torch.Generator:
        generator = torch.Generator(device=component.resolved_device or "cpu")
        generator.manual_seed(seed)
        return generator

    def reseed(self, generator: torch.Generator, seed: int) -> None:
        generator.manual_seed(seed)

    def read(self, variable: torch.Tensor) -> np.ndarray:
        return variable.detach().cpu().numpy().copy()

    def assign(self, variable: torch.Tensor, value: np.ndarray) -> None:
        with torch.no_grad():
            variable.copy_(torch.as_tensor(value))
        variable.grad = None

    def to_tensor(self, value: Any, device: str = "cpu") -> Any:
        """Nested NumPy values to tensors on ``device`` (strings stay NumPy: torch has no string tensors)."""
        return nest.map_structure(lambda leaf: _leaf_to_tensor(leaf, device), value)

    def infer_output_spaces(self, component: Component, call: GraphFnCall, fn: Callable[..., Any],
                            probe_values: dict[int, Any]) -> list[Space]:
        rng = np.random.default_rng(probing.PROBE_SEED)
        device = component.resolved_device or "cpu"

        def value_of(arg: Any) -> Any:
            if not isinstance(arg, Record):
                return arg
            if arg.id not in probe_values:
                probe_values[arg.id] = self.to_tensor(probing.probe_value(arg.space, rng), device)
            return probe_values[arg.id]

        args = [value_of(a) for a in call.args]
        kwargs = {k: value_of(v) for k, v in call.kwargs.items()}
        result = fn(component, *args, **kwargs)
        results = [result] if len(call.outputs) == 1 else _as_results(result)
        ranks = probing.reference_ranks([r.space for r in call.input_records()])
        for record, value in zip(call.outputs, results):
            probe_values[record.id] = value
        return [probing.structure_to_space(value, lambda t: _space_of(t, ranks)) for value in results]

    def make_executor(self, graph: ComponentGraph, **options: Any) -> Executor:
        from rlworkbench.backends.torch.executor import TorchExecutor

        if options:
            raise ConfigError("the torch executor takes no options", expected="{}", got=sorted(options))
        for component in graph.called_components:
            _install_fast_path(component)
        return TorchExecutor(graph, self)


def _as_results(result: Any) -> list[Any]:
    """The values a graph function declared to return several (or no) values gave back, as a list."""
    if isinstance(result, (tuple, list)):
        return list(result)
    return [] if result is None else [result]


def _leaf_to_tensor(leaf: Any, device: str) -> Any:
    if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "OUS":
        return leaf
    return torch.as_tensor(leaf, device=device)


def _space_of(value: Any, ranks: tuple[bool, bool, bool]) -> Space:
    if isinstance(value, torch.Tensor):
        dtype = torch.empty((), dtype=value.dtype).numpy().dtype
        return probing.space_from_shape(tuple(value.shape), dtype, ranks)
    array = np.asarray(value)
    return probing.space_from_shape(array.shape, array.dtype, ranks)


def _install_fast_path(component: Component) -> None:
    """Plain bound functions on the instance shadow the recording wrappers: no bookkeeping per call."""
    parent_device = component.parent.resolved_device if component.parent is not None else component.resolved_device
    crosses_devices = component.resolved_device != parent_device
    on_accelerator = (component.resolved_device or "cpu") != "cpu"
    for name, spec in component.api_methods.items():
        function = spec.fn if not on_accelerator else _on_device(spec.fn, component.resolved_device)
        if crosses_devices:
            function = _across_devices(function, component.resolved_device, parent_device)
        setattr(component, name, types.MethodType(function, component))
    for name, spec in component.graph_fns.items():
        setattr(component, name, types.MethodType(with_container_options(spec, spec.implementation("torch")),
                                                  component))


def _on_device(function: Callable[..., Any], device: str) -> Callable[..., Any]:
    """Tensors a graph function creates (``ops.zeros`` …) land on the component's device."""

    def on_device(self: Any, *args: Any) -> Any:
        with torch.device(device):
            return function(self, *args)

    return on_device


def _across_devices(function: Callable[..., Any], device: str, caller_device: str) -> Callable[..., Any]:
    """An API method of a component on another device than its parent: inputs move in, outputs move back."""

    def move(value: Any, target: str) -> Any:
        return nest.map_structure(lambda a: a.to(target) if isinstance(a, torch.Tensor) else a, value)

    def moved(self: Any, *args: Any) -> Any:
        return move(function(self, *move(args, device)), caller_device)

    return moved
