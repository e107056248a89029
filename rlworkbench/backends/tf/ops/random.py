"""Random numbers from a component's own generator (``self.create_random_generator()``), so sampling is
reproducible per build seed and independent between components."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

Tensor = tf.Tensor


def random_uniform(generator: tf.random.Generator, shape: Sequence[Any], low: float = 0.0,
                   high: float = 1.0) -> Tensor:
    return low + (high - low) * generator.uniform(list(shape), dtype=tf.float32)


def random_normal(generator: tf.random.Generator, shape: Sequence[Any], mean: float = 0.0,
                  stddev: float = 1.0) -> Tensor:
    return mean + stddev * generator.normal(list(shape), dtype=tf.float32)


def random_integers(generator: tf.random.Generator, shape: Sequence[Any], low: int, high: Any) -> Tensor:
    """Uniform ints in ``[low, high)``; ``high`` may be a scalar tensor (e.g. a memory's current size)."""
    u = generator.uniform(list(shape), dtype=tf.float64)
    span = tf.cast(high, tf.float64) - low
    return tf.cast(low + tf.floor(u * span), tf.int64)


def random_categorical(generator: tf.random.Generator, logits: Tensor) -> Tensor:
    """One sample per leading position from ``softmax(logits)`` over the last axis (Gumbel-max)."""
    u = generator.uniform(tf.shape(logits), dtype=logits.dtype)
    gumbel = -tf.math.log(-tf.math.log(tf.maximum(u, tf.cast(1e-30, logits.dtype))))
    return tf.argmax(logits + gumbel, axis=-1, output_type=tf.int64)


__all__ = ["random_uniform", "random_normal", "random_integers", "random_categorical"]
