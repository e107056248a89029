"""Preprocessors applied one after the other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.registry import from_specs, register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api


@register("preprocessor_stack")
class PreprocessorStack(Component):
    """``PreprocessorStack([Clip(-1, 1), {"type": "multiply", "factor": 2.0}])``: ``preprocess`` runs them in order."""

    def __init__(self, preprocessors: Sequence[Component | Mapping[str, Any]] = (), **kwargs: Any):
        super().__init__(**kwargs)
        self.preprocessors: list[Component] = from_specs(preprocessors)
        self.add_components(*self.preprocessors)

    @api
    def preprocess(self, inputs: Any) -> Any:
        outputs = inputs
        for preprocessor in self.preprocessors:
            outputs = preprocessor.preprocess(outputs)
        return outputs
