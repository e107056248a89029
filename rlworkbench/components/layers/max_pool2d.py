"""2-D max pooling on NHWC images."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.layers.image_layer import ImageLayer
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor


@register("max_pool2d")
class MaxPool2D(ImageLayer):
    """The maximum over each ``pool_size`` window of images ``FloatBox(shape=(height, width, channels))``, per channel.

    API: ``apply(inputs)``; inputs may carry batch and time ranks (kept on the output). ``strides`` default to
    ``pool_size``. ``padding`` as in :class:`Conv2D`; the padding of "same" never wins the maximum.
    Spec: ``{"type": "max_pool2d", "pool_size": 2, "strides": 2, "padding": "same"}``.
    """

    def __init__(self, pool_size: int | tuple[int, int] = 2, strides: int | tuple[int, int] | None = None,
                 padding: str = "valid", **kwargs: Any):
        kwargs.setdefault("name", "max_pool2d")  # not the class name in snake case
        super().__init__(pool_size, pool_size if strides is None else strides, padding, "pool_size", **kwargs)

    def _apply_images(self, images: Tensor) -> Tensor:
        return self.ops.max_pool2d(images, self.window, self.strides, self.padding)
