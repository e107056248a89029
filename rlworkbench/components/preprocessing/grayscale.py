"""Colour images to grey levels: a weighted sum over the last (channel) axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.normalize import float_dtype, inclusive_bounds
from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, NumericBox, Space


@register("grayscale")
class GrayScale(Preprocessor):
    """``sum(x * weights, axis=-1)``: RGB (the last core axis, of size ``len(weights)``) to luminance, with the
    ITU-R 601 weights ``(0.299, 0.587, 0.114)`` by default. ``keep_rank`` keeps a last axis of size 1
    (``(84, 84, 3)`` → ``(84, 84, 1)``, else ``(84, 84)``). Outputs float32 (float64 stays float64); scalar finite
    input bounds give output bounds (values are clipped into them against rounding), others an unbounded box.
    """

    def __init__(self, weights: Sequence[float] = (0.299, 0.587, 0.114), keep_rank: bool = False, **kwargs: Any):
        kwargs.setdefault("name", "grayscale")
        super().__init__(**kwargs)
        self.weights = tuple(float(w) for w in weights)
        if not self.weights:
            raise ConfigError("grayscale needs at least one weight", component=self.name, key_path="weights",
                              expected="one weight per channel", got=weights)
        self.keep_rank = bool(keep_rank)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.ranges = {key: self._range(key, leaf) for key, leaf in self.leaf_spaces.items()}

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        dtype = float_dtype(self.leaf_spaces[key]).name
        weights = self.ops.constant(self.weights, dtype)
        grey = self.ops.reduce_sum(self.ops.cast(x, dtype) * weights, -1)
        if self.ranges[key] is not None:
            grey = self.ops.clip(grey, *self.ranges[key])
        return self.ops.expand_dims(grey, -1) if self.keep_rank else grey

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        bounds = self._range(key, leaf)
        low, high = bounds if bounds is not None else (None, None)
        shape = leaf.shape[:-1] + ((1,) if self.keep_rank else ())
        return FloatBox(low, high, shape=shape, dtype=float_dtype(leaf)).with_ranks_of(leaf)

    def _range(self, key: str, leaf: Space) -> tuple[float, float] | None:
        """The output's ``(low, high)`` for scalar finite input bounds, else ``None``; checks the leaf."""
        if not isinstance(leaf, NumericBox) or not leaf.shape or leaf.shape[-1] != len(self.weights):
            raise SpaceError("grayscale needs number leaves whose last axis holds one value per weight",
                             argument="inputs", key_path=key or None,
                             expected=f"FloatBox or IntBox of shape (..., {len(self.weights)})", got=leaf)
        low, high = inclusive_bounds(leaf)
        if low.ndim or high.ndim or not leaf.is_bounded:
            return None
        weights = np.asarray(self.weights)
        ends = np.stack([weights * float(low), weights * float(high)])
        return float(ends.min(0).sum()), float(ends.max(0).sum())
