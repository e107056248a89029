"""Basic operations: layers, activations, shapes, casts and reductions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F

Tensor = torch.Tensor

_DTYPES = {"float32": torch.float32, "float64": torch.float64, "int32": torch.int32, "int64": torch.int64,
           "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "float16": torch.float16}


def dense(x: Tensor, kernel: Tensor, bias: Tensor | None) -> Tensor:
    """``x @ kernel + bias`` over the last axis; kernel is ``(in, out)``."""
    if bias is None:
        return x @ kernel
    if x.dim() == 2:
        return torch.addmm(bias, x, kernel)
    return torch.matmul(x, kernel) + bias


def _linear(x: Tensor) -> Tensor:
    return x


ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "linear": _linear,
    "relu": torch.relu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "elu": F.elu,
    "selu": F.selu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "softplus": F.softplus,
    "swish": F.silu,
}


def activation(name: str | None) -> Callable[[Tensor], Tensor]:
    return ACTIVATIONS[name or "linear"]


def clip(x: Tensor, low: float, high: float) -> Tensor:
    return torch.clamp(x, low, high)


def multiply(x: Tensor, factor: float) -> Tensor:
    return x * factor


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    return torch.reshape(x, tuple(shape))


def leading_dims(x: Tensor, count: int) -> tuple[int, ...]:
    """The first ``count`` dimensions (batch/time) of a tensor."""
    return tuple(x.shape[:count])


def one_hot(x: Tensor, depth: int) -> Tensor:
    return F.one_hot(x.long(), depth).to(torch.float32)


def concat(values: Sequence[Tensor], axis: int = -1) -> Tensor:
    return torch.cat(list(values), dim=axis)


def cast(x: Tensor, dtype: str) -> Tensor:
    target = _DTYPES[dtype]
    return x if x.dtype == target else x.to(target)  # (what .to returns too, without its ~1 µs call)


def argmax(x: Tensor, axis: int = -1) -> Tensor:
    return torch.argmax(x, dim=axis)


def argsort(x: Tensor, axis: int = -1) -> Tensor:
    return torch.argsort(x, dim=axis, stable=True)


def reduce_sum(x: Tensor, axis: int | None = None) -> Tensor:
    return torch.sum(x) if axis is None else torch.sum(x, dim=axis)


def reduce_mean(x: Tensor, axis: int | None = None) -> Tensor:
    return torch.mean(x) if axis is None else torch.mean(x, dim=axis)


def identity(x: Any) -> Any:
    return x


__all__ = [
    "dense", "ACTIVATIONS", "activation", "clip", "multiply", "reshape", "leading_dims", "one_hot", "concat", "cast",
    "argmax", "argsort", "reduce_sum", "reduce_mean", "identity",
]
