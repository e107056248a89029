"""PyTorch as a backend: parameters from NumPy initial values, sample passes that are real forward passes."""

from __future__ import annotations

import contextlib
import re
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlworkbench import nest
from rlworkbench.backends.torch import ops
from rlworkbench.core import space_inference
from rlworkbench.core.backend import Backend, bind_built_calls
from rlworkbench.core.container_calls import with_container_options
from rlworkbench.core.decorators import ApiMethod, Declared
from rlworkbench.core.records import GraphFnCall
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

    def device_scope(self, device: str | None) -> contextlib.AbstractContextManager:
        """Tensors created inside land on ``device``. The CPU is torch's default: no scope (a device scope is a
        function mode that every torch call inside goes through)."""
        if device is None or device == "cpu":
            return contextlib.nullcontext()
        return torch.device(device)

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

    def layout_of(self, variable: torch.Tensor) -> str:
        if variable.dim() == 2 and not variable.is_contiguous() and variable.t().is_contiguous():
            return "column_major"
        return "row_major"

    def variable_version(self, variable: torch.Tensor) -> int:
        return variable._version  # torch's write counter: every in-place op on the tensor (or a view) bumps it

    def clear_gradients(self, variables: list[object]) -> None:
        for variable in variables:
            variable.grad = None

    def to_tensor(self, value: object, device: str = "cpu") -> Any:
        """Nested NumPy values to tensors on ``device`` (strings stay NumPy: torch has no string tensors)."""
        return nest.map_structure(lambda leaf: _leaf_to_tensor(leaf, device), value)

    def infer_output_spaces(self, component: Component, call: GraphFnCall, fn: Callable[..., object],
                            samples: dict[int, object]) -> list[Space]:
        """Runs ``fn`` in both sample passes (once where its inputs are the same in both) and reads the output
        spaces off the two results (:func:`~rlworkbench.core.space_inference.space_of_two_passes`)."""
        rng = np.random.default_rng(space_inference.SAMPLE_SEED)
        device = component.resolved_device or "cpu"

        def sample_of(space: Space, sample_pass: int) -> Any:
            return self.to_tensor(space_inference.sample_value(space, sample_pass, rng), device)

        return space_inference.spaces_of_sample_passes(component, call, fn, samples, sample_of, _shape_and_dtype)

    def bind_call(self, declared: Declared, component: Component) -> Callable[..., Any]:
        graph_fn = declared.spec if not isinstance(declared, ApiMethod) else declared.spec.graph_fn
        if graph_fn is not None:
            function = with_container_options(graph_fn, graph_fn.implementation("torch"))
        else:
            function = declared.spec.fn
        if isinstance(declared, ApiMethod):
            function = _placed(function, component)
        return types.MethodType(function, component)

    def make_executor(self, graph: ComponentGraph, **options: object) -> Executor:
        from rlworkbench.backends.torch.executor import TorchExecutor

        if options:
            raise ConfigError("the torch executor takes no options", expected="{}", got=sorted(options))
        bind_built_calls(graph, self)
        return TorchExecutor(graph, self)


def _leaf_to_tensor(leaf: Any, device: str) -> Any:
    if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "OUS":
        return leaf
    return torch.as_tensor(leaf, device=device)


def _shape_and_dtype(value: object, where: dict[str, object]) -> tuple[tuple[int, ...], np.dtype]:
    """An output leaf's shape and dtype (a sample pass has every size; ``where`` is not needed here)."""
    if isinstance(value, torch.Tensor):
        return tuple(value.shape), torch.empty((), dtype=value.dtype).numpy().dtype
    array = np.asarray(value)
    return array.shape, array.dtype


def _placed(function: Callable[..., object], component: Component) -> Callable[..., Any]:
    """An API method as it runs on its component's device: unchanged on the CPU under a CPU parent; on an
    accelerator, tensors it creates (``ops.zeros`` …) land there; under a parent on another device, inputs move in
    and outputs move back."""
    parent_device = component.parent.resolved_device if component.parent is not None else component.resolved_device
    device = component.resolved_device or "cpu"
    if device != "cpu":
        function = _on_device(function, device)
    if component.resolved_device != parent_device:
        function = _across_devices(function, device, parent_device)
    return function


def _on_device(function: Callable[..., object], device: str) -> Callable[..., Any]:
    """Tensors a graph function creates (``ops.zeros`` …) land on the component's device."""

    def on_device(self: Any, *args: object, **kwargs: object) -> Any:
        with torch.device(device):
            return function(self, *args, **kwargs)

    return on_device


def _across_devices(function: Callable[..., object], device: str, caller_device: str) -> Callable[..., Any]:
    """An API method of a component on another device than its parent: inputs move in, outputs move back."""

    def move(value: object, target: str) -> Any:
        return nest.map_structure(lambda a: a.to(target) if isinstance(a, torch.Tensor) else a, value)

    def moved(self: Any, *args: object, **kwargs: object) -> Any:
        return move(function(self, *move(args, device), **move(kwargs, device)), caller_device)

    return moved
