"""Operations for optimizers: gradient clipping by global norm."""

from __future__ import annotations

from collections.abc import Sequence

import torch

Tensor = torch.Tensor


def clip_by_global_norm(tensors: Sequence[Tensor], clip_norm: float) -> list[Tensor]:
    """``tensors`` scaled by ``clip_norm / max(global_norm, clip_norm)``: unchanged while their global norm
    (``sqrt`` of the sum of all squares) is at most ``clip_norm``, else scaled down to exactly ``clip_norm``."""
    norm = torch.sqrt(sum(torch.sum(torch.square(t)) for t in tensors))
    scale = clip_norm / torch.clamp(norm, min=clip_norm)
    return [t * scale for t in tensors]


__all__ = ["clip_by_global_norm"]
