"""The root component of PPO: library components wired together through their API methods only."""

from __future__ import annotations

from rlworkbench.agents.actor_critic_root import ActorCriticRoot
from rlworkbench.agents.recurrent_root import RecurrentActorCriticRoot
from rlworkbench.components.helpers.gae import GAE
from rlworkbench.components.layers.lstm import StateTensors
from rlworkbench.components.losses.ppo_loss import PPOLoss
from rlworkbench.components.optimizers.optimizer import Optimizer
from rlworkbench.components.policies.policy import Policy
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor


class PPOGraph(ActorCriticRoot):
    """Proximal policy optimisation (Schulman et al. 2017) with GAE, value clipping and advantage normalisation as
    options of its parts.

    Sub-components: ``preprocessor`` (optional), ``policy`` (a :class:`Policy`; with a value head — a
    ``SharedValueFunctionPolicy`` — unless a separate ``value_network`` is given, a network ending in one unit),
    ``gae`` (:class:`GAE`), ``loss`` (:class:`PPOLoss`) and ``optimizer`` (of the policy's and the value network's
    variables).

    API (batched; log-probs and entropies are summed over the leaves of a container action):
    ``preprocess(states)``, ``act(states) -> (actions, preprocessed_states)`` (random actions for raw states),
    ``act_preprocessed(preprocessed_states)``, ``act_greedy(preprocessed_states)``,
    ``get_state_values(preprocessed_states)``, ``evaluate(preprocessed_states, actions) -> (log_probs, values)``,
    ``advantages(sequence_rewards, *, sequence_values, sequence_terminals, bootstrap_values) -> (advantages,
    value_targets)`` on batch-major sequences, and ``update_minibatch(preprocessed_states, actions, *,
    prev_log_probs, advantages, value_targets, prev_values) -> (loss, grad_norm, parts)`` — one gradient step,
    ``parts`` the loss's diagnostics.
    """

    def __init__(self, policy: Policy, gae: GAE, loss: PPOLoss, optimizer: Optimizer,
                 value_network: Component | None = None, preprocessor: Component | None = None,
                 normalize_advantages: bool = True, name: str = "ppo"):
        self.policy, self.gae, self.loss, self.optimizer = policy, gae, loss, optimizer
        self.value_network, self.preprocessor = value_network, preprocessor
        optional = [c for c in (preprocessor, value_network) if c is not None]
        super().__init__(*optional, policy, gae, loss, optimizer, name=name)
        self.normalize_advantages = bool(normalize_advantages)
        self.clip_values = loss.value_clip is not None

    # ----- rollouts and learning --------------------------------------------------------------------------------
    @api
    def advantages(self, sequence_rewards: Tensor, *, sequence_values: Tensor, sequence_terminals: Tensor,
                   bootstrap_values: Tensor) -> Tensor:
        """GAE ``(advantages, value_targets)`` of batch-major sequences (see :class:`GAE`)."""
        return self.gae.calculate(sequence_rewards, values=sequence_values, terminals=sequence_terminals,
                                  bootstrap_values=bootstrap_values)

    @api
    def update_minibatch(self, preprocessed_states: Tensor, actions: Tensor, *, prev_log_probs: Tensor,
                         advantages: Tensor, value_targets: Tensor, prev_values: Tensor,
                         internal_states: StateTensors | None = None, resets: Tensor | None = None,
                         ) -> tuple[Tensor, Tensor, Tensor]:
        """One gradient step of the clipped surrogate on a minibatch: ``(loss, grad_norm, parts)``; a recurrent
        root's minibatch is whole sequences, with their start state and resets."""
        log_probs, entropies, values = self._evaluate_all(preprocessed_states, actions, internal_states, resets)
        if self.normalize_advantages:
            advantages = self._normalized(advantages)
        loss, _, parts = self.loss.loss(log_probs, prev_log_probs=prev_log_probs, advantages=advantages,
                                        entropies=entropies, values=values, value_targets=value_targets,
                                        prev_values=prev_values if self.clip_values else None)
        loss, grad_norm = self.optimizer.step(loss)
        return loss, grad_norm, parts

    @graph_fn
    def _normalized(self, advantages: Tensor) -> Tensor:
        """Advantages standardised over the minibatch — a learner group's whole minibatch (equal shares per rank)."""
        ops = self.ops
        (mean,) = ops.group_mean([ops.reduce_mean(advantages)])
        (variance,) = ops.group_mean([ops.reduce_mean(ops.square(advantages - mean))])
        return (advantages - mean) / (ops.sqrt(variance) + 1e-8)


class RecurrentPPOGraph(RecurrentActorCriticRoot, PPOGraph):
    """PPO over a :class:`~rlworkbench.components.policies.RecurrentPolicy`: acting, evaluating and minibatch
    steps on sequences with the recurrent state (see :class:`RecurrentActorCriticRoot`)."""
