"""The :class:`ImageLayer` base: 2-D layers over NHWC images, with batch and time ranks folded into one batch."""

from __future__ import annotations

import math
from numbers import Integral
from typing import Any

from rlworkbench.components.layers.layer import Layer
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, Space, refuse_zero_size

PADDINGS = ("valid", "same")


def pair(owner: str, argument: str, value: Tensor) -> tuple[int, int]:
    """``value`` (an int or two ints) as a pair of positive ints, else a :class:`ConfigError`."""
    items = (value, value) if isinstance(value, Integral) else tuple(value) if isinstance(value, (list, tuple)) else ()
    if len(items) != 2 or not all(isinstance(v, Integral) and not isinstance(v, bool) and v > 0 for v in items):
        raise ConfigError("needs a positive int or a pair of them", component=owner, argument=argument,
                          expected="n or (n_height, n_width), n > 0", got=repr(value))
    return int(items[0]), int(items[1])


def output_size(size: int, window: int, stride: int, padding: str) -> int:
    """Output length of one spatial axis: ``ceil(size / stride)`` for "same", windows that fit for "valid"."""
    return math.ceil(size / stride) if padding == "same" else (size - window) // stride + 1


class ImageLayer(Layer):
    """Subclasses write ``_apply_images`` on a ``(n, height, width, channels)`` batch (and ``output_channels``
    if they change the channels). Inputs are ``FloatBox(shape=(height, width, channels))`` with any batch/time ranks,
    folded into ``n`` and unfolded after; outputs keep the input's ranks; an image with a 0 in its shape is a
    SpaceError. ``window_argument`` names the window in errors (``"kernel_size"``, ``"pool_size"``)."""

    def __init__(self, window: Any, strides: Any, padding: str, window_argument: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.window = pair(self.name, window_argument, window)
        self.strides = pair(self.name, "strides", strides)
        if padding not in PADDINGS:
            raise ConfigError("unknown padding", component=self.name, argument="padding", expected=PADDINGS,
                              got=repr(padding))
        self.padding = padding

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        space = input_spaces["inputs"]
        if not isinstance(space, FloatBox) or space.rank != 3:
            raise SpaceError(f"{type(self).__name__} needs float NHWC images", argument="inputs",
                             expected="FloatBox(shape=(height, width, channels)) with batch/time ranks", got=space)
        refuse_zero_size(space, "inputs", f"a {type(self).__name__} layer")
        self.extra_ranks = space.num_extra_ranks
        self.image_shape = space.shape
        height, width = (output_size(space.shape[i], self.window[i], self.strides[i], self.padding) for i in (0, 1))
        if height < 1 or width < 1:
            raise SpaceError("image smaller than the window with padding='valid'", argument="inputs",
                             expected=f"height >= {self.window[0]} and width >= {self.window[1]}",
                             got=f"image shape {space.shape}")
        self.output_shape = (height, width, self.output_channels(space.shape[2]))

    def output_channels(self, in_channels: int) -> int:
        return in_channels

    @api
    @graph_fn
    def apply(self, inputs: Tensor) -> Tensor:
        leading = self.ops.leading_dims(inputs, self.extra_ranks)
        images = self.ops.reshape(inputs, (-1, *self.image_shape))
        return self.ops.reshape(self._apply_images(images), leading + self.output_shape)

    def _apply_images(self, images: Tensor) -> Tensor:
        raise NotImplementedError
