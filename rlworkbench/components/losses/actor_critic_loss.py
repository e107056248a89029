"""The actor-critic loss: policy gradient with advantages, a value loss and an entropy bonus."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.common import check_config, check_items
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


@register("actor_critic_loss")
class ActorCriticLoss(Component):
    """``loss(log_probs, *, advantages, entropies, values, value_targets) -> (loss, loss_per_item, parts)``.

    Per item: ``-log_probs * A + value_weight * 0.5 * (values - value_targets)**2 - entropy_weight * entropies``;
    ``loss`` is its mean, ``parts`` the means of its pieces: ``{"policy_loss", "value_loss", "entropy"}``.
    Advantages and value targets are constants (no gradient flows into them): compute them with ``GAE``,
    ``VTrace`` or n-step returns.

    Inputs are per-item scalars, FloatBox ``()``, all with the same ranks (batch, or batch+time):
    ``log_probs`` of the taken actions under the current policy (summed over action dimensions),
    ``entropies`` of the policy's distribution, ``values`` its state-value estimates. All share one space, so all
    but ``log_probs`` are keyword-only.
    """

    def __init__(self, value_weight: float = 0.5, entropy_weight: float = 0.01, **kwargs: Any):
        super().__init__(**kwargs)
        check_config(value_weight >= 0, self.name, "value_weight", "a number >= 0", value_weight)
        check_config(entropy_weight >= 0, self.name, "entropy_weight", "a number >= 0", entropy_weight)
        self.value_weight, self.entropy_weight = float(value_weight), float(entropy_weight)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        check_items(input_spaces, "log_probs", advantages="f", entropies="f", values="f", value_targets="f")

    @api
    @graph_fn(returns=3)
    def loss(self, log_probs: Tensor, *, advantages: Tensor, entropies: Tensor, values: Tensor,
             value_targets: Tensor) -> tuple[Tensor, Tensor, dict[str, Tensor]]:
        """``(loss, loss_per_item, parts)`` of policy gradient, value loss and entropy bonus."""
        ops = self.ops
        policy = -log_probs * ops.stop_gradient(advantages)
        value = 0.5 * ops.square(values - ops.stop_gradient(value_targets))
        per_item = policy + self.value_weight * value - self.entropy_weight * entropies
        parts = {"policy_loss": ops.reduce_mean(policy), "value_loss": ops.reduce_mean(value),
                 "entropy": ops.reduce_mean(entropies)}
        return ops.reduce_mean(per_item), per_item, parts
