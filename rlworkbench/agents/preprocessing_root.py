"""What every agent's root shares: it takes raw states and preprocesses them itself."""

from __future__ import annotations

from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api
from rlworkbench.core.ops import Tensor


class PreprocessingRoot(Component):
    """A root with ``self.preprocessor`` (a preprocessor stack, or None). API: ``preprocess(states)`` — the states
    through the stack, or as they are without one (so every root has the method, and its output space is the space
    of preprocessed states: ``Agent``'s ``PREPROCESSED``)."""

    preprocessor: Component | None

    @api
    def preprocess(self, states: Tensor) -> Tensor:
        """A batch of raw states, preprocessed."""
        return states if self.preprocessor is None else self.preprocessor.preprocess(states)
