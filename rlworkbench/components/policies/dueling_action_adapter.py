"""Dueling streams: a state value and advantages combined into Q-values (Wang et al., 2016)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import IntBox, Space, as_space


def _stream(units: Sequence[int], outputs: int, activation: str, name: str) -> NeuralNetwork:
    hidden = [{"type": "dense", "units": int(u), "activation": activation} for u in units]
    return NeuralNetwork(hidden + [{"type": "dense", "units": outputs}], name=name)


@register("dueling_action_adapter")
class DuelingActionAdapter(Component):
    """For ``IntBox(n, shape)`` actions: ``get_parameters(inputs)`` gives Q-values ``V + A - mean(A)`` over the
    last axis (``FloatBox(shape + (n,))``, usable as categorical logits) and ``get_state_values(inputs)`` gives
    ``V`` (``FloatBox(())``), from a value stream and an advantage stream (optional hidden ``value_units`` /
    ``advantage_units``, then a linear Dense layer each) on a network's output."""

    def __init__(self, action_space: Space, value_units: Sequence[int] = (), advantage_units: Sequence[int] = (),
                 activation: str = "relu", **kwargs: Any):
        action_space = as_space(action_space, "action_space", component=kwargs.get("name"))
        if not isinstance(action_space, IntBox) or action_space.num_categories is None:
            raise ConfigError("dueling Q-values need discrete actions", component=kwargs.get("name"),
                              argument="action_space", expected="IntBox(n)", got=action_space)
        self.action_space = action_space.strip_ranks()
        self.value_stream = _stream(value_units, 1, activation, "value_stream")
        outputs = self.action_space.flat_dim * self.action_space.num_categories
        self.advantage_stream = _stream(advantage_units, outputs, activation, "advantage_stream")
        super().__init__(self.value_stream, self.advantage_stream, **kwargs)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.extra_ranks = input_spaces["inputs"].num_extra_ranks

    @api
    def get_parameters(self, inputs: Tensor) -> Tensor:
        """Q-values ``V + A - mean(A)`` from a network's output."""
        return self._q_values(self.value_stream.apply(inputs), self.advantage_stream.apply(inputs))

    @api
    def get_state_values(self, inputs: Tensor) -> Tensor:
        """``V`` from a network's output."""
        return self._squeeze(self.value_stream.apply(inputs))

    @graph_fn
    def _q_values(self, value: Tensor, advantages: Tensor) -> Tensor:
        leading = self.ops.leading_dims(advantages, self.extra_ranks)
        shape = self.action_space.shape + (self.action_space.num_categories,)
        advantages = self.ops.reshape(advantages, leading + shape)
        value = self.ops.reshape(value, leading + (1,) * len(shape))
        centred = advantages - self.ops.expand_dims(self.ops.reduce_mean(advantages, -1), -1)
        return value + centred

    @graph_fn
    def _squeeze(self, value: Tensor) -> Tensor:
        return self.ops.squeeze(value, -1)
