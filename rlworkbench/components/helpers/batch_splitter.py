"""Splitting a batch into equal shards, one per device or replica."""

from __future__ import annotations

from typing import Any

from rlworkbench import nest
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Space, Tuple


def _shard_spaces(splitter: BatchSplitter, *inputs: Space) -> Space | tuple[Space, ...]:
    shard = inputs[0] if len(inputs) == 1 else Tuple(*inputs)
    return shard if splitter.num_shards == 1 else tuple([shard] * splitter.num_shards)


@register("batch_splitter")
class BatchSplitter(Component):
    """``split(*inputs)`` cuts (nested) batches into ``num_shards`` shards of equal size along the batch axis.

    Returns ``num_shards`` values; each is the one input's shard, or a tuple of every input's shard. Every leaf
    needs a batch rank (time-major leaves are cut along axis 1). Remainder: shards hold
    ``batch_size // num_shards`` rows each and the last ``batch_size % num_shards`` rows are dropped, so every
    replica gets the same amount of data (a batch smaller than ``num_shards`` gives empty shards). Output spaces
    are the input spaces.
    """

    def __init__(self, num_shards: int, **kwargs: Any):
        super().__init__(**kwargs)
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ConfigError("num_shards must be a positive int", component=self.name, key_path="num_shards",
                              expected=">= 1", got=num_shards)
        self.num_shards = num_shards

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.axes: list[dict[str, int]] = []  # per input: key path -> batch axis
        for index in range(len([k for k in input_spaces if k.startswith("inputs[")])):
            argument, axes = f"inputs[{index}]", {}
            for key, leaf in input_spaces[argument].flatten().items():
                if not leaf.has_batch_rank:
                    raise SpaceError("batch splitting needs a batch rank", argument=argument, key_path=key or None,
                                     expected="a space with add_batch_rank=True", got=leaf)
                axes[key] = 1 if leaf.has_time_rank and leaf.time_major else 0
            self.axes.append(axes)
        if not self.axes:
            raise SpaceError("split needs at least one input", api_method="split", expected=">= 1 input", got=0)

    @api
    @graph_fn(returns=lambda self: self.num_shards, output_spaces=_shard_spaces)  # the inputs' spaces, bounds kept
    def split(self, *inputs: Tensor) -> tuple[Tensor, ...] | tuple[tuple[Tensor, ...], ...]:
        shards = [tuple(self._shard(value, axes, shard) for value, axes in zip(inputs, self.axes))
                  for shard in range(self.num_shards)]
        shards = [parts[0] if len(parts) == 1 else parts for parts in shards]
        return shards[0] if self.num_shards == 1 else tuple(shards)

    def _shard(self, value: Tensor, axes: dict[str, int], shard: int) -> Tensor:
        return nest.map_with_path(lambda key, leaf: self._cut(leaf, axes[key], shard), value)

    def _cut(self, leaf: Tensor, axis: int, shard: int) -> Tensor:
        size = self.ops.dim(leaf, axis) // self.num_shards
        rows = slice(shard * size, (shard + 1) * size)
        return leaf[rows] if axis == 0 else leaf[:, rows]
