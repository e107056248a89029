"""A :class:`Stack`: sub-components applied one after the other through the same API method."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlworkbench.components.registry import from_specs
from rlworkbench.core.component import Component
from rlworkbench.core.ops import Tensor


class Stack(Component):
    """Holds ``items`` (components or spec dicts, unnamed specs named ``<type>_<index>``) in order.

    Subclasses declare the API method and route it with :meth:`chain`, e.g. a network's ``apply`` or a
    preprocessor stack's ``preprocess``.
    """

    def __init__(self, items: Sequence[Component | Mapping[str, Any]] = (), **kwargs: Any):
        super().__init__(**kwargs)
        self.items: list[Component] = from_specs(items)
        self.add_components(*self.items)

    def chain(self, api_name: str, inputs: Tensor) -> Tensor:
        """Passes ``inputs`` through ``api_name`` of every item in order."""
        for item in self.items:
            inputs = getattr(item, api_name)(inputs)
        return inputs
