"""Scaling values by a constant factor (``Divide`` is the same with ``1 / divisor``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, NumericBox, Space


@register("multiply")
class Multiply(Preprocessor):
    """``preprocess(inputs) -> inputs * factor`` leaf by leaf (int leaves become float32; bounds scale along)."""

    def __init__(self, factor: float, **kwargs: Any):
        super().__init__(**kwargs)
        self.factor = float(factor)

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        return self.ops.multiply(x, self.factor)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        """Float leaves keep their dtype, int leaves become float32; bounds are scaled (and swapped if < 0)."""
        if not isinstance(leaf, NumericBox):
            raise SpaceError("multiply needs number leaves", argument="inputs", key_path=key or None,
                             expected="FloatBox or IntBox", got=leaf)
        dtype = leaf.dtype if leaf.dtype.kind == "f" else np.dtype("float32")
        high = leaf.high if isinstance(leaf, FloatBox) else leaf.high - 1  # IntBox high is exclusive
        # scale in the precision the backends use (ints and halves are multiplied as float32), so that the bounds
        # round as the values do: 99 * 0.1 is 9.900001 in float32, above float32(9.9)
        compute = np.promote_types(dtype, np.float32)
        factor = compute.type(self.factor)
        with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is nan: the values are all 0 there
            ends = [np.asarray(end, compute) * factor for end in (leaf.low, high)]
            # "+ 0.0" turns -0.0 (0 * -2) into 0.0: spaces compare bounds by bytes
            ends = [np.where(np.isnan(end), 0.0, end).astype(compute) + compute.type(0.0) for end in ends]
        # minimum/maximum, not a stack: one bound may be a scalar and the other per-element
        return FloatBox(np.minimum(*ends), np.maximum(*ends), shape=leaf.shape, dtype=dtype).with_ranks_of(leaf)


@register("divide")
class Divide(Multiply):
    """``preprocess(inputs) -> inputs / divisor`` leaf by leaf (a ``Multiply`` by ``1 / divisor``)."""

    def __init__(self, divisor: float, **kwargs: Any):
        if divisor == 0:
            raise ConfigError("cannot divide by zero", component=kwargs.get("name", "divide"), got=divisor)
        super().__init__(1.0 / float(divisor), **kwargs)
