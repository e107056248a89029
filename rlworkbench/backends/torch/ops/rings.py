"""Ring-buffer ops (a replay memory's write): NumPy on the CPU tensors' own memory, where a write is a few NumPy
calls instead of ~20 torch ops of a few µs each; the ops composition elsewhere (CUDA, values that need grad)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch

from rlworkbench.backends.torch.ops.trees import _contract, _on_cpu, _ops, _written
from rlworkbench.core import ring_kernels as kernels

Tensor = torch.Tensor


def ring_write(buffers: Sequence[Tensor], cursor: Tensor, size: Tensor, values: Sequence[Tensor]) -> Tensor:
    if _on_cpu(cursor, size, *buffers, *values):
        slots = kernels.numpy_ring_write([b.numpy() for b in buffers], cursor.numpy(), size.numpy(),
                                         [v.numpy() for v in values])
        _written(*buffers, cursor, size)
        return torch.from_numpy(slots)
    cursor_, size_ = _contract(cursor, size)
    return cast(Tensor, kernels.ring_write(_ops(), _contract(*buffers), cursor_, size_, _contract(*values)))


__all__ = ["ring_write"]
