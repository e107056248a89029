"""The root component of SAC, and its two small parts: the Q-networks and the temperature variable.

Everything is wired through API methods only; the same components build for both backends.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.agents.policy_root import PolicyActingRoot
from rlworkbench.agents.replay_root import ReplayRoot
from rlworkbench.components.helpers.synchronizable import Synchronizable
from rlworkbench.components.layers.concat import Concat
from rlworkbench.components.layers.neural_network import NeuralNetwork
from rlworkbench.components.losses.sac_loss import SACLoss
from rlworkbench.components.memories.memory import Memory
from rlworkbench.components.optimizers.optimizer import Optimizer
from rlworkbench.components.policies.policy import Policy
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import FloatBox, Space


class SoftQNetworks(Component):
    """``num_critics`` Q-networks side by side, each ``network`` (layer specs) followed by a linear Dense head.

    Float actions (``num_actions=None``): each network sees ``concat(states, actions)`` (both float vectors) and
    ends in one unit; ``get_q_values(states, actions)`` gives ``FloatBox((num_critics,))`` per row. Discrete
    actions: each network sees the states and ends in ``num_actions`` units; ``get_all_q_values(states)`` gives
    ``FloatBox((num_critics, num_actions))`` per row. The networks are named ``q_0``, ``q_1``, ...
    """

    def __init__(self, network: Sequence[Mapping[str, Any] | Component], num_critics: int = 2,
                 num_actions: int | None = None, name: str = "critics"):
        head = {"type": "dense", "units": 1 if num_actions is None else int(num_actions)}
        self.networks = [NeuralNetwork([*copy.deepcopy(list(network)), dict(head)], name=f"q_{index}")
                         for index in range(int(num_critics))]
        self.inputs = Concat(axis=-1, name="state_action") if num_actions is None else None
        super().__init__(*self.networks, *([self.inputs] if self.inputs is not None else []), name=name)
        self.num_critics, self.num_actions = int(num_critics), num_actions

    @api
    def get_q_values(self, states: Tensor, actions: Tensor) -> Tensor:
        """``Q_i(s, a)`` of every critic, stacked on the last axis (float actions)."""
        inputs = self.inputs.apply(states, actions)
        return self._columns(*(network.apply(inputs) for network in self.networks))

    @api
    def get_all_q_values(self, states: Tensor) -> Tensor:
        """``Q_i(s, ·)`` of every critic for every action: ``(..., num_critics, num_actions)`` (discrete actions)."""
        return self._stack(*(network.apply(states) for network in self.networks))

    @graph_fn
    def _columns(self, *q_values: Any) -> Tensor:
        return self.ops.concat(q_values, -1)

    @graph_fn
    def _stack(self, *q_values: Any) -> Tensor:
        return self.ops.stack(q_values, -2)


class Temperature(Component):
    """Holds ``log_alpha`` (a scalar variable, trainable when ``learn_alpha``), initialised to
    ``log(initial_alpha)``. API: ``get_log_alpha()``."""

    def __init__(self, initial_alpha: float = 1.0, learn_alpha: bool = True, name: str = "temperature"):
        super().__init__(name=name)
        self.initial_alpha, self.learn_alpha = float(initial_alpha), bool(learn_alpha)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.log_alpha = self.create_variable("log_alpha", (), initializer=math.log(self.initial_alpha),
                                              trainable=self.learn_alpha)

    @api
    @graph_fn
    def get_log_alpha(self) -> Tensor:
        return self.log_alpha


class SACGraph(ReplayRoot, PolicyActingRoot):
    """Soft actor-critic (Haarnoja et al. 2018) with twin critics and automatic temperature; for ``IntBox(n)``
    actions the discrete variant (Christodoulou 2019), whose targets and policy losses are expectations over
    the ``n`` actions under the policy rather than samples.

    Sub-components: ``preprocessor`` (optional), ``policy`` (a :class:`Policy`: squashed normal or categorical),
    ``critics`` (:class:`SoftQNetworks`), ``target_critics`` (its copy) and ``target_sync`` (a
    :class:`Synchronizable`), ``temperature`` (:class:`Temperature`), ``memory``, ``loss`` (:class:`SACLoss`),
    and three optimizers: ``critic_optimizer`` (of ``critics``), ``actor_optimizer`` (of ``policy``) and, when
    alpha is learnt, ``alpha_optimizer`` (of ``temperature``).

    One update, on one batch: the critics step on the soft twin-minimum target (next actions from the policy,
    values from the target critics); then the actor steps on ``alpha * log pi - min_i Q_i`` with the updated
    critics; then ``log_alpha`` steps towards the target entropy. For discrete actions ``log pi`` and ``Q`` are
    replaced by their expectations under ``pi``, which :class:`SACLoss` takes unchanged.

    API (batched): ``preprocess(states)``, ``act(states) -> (actions, preprocessed_states)`` (stochastic, raw
    states), ``act_preprocessed(preprocessed_states)``, ``act_greedy(preprocessed_states)``,
    ``get_q_values(preprocessed_states, actions)``, ``get_alpha()``, ``insert_records(preprocessed_states, actions,
    rewards, terminals, *, next_states) -> next_preprocessed_states``, ``get_memory_size()``,
    ``update_from_memory()`` and ``update_from_batch(preprocessed_states, actions, rewards, terminals, *,
    next_preprocessed_states)``, each ``-> (critic_loss, actor_loss, alpha_loss, critic_grad_norm,
    actor_grad_norm, alpha, log_probs)``, ``sync_target(tau)``.
    """

    def __init__(self, policy: Policy, critics: SoftQNetworks, temperature: Temperature, memory: Memory,
                 loss: SACLoss, optimizers: Mapping[str, Optimizer | None], batch_size: int,
                 preprocessor: Component | None = None, name: str = "sac"):
        self.policy, self.critics, self.temperature, self.memory, self.loss = (policy, critics, temperature, memory,
                                                                                loss)
        self.target_critics = critics.copy(name="target_critics")
        self.target_sync = Synchronizable(critics.name, self.target_critics.name, name="target_sync")
        self.record_routing()
        self.critic_optimizer, self.actor_optimizer = optimizers["critic"], optimizers["actor"]
        self.alpha_optimizer = optimizers.get("alpha")
        self.preprocessor = preprocessor
        parts = [policy, critics, self.target_critics, self.target_sync, temperature, memory, self.merger,
                 self.splitter, loss, self.critic_optimizer, self.actor_optimizer]
        parts += [self.alpha_optimizer] if self.alpha_optimizer is not None else []
        super().__init__(*([preprocessor] if preprocessor is not None else []), *parts, name=name)
        self.batch_size = int(batch_size)
        self.discrete = critics.num_actions is not None
        self.num_critics = critics.num_critics
        self.action_low = int(policy.action_space.low) if self.discrete else 0

    # ----- acting -----------------------------------------------------------------------------------------------
    @api
    def get_q_values(self, preprocessed_states: Tensor, actions: Tensor) -> Tensor:
        """``Q_i(s, a)`` of every critic, ``(batch, num_critics)``."""
        if self.discrete:
            return self._taken(self.critics.get_all_q_values(preprocessed_states), actions)
        return self.critics.get_q_values(preprocessed_states, actions)

    @api
    def get_alpha(self) -> Tensor:
        return self._exp(self.temperature.get_log_alpha())

    # ----- memory and learning ----------------------------------------------------------------------------------
    @api
    def update_from_memory(self) -> tuple[Tensor, ...]:
        """One update of critics, actor and temperature on a batch sampled from the memory."""
        return self._learn(*self.splitter.split(self.memory.get_records(self.batch_size)))

    @api
    def update_from_batch(self, preprocessed_states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, *,
                          next_preprocessed_states: Tensor) -> tuple[Tensor, ...]:
        """One update of critics, actor and temperature on a batch given from outside."""
        return self._learn(preprocessed_states, actions, rewards, terminals, next_preprocessed_states)

    @api
    def sync_target(self, tau: Tensor) -> None:
        """``target_critics = tau * critics + (1 - tau) * target_critics`` (``tau = 1``: a copy)."""
        self.target_sync.sync(tau)

    def _learn(self, states: Tensor, actions: Tensor, rewards: Tensor, terminals: Tensor, next_states: Tensor) -> tuple:
        """The routing shared by both update API methods (a helper, not an API method of its own)."""
        log_alpha = self.temperature.get_log_alpha()
        if self.discrete:
            q_values = self._taken(self.critics.get_all_q_values(states), actions)
            next_values, next_log_probs = self._expectations(self.policy.get_parameters(next_states),
                                                             self.target_critics.get_all_q_values(next_states))
        else:
            q_values = self.critics.get_q_values(states, actions)
            next_actions, next_log_probs = self.policy.get_action_and_log_prob(next_states)
            next_values = self.target_critics.get_q_values(next_states, next_actions)
        critic_loss, _ = self.loss.critic_loss(q_values, rewards, terminals, next_target_q_values=next_values,
                                               next_log_probs=next_log_probs, log_alpha=log_alpha)
        critic_loss, critic_norm = self.critic_optimizer.step(self._objective(critic_loss))

        if self.discrete:  # with the critics just updated
            policy_values, log_probs = self._expectations(self.policy.get_parameters(states),
                                                          self.critics.get_all_q_values(states))
        else:
            new_actions, log_probs = self.policy.get_action_and_log_prob(states)
            policy_values = self.critics.get_q_values(states, new_actions)
        actor_loss, _ = self.loss.actor_loss(log_probs, policy_values, log_alpha)
        actor_loss, actor_norm = self.actor_optimizer.step(self._objective(actor_loss))

        alpha_loss, _ = self.loss.temperature_loss(log_probs, log_alpha)
        if self.alpha_optimizer is not None:
            alpha_loss, _ = self.alpha_optimizer.step(self._objective(alpha_loss))
        alpha = self._exp(self.temperature.get_log_alpha())
        return critic_loss, actor_loss, alpha_loss, critic_norm, actor_norm, alpha, log_probs

    # ----- graph functions ----------------------------------------------------------------------------------------
    @graph_fn(output_spaces=lambda graph, loss: FloatBox())
    def _objective(self, loss: Any) -> Tensor:
        """The loss as it is. Its declared output space keeps the build's sample passes from running through it: they
        go in the order spaces arrive, not in program order, so on PyTorch a pass of one optimizer step would
        differentiate through forward passes whose weights another step's pass had already changed in place."""
        return loss

    @graph_fn
    def _exp(self, value: Tensor) -> Tensor:
        return self.ops.exp(value)

    @graph_fn
    def _taken(self, all_q_values: Tensor, actions: Tensor) -> Tensor:
        """``Q_i(s, a)`` from ``(batch, num_critics, n)`` Q-values and ``(batch,)`` actions."""
        one_hot = self.ops.one_hot(actions - self.action_low, self.critics.num_actions)
        return self.ops.reduce_sum(all_q_values * self.ops.expand_dims(one_hot, -2), -1)

    @graph_fn(returns=2)
    def _expectations(self, logits: Any, all_q_values: Tensor) -> tuple[Tensor, Tensor]:
        """Discrete SAC: ``(E_pi[min_i Q_i(s, ·)]`` repeated for every critic, ``E_pi[log pi(·|s)])``."""
        log_pi = self.ops.log_softmax(logits, -1)
        pi = self.ops.exp(log_pi)
        value = self.ops.reduce_sum(pi * self.ops.reduce_min(all_q_values, -2), -1)
        return self.ops.stack([value] * self.num_critics, -1), self.ops.reduce_sum(pi * log_pi, -1)
