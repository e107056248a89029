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


def space_of(value: Any, ranks: tuple[bool, bool, bool]) -> Space:
    """The space of a traced output: leading ``None`` dimensions are its batch/time ranks."""
    if not isinstance(value, (tf.Tensor, tf.Variable)):
        array = np.asarray(value)
        return space_inference.leaf_space(array.shape, array.dtype)
    shape = value.shape.as_list() if value.shape.rank is not None else None
    if shape is None:
        raise BuildError("graph function output has an unknown rank; declare output_spaces", got=repr(value))
    unknown = 0
    while unknown < len(shape) and shape[unknown] is None:
        unknown += 1
    batch, time, time_major = ranks
    if unknown >= 2:
        leading = (True, True, time_major)
    elif unknown == 1:
        leading = (True, False, False) if batch or not time else (False, True, False)
    else:
        leading = (False, False, False)
    core = shape[min(unknown, 2):]
    if any(d is None for d in core):
        raise BuildError("graph function output has a dynamic core dimension; declare output_spaces",
                         expected="static dims after the batch/time ranks", got=str(value.shape))
    dtype = np.dtype(object) if value.dtype == tf.string else np.dtype(value.dtype.as_numpy_dtype)
    return space_inference.leaf_space(tuple(core), dtype)._with_ranks(*leading)

