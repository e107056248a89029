"""A fully connected layer."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.layers.layer import Layer
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, Space


@register("dense")
class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` over the last axis; kernel ``(in, units)``."""

    def __init__(self, units: int, activation: str | None = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros", **kwargs: Any):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        space = input_spaces["inputs"]
        if not isinstance(space, FloatBox) or space.rank < 1:
            raise SpaceError("Dense needs float inputs of rank >= 1", argument="inputs",
                             expected="FloatBox((n,), ...)", got=space)
        self.kernel = self.create_variable("kernel", (space.shape[-1], self.units), initializer=self.kernel_initializer,
                                           layout="column_major")
        self.bias = self.create_variable("bias", (self.units,), initializer=self.bias_initializer) \
            if self.use_bias else None
        self.activation_fn = self.ops.activation(self.activation)
        self.cast_inputs = str(space.dtype) != "float32"  # float64 (or 16) observations meet float32 weights

    @api
    @graph_fn
    def apply(self, inputs: Tensor) -> Tensor:
        if self.cast_inputs:
            inputs = self.ops.cast(inputs, "float32")
        return self.activation_fn(self.ops.dense(inputs, self.kernel, self.bias))
