"""Ring-buffer ops (a replay memory's write): the ops composition, traced into the graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import tensorflow as tf

from rlworkbench.backends.tf.ops.trees import _ops
from rlworkbench.core import ring_kernels as kernels

Tensor: TypeAlias = tf.Tensor


def ring_write(buffers: Sequence[Tensor], cursor: Tensor, size: Tensor, values: Sequence[Tensor]) -> Tensor:
    return kernels.ring_write(_ops(), buffers, cursor, size, values)


__all__ = ["ring_write"]
