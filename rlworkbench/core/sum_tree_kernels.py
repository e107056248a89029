"""The kernels of the sum-tree ops ``tree_sum_set``, ``tree_prefix_search``, ``tree_block_minimum`` and
``tree_sample``: once against the ops contract (what a backend runs where it has no faster path: TensorFlow's
graphs, torch tensors off the CPU), and once on NumPy arrays (torch's CPU tensors, seen through ``Tensor.numpy()``:
a handful of NumPy calls instead of 10-25 backend ops, each call costing about as much as an op). Framework-free, as
all of ``core``.

A sum tree is one float64 vector of ``2 * leaves`` nodes in heap order: node 1 is the root, node ``i`` has the
children ``2i`` and ``2i + 1``, leaf ``j`` is node ``leaves + j``; node 0 is unused (a scratch target).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from rlworkbench.core.ops import Ops, Tensor, Variable

MAX_STRIDE = 7  #: most tree levels the ops search descends at once (128 descendants: few ops of a few µs each)
NUMPY_TOP_LEVELS = 10  #: levels the NumPy search passes in one searchsorted over a whole level (1,024 nodes)
NUMPY_MAX_STRIDE = 5  #: the NumPy search's strides below them (32 descendants: fewer elements per call)
BELOW = 1.0 - 1e-12  #: a drawn prefix sum stays below the sum it was drawn from, whatever the rounding
COMPILED_ENV_VAR = "RLWORKBENCH_COMPILED"  #: "0": the NumPy kernels even where numba is installed (A/B, debugging)


def length_of(vector: Tensor | np.ndarray) -> int:
    """The static length of a tree's vector (a variable's shape is always known)."""
    length = vector.shape[0]
    assert length is not None, "a sum tree's variables have static shapes"
    return int(length)


def leaves_of(tree: Tensor | np.ndarray) -> int:
    """The number of leaves of a tree vector of ``2 * leaves`` nodes."""
    return length_of(tree) // 2


def depth_of(tree: Tensor | np.ndarray) -> int:
    """The number of levels below the root of a tree vector of ``2 * leaves`` nodes."""
    return leaves_of(tree).bit_length() - 1


def strides_of(depth: int, most: int = MAX_STRIDE) -> list[int]:
    """The descent's levels, split into equal strides of at most ``most``."""
    count = -(-depth // most)
    return [depth // count + (i < depth % count) for i in range(count)] if depth else []


def sum_set(ops: Ops, tree: Variable, block_minima: Variable, nodes: Tensor, values: Tensor, distinct: bool,
            ) -> None:
    """Sets leaf ``nodes`` to ``values``, adds each change to all the leaf's ancestors in one scatter-add and
    refreshes the touched ``block_minima``; with repeats (``distinct`` false) the last occurrence wins, the others
    write to node 0, reset afterwards."""
    depth = depth_of(tree)
    nodes = ops.cast(nodes, "int64")
    given = nodes
    if not distinct:
        nodes = ops.where(last_occurrences(ops, nodes), nodes, ops.zeros_like(nodes))
    changes = ops.cast(values, "float64") - ops.gather(tree, nodes)
    ancestors = ops.expand_dims(nodes, 1) // ops.constant(2 ** np.arange(depth + 1), "int64")  # itself, then up
    ops.scatter_add(tree, ops.reshape(ancestors, (-1,)),
                    ops.reshape(ops.tile(ops.expand_dims(changes, 1), (1, depth + 1)), (-1,)))
    if not distinct:
        ops.scatter_update(tree, ops.zeros_like(nodes[:1]), ops.fill((1,), 0.0, "float64"))
    refresh_block_minima(ops, block_minima, tree, given)


def refresh_block_minima(ops: Ops, block_minima: Variable, tree: Variable, nodes: Tensor) -> None:
    """Recomputes the minima of the blocks holding leaf ``nodes`` (node 0, a scratch target: block 0's); the
    leaves split into ``len(block_minima)`` blocks of equal size."""
    leaves = leaves_of(tree)
    block = leaves // length_of(block_minima)
    blocks = ops.maximum(nodes - leaves, ops.zeros_like(nodes)) // block
    members = ops.expand_dims(blocks * block + leaves, 1) + ops.constant(np.arange(block), "int64")
    ops.scatter_update(block_minima, blocks, ops.reduce_min(ops.gather(tree, members), -1))


def last_occurrences(ops: Ops, nodes: Tensor) -> Tensor:
    """Per position, whether no later position has the same node (a stable sort: O(n log n), any n)."""
    order = ops.argsort(nodes)
    ordered = ops.gather(nodes, order)
    later_repeat = ops.concat([ordered[1:] == ordered[:-1], ops.zeros_like(ordered[:1]) > 0], 0)
    return ops.gather(~later_repeat, ops.argsort(order))  # back from sorted order to the given one


def block_minimum(ops: Ops, tree: Variable, block_minima: Variable, count: Tensor) -> Tensor:
    """The smallest of the first ``count`` leaves (+inf for none): the minima of the whole blocks below ``count``,
    then the leaves of the rest one by one — ``leaves / block + block`` values at most, however many leaves."""
    leaves = leaves_of(tree)
    block = leaves // length_of(block_minima)
    count = ops.minimum(ops.maximum(ops.cast(count, "int64"), ops.constant(0, "int64")),
                        ops.constant(leaves, "int64"))  # as a slice would: within the leaves
    whole = count // block
    blocks = block_minima[:whole]  # a small variable: read whole (a copy of leaves / 8 bytes) is cheapest
    rest = ops.gather(tree, ops.arange(leaves + whole * block, leaves + count))
    none = ops.zeros_like(ops.gather(block_minima, ops.constant([0], "int64"))) + float("inf")  # the tree's dtype
    return ops.reduce_min(ops.concat([blocks, rest, none], 0))


def prefix_search(ops: Ops, tree: Variable, prefix_sums: Tensor) -> Tensor:
    """Per ``u``, the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])``, never an empty leaf unless the
    whole tree is empty (then 0). A descent in strides of up to 7 levels: from its node, each ``u`` reads the
    node's descendants ``k`` levels down and a cumulative sum over them picks the one whose range holds ``u``."""
    total = ops.gather(tree, ops.constant([1], "int64"))
    u = ops.minimum(ops.cast(prefix_sums, "float64"), total * BELOW)
    node = ops.zeros_like(ops.cast(u, "int64")) + 1  # the root
    for levels in strides_of(depth_of(tree)):
        width = 1 << levels
        descendants = ops.expand_dims(node * width, 1) + ops.constant(np.arange(width), "int64")
        sums = ops.gather(tree, descendants)
        ends = ops.cumsum(sums, 1)
        u = ops.minimum(u, ends[:, -1] * BELOW)
        inside = ops.minimum(ops.reshape(ops.searchsorted(ends, ops.expand_dims(u, 1)), (-1,)), width - 1)
        u = u - ops.select_by_index(ends - sums, inside)  # what lies before the chosen descendant
        node = node * width + inside
    leaf = node - leaves_of(tree)
    return ops.where(total > 0, leaf, ops.zeros_like(leaf))


def sample(ops: Ops, tree: Variable, block_minima: Variable, uniforms: Tensor, count: Tensor,
           ) -> tuple[Tensor, Tensor, Tensor]:
    """``(leaves, values, minimum)``: the leaves :func:`prefix_search` finds at ``uniforms`` times the total, their
    values and the smallest of the first ``count`` leaves (:func:`block_minimum`), the last two as float32."""
    total = ops.gather(tree, ops.constant([1], "int64"))
    leaves = prefix_search(ops, tree, ops.cast(uniforms, "float64") * total)
    values = ops.gather(tree, leaves + leaves_of(tree))
    minimum = block_minimum(ops, tree, block_minima, count)
    return leaves, ops.cast(values, "float32"), ops.cast(minimum, "float32")


def track_max(ops: Ops, largest: Variable, values: Tensor) -> Tensor:
    """``values`` with every non-finite entry replaced by ``largest``; then ``largest`` follows their maximum."""
    values = ops.where(ops.abs(values) < float("inf"), values, largest)  # False for NaN and ±inf
    ops.assign(largest, ops.reduce_max(ops.concat([ops.reshape(largest, (1,)), values], 0)))  # none: as it was
    return values


def numpy_sum_set(tree: np.ndarray, block_minima: np.ndarray, nodes: np.ndarray, values: np.ndarray,
                  distinct: bool) -> None:
    """:func:`sum_set` on NumPy views of the tree and its block minima (a handful of NumPy calls instead of ~25
    backend ops)."""
    nodes = nodes.astype(np.int64, copy=False)
    values = np.broadcast_to(values.astype(np.float64, copy=False), nodes.shape)  # a scalar: for every node
    leaves = leaves_of(tree)
    if len(nodes) and (nodes.min() < leaves or nodes.max() >= 2 * leaves):  # before anything is written
        raise IndexError(f"a sum tree's leaf nodes are {leaves} to {2 * leaves - 1}; got {nodes.min()} to "
                         f"{nodes.max()}")
    if not distinct and len(nodes) > 1:
        reversed_first = np.unique(nodes[::-1], return_index=True)[1]
        keep = len(nodes) - 1 - reversed_first  # each node's last occurrence
        nodes, values = nodes[keep], values[keep]
    depth = depth_of(tree)
    old = tree[nodes]
    ancestors = nodes[:, None] >> np.arange(1, depth + 1)  # parents, up to the root
    np.add.at(tree, ancestors.ravel(), np.repeat(values - old, depth))
    tree[nodes] = values  # the leaves exactly: block minima compare them with what they hold
    numpy_update_block_minima(tree, block_minima, nodes, old, values)


def numpy_update_block_minima(tree: np.ndarray, block_minima: np.ndarray, nodes: np.ndarray, old: np.ndarray,
                              values: np.ndarray) -> None:
    """The block minima after the distinct leaf ``nodes`` went from ``old`` to ``values`` (set in ``tree``): lowered
    where a value is below its block's minimum, and recomputed from the leaves only for the blocks whose smallest
    leaf went up — reading 8 bytes per changed leaf, not its whole block, in the usual case (a sampled leaf is
    rarely its block's smallest)."""
    leaves = leaves_of(tree)
    block = leaves // length_of(block_minima)
    blocks = (nodes - leaves) // block
    risen = (old <= block_minima[blocks]) & (values > old)  # a block's smallest leaf (or one as small) went up
    np.minimum.at(block_minima, blocks, values)
    if risen.any():
        stale = np.unique(blocks[risen])
        block_minima[stale] = tree[(stale * block + leaves)[:, None] + np.arange(block)].min(1)


def numpy_prefix_search(tree: np.ndarray, prefix_sums: np.ndarray) -> np.ndarray:
    """:func:`prefix_search` on a NumPy view of the tree: the top :data:`NUMPY_TOP_LEVELS` levels in one
    ``searchsorted`` over the cumulative sums of a whole level (a contiguous slice of at most 1,024 nodes), the
    rest in strides. What lies before a chosen node is the previous cumulative sum itself, so ``u`` never turns
    negative by rounding (which could pick an empty first child)."""
    total = tree[1]
    if not total > 0:
        return np.zeros(len(prefix_sums), np.int64)
    depth = depth_of(tree)
    top = min(depth, NUMPY_TOP_LEVELS)
    level = tree[1 << top:2 << top]
    ends = np.cumsum(level)
    u = np.minimum(prefix_sums.astype(np.float64), ends[-1] * BELOW)
    node = np.searchsorted(ends, u, side="right")
    u = u - np.where(node > 0, ends[node - 1], 0.0)
    node += 1 << top
    rows = np.arange(len(u))
    for levels in strides_of(depth - top, NUMPY_MAX_STRIDE):
        width = 1 << levels
        ends = np.cumsum(tree[(node * width)[:, None] + np.arange(width)], 1)
        u = np.minimum(u, ends[:, -1] * BELOW)
        inside = (ends <= u[:, None]).sum(1)
        u = u - np.where(inside > 0, ends[rows, inside - 1], 0.0)
        node = node * width + inside
    return node - leaves_of(tree)


def numpy_block_minimum(tree: np.ndarray, block_minima: np.ndarray, count: int) -> float:
    """:func:`block_minimum` on NumPy views of the tree and its block minima."""
    leaves = leaves_of(tree)
    block = leaves // length_of(block_minima)
    count = min(max(int(count), 0), leaves)
    whole = count // block
    smallest = block_minima[:whole].min(initial=np.inf)
    return float(min(smallest, tree[leaves + whole * block:leaves + count].min(initial=np.inf)))


def numpy_sample(tree: np.ndarray, block_minima: np.ndarray, uniforms: np.ndarray, count: int,
                 ) -> tuple[np.ndarray, np.ndarray, np.float32]:
    """:func:`sample` on NumPy views of the tree and its block minima."""
    leaves = numpy_prefix_search(tree, uniforms.astype(np.float64) * tree[1])
    values = tree[leaves + leaves_of(tree)].astype(np.float32)
    return leaves, values, np.float32(numpy_block_minimum(tree, block_minima, count))


def numpy_track_max(largest: np.ndarray, values: np.ndarray) -> np.ndarray:
    """:func:`track_max` on NumPy arrays (``largest`` 0-d, changed in place); all finite, ``values`` themselves come
    back (no copy)."""
    finite = np.isfinite(values)
    if not finite.all():
        values = np.where(finite, values, largest)
    if values.size:
        largest[()] = max(largest[()], values.max())
    return values


class CpuKernels(NamedTuple):
    """The sum-tree kernels on NumPy arrays (torch's CPU tensors seen through ``Tensor.numpy()``), with the
    signatures of the ``numpy_*`` functions here; ``compiled`` says whose they are."""

    sum_set: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool], None]
    prefix_search: Callable[[np.ndarray, np.ndarray], np.ndarray]
    block_minimum: Callable[[np.ndarray, np.ndarray, int], float]
    sample: Callable[[np.ndarray, np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray, np.float32]]
    compiled: bool


NUMPY_KERNELS = CpuKernels(numpy_sum_set, numpy_prefix_search, numpy_block_minimum, numpy_sample, compiled=False)


@functools.cache
def cpu_kernels() -> CpuKernels:
    """The compiled kernels (:mod:`~rlworkbench.core.sum_tree_compiled`) where numba is installed and
    ``RLWORKBENCH_COMPILED`` is not ``0``; else the NumPy ones. Decided once per process, on first use (numba
    takes ~0.4 s to import)."""
    if os.environ.get(COMPILED_ENV_VAR, "1") == "0" or importlib.util.find_spec("numba") is None:
        return NUMPY_KERNELS
    try:
        compiled = importlib.import_module("rlworkbench.core.sum_tree_compiled")
    except Exception as error:  # a numba too old for the NumPy installed, no writable cache folder: slower, not broken
        warnings.warn(f"the sum tree runs its NumPy kernels: its compiled ones do not load ({type(error).__name__}: "
                      f"{error})", RuntimeWarning, stacklevel=2)
        return NUMPY_KERNELS

    def sum_set(tree: np.ndarray, block_minima: np.ndarray, nodes: np.ndarray, values: np.ndarray,
                distinct: bool) -> None:  # in order: on repeats the last value wins either way
        nodes, values = (np.ascontiguousarray(nodes, np.int64).reshape(-1),
                         np.ascontiguousarray(values, np.float64).reshape(-1))
        if len(values) not in (1, len(nodes)):  # the compiled loop reads without bounds checks
            raise ValueError(f"one value per node or one for all: {len(values)} values for {len(nodes)} nodes")
        compiled.sum_set(tree, block_minima, nodes, values)

    def prefix_search(tree: np.ndarray, prefix_sums: np.ndarray) -> np.ndarray:
        return compiled.prefix_search(tree, np.ascontiguousarray(prefix_sums, np.float64).reshape(-1), BELOW)

    def block_minimum(tree: np.ndarray, block_minima: np.ndarray, count: int) -> float:
        return float(compiled.block_minimum(tree, block_minima, int(count)))

    def sample(tree: np.ndarray, block_minima: np.ndarray, uniforms: np.ndarray, count: int,
               ) -> tuple[np.ndarray, np.ndarray, np.float32]:
        leaves, values, minimum = compiled.sample(tree, block_minima, np.ascontiguousarray(uniforms, np.float64)
                                                  .reshape(-1), int(count), BELOW)
        return leaves, values, np.float32(minimum)

    return CpuKernels(sum_set, prefix_search, block_minimum, sample, compiled=True)


def warm_up() -> None:
    """Loads the CPU kernels now (numba: ~1 s in a fresh process, from its disk cache; longer on a first compile),
    on a 2-leaf tree, so that a process which is about to serve requests (a replay shard) does not stall its first
    one and everything queued behind it."""
    chosen = cpu_kernels()
    tree, minima = np.zeros(4), np.zeros(1)
    chosen.sum_set(tree, minima, np.array([2, 3]), np.array([1.0, 2.0]), True)
    chosen.sample(tree, minima, np.array([0.5]), 2)
    chosen.prefix_search(tree, np.array([0.5]))
    chosen.block_minimum(tree, minima, 2)
