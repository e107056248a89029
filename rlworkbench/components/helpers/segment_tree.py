"""A segment tree (sum or min) over a power-of-two number of leaves, kept in one variable."""

from __future__ import annotations

from typing import Any

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
    """A sum or min tree over ``capacity`` float32 leaves (a power of two), for prioritized replay.

    The ``2 * capacity`` nodes live in one variable ``tree``: node 1 is the root, node ``i`` has the children
    ``2i`` and ``2i + 1``, leaf ``j`` is node ``capacity + j``. Leaves start at the reduction's neutral value
    (0 for ``"sum"``, +inf for ``"min"``). Updates write a batch of leaves, then recompute their parents level
    by level (a static loop over the tree depth); the prefix-sum search descends all queries at once.

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
        self.tree = self.create_variable("tree", (2 * self.capacity,), "float32", _NEUTRAL[self.reduction],
                                         trainable=False)
        self.combine = (lambda a, b: a + b) if self.reduction == "sum" else self.ops.minimum

    @api(must_be_complete=False)
    @graph_fn(returns=0, output_spaces=_nothing)
    def update(self, indices: Any, values: Any) -> None:
        """Sets the leaves at ``indices`` to ``values``; with repeated indices the last value wins."""
        ops = self.ops
        nodes = ops.cast(indices, "int64") + self.capacity
        ops.scatter_update(self.tree, nodes, self._last_values(nodes, ops.cast(values, "float32")))
        for _ in range(self.depth):  # parents after children; repeated parents get the same value
            nodes = nodes // 2
            ops.scatter_update(self.tree, nodes, self.combine(ops.gather(self.tree, 2 * nodes),
                                                              ops.gather(self.tree, 2 * nodes + 1)))

    def _last_values(self, nodes: Any, values: Any) -> Any:
        """``values`` where every repeat of a node takes the value of its last occurrence, so that a scatter
        writes the same thing on every backend (scatters with repeated indices have no defined order)."""
        ops = self.ops
        positions = ops.arange(ops.dim(nodes, 0))
        same = ops.expand_dims(nodes, 1) == ops.expand_dims(nodes, 0)
        return ops.gather(values, ops.reduce_max(ops.where(same, ops.expand_dims(positions, 0), -1), axis=1))

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_values_space)  # declared: a build must not gather at sampled, out-of-range indices
    def get(self, indices: Any) -> Any:
        """The values of the leaves at ``indices``."""
        return self.ops.gather(self.tree, self.ops.cast(indices, "int64") + self.capacity)

    @api(must_be_complete=False)
    @graph_fn
    def reduce(self) -> Any:
        """The sum (or min) over all leaves: a float32 scalar."""
        return self.ops.reduce_sum(self.tree[1:2])  # the root; a sum over a slice copies it (an index is a view)

    @api(must_be_complete=False)
    @graph_fn(output_spaces=_indices_space)  # declared: leaf numbers in [0, capacity); a sum tree only
    def find_prefix_sum(self, prefix_sums: Any) -> Any:
        """Per ``u``, the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])`` (sum trees only).

        Descends from the root; goes right when ``u`` reaches past the left subtree (subtracting its sum) and
        the right subtree is not empty. So an empty leaf is never found unless the whole tree is empty (then 0)."""
        ops = self.ops
        remaining = ops.cast(prefix_sums, "float32")
        node = ops.cast(ops.ones_like(remaining), "int64")
        for _ in range(self.depth):
            left = 2 * node
            left_sum = ops.gather(self.tree, left)
            right = (remaining >= left_sum) & (ops.gather(self.tree, left + 1) > 0)
            remaining = ops.where(right, remaining - left_sum, remaining)
            node = ops.where(right, left + 1, left)
        return node - self.capacity
