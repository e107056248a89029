"""What an actor-critic root with a recurrent policy (PPO, IMPALA with an LSTM) adds: every API method takes the
recurrent state at the sequences' start and the steps that reset it."""

from __future__ import annotations

from rlworkbench.agents.actor_critic_root import ActorCriticRoot
from rlworkbench.components.layers.lstm import StateTensors
from rlworkbench.components.policies.recurrent_policy import RecurrentPolicy
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor


class RecurrentActorCriticRoot(ActorCriticRoot):
    """An :class:`ActorCriticRoot` over a :class:`RecurrentPolicy`. States are sequences (batch and time ranks;
    acting one step is a time rank of 1); ``internal_states`` is the policy's state ``(h, c)`` at their start and
    ``resets`` marks the steps that begin an episode (the state is zeroed before them, inside the graph).

    API: ``act(states, internal_states, resets) -> (actions, preprocessed_states, final_state)``,
    ``act_preprocessed`` / ``act_greedy(preprocessed_states, internal_states, resets) -> (actions, final_state)``,
    ``get_state_values``, ``evaluate -> (log_probs, values)`` and ``step_states`` (the state after every step),
    each with ``internal_states`` and ``resets``. A separate value network (no lstm) runs on every step alone.
    """

    policy: RecurrentPolicy

    @api
    def act(self, states: Tensor, internal_states: StateTensors, resets: Tensor) -> tuple[Tensor, Tensor, StateTensors]:
        """Sampled actions for raw states: ``(actions, preprocessed_states, final_state)``."""
        preprocessed = self.preprocess(states)
        actions, final_state = self.policy.get_stochastic_action(preprocessed, internal_states, resets)
        return actions, preprocessed, final_state

    @api
    def act_preprocessed(self, preprocessed_states: Tensor, internal_states: StateTensors,
                         resets: Tensor) -> tuple[Tensor, StateTensors]:
        return self.policy.get_stochastic_action(preprocessed_states, internal_states, resets)

    @api
    def act_greedy(self, preprocessed_states: Tensor, internal_states: StateTensors,
                   resets: Tensor) -> tuple[Tensor, StateTensors]:
        return self.policy.get_deterministic_action(preprocessed_states, internal_states, resets)

    @api
    def get_state_values(self, preprocessed_states: Tensor, internal_states: StateTensors, resets: Tensor) -> Tensor:
        """``V(states)`` per step, from the policy's value head or the separate value network."""
        if self.value_network is None:
            return self.policy.get_state_values(preprocessed_states, internal_states, resets)
        return self._squeeze(self.value_network.apply(preprocessed_states))

    @api
    def evaluate(self, preprocessed_states: Tensor, actions: Tensor, internal_states: StateTensors,
                 resets: Tensor) -> tuple[Tensor, Tensor]:
        """``(log_probs, values)`` per step of the sequences under the current policy."""
        log_probs, _, values = self._evaluate_all(preprocessed_states, actions, internal_states, resets)
        return log_probs, values

    @api
    def step_states(self, preprocessed_states: Tensor, internal_states: StateTensors, resets: Tensor) -> StateTensors:
        """The policy's state after every step of the sequences (to bootstrap from, or to start a later part)."""
        return self.policy.get_step_states(preprocessed_states, internal_states, resets)

    def _evaluate_all(self, states: Tensor, actions: Tensor, internal_states: StateTensors | None = None,
                      resets: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        if self.value_network is None:
            log_probs, entropies, values = self.policy.get_log_probs_entropy_and_values(
                states, actions, internal_states, resets)
        else:
            log_probs, entropies = self.policy.get_log_probs_and_entropy(states, actions, internal_states, resets)
            values = self._squeeze(self.value_network.apply(states))
        return self._joint(log_probs), self._joint(entropies), values
