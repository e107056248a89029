"""The root component of IMPALA: a policy with a state-value function, v-trace's loss and an optimizer."""

from __future__ import annotations

from rlworkbench.agents.actor_critic_root import ActorCriticRoot
from rlworkbench.agents.recurrent_root import RecurrentActorCriticRoot
from rlworkbench.components.layers.lstm import StateTensors
from rlworkbench.components.losses.vtrace_loss import VTraceLoss
from rlworkbench.components.optimizers.optimizer import Optimizer
from rlworkbench.components.policies.policy import Policy
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor


class ImpalaGraph(ActorCriticRoot):
    """IMPALA (Espeholt et al. 2018): an actor-critic learning off-policy from other processes' fragments through
    v-trace.

    Sub-components: ``preprocessor`` (optional), ``policy`` (with a value head unless ``value_network`` is given),
    ``loss`` (:class:`VTraceLoss`) and ``optimizer`` (of the policy's and the value network's variables).

    API: acting as every policy root (``act``, ``act_preprocessed``, ``act_greedy``), ``get_state_values``,
    ``evaluate(preprocessed_states, actions) -> (log_probs, values)``, and ``update_sequences(sequence_states,
    sequence_actions, *, behaviour_log_probs, rewards, discounts, bootstrap_values) -> (loss, grad_norm, parts)``:
    one gradient step on batch-major sequences (batch and time ranks; ``bootstrap_values`` per sequence), the
    target policy's log-probs, entropies and values computed in one pass over every step.
    """

    def __init__(self, policy: Policy, loss: VTraceLoss, optimizer: Optimizer,
                 value_network: Component | None = None, preprocessor: Component | None = None,
                 name: str = "impala"):
        self.policy, self.loss, self.optimizer = policy, loss, optimizer
        self.value_network, self.preprocessor = value_network, preprocessor
        optional = [c for c in (preprocessor, value_network) if c is not None]
        super().__init__(*optional, policy, loss, optimizer, name=name)

    @api
    def update_sequences(self, sequence_states: Tensor, sequence_actions: Tensor, *, behaviour_log_probs: Tensor,
                         rewards: Tensor, discounts: Tensor, bootstrap_values: Tensor,
                         internal_states: StateTensors | None = None, resets: Tensor | None = None,
                         ) -> tuple[Tensor, Tensor, Tensor]:
        """One gradient step of the actor-critic loss on v-trace targets: ``(loss, grad_norm, parts)`` (a recurrent
        root: from the sequences' start state, with resets)."""
        log_probs, entropies, values = self._evaluate_all(sequence_states, sequence_actions, internal_states, resets)
        loss, _, parts = self.loss.loss(log_probs, behaviour_log_probs=behaviour_log_probs, entropies=entropies,
                                        rewards=rewards, values=values, bootstrap_values=bootstrap_values,
                                        discounts=discounts)
        loss, grad_norm = self.optimizer.step(loss)
        return loss, grad_norm, parts


class RecurrentImpalaGraph(RecurrentActorCriticRoot, ImpalaGraph):
    """IMPALA over a :class:`~rlworkbench.components.policies.RecurrentPolicy` (see
    :class:`RecurrentActorCriticRoot`): fragments carry their start state; v-trace is unchanged."""
