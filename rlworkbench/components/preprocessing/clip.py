"""Clipping values into ``[low, high]``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox, Space


@register("clip")
class Clip(Preprocessor):
    """Clips every leaf into ``[low, high]``; int leaves stay ints (clipped to ``[ceil(low), floor(high)]``)."""

    def __init__(self, low: float, high: float, **kwargs: Any):
        super().__init__(**kwargs)
        if low > high:
            raise ConfigError("clip needs low <= high", component=self.name, expected="low <= high",
                              got=f"low={low}, high={high}")
        self.low, self.high = float(low), float(high)

    def _int_bounds(self, dtype: np.dtype) -> tuple[int, int]:
        info = np.iinfo(dtype)
        low = int(info.min) if math.isinf(self.low) else max(math.ceil(self.low), int(info.min))
        high = int(info.max) if math.isinf(self.high) else min(math.floor(self.high), int(info.max))
        return low, high

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        dtype = self.leaf_spaces[key].dtype
        if dtype.kind in "iu":  # float bounds would promote int values to floats
            return self.ops.clip(x, *self._int_bounds(dtype))
        return self.ops.clip(x, self.low, self.high)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if isinstance(leaf, IntBox):
            low, high = self._int_bounds(leaf.dtype)
            # clip the bounds themselves (clip is monotone), not intersect: disjoint ranges must not give low > high
            return IntBox(np.clip(leaf.low, low, high), np.clip(leaf.high - 1, low, high) + 1, shape=leaf.shape,
                          dtype=leaf.dtype).with_ranks_of(leaf)
        if isinstance(leaf, FloatBox):
            return FloatBox(np.clip(leaf.low, self.low, self.high), np.clip(leaf.high, self.low, self.high),
                            shape=leaf.shape, dtype=leaf.dtype).with_ranks_of(leaf)
        raise SpaceError("clip needs number leaves", argument="inputs", key_path=key or None,
                         expected="FloatBox or IntBox", got=leaf)
