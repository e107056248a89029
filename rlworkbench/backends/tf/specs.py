"""Spaces as ``tf.TensorSpec`` (batch/time ranks become ``None`` dimensions) and tensors back as spaces."""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from rlworkbench.core import space_inference
from rlworkbench.errors import BuildError
from rlworkbench.spaces import BoxSpace, ContainerSpace, Space, TextBox


def tensor_spec(space: Space, name: str | None = None) -> Any:
    """A (nested) ``TensorSpec`` with ``None`` for every batch/time dimension."""
    if isinstance(space, ContainerSpace):
        children = {key: tensor_spec(child) for key, child in space.children()}
        return tuple(children.values()) if not hasattr(space, "keys") else children
    assert isinstance(space, BoxSpace)
    dtype = tf.string if isinstance(space, TextBox) else tf.as_dtype(space.dtype)
    return tf.TensorSpec(space.get_shape(with_batch_rank=True, with_time_rank=True), dtype, name=name)


def zeros_of_pass(space: Space, sample_pass: int) -> Any:
    """A stand-in for a value of ``space`` at the static (batch, time) sizes of one sample pass, as traced ops: a
    placeholder (with zeros as its default) so that TF's shape inference cannot fold the value into shapes — an
    output whose size depends on input values stays unknown and stops the build, as it should."""
    if isinstance(space, ContainerSpace):
        children = {key: zeros_of_pass(child, sample_pass) for key, child in space.children()}
        return tuple(children.values()) if not hasattr(space, "keys") else children
    assert isinstance(space, BoxSpace)
    shape = space.size_dims(space_inference.sample_size(space, sample_pass)) + space.shape
    zeros = tf.fill(shape, "") if isinstance(space, TextBox) else tf.zeros(shape, tf.as_dtype(space.dtype))
    return tf.compat.v1.placeholder_with_default(zeros, shape)


def static_shape(value: object, where: dict[str, object]) -> tuple[tuple[int, ...], np.dtype]:
    """A traced output leaf's static shape and dtype; a BuildError (at ``where``) if a dimension is unknown."""
    if not isinstance(value, (tf.Tensor, tf.Variable)):
        array = np.asarray(value)
        return array.shape, array.dtype
    if value.shape.rank is None or any(d is None for d in value.shape.as_list()):
        raise BuildError("graph function output has a dynamic dimension; declare output_spaces",
                         expected="static dims for inputs of static sizes", got=str(value.shape), **where)
    dtype = np.dtype(object) if value.dtype == tf.string else np.dtype(value.dtype.as_numpy_dtype)
    return tuple(value.shape.as_list()), dtype
