"""A fully connected layer."""

from __future__ import annotations

import operator
from typing import Any, SupportsIndex

from rlworkbench.components.layers.layer import Layer
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, Space, refuse_zero_size


@register("dense")
class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` over the last axis; kernel ``(in, units)``. ``units`` is a positive
    int, and the inputs must hold numbers: a zero-size input space (``FloatBox(shape=(0,))``) is a SpaceError."""

    def __init__(self, units: int, activation: str | None = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros", **kwargs: Any):
        super().__init__(**kwargs)
        count = _index(units)
        if count is None or count < 1:
            raise ConfigError("units must be a positive int", component=self.name, argument="units",
                              expected="int > 0", got=repr(units))
        self.units = count
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        space = input_spaces["inputs"]
        if not isinstance(space, FloatBox) or space.rank < 1:
            raise SpaceError("Dense needs float inputs of rank >= 1", argument="inputs",
                             expected="FloatBox((n,), ...)", got=space)
        refuse_zero_size(space, "inputs", "a dense layer")
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


def _index(value: object) -> int | None:
    """``value`` as an int if it is one (a NumPy int too; not a bool, float or string), else None."""
    if isinstance(value, bool) or not isinstance(value, SupportsIndex):
        return None
    return operator.index(value)
