"""Neural-network operations: 2-D convolution and max pooling on NHWC images, and a scan over time.

Images are ``(batch, height, width, channels)`` and kernels ``(kh, kw, in, out)``, TensorFlow's own layouts.
``"same"`` padding is TensorFlow's: ``out = ceil(in / stride)``, the odd pixel of padding after.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def conv2d(x: Tensor, kernel: Tensor, bias: Any | None, strides: Sequence[int] = (1, 1),
           padding: str = "valid") -> Tensor:
    """2-D convolution (cross-correlation) of NHWC ``x`` with a ``(kh, kw, in, out)`` kernel, plus ``bias``.

    ``padding`` is ``"valid"`` (no padding) or ``"same"`` (output size ``ceil(in / stride)``).
    """
    out = tf.nn.conv2d(x, kernel, strides=[1, int(strides[0]), int(strides[1]), 1], padding=padding.upper())
    return out if bias is None else tf.nn.bias_add(out, bias)


def max_pool2d(x: Tensor, pool_size: Sequence[int], strides: Sequence[int], padding: str = "valid") -> Tensor:
    """Max pooling of NHWC ``x`` over ``pool_size`` windows; ``"same"`` padding never wins the max."""
    return tf.nn.max_pool2d(x, [int(p) for p in pool_size], [int(s) for s in strides], padding.upper())


def lstm_cell(x: Tensor, state: tuple[Tensor, Tensor], kernel: Tensor, recurrent_kernel: Tensor,
              bias: Tensor) -> tuple[Tensor, Tensor]:
    """One LSTM step (gates ``[i, f, g, o]``, as Keras)."""
    h, c = state
    i, f, g, o = tf.split(tf.matmul(x, kernel) + tf.matmul(h, recurrent_kernel) + bias, 4, axis=-1)
    c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
    return tf.sigmoid(o) * tf.tanh(c), c


def scan(fn: Callable[[Any, Tensor], Any], elems: Tensor, initializer: Tensor) -> Tensor:
    """``carry = fn(carry, elems[t])`` for every ``t`` of axis 0 (its length may be unknown while tracing),
    from ``initializer``; returns every step's carry stacked on a new axis 0 (nested like ``initializer``)."""
    return tf.scan(fn, elems, initializer=initializer)


__all__ = ["conv2d", "lstm_cell", "max_pool2d", "scan"]
