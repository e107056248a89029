"""Operations for optimizers: gradient clipping by global norm."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

Tensor = tf.Tensor


def clip_by_global_norm(tensors: Sequence[Tensor], clip_norm: float) -> list[Tensor]:
    """``tensors`` scaled by ``clip_norm / max(global_norm, clip_norm)``: unchanged while their global norm
    (``sqrt`` of the sum of all squares) is at most ``clip_norm``, else scaled down to exactly ``clip_norm``."""
    clipped, _ = tf.clip_by_global_norm(list(tensors), clip_norm)
    return clipped


__all__ = ["clip_by_global_norm"]
