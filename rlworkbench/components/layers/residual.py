"""A residual block: ``inputs + f(inputs)`` for a stack of layers ``f``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.helpers.stack import Stack
from rlworkbench.components.layers.layer import apply_layers, check_layers
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, Space


def _sum_space(block: Residual, inputs: Space, residual: Space) -> Space:
    if not isinstance(inputs, FloatBox) or not isinstance(residual, FloatBox) or \
            (residual.shape, residual.dtype) != (inputs.shape, inputs.dtype) or \
            residual.with_ranks_of(inputs) != residual:
        raise SpaceError("the layers of a residual block must keep the shape of its float inputs",
                         argument="inputs", expected=f"layers' output like {inputs!r}", got=residual)
    return FloatBox(shape=inputs.shape, dtype=inputs.dtype).with_ranks_of(inputs)


@register("residual")
class Residual(Stack):
    """``apply(inputs) -> inputs + layers(inputs)``: the layers (objects or specs, named ``<type>_<index>``)
    run in order and must keep the shape of the float inputs (any batch/time ranks).

    Spec: ``{"type": "residual", "layers": [{"type": "dense", "units": 8, "activation": "relu"},
    {"type": "dense", "units": 8}]}`` on ``FloatBox(shape=(8,))`` inputs.
    """

    def __init__(self, layers: Sequence[Component | Mapping[str, Any]] = (), **kwargs: Any):
        super().__init__(layers, **kwargs)
        self.layers = self.items
        check_layers(self.name, self.layers)

    @api
    def apply(self, inputs: Tensor) -> Tensor:
        return self._add(inputs, apply_layers(self.layers, inputs))

    @graph_fn(output_spaces=_sum_space)  # declared: a SpaceError, not a broadcast, if layers change the shape
    def _add(self, inputs: Tensor, residual: Tensor) -> Tensor:
        return inputs + residual
