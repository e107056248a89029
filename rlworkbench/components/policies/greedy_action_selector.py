"""Greedy action selection: the index of the largest value (e.g. Q-value) per row."""

from __future__ import annotations

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import IntBox, Space


def _action_space(component: GreedyActionSelector, values: Space) -> Space:
    return IntBox(values.shape[-1], shape=values.shape[:-1]).with_ranks_of(values)


@register("greedy_action_selector")
class GreedyActionSelector(Component):
    """``select(values) -> argmax over the last axis``, typed as ``IntBox(n)`` with the input's ranks."""

    @api
    @graph_fn(output_spaces=_action_space)  # declared: the actions are IntBox(n), categories kept
    def select(self, values: Tensor) -> Tensor:
        return self.ops.argmax(values, -1)
