"""The root component of DQN: library components wired together through their API methods only."""

from __future__ import annotations

from typing import Any

from rlworkbench.agents.replay_root import ReplayRoot
from rlworkbench.components.explorations.epsilon_greedy import EpsilonGreedy
from rlworkbench.components.helpers.synchronizable import Synchronizable
from rlworkbench.components.losses.dqn_loss import DQNLoss
from rlworkbench.components.memories.memory import Memory
from rlworkbench.components.memories.prioritized_replay import PrioritizedReplay
from rlworkbench.components.optimizers.optimizer import Optimizer
from rlworkbench.components.policies.policy import Policy
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor


class DQNGraph(ReplayRoot):
    """Deep Q-learning (Mnih et al. 2015) with double Q, dueling heads, n-step returns and prioritized replay as
    options of its parts.

    Sub-components: ``preprocessor`` (optional), ``policy`` (a :class:`Policy` over one discrete action whose
    logits are the Q-values, e.g. a ``DuelingPolicy``), ``target_policy`` (its copy) and ``target_sync`` (a
    :class:`Synchronizable`), ``exploration`` (:class:`EpsilonGreedy`), ``memory`` (a ``ReplayMemory`` or
    :class:`PrioritizedReplay`, whose TD errors then update the priorities), ``loss`` (:class:`DQNLoss`: importance
    weights from prioritized replay or an outside batch, none for uniform replay), ``optimizer`` (of the policy's
    variables).

    API (batched): ``preprocess(states)``, ``act(states, time_step) -> (actions, preprocessed_states)`` on raw
    states, ``act_preprocessed(preprocessed_states, time_step)``, ``act_greedy(preprocessed_states)``,
    ``get_q_values(preprocessed_states)``, ``insert_records(preprocessed_states, actions, rewards, terminals, *,
    next_states) -> next_preprocessed_states``, ``update_from_memory()`` and ``update_from_batch(..., *,
    next_preprocessed_states, importance_weights)``, each ``-> (loss, grad_norm, td_errors)``,
    ``get_priorities(preprocessed_states, actions, rewards, terminals, *, next_preprocessed_states)``,
    ``sync_target(tau)``, ``get_memory_size()``.
    """

    def __init__(self, policy: Policy, exploration: EpsilonGreedy, memory: Memory, loss: DQNLoss,
                 optimizer: Optimizer, batch_size: int, preprocessor: Component | None = None,
                 priority_epsilon: float = 1e-6, name: str = "dqn"):
        self.policy, self.exploration, self.memory, self.loss, self.optimizer = (policy, exploration, memory, loss,
                                                                                  optimizer)
        self.target_policy = policy.copy(name="target_policy")
        self.target_sync = Synchronizable(policy.name, self.target_policy.name, name="target_sync")
        self.record_routing()
        self.preprocessor = preprocessor
        parts = [policy, self.target_policy, self.target_sync, exploration, memory, self.merger, self.splitter,
                 loss, optimizer]
        super().__init__(*([preprocessor] if preprocessor is not None else []), *parts, name=name)
        self.batch_size = int(batch_size)
        self.prioritized = isinstance(memory, PrioritizedReplay)
        self.priority_epsilon = float(priority_epsilon)

    # ----- acting -----------------------------------------------------------------------------------------------
    @api
    def get_q_values(self, preprocessed_states: Tensor) -> Tensor:
        return self.policy.get_parameters(preprocessed_states)

    @api
    def act_greedy(self, preprocessed_states: Tensor) -> Tensor:
        return self.policy.get_deterministic_action(preprocessed_states)

    @api
    def act(self, states: Tensor, time_step: Tensor) -> tuple[Tensor, Tensor]:
        """Epsilon-greedy actions for raw states, and the states preprocessed: ``(actions, preprocessed_states)``;
        epsilon follows ``time_step``."""
        preprocessed = self.preprocess(states)
        return self.act_preprocessed(preprocessed, time_step), preprocessed

    @api
    def act_preprocessed(self, preprocessed_states: Tensor, time_step: Tensor) -> Tensor:
        """Epsilon-greedy actions for states preprocessed already."""
        return self.exploration.get_action(self.policy.get_deterministic_action(preprocessed_states), time_step)

    # ----- memory and learning ----------------------------------------------------------------------------------
    @api
    def update_from_memory(self) -> tuple[Tensor, Tensor, Tensor]:
        """One gradient step on a batch sampled from the memory: ``(loss, grad_norm, td_errors)``."""
        if self.prioritized:
            records, indices, weights = self.memory.get_records(self.batch_size)
        else:
            records, weights = self.memory.get_records(self.batch_size), None  # uniform: no importance weights
        states, actions, rewards, terminals, next_states = self.splitter.split(records)
        loss, grad_norm, td_errors = self._learn(states, actions, rewards, terminals, next_states, weights)
        if self.prioritized:
            self.memory.update_records(indices, self._priorities(td_errors))
        return loss, grad_norm, td_errors

    @api
    def update_from_batch(self, preprocessed_states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, *,
                          next_preprocessed_states: Tensor, importance_weights: Tensor,
                          ) -> tuple[Tensor, Tensor, Tensor]:
        """One gradient step on a batch given from outside: ``(loss, grad_norm, td_errors)``."""
        return self._learn(preprocessed_states, actions, rewards, terminals, next_preprocessed_states,
                           importance_weights)

    @api
    def get_priorities(self, preprocessed_states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, *,
                       next_preprocessed_states: Tensor) -> Tensor:
        """``|TD error| + priority_epsilon`` of a batch under the current weights, without learning from it: the
        priorities an Ape-X actor sends with its transitions."""
        _, td_errors = self._loss(preprocessed_states, actions, rewards, terminals, next_preprocessed_states, None)
        return self._priorities(td_errors)

    @api
    def sync_target(self, tau: Tensor) -> None:
        """``target = tau * online + (1 - tau) * target`` (``tau = 1``: a copy)."""
        self.target_sync.sync(tau)

    def _learn(self, states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, next_states: Tensor,
               weights: Tensor) -> tuple[Any, Any, Any]:
        """The routing shared by both update API methods (a helper, not an API method of its own); ``weights``
        are ``None`` for uniform replay."""
        loss, td_errors = self._loss(states, actions, rewards, terminals, next_states, weights)
        loss, grad_norm = self.optimizer.step(loss)
        return loss, grad_norm, td_errors

    def _loss(self, states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, next_states: Tensor,
              weights: Tensor | None) -> tuple[Tensor, Tensor]:
        """``(loss, td_errors)`` of a batch (a helper, not an API method)."""
        q_values = self.policy.get_parameters(states)
        next_q_values = self.policy.get_parameters(next_states) if self.loss.double_q else None
        target_next_q_values = self.target_policy.get_parameters(next_states)
        if next_q_values is None:  # only read with double Q
            next_q_values = target_next_q_values
        loss, _, td_errors = self.loss.loss(q_values, actions, rewards, terminals, q_values_sp=next_q_values,
                                            target_q_values_sp=target_next_q_values, importance_weights=weights)
        return loss, td_errors

    @graph_fn
    def _priorities(self, td_errors: Tensor) -> Tensor:
        return self.ops.abs(td_errors) + self.priority_epsilon
