"""Concatenating several inputs along one core axis."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import NumericBox, Space


def _concat_space(concat: Concat, *inputs: Space) -> Space:
    first, axis = inputs[0], concat.core_axis
    low, high = (np.concatenate([np.broadcast_to(getattr(s, end), s.shape) for s in inputs], axis)
                 for end in ("low", "high"))
    return type(first)(low, high, shape=low.shape, dtype=first.dtype).with_ranks_of(first)


def _layout(space: NumericBox, axis: int) -> tuple:
    """What concatenated inputs share: dtype, ranks and the core shape without ``axis``."""
    others = tuple(d for i, d in enumerate(space.shape) if i != axis % space.rank)
    return space.dtype, space.rank, others, space.has_batch_rank, space.has_time_rank, space.time_major


@register("concat")
class Concat(Component):
    """``apply(*inputs)``: the inputs joined along core axis ``axis`` (``-1``: the last; ``0``: the first axis
    after the batch/time ranks).

    Inputs are number boxes (``FloatBox``/``IntBox``) of one dtype, with the same batch/time ranks and the same
    core shape except along ``axis``; the output keeps their ranks and bounds. Spec: ``{"type": "concat"}``.
    """

    def __init__(self, axis: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        spaces = [input_spaces[f"inputs[{i}]"] for i in range(len(input_spaces))]
        if not spaces:
            raise SpaceError("concat needs at least one input", argument="inputs", expected=">= 1 input", got=0)
        first = spaces[0]
        for index, space in enumerate(spaces):
            argument = f"inputs[{index}]"
            if not isinstance(space, NumericBox) or not -space.rank <= self.axis < space.rank:
                raise SpaceError(f"concat needs number boxes with a core axis {self.axis}", argument=argument,
                                 expected="FloatBox or IntBox", got=space)
            if _layout(space, self.axis) != _layout(first, self.axis):
                raise SpaceError(f"concat inputs must match except along axis {self.axis}", argument=argument,
                                 expected=f"like inputs[0] {first!r}", got=space)
        self.core_axis = self.axis % first.rank
        self.tensor_axis = self.core_axis + first.num_extra_ranks

    @api
    @graph_fn(output_spaces=_concat_space)  # declared: the output keeps the inputs' bounds, concatenated
    def apply(self, *inputs: Tensor) -> Tensor:
        return self.ops.concat(inputs, self.tensor_axis)
