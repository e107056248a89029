"""A policy over discrete actions whose logits are dueling Q-values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlworkbench.components.distributions import Distribution
from rlworkbench.components.policies.dueling_action_adapter import DuelingActionAdapter
from rlworkbench.components.policies.policy import Policy
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import IntBox, Space, as_space


@register("dueling_policy")
class DuelingPolicy(Policy):
    """A :class:`Policy` for one ``IntBox(n)`` action whose adapter is a :class:`DuelingActionAdapter`:
    ``Q = V + A - mean(A)``.

    API: ``get_q_values(states)``, ``get_state_values(states)``, ``get_action(states)`` (greedy: argmax Q), and
    the Policy API with the Q-values as categorical logits (``get_stochastic_action`` is Boltzmann sampling).
    """

    def __init__(self, network_spec: Any, action_space: Space, value_units: Sequence[int] = (),
                 advantage_units: Sequence[int] = (), activation: str = "relu", **kwargs: Any):
        action_space = as_space(action_space, "action_space", component=kwargs.get("name"))
        if not isinstance(action_space, IntBox) or action_space.num_categories is None:
            raise ConfigError("dueling Q-values need one discrete action", component=kwargs.get("name"),
                              argument="action_space", expected="IntBox(n)", got=action_space)
        self.stream_options = {"value_units": value_units, "advantage_units": advantage_units,
                               "activation": activation}
        super().__init__(network_spec, action_space, **kwargs)
        self.adapter = self.adapters[""]

    def make_adapter(self, space: Space, distribution: Distribution, name: str) -> Component:
        return DuelingActionAdapter(space, name=name, **self.stream_options)

    @api
    def get_q_values(self, states: Tensor) -> Tensor:
        """Q-values ``V + A - mean(A)``, one per action."""
        return self.get_parameters(states)

    @api
    def get_state_values(self, states: Tensor) -> Tensor:
        """The value stream's ``V(states)``."""
        return self.adapter.get_state_values(self.network.apply(states))

    @api
    def get_action(self, states: Tensor) -> Tensor:
        """Greedy actions: argmax of the Q-values."""
        return self.get_deterministic_action(states)
