"""Collectives over a learner group (:mod:`rlworkbench.core.collective`), as TensorFlow collective ops in the
runtime ``tf.distribute.MultiWorkerMirroredStrategy`` configured for the group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import tensorflow as tf

from rlworkbench.core import collective

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type

__all__ = ["group_mean"]


def group_mean(tensors: Sequence[Tensor]) -> list[Tensor]:
    """The elementwise mean of ``tensors`` over the learner group's ranks — one all-reduce of one flat buffer,
    traced into the graph — or ``tensors`` unchanged outside a group (decided when the graph is traced)."""
    group = collective.current()
    if group is None:
        return list(tensors)
    tensors = [tf.convert_to_tensor(tensor) for tensor in tensors]
    flat = tf.concat([tf.reshape(tensor, [-1]) for tensor in tensors], 0)
    reduced = tf.raw_ops.CollectiveReduceV2(
        input=flat, group_size=group.size, group_key=collective.GROUP_KEY, instance_key=group.next_instance_key(),
        ordering_token=[], merge_op="Add", final_op="Div", timeout_seconds=group.timeout)
    sizes = [int(tensor.shape.num_elements()) for tensor in tensors]
    return [tf.reshape(part, tf.shape(tensor)) for part, tensor in zip(tf.split(reduced, sizes), tensors)]
