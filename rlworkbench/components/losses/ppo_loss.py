"""PPO's clipped surrogate loss, with a (optionally clipped) value loss and an entropy bonus."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.common import check_config, check_items, check_optional
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


@register("ppo_loss")
class PPOLoss(Component):
    """``loss(log_probs, *, prev_log_probs, advantages, entropies, values, value_targets, prev_values=None) ->
    (loss, loss_per_item, parts)`` (Schulman et al. 2017).

    Per item, with ``ratio = exp(log_probs - prev_log_probs)`` and ``A = advantages``::

        policy = -min(ratio * A, clip(ratio, 1 - clip_ratio, 1 + clip_ratio) * A)
        value  = 0.5 * (values - value_targets)**2, or with value_clip (needs prev_values):
                 0.5 * max((values - value_targets)**2, (prev_values + clip(values - prev_values, ±value_clip)
                 - value_targets)**2)
        loss_per_item = policy + value_weight * value - entropy_weight * entropies

    ``loss`` is the mean; ``parts`` holds means (over a learner group's ranks too, so that every rank stops at
    ``target_kl`` alike) of ``policy_loss``, ``value_loss``, ``entropy``, and the
    diagnostics ``approx_kl`` (mean of ``prev_log_probs - log_probs``) and ``clip_fraction``. Only ``log_probs``,
    ``entropies`` and ``values`` carry gradients. ``prev_values`` is given exactly when ``value_clip`` is set.

    Inputs are per-item scalars, FloatBox ``()``, with the same ranks (batch, or batch+time): log-probabilities
    of the taken actions under the current and the rollout policy, advantages (e.g. ``GAE``), the policy's
    entropies, current and rollout-time value estimates, and value targets. All share one space, so all but
    ``log_probs`` are keyword-only.
    """

    def __init__(self, clip_ratio: float = 0.2, value_clip: float | None = None, entropy_weight: float = 0.01,
                 value_weight: float = 0.5, **kwargs: Any):
        super().__init__(**{"name": "ppo_loss", **kwargs})
        check_config(clip_ratio > 0, self.name, "clip_ratio", "a number > 0", clip_ratio)
        check_config(value_clip is None or value_clip > 0, self.name, "value_clip", "None or a number > 0",
                     value_clip)
        check_config(entropy_weight >= 0, self.name, "entropy_weight", "a number >= 0", entropy_weight)
        check_config(value_weight >= 0, self.name, "value_weight", "a number >= 0", value_weight)
        self.clip_ratio, self.value_clip = float(clip_ratio), value_clip
        self.entropy_weight, self.value_weight = float(entropy_weight), float(value_weight)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        check_optional(self.name, self.value_clip is not None, "prev_values" in input_spaces, "value_clip",
                       "prev_values")
        check_items(input_spaces, "log_probs", prev_log_probs="f", advantages="f", entropies="f", values="f",
                    value_targets="f", prev_values="f")

    @api
    @graph_fn(returns=3)
    def loss(self, log_probs: Tensor, *, prev_log_probs: Tensor, advantages: Tensor, entropies: Tensor, values: Tensor,
             value_targets: Tensor, prev_values: Tensor | None = None) -> tuple[Tensor, Tensor, dict[str, Tensor]]:
        """``(loss, loss_per_item, parts)`` of the clipped surrogate, value loss and entropy bonus."""
        ops, eps = self.ops, self.clip_ratio
        advantages, value_targets = ops.stop_gradient(advantages), ops.stop_gradient(value_targets)
        log_ratio = log_probs - ops.stop_gradient(prev_log_probs)
        ratio = ops.exp(log_ratio)
        policy = -ops.minimum(ratio * advantages, ops.clip(ratio, 1.0 - eps, 1.0 + eps) * advantages)
        value = ops.square(values - value_targets)
        if self.value_clip is not None:
            previous = ops.stop_gradient(prev_values)
            clipped = previous + ops.clip(values - previous, -self.value_clip, self.value_clip)
            value = ops.maximum(value, ops.square(clipped - value_targets))
        value = 0.5 * value
        per_item = policy + self.value_weight * value - self.entropy_weight * entropies
        clipped_out = ops.cast(ops.abs(ratio - 1.0) > eps, "float32")
        parts = {"policy_loss": ops.reduce_mean(policy), "value_loss": ops.reduce_mean(value),
                 "entropy": ops.reduce_mean(entropies), "approx_kl": ops.stop_gradient(ops.reduce_mean(-log_ratio)),
                 "clip_fraction": ops.reduce_mean(clipped_out)}
        parts = dict(zip(parts, ops.group_mean(list(parts.values()))))  # a learner group's: stops on its mean KL
        return ops.reduce_mean(per_item), per_item, parts
