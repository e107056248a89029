"""Element-wise maths, reductions, softmax family, gathers and shape helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def exp(x: Tensor) -> Tensor:
    return tf.exp(x)


def log(x: Tensor) -> Tensor:
    return tf.math.log(x)


def sqrt(x: Tensor) -> Tensor:
    return tf.sqrt(x)


def square(x: Tensor) -> Tensor:
    return tf.square(x)


def abs(x: Tensor) -> Tensor:
    return tf.abs(x)


def sign(x: Tensor) -> Tensor:
    return tf.sign(x)


def _same_dtype(a: Tensor, b: Tensor) -> tuple[Any, Any]:
    if isinstance(a, (tf.Tensor, tf.Variable)):
        return a, tf.cast(b, a.dtype)
    if isinstance(b, (tf.Tensor, tf.Variable)):
        return tf.cast(a, b.dtype), b
    return a, b


def minimum(a: Tensor, b: Tensor) -> Tensor:
    return tf.minimum(*_same_dtype(a, b))


def maximum(a: Tensor, b: Tensor) -> Tensor:
    return tf.maximum(*_same_dtype(a, b))


def where(condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
    return tf.where(condition, *_same_dtype(a, b))


def reduce_max(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_max(x, axis=axis, keepdims=keepdims)


def reduce_min(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_min(x, axis=axis, keepdims=keepdims)


def reduce_logsumexp(x: Tensor, axis: int = -1, keepdims: bool = False) -> Tensor:
    return tf.reduce_logsumexp(x, axis=axis, keepdims=keepdims)


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    return tf.nn.softmax(x, axis=axis)


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    return tf.nn.log_softmax(x, axis=axis)


def huber(x: Tensor, delta: float = 1.0) -> Tensor:
    """Element-wise Huber loss of the error ``x``: quadratic within ``delta``, linear outside."""
    absolute = tf.abs(x)
    return tf.where(absolute <= delta, 0.5 * tf.square(x), delta * (absolute - 0.5 * delta))


def stack(values: Sequence[Tensor], axis: int = 0) -> Tensor:
    return tf.stack(list(values), axis=axis)


def unstack(x: Tensor, axis: int = 0) -> list[Tensor]:
    return tf.unstack(x, axis=axis)


def gather(params: Tensor, indices: Tensor) -> Tensor:
    """Rows of ``params`` (along axis 0) at ``indices`` (any shape)."""
    return tf.gather(params, tf.cast(indices, tf.int64))


def select_by_index(x: Tensor, indices: Tensor) -> Tensor:
    """``x[..., indices]`` element by element: picks one entry of the last axis per leading position."""
    # one axis-0 gather from the flattened x: its gradient is a handful of ops (a batch_dims gather's gradient
    # builds dozens, ~0.5 s of graph building per use here)
    width = x.shape[-1]
    if width is None or indices.shape.rank == 0:
        return tf.gather(x, tf.cast(indices, tf.int64), batch_dims=indices.shape.rank)
    flat_indices = tf.reshape(tf.cast(indices, tf.int64), [-1])
    rows = tf.range(tf.size(flat_indices, out_type=tf.int64), dtype=tf.int64)
    picked = tf.gather(tf.reshape(x, [-1]), rows * width + flat_indices)
    return tf.reshape(picked, tf.shape(indices))


def expand_dims(x: Tensor, axis: int) -> Tensor:
    return tf.expand_dims(x, axis)


def squeeze(x: Tensor, axis: int) -> Tensor:
    return tf.squeeze(x, axis)


def transpose(x: Tensor, perm: Sequence[int]) -> Tensor:
    return tf.transpose(x, perm)


def tile(x: Tensor, multiples: Sequence[int]) -> Tensor:
    return tf.tile(x, list(multiples))


def reverse(x: Tensor, axis: int) -> Tensor:
    return tf.reverse(x, [axis])


def cumsum(x: Tensor, axis: int, reverse: bool = False) -> Tensor:
    return tf.math.cumsum(x, axis=axis, reverse=reverse)


def searchsorted(sorted_sequence: Tensor, values: Tensor) -> Tensor:
    return tf.searchsorted(sorted_sequence, tf.cast(values, sorted_sequence.dtype), side="right", out_type=tf.int64)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    return tf.matmul(a, b)


def zeros(shape: Sequence[object], dtype: str = "float32") -> Tensor:
    return tf.zeros(list(shape), dtype=dtype)


def ones(shape: Sequence[object], dtype: str = "float32") -> Tensor:
    return tf.ones(list(shape), dtype=dtype)


def fill(shape: Sequence[object], value: object, dtype: str = "float32") -> Tensor:
    return tf.fill(list(shape), tf.cast(value, dtype))


def zeros_like(x: Tensor) -> Tensor:
    return tf.zeros_like(x)


def ones_like(x: Tensor) -> Tensor:
    return tf.ones_like(x)


def constant(value: object, dtype: str = "float32") -> Tensor:
    return tf.cast(tf.convert_to_tensor(value), dtype)


def arange(start: Tensor, limit: Any | None = None, dtype: str = "int64") -> Tensor:
    if limit is None:
        start, limit = 0, start
    return tf.range(tf.cast(start, dtype), tf.cast(limit, dtype), dtype=dtype)


def dim(x: Tensor, axis: int) -> Tensor:
    """The size of one axis: a Python int when static, else a scalar tensor."""
    static = x.shape[axis]
    return static if static is not None else tf.shape(x)[axis]


def stop_gradient(x: Tensor) -> Tensor:
    return tf.stop_gradient(x)


__all__ = [
    "exp", "log", "sqrt", "square", "abs", "sign", "minimum", "maximum", "where", "reduce_max", "reduce_min",
    "reduce_logsumexp", "softmax", "log_softmax", "huber", "stack", "unstack", "gather", "select_by_index",
    "expand_dims", "squeeze", "transpose", "tile", "reverse", "cumsum", "searchsorted",
    "matmul", "zeros", "ones", "fill",
    "zeros_like", "ones_like", "constant", "arange", "dim", "stop_gradient",
]
