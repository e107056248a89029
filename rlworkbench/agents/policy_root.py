"""What a root acting straight from its policy (PPO, SAC) shares: the ways to act; and the agent side of it."""

from __future__ import annotations

import functools
from typing import Any

from rlworkbench.agents.preprocessing_root import PreprocessingRoot
from rlworkbench.agents.protocols import Arrays
from rlworkbench.components.policies.policy import Policy
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


class PolicyActingRoot(PreprocessingRoot):
    """A root with ``self.policy``. API: ``act(states) -> (actions, preprocessed_states)`` (actions sampled from the
    policy, for raw states), ``act_preprocessed(preprocessed_states)`` (the same for states preprocessed already),
    ``act_greedy(preprocessed_states)`` (the policy's deterministic actions: the most likely action, or the
    squashed mean)."""

    policy: Policy

    @api
    def act(self, states: Tensor) -> tuple[Tensor, Tensor]:
        """Sampled actions for raw states, and the states preprocessed: ``(actions, preprocessed_states)``."""
        preprocessed = self.preprocess(states)
        return self.act_preprocessed(preprocessed), preprocessed

    @api
    def act_preprocessed(self, preprocessed_states: Tensor) -> Tensor:
        return self.policy.get_stochastic_action(preprocessed_states)

    @api
    def act_greedy(self, preprocessed_states: Tensor) -> Tensor:
        return self.policy.get_deterministic_action(preprocessed_states)


class PolicyActing:
    """The acting hooks of an agent (a mixin before :class:`~rlworkbench.agents.agent.Agent`) whose root is a
    :class:`PolicyActingRoot`: exploring samples from the policy, greedy acting takes its deterministic action."""

    api: Any
    root: Any

    @functools.cached_property
    def sampled_action_space(self) -> Space:
        """The space of the actions the policy samples: float bounds only where its distribution keeps them
        (what an outside batch's actions are checked against: a normal's raw samples may leave the action box)."""
        return self.root.policy.sample_space()

    def _act(self, states: Arrays, explore: bool) -> tuple[Arrays, Arrays]:
        if explore:
            return self.api.act(states)
        preprocessed = self.preprocess(states)  # type: ignore[attr-defined]  # the Agent's
        return self.api.act_greedy(preprocessed), preprocessed

    def _act_preprocessed(self, preprocessed_states: Arrays, explore: bool) -> Arrays:
        return (self.api.act_preprocessed if explore else self.api.act_greedy)(preprocessed_states)
