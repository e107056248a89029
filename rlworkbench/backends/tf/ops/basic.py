"""Basic operations: layers, activations, shapes, casts and reductions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def dense(x: Tensor, kernel: Tensor, bias: Any | None) -> Tensor:
    """``x @ kernel + bias`` over the last axis; kernel is ``(in, out)``."""
    out = tf.matmul(x, kernel) if x.shape.rank == 2 else tf.tensordot(x, kernel, axes=1)
    return out if bias is None else out + bias


def _linear(x: Tensor) -> Tensor:
    return x


ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "linear": _linear,
    "relu": tf.nn.relu,
    "tanh": tf.tanh,
    "sigmoid": tf.sigmoid,
    "elu": tf.nn.elu,
    "selu": tf.nn.selu,
    "leaky_relu": lambda x: tf.nn.leaky_relu(x, 0.2),
    "softplus": tf.nn.softplus,
    "swish": tf.nn.silu,
}


def activation(name: str | None) -> Callable[[Tensor], Tensor]:
    return ACTIVATIONS[name or "linear"]


def clip(x: Tensor, low: float, high: float) -> Tensor:
    return tf.clip_by_value(x, tf.cast(low, x.dtype), tf.cast(high, x.dtype))


def multiply(x: Tensor, factor: float) -> Tensor:
    """``x * factor``; int tensors become float32 first (as PyTorch promotes them)."""
    if not x.dtype.is_floating:
        x = tf.cast(x, tf.float32)
    return x * tf.cast(factor, x.dtype)


def reshape(x: Tensor, shape: Sequence[object]) -> Tensor:
    return tf.reshape(x, list(shape))


def leading_dims(x: Tensor, count: int) -> tuple[object, ...]:
    """The first ``count`` dimensions (batch/time): static ints where known, else dynamic scalars."""
    dynamic = tf.shape(x)
    return tuple(x.shape[i] if x.shape[i] is not None else dynamic[i] for i in range(count))


def one_hot(x: Tensor, depth: int) -> Tensor:
    return tf.one_hot(tf.cast(x, tf.int64), depth, dtype=tf.float32)


def concat(values: Sequence[Tensor], axis: int = -1) -> Tensor:
    return tf.concat(list(values), axis=axis)


def cast(x: Tensor, dtype: str) -> Tensor:
    return tf.cast(x, dtype)


def argmax(x: Tensor, axis: int = -1) -> Tensor:
    return tf.argmax(x, axis=axis, output_type=tf.int64)


def argsort(x: Tensor, axis: int = -1) -> Tensor:
    return tf.cast(tf.argsort(x, axis=axis, stable=True), tf.int64)


def reduce_sum(x: Tensor, axis: int | None = None) -> Tensor:
    return tf.reduce_sum(x, axis=axis)


def reduce_mean(x: Tensor, axis: int | None = None) -> Tensor:
    return tf.reduce_mean(x, axis=axis)


def identity(x: Tensor) -> Tensor:
    return x


__all__ = [
    "dense", "ACTIVATIONS", "activation", "clip", "multiply", "reshape", "leading_dims", "one_hot", "concat", "cast",
    "argmax", "argsort", "reduce_sum", "reduce_mean", "identity",
]
