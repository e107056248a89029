"""Sum-tree ops (prioritized replay's tree): the ops composition, traced into the graph."""

from __future__ import annotations

from types import ModuleType
from typing import TypeAlias

import tensorflow as tf

from rlworkbench.core import sum_tree_kernels as kernels

Tensor: TypeAlias = tf.Tensor


def _ops() -> ModuleType:  # the namespace this module is part of (imported when first needed: it imports this module)
    from rlworkbench.backends.tf import ops

    return ops


def tree_sum_set(tree: Tensor, block_minima: Tensor, nodes: Tensor, values: Tensor, distinct: bool = False,
                 ) -> None:
    kernels.sum_set(_ops(), tree, block_minima, nodes, values, distinct)


def tree_prefix_search(tree: Tensor, prefix_sums: Tensor) -> Tensor:
    return kernels.prefix_search(_ops(), tree, prefix_sums)


def tree_sample(tree: Tensor, block_minima: Tensor, uniforms: Tensor, count: Tensor | int,
                ) -> tuple[Tensor, Tensor, Tensor]:
    return kernels.sample(_ops(), tree, block_minima, uniforms, tf.convert_to_tensor(count))


def tree_block_minimum(tree: Tensor, block_minima: Tensor, count: Tensor | int) -> Tensor:
    return kernels.block_minimum(_ops(), tree, block_minima, tf.convert_to_tensor(count))


def track_max(largest: Tensor, values: Tensor) -> Tensor:
    return kernels.track_max(_ops(), largest, values)


__all__ = ["tree_sum_set", "tree_prefix_search", "tree_block_minimum", "tree_sample", "track_max"]
