"""A 2-D convolution layer on NHWC images."""

from __future__ import annotations

from numbers import Integral
from typing import Any

from rlworkbench.components.layers.image_layer import ImageLayer
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Space


@register("conv2d")
class Conv2D(ImageLayer):
    """``activation(conv2d(inputs, kernel) + bias)`` on images ``FloatBox(shape=(height, width, channels))``.

    API: ``apply(inputs)``; inputs may carry batch and time ranks (kept on the output). The kernel is
    ``(kernel_h, kernel_w, in_channels, filters)`` on every backend, so weights copy across backends.
    ``padding="valid"`` uses only whole windows (output ``(size - kernel) // stride + 1``); ``"same"`` is
    TensorFlow's (output ``ceil(size / stride)``, the odd padding pixel at the bottom/right).
    Spec: ``{"type": "conv2d", "filters": 16, "kernel_size": 3, "strides": 2, "padding": "same"}``.
    """

    def __init__(self, filters: int, kernel_size: int | tuple[int, int], strides: int | tuple[int, int] = 1,
                 padding: str = "valid", activation: str | None = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros", **kwargs: Any):
        kwargs.setdefault("name", "conv2d")  # not the class name in snake case
        super().__init__(kernel_size, strides, padding, "kernel_size", **kwargs)
        if isinstance(filters, bool) or not isinstance(filters, Integral) or filters < 1:
            raise ConfigError("filters must be a positive int", component=self.name, argument="filters",
                              expected="int > 0", got=repr(filters))
        self.filters = int(filters)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def output_channels(self, in_channels: int) -> int:
        return self.filters

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        if (self.activation or "linear") not in self.ops.ACTIVATIONS:
            raise ConfigError("unknown activation", argument="activation", expected=sorted(self.ops.ACTIVATIONS),
                              got=repr(self.activation))
        super().create_variables(input_spaces)
        shape = (*self.window, self.image_shape[2], self.filters)
        self.kernel = self.create_variable("kernel", shape, initializer=self.kernel_initializer)
        self.bias = self.create_variable("bias", (self.filters,), initializer=self.bias_initializer) \
            if self.use_bias else None
        self.activation_fn = self.ops.activation(self.activation)

    def _apply_images(self, images: Tensor) -> Tensor:
        return self.activation_fn(self.ops.conv2d(images, self.kernel, self.bias, self.strides, self.padding))
