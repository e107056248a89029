"""The :class:`Preprocessor` base: ``preprocess(inputs)``, applied leaf by leaf to container inputs."""

from __future__ import annotations

from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.core.space_inference import structure_to_space
from rlworkbench.spaces import Space


def _leafwise_output_spaces(preprocessor: Preprocessor, inputs: Space) -> Space:
    flat = {key: preprocessor.output_leaf_space(key, leaf) for key, leaf in inputs.flatten().items()}
    return structure_to_space(inputs.unflatten(flat), lambda leaf: leaf)


class Preprocessor(Component):
    """Subclasses write ``_preprocess_leaf(key, x)`` and ``output_leaf_space(key, leaf_space)``; ``key`` is the
    leaf's key path (``""`` for a box).

    Output spaces are declared, not inferred from sample passes, so bounds and categories survive (an int leaf
    reshaped is still ``IntBox(n)``, ready for a one-hot). ``create_variables`` records each leaf's input space in
    ``self.leaf_spaces`` (by key path), which most preprocessors need (ranks, categories).
    """

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.leaf_spaces = input_spaces["inputs"].flatten()

    @api
    @graph_fn(pass_key=True, output_spaces=_leafwise_output_spaces)
    def preprocess(self, key: str, inputs: Tensor) -> Tensor:
        """The inputs, preprocessed leaf by leaf.

        ``key`` is the leaf's key path (``pass_key``), not an input."""
        return self._preprocess_leaf(key, inputs)

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        raise NotImplementedError

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        """The space of one preprocessed leaf, given its input space."""
        raise NotImplementedError
