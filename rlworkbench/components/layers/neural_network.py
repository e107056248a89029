"""A neural network: layers applied in order, built from layer objects or a JSON-style list of specs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.helpers.stack import Stack
from rlworkbench.components.layers.layer import Layer
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api


@register("neural_network")
class NeuralNetwork(Stack):
    """``NeuralNetwork([{"type": "dense", "units": 64, "activation": "relu"}, ...])``.

    Unnamed layers are named ``<type>_<index>`` so that scoped variable names are stable.
    """

    def __init__(self, layers: Sequence[Layer | Mapping[str, Any]] = (), **kwargs: Any):
        super().__init__(layers, **kwargs)
        self.layers = self.items

    @api
    def apply(self, inputs: Any) -> Any:
        return self.chain("apply", inputs)
