"""The :class:`Layer` base: one ``apply(inputs)`` API method that is a graph function."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError


class Layer(Component):
    """A neural-network layer: ``apply(inputs) -> outputs``; subclasses override ``apply``, declared again with
    ``@api`` over ``@graph_fn``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_apply" in cls.graph_fns:  # the former hook: it would never be called now
            raise TypeError(f"{cls.__name__}: a layer overrides 'apply' (@api over @graph_fn), not '_apply'")

    @api
    @graph_fn
    def apply(self, inputs: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement apply")


def check_layers(owner: str, items: Sequence[Component]) -> None:
    """Raises a :class:`ConfigError` for an item that is neither a layer (``apply``) nor a preprocessor."""
    for item in items:
        if "apply" not in item.api_methods and "preprocess" not in item.api_methods:
            raise ConfigError("network items need an 'apply' (layer) or 'preprocess' (e.g. flatten) API method",
                              component=owner, key_path=item.name, expected="a layer or preprocessor",
                              got=type(item).__name__)


def apply_layers(items: Sequence[Component], inputs: Tensor) -> Tensor:
    """Routes ``inputs`` through ``items`` in order: a layer's ``apply``, or a preprocessor's ``preprocess``
    (so ``{"type": "flatten"}`` can sit in a network between convolutions and dense layers)."""
    for item in items:
        inputs = item.apply(inputs) if "apply" in item.api_methods else item.preprocess(inputs)
    return inputs
