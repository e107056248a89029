"""The :class:`Preprocessor` base: ``preprocess(inputs)``, applied leaf by leaf to container inputs."""

from __future__ import annotations

from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.spaces import Space


class Preprocessor(Component):
    """Subclasses write ``_preprocess_leaf(key, x)``; ``key`` is the leaf's key path (``""`` for a box).

    ``create_variables`` records each leaf's input space in ``self.leaf_spaces`` (by key path), which most
    preprocessors need (ranks, categories).
    """

    @api
    def preprocess(self, inputs: Any) -> Any:
        return self._preprocess(inputs)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.leaf_spaces = input_spaces["inputs"].flatten()

    @graph_fn(pass_key=True)
    def _preprocess(self, key: str, inputs: Any) -> Any:
        return self._preprocess_leaf(key, inputs)

    def _preprocess_leaf(self, key: str, x: Any) -> Any:
        raise NotImplementedError
