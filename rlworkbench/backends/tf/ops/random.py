"""Random numbers from a component's own generator (``self.create_random_generator()``), so sampling is
reproducible per build seed and independent between components.

Inside a replica tower (multi-device update) a draw with a leading batch axis is made for the whole batch and cut to
the tower's rows (:func:`rlworkbench.core.replication.draw_rows`): a tower samples what one device would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import tensorflow as tf

from rlworkbench.core.replication import draw_rows

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def _for_rows(shape: Tensor) -> tuple[Any, Any]:
    """The shape to draw and the rows to keep (all of them outside a replica tower)."""
    rows = draw_rows()
    if rows is None:
        return shape, None
    shape = tf.unstack(tf.shape(shape)) if isinstance(shape, tf.Tensor) else list(shape)
    if not shape:
        return shape, None
    total, start, stop = rows
    return [total, *shape[1:]], (start, stop)


def _kept(values: Tensor, rows: Tensor) -> Tensor:
    return values if rows is None else values[rows[0]:rows[1]]


def random_uniform(generator: tf.random.Generator, shape: Sequence[object], low: float = 0.0,
                   high: float = 1.0) -> Tensor:
    shape, rows = _for_rows(list(shape))
    return low + (high - low) * _kept(generator.uniform(shape, dtype=tf.float32), rows)


def random_normal(generator: tf.random.Generator, shape: Sequence[object], mean: float = 0.0,
                  stddev: float = 1.0) -> Tensor:
    shape, rows = _for_rows(list(shape))
    return mean + stddev * _kept(generator.normal(shape, dtype=tf.float32), rows)


def random_integers(generator: tf.random.Generator, shape: Sequence[object], low: int, high: Tensor) -> Tensor:
    """Uniform ints in ``[low, high)``; ``high`` may be a scalar tensor (e.g. a memory's current size)."""
    shape, rows = _for_rows(list(shape))
    u = _kept(generator.uniform(shape, dtype=tf.float64), rows)
    span = tf.cast(high, tf.float64) - low
    return tf.cast(low + tf.floor(u * span), tf.int64)


def random_categorical(generator: tf.random.Generator, logits: Tensor) -> Tensor:
    """One sample per leading position from ``softmax(logits)`` over the last axis (Gumbel-max)."""
    shape, rows = _for_rows(tf.shape(logits))
    u = _kept(generator.uniform(shape, dtype=logits.dtype), rows)
    gumbel = -tf.math.log(-tf.math.log(tf.maximum(u, tf.cast(1e-30, logits.dtype))))
    return tf.argmax(logits + gumbel, axis=-1, output_type=tf.int64)


def copy_generator_state(target: tf.random.Generator, source: tf.random.Generator) -> None:
    """``target`` continues exactly where ``source`` stands."""
    target.state.assign(source.state)


__all__ = ["random_uniform", "random_normal", "random_integers", "random_categorical", "copy_generator_state"]
