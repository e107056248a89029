"""Clipping values into ``[low, high]``."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.errors import ConfigError


@register("clip")
class Clip(Preprocessor):
    def __init__(self, low: float, high: float, **kwargs: Any):
        super().__init__(**kwargs)
        if low > high:
            raise ConfigError("clip needs low <= high", component=self.name, expected="low <= high",
                              got=f"low={low}, high={high}")
        self.low, self.high = float(low), float(high)

    def _preprocess_leaf(self, key: str, x: Any) -> Any:
        return self.ops.clip(x, self.low, self.high)
