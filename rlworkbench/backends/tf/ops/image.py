"""Image operations on channels-last batches ``(batch, height, width, channels)``."""

from __future__ import annotations

from typing import TypeAlias

import tensorflow as tf

Tensor: TypeAlias = tf.Tensor  # tensorflow ships no stubs: to mypy this is Any, to readers the type


def resize_bilinear(images: Tensor, height: int, width: int) -> Tensor:
    """Bilinear resize of ``(n, h, w, c)`` images to ``(n, height, width, c)`` float32, with half-pixel centres
    and no antialiasing (``tf.image.resize(..., "bilinear")``; ``F.interpolate(align_corners=False)``)."""
    resized = tf.image.resize(tf.cast(images, tf.float32), [int(height), int(width)], method="bilinear",
                              antialias=False)
    return tf.cast(resized, tf.float32)


__all__ = ["resize_bilinear"]
