"""V-trace (IMPALA): off-policy value targets and policy-gradient advantages from clipped importance weights."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.common import (
    check_box,
    check_config,
    check_items,
    discounted_cumsum,
    next_steps,
    time_axis,
    without_time,
)
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


@register("vtrace")
class VTrace(Component):
    """V-trace (Espeholt et al. 2018): ``calculate(log_probs, *, behaviour_log_probs, rewards, values,
    bootstrap_values, discounts) -> (pg_advantages, vs)``.

    With ``rho[t] = pi(a_t|x_t) / mu(a_t|x_t)`` (target over behaviour policy), ``V[T] = bootstrap_values``::

        delta[t] = min(clip_rho, rho[t]) * (r[t] + discounts[t] * V[t+1] - V[t])
        vs[t]    = V[t] + delta[t] + discounts[t] * min(clip_c, rho[t]) * (vs[t+1] - V[t+1]),   vs[T] = V[T]
        pg_advantages[t] = min(clip_pg_rho, rho[t]) * (r[t] + discounts[t] * vs[t+1] - V[t])

    A threshold of ``None`` does not clip. Episode boundaries come in through ``discounts``: ``discount * (1 -
    terminal)`` per step (``SequenceHelper.discounts``). Outputs are targets: they carry no gradient.

    Inputs: FloatBox ``()`` per step with batch+time ranks (time-major as in IMPALA, or batch-major):
    ``log_probs`` (target policy) and ``behaviour_log_probs`` of the taken actions, ``rewards``, ``values``,
    ``discounts``; ``bootstrap_values`` (V of the state after the last step) with the batch rank only. The
    per-step inputs share one space, so all but ``log_probs`` are keyword-only.
    """

    def __init__(self, clip_rho_threshold: float | None = 1.0, clip_pg_rho_threshold: float | None = 1.0,
                 clip_c_threshold: float | None = 1.0, **kwargs: Any):
        super().__init__(**{"name": "vtrace", **kwargs})
        thresholds = {"clip_rho_threshold": clip_rho_threshold, "clip_pg_rho_threshold": clip_pg_rho_threshold,
                      "clip_c_threshold": clip_c_threshold}
        for key, value in thresholds.items():
            check_config(value is None or value > 0, self.name, key, "None or a number > 0", value)
        self.clip_rho, self.clip_pg_rho, self.clip_c = clip_rho_threshold, clip_pg_rho_threshold, clip_c_threshold

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        ranks = check_items(input_spaces, "log_probs", behaviour_log_probs="f", rewards="f", values="f",
                            discounts="f")
        check_box(input_spaces["bootstrap_values"], "bootstrap_values", "f", (), without_time(ranks))
        self.axis = time_axis(input_spaces["log_probs"], "log_probs")

    def _clipped(self, rhos: Tensor, threshold: float | None) -> Tensor:
        return rhos if threshold is None else self.ops.minimum(rhos, threshold)

    @api
    @graph_fn(returns=2)
    def calculate(self, log_probs: Tensor, *, behaviour_log_probs: Tensor, rewards: Tensor, values: Tensor,
                  bootstrap_values: Tensor, discounts: Tensor) -> tuple[Tensor, Tensor]:
        """``(pg_advantages, vs)``: v-trace policy-gradient advantages and value targets."""
        ops, axis = self.ops, self.axis
        rhos = ops.exp(ops.stop_gradient(log_probs - behaviour_log_probs))
        values, bootstrap_values = ops.stop_gradient(values), ops.stop_gradient(bootstrap_values)
        next_values = next_steps(ops, values, bootstrap_values, axis)
        deltas = self._clipped(rhos, self.clip_rho) * (rewards + discounts * next_values - values)
        vs = values + discounted_cumsum(ops, deltas, discounts * self._clipped(rhos, self.clip_c), axis)
        next_vs = next_steps(ops, vs, bootstrap_values, axis)
        pg_advantages = self._clipped(rhos, self.clip_pg_rho) * (rewards + discounts * next_vs - values)
        return pg_advantages, vs
