"""Scaling values by a constant factor (``Divide`` is the same with ``1 / divisor``)."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.errors import ConfigError


@register("multiply")
class Multiply(Preprocessor):
    def __init__(self, factor: float, **kwargs: Any):
        super().__init__(**kwargs)
        self.factor = float(factor)

    def _preprocess_leaf(self, key: str, x: Any) -> Any:
        return self.ops.multiply(x, self.factor)


@register("divide")
class Divide(Multiply):
    def __init__(self, divisor: float, **kwargs: Any):
        if divisor == 0:
            raise ConfigError("cannot divide by zero", component=kwargs.get("name", "divide"), got=divisor)
        super().__init__(1.0 / float(divisor), **kwargs)
