"""Image operations on channels-last batches ``(batch, height, width, channels)``."""

from __future__ import annotations

import torch
import torch.nn.functional as F

Tensor = torch.Tensor


def resize_bilinear(images: Tensor, height: int, width: int) -> Tensor:
    """Bilinear resize of ``(n, h, w, c)`` images to ``(n, height, width, c)`` float32, with half-pixel centres
    and no antialiasing (``tf.image.resize(..., "bilinear")``; ``F.interpolate(align_corners=False)``)."""
    channels_first = images.to(torch.float32).permute(0, 3, 1, 2)
    resized = F.interpolate(channels_first, size=(int(height), int(width)), mode="bilinear", align_corners=False,
                            antialias=False)
    return resized.permute(0, 2, 3, 1).contiguous()


__all__ = ["resize_bilinear"]
