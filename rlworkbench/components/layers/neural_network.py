"""A neural network: layers applied in order, built from layer objects or a JSON-style list of specs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.layers.layer import Layer
from rlworkbench.components.registry import from_specs, register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api


@register("neural_network")
class NeuralNetwork(Component):
    """``NeuralNetwork([{"type": "dense", "units": 64, "activation": "relu"}, ...])``.

    Unnamed layers are named ``<type>_<index>`` so that scoped variable names are stable.
    """

    def __init__(self, layers: Sequence[Layer | Mapping[str, Any]] = (), **kwargs: Any):
        super().__init__(**kwargs)
        self.layers: list[Component] = from_specs(layers)
        self.add_components(*self.layers)

    @api
    def apply(self, inputs: Any) -> Any:
        outputs = inputs
        for layer in self.layers:
            outputs = layer.apply(outputs)
        return outputs
