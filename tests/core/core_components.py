"""Test-only components for the core suite (independent of ``rlworkbench.components``).

The nested composition used throughout::

    agent <Agent>                 act(states) -> head.apply(net.apply(states)); value(states) -> _sum(net.apply)
      net <Stack>                 apply(inputs) -> dense_1.apply(dense_0.apply(inputs))
        dense_0 <Linear>(4)       kernel (n, 4), bias (4,)
        dense_1 <Linear>(2)       kernel (4, 2), bias (2,)
      head <Scale>                factor () = 2.0
"""

from __future__ import annotations

from typing import Any

from rlworkbench import Component, api, graph_fn
from rlworkbench.spaces import FloatBox


class Linear(Component):
    """``inputs @ kernel + bias``; records every ``create_variables`` call."""

    def __init__(self, units: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.units = units
        self.create_calls: list[dict[str, Any]] = []

    def create_variables(self, input_spaces: dict[str, Any]) -> None:
        self.create_calls.append(dict(input_spaces))
        size = input_spaces["inputs"].shape[-1]
        self.kernel = self.create_variable("kernel", (size, self.units), initializer="glorot_uniform")
        self.bias = self.create_variable("bias", (self.units,), initializer="zeros")

    @api
    def apply(self, inputs: Any) -> Any:
        return self._dense(inputs)

    @graph_fn
    def _dense(self, inputs: Any) -> Any:
        return self.ops.dense(inputs, self.kernel, self.bias)


class Stack(Component):
    """Linear layers ``dense_0``, ``dense_1``, … applied in order."""

    def __init__(self, *units: int, **kwargs: Any):
        self.layers = [Linear(u, name=f"dense_{i}") for i, u in enumerate(units)]
        super().__init__(*self.layers, **kwargs)

    @api
    def apply(self, inputs: Any) -> Any:
        for layer in self.layers:
            inputs = layer.apply(inputs)
        return inputs


class Scale(Component):
    """Multiplies by a scalar variable ``factor`` (initially 2)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.create_calls: list[dict[str, Any]] = []

    def create_variables(self, input_spaces: dict[str, Any]) -> None:
        self.create_calls.append(dict(input_spaces))
        self.factor = self.create_variable("factor", (), initializer=2.0)

    @api
    def apply(self, x: Any) -> Any:
        return self._scale(x)

    @graph_fn
    def _scale(self, x: Any) -> Any:
        return x * self.factor


class Agent(Component):
    """Root of the nested composition (see the module docstring)."""

    def __init__(self, name: str = "agent", **kwargs: Any):
        self.net = Stack(4, 2, name="net")
        self.head = Scale(name="head")
        super().__init__(self.net, self.head, name=name, **kwargs)

    @api
    def act(self, states: Any) -> Any:
        return self.head.apply(self.net.apply(states))

    @api
    def value(self, states: Any) -> Any:
        return self._sum(self.net.apply(states))

    @graph_fn
    def _sum(self, x: Any) -> Any:
        return self.ops.reduce_sum(x, axis=-1)


STATES = FloatBox(shape=(3,), add_batch_rank=True)
