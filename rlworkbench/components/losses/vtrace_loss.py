"""IMPALA's loss: the actor-critic loss on v-trace targets — or, with ``clip_ratio``, APPO's: PPO's clipped
surrogate on v-trace advantages."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.actor_critic_loss import ActorCriticLoss
from rlworkbench.components.losses.ppo_loss import PPOLoss
from rlworkbench.components.losses.vtrace import VTrace
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor


@register("vtrace_loss")
class VTraceLoss(Component):
    """``loss(log_probs, *, behaviour_log_probs, entropies, rewards, values, bootstrap_values, discounts) -> (loss,
    loss_per_item, parts)``.

    Routes the inputs through a ``VTrace`` sub-component (``vtrace``: pg advantages and targets ``vs``) into an
    ``ActorCriticLoss`` (``actor_critic``): per step ``-log_probs * pg_advantages + value_weight * 0.5 *
    (values - vs)**2 - entropy_weight * entropies``; ``parts`` as there. Inputs as ``VTrace`` takes them, plus
    ``entropies`` (FloatBox ``()`` per step) of the target policy.

    With ``clip_ratio`` (APPO) the policy term is PPO's clipped surrogate (a ``PPOLoss``, ``surrogate``):
    ``-min(r * A, clip(r, 1 - clip_ratio, 1 + clip_ratio) * A)`` with ``r = exp(log_probs - behaviour_log_probs)``
    and ``A`` v-trace's pg advantages; parts gain ``approx_kl`` and ``clip_fraction``. It keeps a learner that
    learns from a fragment more than once close to the policy that acted.
    """

    def __init__(self, value_weight: float = 0.5, entropy_weight: float = 0.01,
                 clip_rho_threshold: float | None = 1.0, clip_pg_rho_threshold: float | None = 1.0,
                 clip_c_threshold: float | None = 1.0, clip_ratio: float | None = None, **kwargs: Any):
        vtrace = VTrace(clip_rho_threshold, clip_pg_rho_threshold, clip_c_threshold, name="vtrace")
        policy_loss: ActorCriticLoss | PPOLoss = (
            ActorCriticLoss(value_weight, entropy_weight, name="actor_critic") if clip_ratio is None else
            PPOLoss(clip_ratio, entropy_weight=entropy_weight, value_weight=value_weight, name="surrogate"))
        super().__init__(vtrace, policy_loss, **{"name": "vtrace_loss", **kwargs})
        self.vtrace, self.policy_loss, self.clip_ratio = vtrace, policy_loss, clip_ratio

    @api
    def loss(self, log_probs: Tensor, *, behaviour_log_probs: Tensor, entropies: Tensor, rewards: Tensor,
             values: Tensor, bootstrap_values: Tensor, discounts: Tensor) -> tuple[Tensor, Tensor, dict[str, Tensor]]:
        """``(loss, loss_per_item, parts)`` of the actor-critic loss on v-trace targets."""
        pg_advantages, vs = self.vtrace.calculate(log_probs, behaviour_log_probs=behaviour_log_probs, rewards=rewards,
                                                  values=values, bootstrap_values=bootstrap_values,
                                                  discounts=discounts)
        if isinstance(self.policy_loss, PPOLoss):
            return self.policy_loss.loss(log_probs, prev_log_probs=behaviour_log_probs, advantages=pg_advantages,
                                         entropies=entropies, values=values, value_targets=vs)
        return self.policy_loss.loss(log_probs, advantages=pg_advantages, entropies=entropies, values=values,
                                     value_targets=vs)
