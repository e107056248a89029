"""The PyTorch executor: NumPy in, a direct call of the user's API method, NumPy out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlworkbench.core.executor import Executor
from rlworkbench.errors import SpaceError

if TYPE_CHECKING:
    from pathlib import Path

    from rlworkbench.core.component import Component
    from rlworkbench.core.export import ExportPlan
    from rlworkbench.spaces import Space


def to_numpy(value: Any) -> Any:
    """A tensor as NumPy (detached, on the CPU); anything else as it is."""
    if isinstance(value, torch.Tensor):
        if value.requires_grad:
            value = value.detach()
        if value.device.type != "cpu":
            value = value.cpu()
        return value.numpy()
    return value


def cpu_to_numpy(value: Any) -> Any:
    """:func:`to_numpy` for outputs of a component known to live on the CPU (skips the device check)."""
    if isinstance(value, torch.Tensor):
        return value.detach().numpy() if value.requires_grad else value.numpy()
    return value


class TorchExecutor(Executor):
    """Entries call the user's API method directly. Grad mode is switched with the same primitive that
    ``torch.no_grad`` uses inside, without creating a context object per call."""

    backend_tensor_type = torch.Tensor
    export_formats = ("torchscript", "onnx")

    def _export(self, plan: ExportPlan, path: Path, format: str) -> None:
        from rlworkbench.backends.torch.export import export

        export(self, plan, path, format)

    def write_graph(self, logdir: str, api_name: str, component: Component | str | None = None) -> str:
        """Writes the traced graph of a root API method for TensorBoard (each component is a name scope)."""
        from rlworkbench.backends.torch.tb_graph import write_graph

        return write_graph(self, logdir, api_name, component)

    def _make_entry(self, component: Component, api_name: str, as_numpy: bool) -> Callable[..., Any]:
        function = getattr(component, api_name)  # the plain bound function the fast path installed
        device = torch.device(component.resolved_device or "cpu")
        converters = self.input_converters(component, api_name, _tensor_maker(device))
        to_host = cpu_to_numpy if device.type == "cpu" else to_numpy
        convert_out = self.output_converter(component, api_name, to_host) if as_numpy else _identity
        grad = self.graph.requires_grad(api_name, component)
        arity = len(converters)
        where = {"component": component.path, "api_method": api_name}
        is_grad_enabled, set_grad_enabled = torch.is_grad_enabled, torch._C._set_grad_enabled

        if arity == 1:
            (convert,) = converters

            def entry_one(*args: Any) -> Any:
                if len(args) != 1:
                    raise SpaceError("wrong number of arguments", expected=1, got=len(args), **where)
                tensor = convert(args[0])
                before = is_grad_enabled()
                set_grad_enabled(grad)
                try:
                    result = function(tensor)
                finally:
                    set_grad_enabled(before)
                return convert_out(result)

            return entry_one

        def entry(*args: Any) -> Any:
            if len(args) != arity:
                raise SpaceError("wrong number of arguments", expected=arity, got=len(args), **where)
            tensors = [convert(value) for convert, value in zip(converters, args)]
            before = is_grad_enabled()
            set_grad_enabled(grad)
            try:
                result = function(*tensors)
            finally:
                set_grad_enabled(before)
            return convert_out(result)

        return entry


def _identity(value: Any) -> Any:
    return value


def _tensor_maker(device: torch.device) -> Callable[[np.ndarray, Space], torch.Tensor]:
    if device.type == "cpu":
        def to_cpu(value: np.ndarray, space: Space) -> torch.Tensor:
            flags = value.flags
            if flags.writeable and flags.c_contiguous:
                return torch.from_numpy(value)
            return torch.as_tensor(np.ascontiguousarray(value))

        return to_cpu
    return lambda value, space: torch.as_tensor(value, device=device)
