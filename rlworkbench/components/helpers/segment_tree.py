"""A segment tree (sum or min) over a power-of-two number of leaves, kept in one variable."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Size, Tensor
from rlworkbench.core.sum_tree_kernels import last_occurrences, refresh_block_minima
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import FloatBox, IntBox, Space

_NEUTRAL = {"sum": 0.0, "min": float("inf")}
MIN_BLOCK = 64  #: leaves per block of the minima kept for ``minimum``


def _nothing(tree: SegmentTree, *inputs: Space) -> tuple:
    """Declared (no outputs), so the build's sample passes never run an update with sampled, possibly
    out-of-range, indices."""
    return ()


def _values_space(tree: SegmentTree, indices: Space) -> Space:
    return FloatBox(add_batch_rank=True)


def _indices_space(tree: SegmentTree, prefix_sums: Space, method: str = "find_prefix_sum") -> Space:
    if tree.reduction != "sum":
        raise ConfigError(f"{method} needs a sum tree", component=tree.path, argument="reduction",
                          expected="'sum'", got=repr(tree.reduction))
    return IntBox(0, tree.capacity, add_batch_rank=True)


def _sampled_spaces(tree: SegmentTree, uniforms: Space, count: Space) -> tuple[Space, Space, Space]:
    return _indices_space(tree, uniforms, "sample"), FloatBox(add_batch_rank=True), FloatBox()


@register("segment_tree")
class SegmentTree(Component):
    """A sum or min tree over ``capacity`` leaves (a power of two), for prioritized replay.

    The ``2 * capacity`` nodes live in one variable ``tree``: node 1 is the root, node ``i`` has the children
    ``2i`` and ``2i + 1``, leaf ``j`` is node ``capacity + j``. Leaves start at the reduction's neutral value
    (0 for ``"sum"``, +inf for ``"min"``). A sum tree keeps float64 nodes (the sums stay exact to ~1e-12 over
    billions of updates); its update and prefix-sum search are the fused ops ``tree_sum_set`` (all of a batch's
    ancestors in one scatter-add of the leaves' changes) and ``tree_prefix_search`` (all queries descend at once),
    NumPy on torch's CPU tensors. A min tree (float32) recomputes the ancestors level by level. ``minimum(count)``,
    the smallest of the first ``count`` leaves (the op ``tree_block_minimum``), reads a second variable
    ``block_minima`` (the minimum of every block of 64 leaves, kept by every update: lowered where a new value is
    below it, recomputed from the block's leaves where its smallest leaf went up — on torch's CPU tensors only
    there, elsewhere for every block touched): ``capacity / 64 + 64`` values per call instead of ``count``, so its
    cost stays flat from thousands to millions of leaves. ``sample(uniforms, count)`` (sum trees) is a proportional
    sample in one fused op (``tree_sample``): the leaves at ``uniforms`` times the total, their values and
    ``minimum(count)``. The leaves are only read at indices (gathers), never whole: on TensorFlow a whole read of a
    variable that was scattered into copies it. Values come back as float32. ``update`` takes repeated indices (the
    last value wins); ``update_distinct`` skips that search; ``fill(indices, value)`` sets distinct leaves to one
    scalar. On torch's CPU tensors the sum tree's ops run compiled where numba is installed (the ``fast`` extra).

    Inputs: ``indices`` an IntBox with a batch rank (leaf numbers ``0 … capacity-1``); ``value`` a FloatBox
    scalar; ``values``, ``prefix_sums`` and ``uniforms`` FloatBoxes with a batch rank; ``count`` an int scalar.
    All API methods may build before their inputs have spaces (the tree's variables never depend on them).
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
        self.min_block = min(MIN_BLOCK, capacity)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.dtype = "float64" if self.reduction == "sum" else "float32"
        self.tree = self.create_variable("tree", (2 * self.capacity,), self.dtype, _NEUTRAL[self.reduction],
                                         trainable=False)
        self.block_minima = self.create_variable("block_minima", (self.capacity // self.min_block,), self.dtype,
                                                 _NEUTRAL[self.reduction], trainable=False)
        self.powers = 2 ** np.arange(1, self.depth + 1)  # node // powers[k]: its ancestor k + 1 levels up

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def update(self, indices: Tensor, values: Tensor) -> None:
        """Sets the leaves at ``indices`` to ``values``; with repeated indices the last value wins."""
        self._set_leaves(self.ops.cast(indices, "int64") + self.capacity, values, distinct=False)

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def update_distinct(self, indices: Tensor, values: Tensor) -> None:
        """:meth:`update` for ``indices`` known to be distinct (e.g. the slots of one memory write): without the
        search for repeats (two sorts), which is most of a small update's cost."""
        self._set_leaves(self.ops.cast(indices, "int64") + self.capacity, values, distinct=True)

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def fill(self, indices: Tensor, value: Tensor) -> None:
        """Sets the leaves at distinct ``indices`` (e.g. one memory write's slots) to one scalar ``value``: what
        :meth:`update_distinct` does with that value repeated, without making the batch of it."""
        self._set_leaves(self.ops.cast(indices, "int64") + self.capacity, value, distinct=True)

    def _set_leaves(self, nodes: Tensor, values: Tensor, distinct: bool) -> None:
        """Sets leaf ``nodes`` (the last value wins on repeats) and updates their ancestors and block minima."""
        ops = self.ops
        if self.reduction == "sum":  # fused: every ancestor changes by the changes of the leaves below it
            ops.tree_sum_set(self.tree, self.block_minima, nodes, values, distinct)
        else:
            if not distinct:  # a repeated node counts once, at its last occurrence: the others write to node 0
                nodes = ops.where(last_occurrences(ops, nodes), nodes, ops.zeros_like(nodes))
            values = ops.zeros_like(ops.cast(nodes, self.dtype)) + ops.cast(values, self.dtype)  # one for all, too
            ancestors = ops.expand_dims(nodes, 1) // ops.constant(self.powers, "int64")  # (n, depth): all at once
            ops.scatter_update(self.tree, nodes, values)
            for level in range(self.depth):  # parents after children
                parents = ops.expand_dims(ancestors[:, level], 1) * 2
                children = ops.gather(self.tree, ops.concat([parents, parents + 1], 1))  # read anew: the level below
                ops.scatter_update(self.tree, parents[:, 0] // 2, ops.reduce_min(children, -1))
            if not distinct:
                ops.scatter_update(self.tree, ops.zeros_like(nodes[:1]), ops.fill((1,), float("inf"), self.dtype))
            refresh_block_minima(ops, self.block_minima, self.tree, nodes)

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
        return self.ops.cast(self.ops.tree_block_minimum(self.tree, self.block_minima, count), "float32")

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_indices_space)  # declared: leaf numbers in [0, capacity); a sum tree only
    def find_prefix_sum(self, prefix_sums: Tensor) -> Tensor:
        """Per ``u``, the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])`` (sum trees only): never an
        empty leaf unless the whole tree is empty (then 0).

        One fused op (``tree_prefix_search``): a descent in strides of up to 7 levels instead of one level at a
        time — from its node, each ``u`` reads the node's descendants ``k`` levels down (at most 128), and a
        cumulative sum over them picks the one whose range holds ``u``: 2 strides for 4k leaves, 3 for 1M. On
        torch's CPU tensors the top 10 levels go in one ``searchsorted`` over a whole level, the rest in strides
        of at most 5."""
        return self.ops.tree_prefix_search(self.tree, prefix_sums)

    @api(must_be_complete=False)
    @graph_fn(returns=3, output_spaces=_sampled_spaces)  # declared: leaf numbers in [0, capacity); a sum tree only
    def sample(self, uniforms: Tensor, count: Size) -> tuple[Tensor, Tensor, Tensor]:
        """``(indices, values, minimum)`` of a proportional sample (sum trees only): per ``r`` in ``uniforms`` (in
        ``[0, 1)``), the leaf :meth:`find_prefix_sum` finds at ``r`` times the total, the values of those leaves and
        :meth:`minimum` of the first ``count`` leaves — one fused op (``tree_sample``) for what would take
        :meth:`reduce`, :meth:`find_prefix_sum`, :meth:`get` and :meth:`minimum`."""
        return self.ops.tree_sample(self.tree, self.block_minima, uniforms, count)
