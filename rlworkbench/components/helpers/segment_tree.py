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
MIN_BLOCK = 64  #: leaves per block of the minima kept for ``minimum``
MAX_STRIDE = 7  #: most tree levels the prefix-sum search descends at once (128 descendants)


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
    once. ``minimum(count)``, the smallest of the first ``count`` leaves, reads a second variable ``block_minima``
    (the minimum of every block of 64 leaves, refreshed for the blocks an update touches): ``capacity / 64 + 64``
    values per call instead of ``count``, so its cost stays flat from thousands to millions of leaves (an update of
    ``n`` leaves reads ``64 n``). The leaves are only read at indices (gathers), never whole: on TensorFlow a whole
    read of a variable that was scattered into copies it. Values come back as float32.
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
        strides = -(-self.depth // MAX_STRIDE)  # the prefix-sum search's levels, split into equal strides
        self.strides = [self.depth // strides + (i < self.depth % strides) for i in range(strides)]
        self.min_block = min(MIN_BLOCK, capacity)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.dtype = "float64" if self.reduction == "sum" else "float32"
        self.tree = self.create_variable("tree", (2 * self.capacity,), self.dtype, _NEUTRAL[self.reduction],
                                         trainable=False)
        self.block_minima = self.create_variable("block_minima", (self.capacity // self.min_block,), self.dtype,
                                                 _NEUTRAL[self.reduction], trainable=False)
        self.powers = 2 ** np.arange(1, self.depth + 1)  # node // powers[k]: its ancestor k + 1 levels up
        self.in_block = np.arange(self.min_block)

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
                parents = ops.expand_dims(ancestors[:, level], 1) * 2
                children = ops.gather(self.tree, ops.concat([parents, parents + 1], 1))  # read anew: the level below
                ops.scatter_update(self.tree, parents[:, 0] // 2, ops.reduce_min(children, -1))
        self._refresh_block_minima(nodes)

    def _refresh_block_minima(self, nodes: Tensor) -> None:
        """Recomputes the minima of the blocks holding leaf ``nodes`` (node 0, the scratch target: block 0's)."""
        ops = self.ops
        blocks = ops.maximum(nodes - self.capacity, ops.zeros_like(nodes)) // self.min_block
        members = ops.expand_dims(blocks * self.min_block + self.capacity, 1) + ops.constant(self.in_block, "int64")
        ops.scatter_update(self.block_minima, blocks, ops.reduce_min(ops.gather(self.tree, members), -1))

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
        ops = self.ops
        return ops.cast(ops.reduce_sum(ops.gather(self.tree, ops.constant([1], "int64"))), "float32")  # the root

    @api(must_be_complete=False)
    @graph_fn
    def minimum(self, count: Size) -> Tensor:
        """The smallest of the first ``count`` leaves (a float32 scalar; the neutral value for none): for a sum
        tree of a memory filled from slot 0, its smallest stored priority."""
        ops = self.ops
        count = ops.minimum(ops.maximum(ops.cast(count, "int64"), ops.constant(0, "int64")),
                            ops.constant(self.capacity, "int64"))  # as a slice would: within the leaves
        whole = count // self.min_block  # the blocks below count: their minima; the leaves of the rest one by one
        blocks = self.block_minima[:whole]  # a small variable: read whole (a copy of capacity / 8 bytes) is cheapest
        rest = ops.gather(self.tree, ops.arange(self.capacity + whole * self.min_block, self.capacity + count))
        none = ops.fill((1,), float("inf"), self.dtype)
        return ops.cast(ops.reduce_min(ops.concat([blocks, rest, none], 0)), "float32")

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_indices_space)  # declared: leaf numbers in [0, capacity); a sum tree only
    def find_prefix_sum(self, prefix_sums: Tensor) -> Tensor:
        """Per ``u``, the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])`` (sum trees only): never an
        empty leaf unless the whole tree is empty (then 0).

        A descent in strides of up to 7 levels instead of one level at a time: from its node, each ``u`` reads
        the node's descendants ``k`` levels down (at most 128), and a cumulative sum over them picks the one whose
        range holds ``u`` — 2 strides for 4k leaves, 3 for 1M, each a handful of vectorised ops over ``n x 128``
        values (a search over blocks of ``sqrt(capacity)`` leaves read ``n x 1024`` at 1M)."""
        ops = self.ops
        below = 1.0 - 1e-12  # u stays below the sum it was drawn from, whatever the rounding
        total = ops.gather(self.tree, ops.constant([1], "int64"))
        u = ops.minimum(ops.cast(prefix_sums, self.dtype), total * below)
        node = ops.zeros_like(ops.cast(u, "int64")) + 1  # the root
        for levels in self.strides:
            width = 1 << levels
            descendants = ops.expand_dims(node * width, 1) + ops.constant(np.arange(width), "int64")
            sums = ops.gather(self.tree, descendants)
            ends = ops.cumsum(sums, 1)
            u = ops.minimum(u, ends[:, -1] * below)
            inside = ops.minimum(ops.reshape(ops.searchsorted(ends, ops.expand_dims(u, 1)), (-1,)), width - 1)
            u = u - ops.select_by_index(ends - sums, inside)  # what lies before the chosen descendant
            node = node * width + inside
        leaf = node - self.capacity
        return ops.where(total > 0, leaf, ops.zeros_like(leaf))
