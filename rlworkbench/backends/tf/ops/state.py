"""Changing variables from graph functions, and gradients.

Inside a ``tf.function`` stateful operations run in program order (automatic control dependencies), so reads
after an assignment see the new value, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def _shape(variable: tf.Variable) -> Sequence[int] | Tensor:
    """The variable's shape without reading its value: ``tf.shape(variable)`` reads it whole, and a whole read of a
    variable that was scattered into copies it (TF's copy-on-read mode) — O(size) per call for a replay memory."""
    if variable.shape.is_fully_defined():
        return variable.shape.as_list()
    return tf.raw_ops.VariableShape(input=variable.handle, out_type=tf.int32)  # as [-1] is


def _rows(variable: tf.Variable) -> Sequence[int] | Tensor:
    """The shape of a batch of the variable's rows: ``[-1, *row_shape]``."""
    shape = _shape(variable)
    return [-1, *shape[1:]] if isinstance(shape, list) else tf.concat([[-1], shape[1:]], 0)


def _full(variable: tf.Variable, value: object) -> Tensor:
    """``value`` cast and broadcast to the variable (PyTorch's in-place ops broadcast; TF's assigns do not)."""
    return tf.broadcast_to(tf.cast(value, variable.dtype), _shape(variable))


def assign(variable: tf.Variable, value: object) -> Tensor:
    return variable.assign(_full(variable, value))


def assign_add(variable: tf.Variable, value: object) -> Tensor:
    return variable.assign_add(_full(variable, value))


def assign_sub(variable: tf.Variable, value: object) -> Tensor:
    return variable.assign_sub(_full(variable, value))


def _holds_nothing(variable: tf.Variable) -> bool:
    """A variable of zero size (a memory's buffer for a zero-size leaf): TF refuses scatters into it, while there
    is nothing to change (PyTorch's index_copy_ does nothing). Decided at trace time, from the static shape."""
    return variable.shape.is_fully_defined() and variable.shape.num_elements() == 0


def scatter_update(variable: tf.Variable, indices: Tensor, updates: Tensor) -> Tensor:
    """``variable[indices] = updates`` along axis 0 (rows)."""
    if _holds_nothing(variable):
        return variable.read_value()
    indices = tf.reshape(tf.cast(indices, tf.int64), [-1, 1])
    updates = tf.reshape(tf.cast(updates, variable.dtype), _rows(variable))
    return variable.scatter_nd_update(indices, updates)


def scatter_add(variable: tf.Variable, indices: Tensor, updates: Tensor) -> Tensor:
    """``variable[indices] += updates`` along axis 0 (rows); repeated indices add up."""
    if _holds_nothing(variable):
        return variable.read_value()
    indices = tf.reshape(tf.cast(indices, tf.int64), [-1, 1])
    updates = tf.reshape(tf.cast(updates, variable.dtype), _rows(variable))
    return variable.scatter_nd_add(indices, updates)


def read(variable: tf.Variable) -> Tensor:
    """A snapshot of a variable's value that later assignments do not change."""
    return tf.identity(variable.read_value())


def gradients(loss: Tensor, variables: Sequence[tf.Variable]) -> list[Tensor]:
    """d loss / d variable for each variable (zeros where the loss does not depend on it).

    Uses the static graph's ``tf.gradients``: API methods run as one traced graph, so the loss computed by
    other components' graph functions is differentiable here.
    """
    grads = tf.gradients(loss, list(variables))
    return [tf.zeros_like(v) if g is None else tf.convert_to_tensor(g) for v, g in zip(variables, grads)]


__all__ = ["assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "read", "gradients"]
