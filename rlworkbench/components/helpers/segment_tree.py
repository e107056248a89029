"""A segment tree (sum or min) over a power-of-two number of leaves, kept in one variable."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Size, Tensor
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
    ``update`` takes repeated indices (the last value wins); ``update_distinct`` skips that search.

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
        self.block = 1 << (self.depth + 1) // 2  # leaves per block of the prefix-sum search (about sqrt(capacity))

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.dtype = "float64" if self.reduction == "sum" else "float32"
        self.tree = self.create_variable("tree", (2 * self.capacity,), self.dtype, _NEUTRAL[self.reduction],
                                         trainable=False)
        self.powers = 2 ** np.arange(1, self.depth + 1)  # node // powers[k]: its ancestor k + 1 levels up

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def update(self, indices: Tensor, values: Tensor) -> None:
        """Sets the leaves at ``indices`` to ``values``; with repeated indices the last value wins."""
        ops = self.ops
        nodes = ops.cast(indices, "int64") + self.capacity
        # a repeated index counts once, at its last occurrence: the others write to node 0, which no node uses
        nodes = ops.where(self._last_occurrences(nodes), nodes, ops.zeros_like(nodes))
        self._set_leaves(nodes, values)
        ops.scatter_update(self.tree, ops.zeros_like(nodes[:1]), ops.fill((1,), _NEUTRAL[self.reduction], self.dtype))

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def update_distinct(self, indices: Tensor, values: Tensor) -> None:
        """:meth:`update` for ``indices`` known to be distinct (e.g. the slots of one memory write): without the
        search for repeats (two sorts), which is most of a small update's cost."""
        self._set_leaves(self.ops.cast(indices, "int64") + self.capacity, values)

    def _set_leaves(self, nodes: Tensor, values: Tensor) -> None:
        """Sets distinct leaf ``nodes`` (node 0 allowed as a scratch target) and updates their ancestors."""
        ops = self.ops
        values = ops.cast(values, self.dtype)
        ancestors = ops.expand_dims(nodes, 1) // ops.constant(self.powers, "int64")  # (n, depth): all at once
        if self.reduction == "sum":  # every ancestor changes by the changes of the leaves below it
            changes = values - ops.gather(self.tree, nodes)
            everywhere = ops.concat([ops.expand_dims(nodes, 1), ancestors], 1)
            ops.scatter_add(self.tree, ops.reshape(everywhere, (-1,)),
                            ops.reshape(ops.tile(ops.expand_dims(changes, 1), (1, self.depth + 1)), (-1,)))
        else:
            ops.scatter_update(self.tree, nodes, values)
            for level in range(self.depth):  # parents after children
                parents = ancestors[:, level]
                children = ops.gather(ops.reshape(self.tree, (-1, 2)), parents)  # read anew: the level below changed
                ops.scatter_update(self.tree, parents, ops.reduce_min(children, -1))

    def _last_occurrences(self, nodes: Tensor) -> Tensor:
        """Per position, whether no later position has the same node (a stable sort: O(n log n), any n)."""
        ops = self.ops
        order = ops.argsort(nodes)
        ordered = ops.gather(nodes, order)
        later_repeat = ops.concat([ordered[1:] == ordered[:-1], ops.zeros_like(ordered[:1]) > 0], 0)
        return ops.gather(~later_repeat, ops.argsort(order))  # back from sorted order to the given one

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_values_space)  # declared: a build must not gather at sampled, out-of-range indices
    def get(self, indices: Tensor) -> Tensor:
        """The values of the leaves at ``indices``."""
        return self.ops.cast(self.ops.gather(self.tree, self.ops.cast(indices, "int64") + self.capacity), "float32")

    @api(must_be_complete=False)
    @graph_fn
    def reduce(self) -> Tensor:
        """The sum (or min) over all leaves: a float32 scalar."""
        return self.ops.cast(self.ops.reduce_sum(self.tree[1:2]), "float32")  # the root (a slice: a copy)

    @api(must_be_complete=False)
    @graph_fn
    def minimum(self, count: Size) -> Tensor:
        """The smallest of the first ``count`` leaves (a float32 scalar; the neutral value for none): for a sum
        tree of a memory filled from slot 0, its smallest stored priority."""
        ops = self.ops
        stored = self.tree[self.capacity:self.capacity + ops.cast(count, "int64")]
        none = ops.fill((1,), float("inf"), self.dtype)
        return ops.cast(ops.reduce_min(ops.concat([stored, none], 0)), "float32")

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_indices_space)  # declared: leaf numbers in [0, capacity); a sum tree only
    def find_prefix_sum(self, prefix_sums: Tensor) -> Tensor:
        """Per ``u``, the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])`` (sum trees only): never an
        empty leaf unless the whole tree is empty (then 0).

        Two steps of a blocked search instead of a descent through every level: the leaves form blocks of about
        ``sqrt(capacity)``, whose sums are a level of the tree; a cumulative sum over those finds each ``u``'s
        block, a cumulative sum over that block's leaves its leaf (a handful of vectorised ops, whatever the
        depth)."""
        ops = self.ops
        count, size = self.capacity // self.block, self.block
        block_sums = self.tree[count:2 * count]  # the tree level with one node per block
        ends = ops.cumsum(block_sums, 0)
        below = 1.0 - 1e-12  # u stays below the total it was drawn from, whatever the rounding
        u = ops.minimum(ops.cast(prefix_sums, self.dtype), ends[-1] * below)
        block = ops.minimum(ops.searchsorted(ends, u), count - 1)  # the first block that ends past u
        u = u - (ops.gather(ends, block) - ops.gather(block_sums, block))
        leaf_ends = ops.cumsum(ops.gather(ops.reshape(self.tree[self.capacity:], (count, size)), block), 1)
        u = ops.minimum(u, leaf_ends[:, -1] * below)
        inside = ops.minimum(ops.reshape(ops.searchsorted(leaf_ends, ops.expand_dims(u, 1)), (-1,)), size - 1)
        leaf = block * size + inside
        return ops.where(ends[-1] > 0, leaf, ops.zeros_like(leaf))
