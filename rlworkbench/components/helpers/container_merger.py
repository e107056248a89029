"""Merging separate values into one Dict (by names) or Tuple value."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import Dict, Space, Tuple


def _merged_space(merger: ContainerMerger, *inputs: Space) -> Space:
    return Dict(dict(zip(merger.keys, inputs))) if merger.keys else Tuple(*inputs)


@register("container_merger")
class ContainerMerger(Component):
    """``ContainerMerger("image", "mask").merge(a, b) -> {"image": a, "mask": b}``; without keys a tuple.

    The output space is built from the input spaces as they are (ranks and bounds kept per item).
    From a spec the keys come as a list: ``{"type": "container_merger", "keys": ["image", "mask"]}``.
    """

    def __init__(self, *keys: str, **kwargs: Any):
        keys = keys or tuple(kwargs.pop("keys", ()))
        super().__init__(**kwargs)
        self.keys = [str(k) for k in keys]

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        count = len([k for k in input_spaces if k.startswith("inputs[")])
        if self.keys and count != len(self.keys):
            raise SpaceError("merge got a different number of inputs than it has keys", api_method="merge",
                             expected=len(self.keys), got=count)

    @api
    @graph_fn(output_spaces=_merged_space)  # the inputs' spaces, bounds kept
    def merge(self, *inputs: Tensor) -> dict[str, Tensor] | tuple[Tensor, ...]:
        return dict(zip(self.keys, inputs)) if self.keys else tuple(inputs)
