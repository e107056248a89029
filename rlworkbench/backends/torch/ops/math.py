"""Element-wise maths, reductions, softmax family, gathers and shape helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from rlworkbench.backends.torch.ops.basic import _DTYPES

Tensor = torch.Tensor


def exp(x: Tensor) -> Tensor:
    return torch.exp(x)


def log(x: Tensor) -> Tensor:
    return torch.log(x)


def sqrt(x: Tensor) -> Tensor:
    return torch.sqrt(x)


def square(x: Tensor) -> Tensor:
    return torch.square(x)


def abs(x: Tensor) -> Tensor:
    return torch.abs(x)


def sign(x: Tensor) -> Tensor:
    return torch.sign(x)


def minimum(a: Any, b: Any) -> Tensor:
    return torch.minimum(torch.as_tensor(a), torch.as_tensor(b))


def maximum(a: Any, b: Any) -> Tensor:
    return torch.maximum(torch.as_tensor(a), torch.as_tensor(b))


def where(condition: Tensor, a: Any, b: Any) -> Tensor:
    return torch.where(condition, a, b)


def reduce_max(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return torch.amax(x) if axis is None else torch.amax(x, dim=axis, keepdim=keepdims)


def reduce_min(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return torch.amin(x) if axis is None else torch.amin(x, dim=axis, keepdim=keepdims)


def reduce_logsumexp(x: Tensor, axis: int = -1, keepdims: bool = False) -> Tensor:
    return torch.logsumexp(x, dim=axis, keepdim=keepdims)


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    return torch.softmax(x, dim=axis)


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    return torch.log_softmax(x, dim=axis)


def huber(x: Tensor, delta: float = 1.0) -> Tensor:
    """Element-wise Huber loss of the error ``x``: quadratic within ``delta``, linear outside."""
    return F.huber_loss(x, torch.zeros_like(x), reduction="none", delta=delta)


def stack(values: Sequence[Tensor], axis: int = 0) -> Tensor:
    return torch.stack(list(values), dim=axis)


def unstack(x: Tensor, axis: int = 0) -> list[Tensor]:
    return list(torch.unbind(x, dim=axis))


def gather(params: Tensor, indices: Tensor) -> Tensor:
    """Rows of ``params`` (along axis 0) at ``indices`` (any shape)."""
    indices = indices.long()
    if indices.dim() == 1:
        return torch.index_select(params, 0, indices)  # cheaper than advanced indexing
    return params[indices]


def select_by_index(x: Tensor, indices: Tensor) -> Tensor:
    """``x[..., indices]`` element by element: picks one entry of the last axis per leading position."""
    return torch.gather(x, -1, indices.long().unsqueeze(-1)).squeeze(-1)


def expand_dims(x: Tensor, axis: int) -> Tensor:
    return torch.unsqueeze(x, axis)


def squeeze(x: Tensor, axis: int) -> Tensor:
    return torch.squeeze(x, axis)


def transpose(x: Tensor, perm: Sequence[int]) -> Tensor:
    return x.permute(*perm)


def tile(x: Tensor, multiples: Sequence[int]) -> Tensor:
    return x.repeat(*multiples)


def reverse(x: Tensor, axis: int) -> Tensor:
    return torch.flip(x, dims=(axis,))


def cumsum(x: Tensor, axis: int, reverse: bool = False) -> Tensor:
    if reverse:
        return torch.flip(torch.cumsum(torch.flip(x, dims=(axis,)), dim=axis), dims=(axis,))
    return torch.cumsum(x, dim=axis)


def searchsorted(sorted_sequence: Tensor, values: Tensor) -> Tensor:
    return torch.searchsorted(sorted_sequence, values.to(sorted_sequence.dtype), right=True)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    return torch.matmul(a, b)


def zeros(shape: Sequence[Any], dtype: str = "float32") -> Tensor:
    return torch.zeros(tuple(int(d) for d in shape), dtype=_DTYPES[dtype])


def ones(shape: Sequence[Any], dtype: str = "float32") -> Tensor:
    return torch.ones(tuple(int(d) for d in shape), dtype=_DTYPES[dtype])


def fill(shape: Sequence[Any], value: object, dtype: str = "float32") -> Tensor:
    return torch.full(tuple(int(d) for d in shape), value, dtype=_DTYPES[dtype])


def zeros_like(x: Tensor) -> Tensor:
    return torch.zeros_like(x)


def ones_like(x: Tensor) -> Tensor:
    return torch.ones_like(x)


def constant(value: object, dtype: str = "float32") -> Tensor:
    return torch.as_tensor(value, dtype=_DTYPES[dtype])


def arange(start: Any, limit: Any | None = None, dtype: str = "int64") -> Tensor:
    if limit is None:
        start, limit = 0, start
    return torch.arange(int(start), int(limit), dtype=_DTYPES[dtype])


def dim(x: Tensor, axis: int) -> int:
    """The size of one axis (a Python int here; a scalar tensor on static-graph backends when unknown)."""
    return x.shape[axis]


def stop_gradient(x: Tensor) -> Tensor:
    return x.detach()


__all__ = [
    "exp", "log", "sqrt", "square", "abs", "sign", "minimum", "maximum", "where", "reduce_max", "reduce_min",
    "reduce_logsumexp", "softmax", "log_softmax", "huber", "stack", "unstack", "gather", "select_by_index",
    "expand_dims", "squeeze", "transpose", "tile", "reverse", "cumsum", "searchsorted",
    "matmul", "zeros", "ones", "fill",
    "zeros_like", "ones_like", "constant", "arange", "dim", "stop_gradient",
]
