"""The kernels of the op ``ring_write`` (a replay memory's write): once against the ops contract (what a backend runs
where it has no faster path: TensorFlow's graphs, torch tensors off the CPU), and once on NumPy arrays (torch's CPU
tensors, seen through ``Tensor.numpy()``: a few NumPy calls instead of ~20 backend ops of a few µs each).
Framework-free, as all of ``core``.

A ring buffer here is a set of variables with ``capacity`` rows each (the first dimension), a ``cursor`` (the next
row to write, an int64 scalar variable) and a ``size`` (rows held, an int64 scalar variable).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlworkbench.core.ops import Ops, Tensor, Variable
from rlworkbench.core.sum_tree_kernels import length_of


def ring_write(ops: Ops, buffers: Sequence[Variable], cursor: Variable, size: Variable,
               values: Sequence[Tensor]) -> Tensor:
    """:meth:`~rlworkbench.core.ops.Ops.ring_write` composed of the contract's ops."""
    capacity = length_of(buffers[0])
    count = ops.constant(ops.dim(values[0], 0), "int64")
    slots = ((cursor + ops.arange(count)) % capacity)[-capacity:]
    for buffer, rows in zip(buffers, values):
        ops.scatter_update(buffer, slots, rows[-capacity:])
    ops.assign(cursor, (cursor + count) % capacity)
    ops.assign(size, ops.minimum(size + count, capacity))
    return slots


def numpy_ring_write(buffers: Sequence[np.ndarray], cursor: np.ndarray, size: np.ndarray,
                     values: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`ring_write` on NumPy arrays, in place (``cursor`` and ``size``: 0-d arrays)."""
    capacity, count = len(buffers[0]), len(values[0])
    kept = min(count, capacity)
    start = int(cursor) + count - kept  # of a batch larger than the capacity, the last ``capacity`` rows
    slots = np.arange(start, start + kept, dtype=np.int64) % capacity
    first = start % capacity
    where = slice(first, first + kept) if first + kept <= capacity else slots  # a slice where it does not wrap
    for buffer, given in zip(buffers, values):
        # as the buffer's rows (reshaped by the row count, which a leaf of zero size keeps)
        rows = given if given.ndim == buffer.ndim else given.reshape((len(given), *buffer.shape[1:]))
        buffer[where] = rows[count - kept:]
    cursor[()] = (int(cursor) + count) % capacity
    size[()] = min(int(size) + count, capacity)
    return slots
