"""Generalised advantage estimation over sequences with episode boundaries."""

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


@register("gae")
class GAE(Component):
    """GAE (Schulman et al. 2016): ``calculate(rewards, *, values, terminals, bootstrap_values) -> (advantages,
    value_targets)``.

    With ``d[t] = terminals[t]`` (an episode ended with step ``t``) and ``V[T] = bootstrap_values``::

        delta[t] = r[t] + discount * (1 - d[t]) * V[t+1] - V[t]
        A[t]     = delta[t] + discount * gae_lambda * (1 - d[t]) * A[t+1],   A[T] = 0
        value_targets = A + V

    Inputs: ``rewards`` and ``values`` (V of each step's state) FloatBox ``()`` with a time rank (batch+time, either
    major, or time only); ``terminals`` BoolBox (or 0/1 numbers) of the same ranks; ``bootstrap_values``
    FloatBox ``()`` with the batch rank only: V of the state after the last step (ignored where that step is
    terminal). Outputs have the ranks of ``rewards`` and carry no gradient (they are targets). ``values`` share
    the space of ``rewards``, so they and the inputs after them are keyword-only.
    """

    def __init__(self, discount: float = 0.99, gae_lambda: float = 0.95, **kwargs: Any):
        super().__init__(**{"name": "gae", **kwargs})
        check_config(0.0 <= discount <= 1.0, self.name, "discount", "a number in [0, 1]", discount)
        check_config(0.0 <= gae_lambda <= 1.0, self.name, "gae_lambda", "a number in [0, 1]", gae_lambda)
        self.discount, self.gae_lambda = float(discount), float(gae_lambda)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        ranks = check_items(input_spaces, "rewards", values="f", terminals="biuf")
        check_box(input_spaces["bootstrap_values"], "bootstrap_values", "f", (), without_time(ranks))
        self.axis = time_axis(input_spaces["rewards"], "rewards")
        self.dtype = str(input_spaces["rewards"].dtype)

    @api
    @graph_fn(returns=2)
    def calculate(self, rewards: Tensor, *, values: Tensor, terminals: Tensor, bootstrap_values: Tensor,
                  ) -> tuple[Tensor, Tensor]:
        """GAE advantages and value targets (``advantages + values``), with the ranks of ``rewards``."""
        ops = self.ops
        rewards, values = ops.stop_gradient(rewards), ops.stop_gradient(values)
        discounts = (1.0 - ops.cast(terminals, self.dtype)) * self.discount
        next_values = next_steps(ops, values, ops.stop_gradient(bootstrap_values), self.axis)
        deltas = rewards + discounts * next_values - values
        advantages = discounted_cumsum(ops, deltas, discounts * self.gae_lambda, self.axis)
        return advantages, advantages + values
