"""The sum-tree kernels compiled with numba: one loop per op where :mod:`~rlworkbench.core.sum_tree_kernels` makes
10-20 NumPy calls. Inside a training loop each NumPy call costs 5-10 µs, because the network's update has just
pushed the tree out of the caches. Measured there, a prioritized update and a write go from ~290 µs of NumPy to
~45 µs (bench/train_overhead). Same tree layout and results as the NumPy kernels, up to rounding: parents are
summed anew from their children rather than changed by a difference, so rounding never builds up in the tree.

Only imported when numba is installed (the ``fast`` extra): :func:`sum_tree_kernels.cpu_kernels` picks these or
the NumPy kernels. Each function compiles on its first call (~1 s) and is cached on disk after that.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def sum_set(tree: np.ndarray, block_minima: np.ndarray, nodes: np.ndarray, values: np.ndarray) -> None:
    """Sets leaf ``nodes`` (int64, each in ``[leaves, 2 * leaves)``) to ``values`` (float64, as many, or one for
    all) in order, so on repeats the last value wins; then sums the parents anew, level by level, and refreshes
    the block minima that changed. Raises IndexError before writing anything if a node is not a leaf."""
    leaves = tree.shape[0] // 2
    block = leaves // block_minima.shape[0]
    count = nodes.shape[0]
    for i in range(count):
        if nodes[i] < leaves or nodes[i] >= 2 * leaves:
            raise IndexError("a sum tree's leaf node is out of range")
    stale = np.empty(count, np.int64)  # blocks whose smallest leaf went up: read anew at the end
    stale_count = 0
    for i in range(count):
        node = nodes[i]
        value = values[i if values.shape[0] > 1 else 0]
        old = tree[node]
        tree[node] = value
        b = (node - leaves) // block
        if value < block_minima[b]:
            block_minima[b] = value
        elif old <= block_minima[b] and value > old:
            stale[stale_count] = b
            stale_count += 1
    parents = nodes.copy()
    level = leaves
    while level > 1:  # every node of one level before the next: the loads of different nodes overlap
        for i in range(count):
            parent = parents[i] >> 1
            parents[i] = parent
            tree[parent] = tree[2 * parent] + tree[2 * parent + 1]
        level >>= 1
    for k in range(stale_count):
        start = leaves + stale[k] * block
        smallest = tree[start]
        for j in range(start + 1, start + block):
            smallest = min(smallest, tree[j])
        block_minima[stale[k]] = smallest


@njit(cache=True, nogil=True)
def prefix_search(tree: np.ndarray, prefix_sums: np.ndarray, below: float) -> np.ndarray:
    """Per ``u`` in ``prefix_sums`` (float64), the leaf ``j`` with ``sum(leaves[:j]) <= u < sum(leaves[:j+1])``,
    never an empty leaf unless the whole tree is empty (then 0): a binary descent, all ``u`` one level at a time;
    ``u`` stays below ``below`` times the total (:data:`~rlworkbench.core.sum_tree_kernels.BELOW`)."""
    leaves = tree.shape[0] // 2
    count = prefix_sums.shape[0]
    found = np.zeros(count, np.int64)
    total = tree[1]
    if not total > 0:
        return found
    node = np.ones(count, np.int64)
    u = np.empty(count, np.float64)
    for i in range(count):
        u[i] = min(max(prefix_sums[i], 0.0), total * below)
    level = 1
    while level < leaves:
        for i in range(count):
            left = 2 * node[i]
            if u[i] >= tree[left] and tree[left + 1] > 0:  # right, unless it is empty (rounding): never empty
                u[i] -= tree[left]
                node[i] = left + 1
            else:
                node[i] = left
        level <<= 1
    for i in range(count):
        found[i] = node[i] - leaves
    return found


@njit(cache=True, nogil=True)
def block_minimum(tree: np.ndarray, block_minima: np.ndarray, count: int) -> float:
    """The smallest of the first ``count`` leaves (+inf for none): whole blocks by their minima, the rest one by
    one."""
    leaves = tree.shape[0] // 2
    block = leaves // block_minima.shape[0]
    count = min(max(count, 0), leaves)
    whole = count // block
    smallest = np.inf
    for b in range(whole):
        smallest = min(smallest, block_minima[b])
    for j in range(leaves + whole * block, leaves + count):
        smallest = min(smallest, tree[j])
    return smallest


@njit(cache=True, nogil=True)
def sample(tree: np.ndarray, block_minima: np.ndarray, uniforms: np.ndarray, count: int, below: float,
           ) -> tuple[np.ndarray, np.ndarray, float]:
    """``(leaves, values, minimum)``: the leaves :func:`prefix_search` finds at ``uniforms`` (float64) times the
    total, their values (float32) and :func:`block_minimum` of the first ``count`` leaves."""
    leaves = tree.shape[0] // 2
    found = prefix_search(tree, uniforms * tree[1], below)
    values = np.empty(found.shape[0], np.float32)
    for i in range(found.shape[0]):
        values[i] = tree[leaves + found[i]]
    return found, values, block_minimum(tree, block_minima, count)
