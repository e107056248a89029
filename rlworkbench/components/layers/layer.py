"""The :class:`Layer` base: one ``apply(inputs)`` API method around one graph function."""

from __future__ import annotations

from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn


class Layer(Component):
    """A neural-network layer: ``apply(inputs) -> outputs``; subclasses write ``_apply``."""

    @api
    def apply(self, inputs: Any) -> Any:
        return self._apply(inputs)

    @graph_fn
    def _apply(self, inputs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement _apply")
