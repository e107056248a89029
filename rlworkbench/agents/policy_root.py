"""What a root acting straight from its policy (PPO, SAC) shares: preprocessing and the two ways to act."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.policies.policy import Policy
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api


class PolicyActingRoot(Component):
    """A root with ``self.policy`` (and ``self.preprocessor``, when it has one). API: ``preprocess(states)``,
    ``act(preprocessed_states)`` (actions sampled from the policy), ``act_greedy(preprocessed_states)`` (its
    deterministic actions: the most likely action, or the squashed mean)."""

    policy: Policy
    preprocessor: Component | None

    @api
    def preprocess(self, states: Any) -> Any:
        return self.preprocessor.preprocess(states)

    @api
    def act(self, preprocessed_states: Any) -> Any:
        return self.policy.get_stochastic_action(preprocessed_states)

    @api
    def act_greedy(self, preprocessed_states: Any) -> Any:
        return self.policy.get_deterministic_action(preprocessed_states)
