"""Min-max normalisation into ``[0, 1]`` from the bounds of the input space."""

from __future__ import annotations

import numpy as np

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, IntBox, NumericBox, Space


def float_dtype(leaf: Space) -> np.dtype:
    """The float dtype a number leaf is computed in: its own when float32/64, else float32."""
    return np.promote_types(leaf.dtype, np.float32) if leaf.dtype.kind == "f" else np.dtype("float32")


def inclusive_bounds(leaf: NumericBox) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` with ``high`` inclusive (an IntBox's exclusive ``high`` minus one)."""
    return leaf.low, leaf.high - 1 if isinstance(leaf, IntBox) else leaf.high


@register("normalize")
class Normalize(Preprocessor):
    """``(x - low) / (high - low)`` per leaf, from the leaf space's finite bounds (scalar or per element; an
    IntBox's ``high`` is exclusive, so ``IntBox(0, 256)`` pixels are divided by 255). Where ``high == low`` the
    output is 0. Outputs ``FloatBox(0, 1)``, float32 (float64 leaves stay float64). For running statistics use
    :class:`MeanStdNormalize`.
    """

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.bounds: dict[str, tuple[np.ndarray, np.ndarray, str]] = {}
        for key, leaf in self.leaf_spaces.items():
            self.output_leaf_space(key, leaf)  # checks the bounds
            dtype = float_dtype(leaf)
            low, high = (np.asarray(b, dtype) for b in inclusive_bounds(leaf))
            span = high - low
            self.bounds[key] = (low, np.where(span == 0, np.ones_like(span), span), dtype.name)

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        low, span, dtype = self.bounds[key]
        x = self.ops.cast(x, dtype)
        if low.ndim == 0 and span.ndim == 0:
            return (x - float(low)) / float(span)
        return (x - self.ops.constant(low, dtype)) / self.ops.constant(span, dtype)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if not isinstance(leaf, NumericBox) or not leaf.is_bounded:
            raise SpaceError("min-max normalisation needs number leaves with finite bounds", argument="inputs",
                             key_path=key or None, expected="a bounded FloatBox or IntBox", got=leaf)
        return FloatBox(0.0, 1.0, shape=leaf.shape, dtype=float_dtype(leaf)).with_ranks_of(leaf)
