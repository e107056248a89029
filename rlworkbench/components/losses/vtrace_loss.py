"""IMPALA's loss: the actor-critic loss on v-trace targets."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.actor_critic_loss import ActorCriticLoss
from rlworkbench.components.losses.vtrace import VTrace
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api


@register("vtrace_loss")
class VTraceLoss(Component):
    """``loss(log_probs, *, behaviour_log_probs, entropies, rewards, values, bootstrap_values, discounts) -> (loss,
    loss_per_item, parts)``.

    Routes the inputs through a ``VTrace`` sub-component (``vtrace``: pg advantages and targets ``vs``) into an
    ``ActorCriticLoss`` (``actor_critic``): per step ``-log_probs * pg_advantages + value_weight * 0.5 *
    (values - vs)**2 - entropy_weight * entropies``; ``parts`` as there. Inputs as ``VTrace`` takes them, plus
    ``entropies`` (FloatBox ``()`` per step) of the target policy.
    """

    def __init__(self, value_weight: float = 0.5, entropy_weight: float = 0.01,
                 clip_rho_threshold: float | None = 1.0, clip_pg_rho_threshold: float | None = 1.0,
                 clip_c_threshold: float | None = 1.0, **kwargs: Any):
        vtrace = VTrace(clip_rho_threshold, clip_pg_rho_threshold, clip_c_threshold, name="vtrace")
        actor_critic = ActorCriticLoss(value_weight, entropy_weight, name="actor_critic")
        super().__init__(vtrace, actor_critic, **{"name": "vtrace_loss", **kwargs})
        self.vtrace, self.actor_critic = vtrace, actor_critic

    @api
    def loss(self, log_probs: Any, *, behaviour_log_probs: Any, entropies: Any, rewards: Any, values: Any,
             bootstrap_values: Any, discounts: Any) -> Any:
        """``(loss, loss_per_item, parts)`` of the actor-critic loss on v-trace targets."""
        pg_advantages, vs = self.vtrace.calculate(log_probs, behaviour_log_probs=behaviour_log_probs, rewards=rewards,
                                                  values=values, bootstrap_values=bootstrap_values,
                                                  discounts=discounts)
        return self.actor_critic.loss(log_probs, advantages=pg_advantages, entropies=entropies, values=values,
                                      value_targets=vs)
