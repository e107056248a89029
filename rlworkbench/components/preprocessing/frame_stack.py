"""Stacking the last ``n`` inputs (frames), kept in variables between calls."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, NumericBox, Space


@register("frame_stack")
class FrameStack(Preprocessor):
    """Outputs the last ``num_frames`` inputs stacked along the last axis, oldest first (RLgraph's ``Sequence``).

    ``add_rank=False`` concatenates along the last core axis (``(84, 84, 1)`` → ``(84, 84, n)``; rank >= 1);
    ``add_rank=True`` adds a last axis of size ``n`` (``(84, 84)`` → ``(84, 84, n)``). API: ``preprocess(inputs)``
    and ``reset()``: after a reset (and at first) the next input fills every slot, so an episode starts with its
    first frame repeated. The frames live in variables, one row per environment: leaves with a batch rank need
    exactly ``batch_size`` rows; leaves without one are single frames; time ranks are not supported. Kind, dtype
    and bounds are kept.
    """

    def __init__(self, num_frames: int, add_rank: bool = False, batch_size: int = 1, **kwargs: Any):
        super().__init__(**kwargs)
        if int(num_frames) < 1 or int(batch_size) < 1:
            raise ConfigError("num_frames and batch_size must be positive", component=self.name,
                              key_path="num_frames" if int(num_frames) < 1 else "batch_size", expected=">= 1",
                              got=(num_frames, batch_size))
        self.num_frames, self.add_rank, self.batch_size = int(num_frames), bool(add_rank), int(batch_size)
        self.axis = -1 if self.add_rank else -2  # where frames are stacked in the buffers

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.buffers, self.fresh = {}, {}  # per leaf: the frames, and whether the next input fills them all
        for key, leaf in self.leaf_spaces.items():
            self.output_leaf_space(key, leaf)
            rows = (self.batch_size,) if leaf.has_batch_rank else ()
            core = leaf.shape + (self.num_frames,) if self.add_rank else \
                leaf.shape[:-1] + (self.num_frames, leaf.shape[-1])
            suffix = f"/{key}" if key else ""
            self.buffers[key] = self.create_variable("frames" + suffix, rows + core, dtype=leaf.dtype.name,
                                                     trainable=False)
            self.fresh[key] = self.create_variable("fresh" + suffix, (), dtype="bool", initializer=True,
                                                   trainable=False)

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        leaf, buffer, fresh = self.leaf_spaces[key], self.buffers[key], self.fresh[key]
        frame = self.ops.expand_dims(x, self.axis)
        older = buffer[(Ellipsis, slice(1, None)) + (slice(None),) * (-1 - self.axis)]
        frames = self.ops.where(fresh, self.ops.concat([frame] * self.num_frames, self.axis),
                                self.ops.concat([older, frame], self.axis))
        self.ops.assign(buffer, frames)
        self.ops.assign(fresh, False)
        if self.add_rank:
            return frames
        return self.ops.reshape(frames, self.ops.leading_dims(x, leaf.num_extra_ranks) + self._shape_of(leaf))

    def _shape_of(self, leaf: Space) -> tuple[int, ...]:
        if self.add_rank:
            return leaf.shape + (self.num_frames,)
        return leaf.shape[:-1] + (leaf.shape[-1] * self.num_frames,)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if not isinstance(leaf, (NumericBox, BoolBox)) or leaf.has_time_rank or (leaf.rank == 0 and not self.add_rank):
            raise SpaceError("frame stacking needs number or bool leaves without a time rank (rank >= 1 unless "
                             "add_rank=True)", argument="inputs", key_path=key or None,
                             expected="FloatBox/IntBox/BoolBox, batch rank at most", got=leaf)
        if isinstance(leaf, BoolBox):
            return BoolBox(self._shape_of(leaf)).with_ranks_of(leaf)

        def bound(b: np.ndarray) -> np.ndarray:
            if b.ndim == 0:
                return b
            return np.stack([b] * self.num_frames, -1) if self.add_rank else np.concatenate([b] * self.num_frames, -1)

        return type(leaf)(bound(leaf.low), bound(leaf.high), shape=self._shape_of(leaf),
                          dtype=leaf.dtype).with_ranks_of(leaf)

    @api
    @graph_fn(returns=0)
    def reset(self) -> None:
        for fresh in self.fresh.values():
            self.ops.assign(fresh, True)
