"""Episode boundaries inside sequences: per-step discounts, discounted returns, episode indices and lengths."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.losses.common import (
    check_box,
    check_config,
    discounted_cumsum,
    next_steps,
    ranks_of,
    time_axis,
    without_time,
)
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import Space


@register("sequence_helper")
class SequenceHelper(Component):
    """Per-step values of sequences (batch+time ranks, either major, or time only) cut at episode boundaries.

    ``terminals[t]`` true means an episode ended with step ``t``; the next step, if any, starts a new one.

    - ``discounts(terminals)`` → ``discount * (1 - terminals)``: per-step discounts that stop at boundaries
      (the ``discounts`` input of :class:`VTrace`).
    - ``discounted_returns(rewards, terminals, bootstrap_values)`` → ``G[t] = r[t] + discount * (1 - d[t]) * G[t+1]``
      with ``G[T] = bootstrap_values``, the value of the state after the last step (batch rank only; zeros for
      Monte-Carlo returns).
    - ``episode_indices(terminals)`` → int64: which episode of its sequence each step is in (0, 1, …).
    - ``episode_lengths(terminals)`` → int64: how many steps that episode has inside the sequence.

    ``terminals``: BoolBox (or 0/1 numbers) of core shape ``()``; ``rewards``: FloatBox ``()`` with the same ranks.
    """

    def __init__(self, discount: float = 0.99, **kwargs: Any):
        super().__init__(**kwargs)
        check_config(0.0 <= discount <= 1.0, self.name, "discount", "a number in [0, 1]", discount)
        self.discount = float(discount)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        terminals = input_spaces["terminals"]
        check_box(terminals, "terminals", "biuf")
        self.axis = time_axis(terminals, "terminals")
        self.dtype = "float32"
        if "rewards" in input_spaces:  # discounted_returns is built
            check_box(input_spaces["rewards"], "rewards", "f", (), ranks_of(terminals))
            check_box(input_spaces["bootstrap_values"], "bootstrap_values", "f", (), without_time(ranks_of(terminals)))
            self.dtype = str(input_spaces["rewards"].dtype)

    @api
    @graph_fn
    def discounts(self, terminals: Tensor) -> Tensor:
        """``discount * (1 - terminals)`` per step."""
        return (1.0 - self.ops.cast(terminals, self.dtype)) * self.discount

    @api
    @graph_fn
    def discounted_returns(self, rewards: Tensor, terminals: Tensor, bootstrap_values: Tensor) -> Tensor:
        """Discounted returns that restart after every terminal, bootstrapped after the last step."""
        discounts = (1.0 - self.ops.cast(terminals, self.dtype)) * self.discount
        return discounted_cumsum(self.ops, rewards, discounts, self.axis, bootstrap_values)

    @api
    @graph_fn
    def episode_indices(self, terminals: Tensor) -> Tensor:
        """The index (0, 1, …) of the episode each step belongs to, within its sequence."""
        ended = self.ops.cast(terminals, "int64")
        return self.ops.cumsum(ended, self.axis) - ended  # terminals strictly before each step

    @api
    @graph_fn
    def episode_lengths(self, terminals: Tensor) -> Tensor:
        """The number of steps of each step's episode, within its sequence."""
        ops, axis = self.ops, self.axis
        ended = ops.cast(terminals, "float32")
        ahead = discounted_cumsum(ops, ops.ones_like(ended), 1.0 - ended, axis)  # steps from t to its episode's end
        # the same count in reversed time, where an episode "ends" at its first step: the step after a terminal
        backwards = ops.reverse(ended, axis)
        starts = next_steps(ops, backwards, ops.reduce_sum(ops.zeros_like(ended), axis) + 1.0, axis)
        behind = ops.reverse(discounted_cumsum(ops, ops.ones_like(ended), 1.0 - starts, axis), axis)
        return ops.cast(ahead + behind - 1.0, "int64")
