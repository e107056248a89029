"""A policy with a state-value head on the same network (actor-critic with a shared body)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


@register("shared_value_function_policy")
class SharedValueFunctionPolicy(Policy):
    """A :class:`Policy` plus a value head (hidden ``value_units``, then a linear Dense(1)) on the network's
    output. API: ``get_state_values(states)`` (``FloatBox(())`` with the states' ranks),
    ``get_log_probs_entropy_and_values(states, actions)`` (one pass of the shared network for an actor-critic
    update) and the Policy API."""

    def __init__(self, network_spec: Any, action_space: Space, value_units: Sequence[int] = (),
                 value_activation: str = "relu", **kwargs: Any):
        super().__init__(network_spec, action_space, **kwargs)
        hidden = [{"type": "dense", "units": int(u), "activation": value_activation} for u in value_units]
        self.value_head = NeuralNetwork(hidden + [{"type": "dense", "units": 1}], name="value_head")
        self.add_components(self.value_head)

    @api
    def get_state_values(self, states: Tensor) -> Tensor:
        """``V(states)`` from the value head on the shared network."""
        return self._squeeze(self.value_head.apply(self.network.apply(states)))

    @api
    def get_log_probs_entropy_and_values(self, states: Tensor, actions: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """``(log_probs, entropies, values)`` from one pass of the shared network."""
        outputs = self.network.apply(states)
        log_probs, entropies = self._log_probs_and_entropy(self._parameters_of(outputs), actions)
        return log_probs, entropies, self._squeeze(self.value_head.apply(outputs))

    @graph_fn
    def _squeeze(self, values: Tensor) -> Tensor:
        return self.ops.squeeze(values, -1)
