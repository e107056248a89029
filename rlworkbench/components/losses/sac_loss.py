"""Soft actor-critic: the critic, actor and temperature losses."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.common import check_box, check_config, check_items, check_vectors
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Space


@register("sac_loss")
class SACLoss(Component):
    """The three losses of SAC (Haarnoja et al. 2018), each ``-> (loss, loss_per_item)``, ``loss`` the mean.

    ``alpha = exp(log_alpha)``; critics are stacked on the last axis of the Q-values (twin critics: 2 columns).

    - ``critic_loss(q_values, rewards, terminals, *, next_target_q_values, next_log_probs, log_alpha)``: per item
      ``sum_i 0.5 * (q_values[i] - y)**2`` with ``y = rewards + discount * (1 - terminals) * (min_i
      next_target_q_values[i] - alpha * next_log_probs)``; ``q_values`` at the replayed actions, the next-state
      values from the target critics at actions ``a' ~ pi(s')`` whose log-probabilities are ``next_log_probs``.
      ``y`` carries no gradient.
    - ``actor_loss(log_probs, q_values, log_alpha)``: per item ``alpha * log_probs - min_i q_values[i]`` for
      actions sampled (reparameterised) from the policy at ``s``; ``alpha`` carries no gradient.
    - ``temperature_loss(log_probs, log_alpha)``: per item ``-alpha * (log_probs + target_entropy)``; only
      ``log_alpha`` carries gradient. Needs ``target_entropy`` (commonly ``-action_dim``).

    Inputs (same ranks: batch, or batch+time): ``q_values``/``next_target_q_values`` FloatBox ``(num_critics,)``;
    ``rewards``, ``log_probs``, ``next_log_probs`` FloatBox ``()``; ``terminals`` BoolBox (or 0/1 numbers) ``()``;
    ``log_alpha`` a scalar FloatBox ``()`` without ranks. The next-state inputs of ``critic_loss`` share the spaces
    of ``q_values`` and ``rewards``, so they are keyword-only.
    """

    def __init__(self, discount: float = 0.99, target_entropy: float | None = None, **kwargs: Any):
        super().__init__(**{"name": "sac_loss", **kwargs})
        check_config(0.0 <= discount <= 1.0, self.name, "discount", "a number in [0, 1]", discount)
        self.discount, self.target_entropy = float(discount), target_entropy

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        check_box(input_spaces["log_alpha"], "log_alpha", "f", (), (False, False, False))
        reference = "rewards" if "rewards" in input_spaces else "log_probs"  # every API method has one of them
        ranks = check_items(input_spaces, reference, terminals="biuf", next_log_probs="f", log_probs="f")
        critics = {check_vectors(input_spaces[name], name, ranks, "one Q-value column per critic")
                   for name in ("q_values", "next_target_q_values") if name in input_spaces}
        if len(critics) > 1:
            raise SpaceError("q_values and next_target_q_values need the same number of critics",
                             argument="next_target_q_values", expected=input_spaces["q_values"].shape,
                             got=input_spaces["next_target_q_values"].shape)
        self.dtype = str(input_spaces[reference].dtype)

    @api
    @graph_fn(returns=2)
    def critic_loss(self, q_values: Tensor, rewards: Tensor, terminals: Tensor, *, next_target_q_values: Tensor,
                    next_log_probs: Tensor, log_alpha: Tensor) -> tuple[Tensor, Tensor]:
        """``(loss, loss_per_item)`` of the critics against the soft, twin-minimum target."""
        ops = self.ops
        alpha = ops.exp(log_alpha)
        soft_value = ops.reduce_min(next_target_q_values, -1) - alpha * next_log_probs
        not_done = 1.0 - ops.cast(terminals, self.dtype)
        target = ops.stop_gradient(rewards + self.discount * not_done * soft_value)
        per_item = 0.5 * ops.reduce_sum(ops.square(q_values - ops.expand_dims(target, -1)), -1)
        return ops.reduce_mean(per_item), per_item

    @api
    @graph_fn(returns=2)
    def actor_loss(self, log_probs: Tensor, q_values: Tensor, log_alpha: Tensor) -> tuple[Tensor, Tensor]:
        """``(loss, loss_per_item)`` of the policy: ``alpha * log_probs - min_i q_values[i]``."""
        alpha = self.ops.stop_gradient(self.ops.exp(log_alpha))
        per_item = alpha * log_probs - self.ops.reduce_min(q_values, -1)
        return self.ops.reduce_mean(per_item), per_item

    @api
    @graph_fn(returns=2)
    def temperature_loss(self, log_probs: Tensor, log_alpha: Tensor) -> tuple[Tensor, Tensor]:
        """``(loss, loss_per_item)`` that tunes ``log_alpha`` towards the target entropy."""
        if self.target_entropy is None:
            raise ConfigError("temperature_loss needs a target entropy", component=self.path,
                              key_path="target_entropy", expected="a number (commonly -action_dim)", got=None)
        per_item = -self.ops.exp(log_alpha) * self.ops.stop_gradient(log_probs + self.target_entropy)
        return self.ops.reduce_mean(per_item), per_item
