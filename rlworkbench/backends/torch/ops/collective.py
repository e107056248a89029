"""Collectives over a learner group (:mod:`rlworkbench.core.collective`), on ``torch.distributed``."""

from __future__ import annotations

import time
from collections.abc import Sequence

import torch

from rlworkbench.core import collective

Tensor = torch.Tensor

__all__ = ["group_mean"]


def group_mean(tensors: Sequence[Tensor]) -> list[Tensor]:
    """The elementwise mean of ``tensors`` over the learner group's ranks — one all-reduce of one flat buffer —
    or ``tensors`` unchanged outside a group. The results carry no gradient."""
    group = collective.current()
    if group is None:
        return list(tensors)
    with torch.no_grad():
        flat = torch.cat([tensor.detach().reshape(-1) for tensor in tensors])
        started = time.perf_counter()
        torch.distributed.all_reduce(flat)
        group.timed(time.perf_counter() - started)
        flat /= group.size
        sizes = [tensor.numel() for tensor in tensors]
        return [part.view(tensor.shape) for part, tensor in zip(torch.split(flat, sizes), tensors)]
