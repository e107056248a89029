"""Preprocessors applied one after the other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.helpers.stack import Stack
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor


@register("preprocessor_stack")
class PreprocessorStack(Stack):
    """``PreprocessorStack([Clip(-1, 1), {"type": "multiply", "factor": 2.0}])``: ``preprocess`` runs them in order;
    ``reset()`` resets the stateful ones (those with a ``reset`` API method: frame stacks, running normalisers)."""

    def __init__(self, preprocessors: Sequence[Component | Mapping[str, Any]] = (), **kwargs: Any):
        super().__init__(preprocessors, **kwargs)
        self.preprocessors = self.items

    @api
    def preprocess(self, inputs: Tensor) -> Tensor:
        return self.chain("preprocess", inputs)

    @api
    def reset(self) -> None:
        """Resets the stateful members: those with a ``reset`` API method (frame stacks, running normalisers)."""
        for item in self.preprocessors:
            if "reset" in item.api_methods:
                item.reset()
