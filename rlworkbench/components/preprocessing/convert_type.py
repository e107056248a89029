"""Casting values to another dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.normalize import inclusive_bounds
from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, NumericBox, Space

DTYPES = ("float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool")


@register("convert_type")
class ConvertType(Preprocessor):
    """Casts every number or bool leaf to ``dtype`` (one of float16/32/64, int8/32/64, uint8, bool).

    Floats become ints by truncation towards zero; values must fit the new dtype (out-of-range casts differ
    between backends). Non-zero becomes ``True``. Bounds follow: an IntBox ``[low, high)`` becomes a FloatBox
    ``[low, high - 1]``, a FloatBox ``[low, high]`` an IntBox ``[trunc(low), trunc(high) + 1)`` within the dtype's
    range, bools ``[0, 1]``.
    """

    def __init__(self, dtype: str, **kwargs: Any):
        super().__init__(**kwargs)
        if str(dtype) not in DTYPES:
            raise ConfigError("unsupported dtype", component=self.name, key_path="dtype", expected=list(DTYPES),
                              got=dtype)
        self.dtype = np.dtype(str(dtype))

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        return self.ops.cast(x, self.dtype.name)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if not isinstance(leaf, (NumericBox, BoolBox)):
            raise SpaceError("type conversion needs number or bool leaves", argument="inputs", key_path=key or None,
                             expected="FloatBox, IntBox or BoolBox", got=leaf)
        if self.dtype.kind == "b":
            return BoolBox(leaf.shape).with_ranks_of(leaf)
        low, high = inclusive_bounds(leaf) if isinstance(leaf, NumericBox) else (np.asarray(0.0), np.asarray(1.0))
        if self.dtype.kind == "f":
            return FloatBox(low.astype(self.dtype), high.astype(self.dtype), shape=leaf.shape,
                            dtype=self.dtype).with_ranks_of(leaf)
        info = np.iinfo(self.dtype)
        with np.errstate(invalid="ignore"):
            low = np.clip(np.trunc(low), info.min, info.max)
            high = np.clip(np.trunc(high), info.min, info.max) + 1
        return IntBox(low, high, shape=leaf.shape, dtype=self.dtype).with_ranks_of(leaf)
