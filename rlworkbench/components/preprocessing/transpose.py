"""Permuting the core axes of values (batch and time ranks stay in front)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, NumericBox, Space


@register("transpose")
class Transpose(Preprocessor):
    """Permutes every leaf's core axes by ``perm`` (over the core shape only): ``Transpose((2, 0, 1))`` turns
    ``(h, w, c)`` images into ``(c, h, w)`` with any batch/time ranks in front. Leaves must have ``len(perm)``
    core axes. Kind, dtype and bounds (per element ones permuted too) are kept.
    """

    def __init__(self, perm: Sequence[int], **kwargs: Any):
        super().__init__(**kwargs)
        self.perm = tuple(int(p) for p in perm)
        if sorted(self.perm) != list(range(len(self.perm))):
            raise ConfigError("perm must be a permutation of the core axes", component=self.name, key_path="perm",
                              expected=f"the numbers 0 .. {len(self.perm) - 1} in some order", got=tuple(perm))

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        extra = self.leaf_spaces[key].num_extra_ranks
        return self.ops.transpose(x, tuple(range(extra)) + tuple(extra + p for p in self.perm))

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if not isinstance(leaf, (NumericBox, BoolBox)) or leaf.rank != len(self.perm):
            raise SpaceError("transpose needs number or bool leaves with one core axis per entry of perm",
                             argument="inputs", key_path=key or None, expected=f"rank {len(self.perm)}", got=leaf)
        shape = tuple(leaf.shape[p] for p in self.perm)
        if isinstance(leaf, BoolBox):
            return BoolBox(shape).with_ranks_of(leaf)

        def bound(b: np.ndarray) -> np.ndarray:
            return b if b.ndim == 0 else np.transpose(b, self.perm)

        return type(leaf)(bound(leaf.low), bound(leaf.high), shape=shape, dtype=leaf.dtype).with_ranks_of(leaf)
