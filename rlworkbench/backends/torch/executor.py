"""The PyTorch executor: NumPy in, a direct call of the user's API method, NumPy out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from rlworkbench.core.executor import Executor
from rlworkbench.errors import SpaceError

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.spaces import Space


def to_numpy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        if value.requires_grad:
            value = value.detach()
        if value.device.type != "cpu":
            value = value.cpu()
        return value.numpy()
    return value


class TorchExecutor(Executor):
    backend_tensor_type = torch.Tensor

    def _make_entry(self, component: Component, api_name: str, as_numpy: bool) -> Callable[..., Any]:
        function = getattr(component, api_name)  # the plain bound function the fast path installed
        device = torch.device(component.resolved_device or "cpu")
        converters = self.input_converters(component, api_name, _tensor_maker(device))
        convert_out = self.output_converter(component, api_name, to_numpy) if as_numpy else None
        grad_mode = torch.enable_grad if self.graph.requires_grad(api_name, component) else torch.no_grad
        arity = len(converters)
        where = dict(component=component.path, api_method=api_name)

        def entry(*args: Any) -> Any:
            if len(args) != arity:
                raise SpaceError("wrong number of arguments", expected=arity, got=len(args), **where)
            tensors = [convert(value) for convert, value in zip(converters, args)]
            with grad_mode():
                result = function(*tensors)
            return convert_out(result) if convert_out is not None else result

        return entry


def _tensor_maker(device: torch.device) -> Callable[[np.ndarray, Space], torch.Tensor]:
    if device.type == "cpu":
        def to_cpu(value: np.ndarray, space: Space) -> torch.Tensor:
            if value.flags.writeable and value.flags.c_contiguous:
                return torch.from_numpy(value)
            return torch.as_tensor(np.ascontiguousarray(value))

        return to_cpu
    return lambda value, space: torch.as_tensor(value, device=device)
