"""The PyTorch executor: NumPy in, a direct call of the user's API method, NumPy out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlworkbench.core.executor import EntryArguments, Executor

if TYPE_CHECKING:
    from pathlib import Path

    from rlworkbench.core.component import Component
    from rlworkbench.core.export import ExportPlan
    from rlworkbench.spaces import Space


def to_numpy(value: object) -> Any:
    """A tensor as NumPy (detached, on the CPU); anything else as it is."""
    if isinstance(value, torch.Tensor):
        if value.requires_grad:
            value = value.detach()
        if value.device.type != "cpu":
            value = value.cpu()
        return value.numpy()
    return value


def cpu_to_numpy(value: object) -> Any:
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

    def graph_def(self, api_name: str, component: Component | str | None = None) -> bytes:
        """The traced graph of a root API method as a serialized ``GraphDef`` (each component a name scope)."""
        from rlworkbench.backends.torch.graph_def import graph_def

        return graph_def(self, api_name, component)

    def _make_entry(self, component: Component, api_name: str, as_numpy: bool) -> Callable[..., Any]:
        function = getattr(component, api_name)  # the built call: the user's API method, bound
        call = self.graph.calls_of(component, api_name)[0]
        arguments = EntryArguments(component, call)
        device = torch.device(component.resolved_device or "cpu")
        converters = self.input_converters(component, api_name, _tensor_maker(device))
        to_host = cpu_to_numpy if device.type == "cpu" else to_numpy
        convert_out = self.output_converter(component, api_name, to_host) if as_numpy else _identity
        grad = self.graph.requires_grad(api_name, component)
        arity = len(converters)
        is_grad_enabled, set_grad_enabled = torch.is_grad_enabled, torch._C._set_grad_enabled

        if arguments.plain and arity == 1:
            (convert,) = converters

            def entry_one(*args: object, **kwargs: object) -> Any:
                if kwargs or len(args) != 1:
                    args = arguments.values(args, kwargs)
                tensor = convert(args[0])
                before = is_grad_enabled()
                set_grad_enabled(grad)
                try:
                    result = function(tensor)
                finally:
                    set_grad_enabled(before)
                return convert_out(result)

            return entry_one

        split = len(arguments.positional)
        by_name = arguments.keyword_only

        def entry(*args: object, **kwargs: object) -> Any:
            if not arguments.plain or kwargs or len(args) != arity:
                args = arguments.values(args, kwargs)
            tensors = [convert(value) for convert, value in zip(converters, args)]
            before = is_grad_enabled()
            set_grad_enabled(grad)
            try:
                result = function(*tensors[:split], **dict(zip(by_name, tensors[split:]))) if by_name \
                    else function(*tensors)
            finally:
                set_grad_enabled(before)
            return convert_out(result)

        return entry


def _identity(value: object) -> Any:
    return value


def _tensor_maker(device: torch.device) -> Callable[[np.ndarray, Space], torch.Tensor]:
    if device.type == "cpu":
        def to_cpu(value: np.ndarray, space: Space) -> torch.Tensor:
            flags = value.flags
            if flags.writeable and flags.c_contiguous:
                return torch.from_numpy(value)
            return torch.from_numpy(np.array(value, order="C"))  # a copy: read-only arrays (Ray's) stay untouched

        return to_cpu
    return lambda value, space: torch.as_tensor(value, device=device)
