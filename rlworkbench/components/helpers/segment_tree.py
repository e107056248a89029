"""A segment tree (sum or min) over a power-of-two number of leaves, kept in one variable."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox, IntBox, Space

_NEUTRAL = {"sum": 0.0, "min": float("inf")}


def _nothing(tree: SegmentTree, *inputs: Space) -> tuple:
    """Declared (no outputs), so the build's sample passes never run an update with sampled, possibly
    out-of-range, indices."""
    return ()


def _values_space(tree: SegmentTree, indices: Space) -> Space:
    return FloatBox(add_batch_rank=True)


def _indices_space(tree: SegmentTree, prefix_sums: Space) -> Space:
    if tree.reduction != "sum":
        raise ConfigError("find_prefix_sum needs a sum tree", component=tree.path, argument="reduction",
                          expected="'sum'", got=repr(tree.reduction))
    return IntBox(0, tree.capacity, add_batch_rank=True)


@register("segment_tree")
class SegmentTree(Component):
    """A sum or min tree over ``capacity`` leaves (a power of two), for prioritized replay.

    The ``2 * capacity`` nodes live in one variable ``tree``: node 1 is the root, node ``i`` has the children
    ``2i`` and ``2i + 1``, leaf ``j`` is node ``capacity + j``. Leaves start at the reduction's neutral value
    (0 for ``"sum"``, +inf for ``"min"``). A sum tree keeps float64 nodes and updates all of a batch's ancestors
    in one scatter-add of the leaves' changes (float64: the sums stay exact to ~1e-12 over billions of updates);
    a min tree (float32) recomputes the ancestors level by level. The prefix-sum search descends all queries at
    once; ``minimum(count)`` is the smallest of the first ``count`` leaves. Values come back as float32.

    Inputs: ``indices`` an IntBox with a batch rank (leaf numbers ``0 … capacity-1``); ``values`` and
    ``prefix_sums`` FloatBoxes with a batch rank. All API methods may build before their inputs have spaces
    (the tree's variables never depend on them).
    """

    def __init__(self, capacity: int, reduction: str = "sum", **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(capacity, int) or capacity < 1 or capacity & (capacity - 1):
            raise ConfigError("the capacity of a segment tree is a power of two", component=self.name,
                              argument="capacity", expected="1, 2, 4, 8, …", got=capacity)
        if reduction not in _NEUTRAL:
            raise ConfigError("unknown reduction", component=self.name, argument="reduction",
                              expected=sorted(_NEUTRAL), got=repr(reduction))
        self.capacity, self.reduction = capacity, reduction
        self.depth = capacity.bit_length() - 1

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.dtype = "float64" if self.reduction == "sum" else "float32"
        self.tree = self.create_variable("tree", (2 * self.capacity,), self.dtype, _NEUTRAL[self.reduction],
                                         trainable=False)
        self.powers = 2 ** np.arange(1, self.depth + 1)  # node // powers[k]: its ancestor k + 1 levels up

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def update(self, indices: Any, values: Any) -> None:
        """Sets the leaves at ``indices`` to ``values``; with repeated indices the last value wins."""
        ops = self.ops
        nodes = ops.cast(indices, "int64") + self.capacity
        values, last = self._last_values(nodes, ops.cast(values, self.dtype))
        ancestors = ops.expand_dims(nodes, 1) // ops.constant(self.powers, "int64")  # (n, depth): all at once
        if self.reduction == "sum":  # every ancestor changes by its leaves' changes (a repeat's change once)
            changes = ops.where(last, values - ops.gather(self.tree, nodes), ops.zeros_like(values))
            everywhere = ops.concat([ops.expand_dims(nodes, 1), ancestors], 1)
            ops.scatter_add(self.tree, ops.reshape(everywhere, (-1,)),
                            ops.reshape(ops.tile(ops.expand_dims(changes, 1), (1, self.depth + 1)), (-1,)))
            return
        ops.scatter_update(self.tree, nodes, values)
        for level in range(self.depth):  # parents after children; repeated parents get the same value
            parents = ancestors[:, level]
            children = ops.gather(ops.reshape(self.tree, (-1, 2)), parents)  # read anew: the level below changed
            ops.scatter_update(self.tree, parents, ops.reduce_min(children, -1))

    def _last_values(self, nodes: Any, values: Any) -> tuple[Any, Any]:
        """``(values, last)``: ``values`` where every repeat of a node takes the value of its last occurrence (so a
        scatter writes the same thing on every backend: scatters with repeated indices have no defined order),
        and whether each position is its node's last occurrence."""
        ops = self.ops
        positions = ops.arange(ops.dim(nodes, 0))
        same = ops.expand_dims(nodes, 1) == ops.expand_dims(nodes, 0)
        last_position = ops.reduce_max(ops.where(same, ops.expand_dims(positions, 0), -1), axis=1)
        return ops.gather(values, last_position), positions == last_position

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_values_space)  # declared: a build must not gather at sampled, out-of-range indices
    def get(self, indices: Any) -> Any:
        """The values of the leaves at ``indices``."""
        return self.ops.cast(self.ops.gather(self.tree, self.ops.cast(indices, "int64") + self.capacity), "float32")

    @api(must_be_complete=False)
    @graph_fn
    def reduce(self) -> Any:
        """The sum (or min) over all leaves: a float32 scalar."""
        return self.ops.cast(self.ops.reduce_sum(self.tree[1:2]), "float32")  # the root (a slice: a copy)

    @api(must_be_complete=False)
    @graph_fn
    def minimum(self, count: Any) -> Any:
        """The smallest of the first ``count`` leaves (a float32 scalar; the neutral value for none): for a sum
        tree of a memory filled from slot 0, its smallest stored priority."""
        ops = self.ops
        leaves = self.tree[self.capacity:]
        stored = ops.arange(self.capacity) < ops.cast(count, "int64")
        return ops.cast(ops.reduce_min(ops.where(stored, leaves, ops.fill((self.capacity,), float("inf"),
                                                                            self.dtype))), "float32")

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_indices_space)  # declared: leaf numbers in [0, capacity); a sum tree only
    def find_prefix_sum(self, prefix_sums: Any) -> Any:
        """Per ``u``, the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])`` (sum trees only).

        Descends from the root; goes right when ``u`` reaches past the left subtree (subtracting its sum) and
        the right subtree is not empty. So an empty leaf is never found unless the whole tree is empty (then 0)."""
        ops = self.ops
        remaining = ops.cast(prefix_sums, self.dtype)
        node = ops.cast(ops.ones_like(remaining), "int64")
        pairs = ops.reshape(self.tree, (-1, 2))  # row i: the sums of node i's two subtrees
        for _ in range(self.depth):
            children = ops.gather(pairs, node)
            left_sum = children[:, 0]
            right = (remaining >= left_sum) & (children[:, 1] > 0)
            remaining = remaining - ops.where(right, left_sum, ops.zeros_like(left_sum))
            node = 2 * node + ops.cast(right, "int64")
        return node - self.capacity
