"""Resizing images bilinearly, the same numbers on every backend."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.preprocessing.normalize import inclusive_bounds
from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, NumericBox, Space


@register("image_resize")
class ImageResize(Preprocessor):
    """Resizes ``(h, w, channels)`` or ``(h, w)`` image leaves to ``(height, width, ...)``, any batch/time ranks.

    Bilinear with half-pixel centres and no antialiasing: ``tf.image.resize(images, size, "bilinear")``, which is
    ``F.interpolate(mode="bilinear", align_corners=False)`` on PyTorch (op ``resize_bilinear``). Outputs float32;
    scalar finite input bounds are kept (values are clipped into them against rounding), others are unbounded.
    """

    def __init__(self, height: int, width: int, **kwargs: Any):
        super().__init__(**kwargs)
        if int(height) < 1 or int(width) < 1:
            raise ConfigError("image sizes must be positive", component=self.name, key_path="height/width",
                              expected=">= 1", got=(height, width))
        self.height, self.width = int(height), int(width)

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        leaf = self.leaf_spaces[key]
        rows, cols = leaf.shape[:2]
        channels = leaf.shape[2] if leaf.rank == 3 else 1
        images = self.ops.reshape(x, (-1, rows, cols, channels))
        resized = self.ops.resize_bilinear(images, self.height, self.width)
        low, high = inclusive_bounds(leaf)
        if leaf.is_bounded and low.ndim == 0 and high.ndim == 0:
            resized = self.ops.clip(resized, float(low), float(high))
        lead = self.ops.leading_dims(x, leaf.num_extra_ranks)
        return self.ops.reshape(resized, lead + (self.height, self.width) + leaf.shape[2:])

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if not isinstance(leaf, NumericBox) or leaf.rank not in (2, 3):
            raise SpaceError("image resizing needs number leaves of shape (h, w) or (h, w, channels)",
                             argument="inputs", key_path=key or None, expected="FloatBox/IntBox of rank 2 or 3",
                             got=leaf)
        low, high = inclusive_bounds(leaf)
        bounded = leaf.is_bounded and low.ndim == 0 and high.ndim == 0
        shape = (self.height, self.width) + leaf.shape[2:]
        return FloatBox(float(low) if bounded else None, float(high) if bounded else None,
                        shape=shape).with_ranks_of(leaf)
