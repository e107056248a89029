"""Changing core shapes while keeping batch/time ranks: ``Reshape``, ``Flatten`` and ``OneHot``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, IntBox, NumericBox, Space, TextBox


@register("reshape")
class Reshape(Preprocessor):
    """Gives every leaf the core shape ``shape`` (same number of elements)."""

    def __init__(self, shape: Sequence[int], **kwargs: Any):
        super().__init__(**kwargs)
        self.shape = tuple(int(d) for d in shape)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        for key, leaf in self.leaf_spaces.items():
            if leaf.flat_dim != int(np.prod(self.shape)):
                raise SpaceError("reshape must keep the number of elements", argument="inputs", key_path=key or None,
                                 expected=f"{leaf.flat_dim} elements", got=f"shape {self.shape}")

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        extra = self.leaf_spaces[key].num_extra_ranks
        return self.ops.reshape(x, self.ops.leading_dims(x, extra) + self.shape)

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        return reshaped(leaf, self.shape)


@register("one_hot")
class OneHot(Preprocessor):
    """Int leaves with ``n`` categories become float one-hot vectors (a new last axis of size ``n``)."""

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.depth = {key: _categories(key, leaf) for key, leaf in self.leaf_spaces.items()}

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        return self.ops.one_hot(x - int(self.leaf_spaces[key].low), self.depth[key])

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        _categories(key, leaf)
        return leaf.as_one_hot_float_space()  # type: ignore[union-attr]


@register("flatten")
class Flatten(Preprocessor):
    """Flattens each leaf's core shape to one axis; with ``flatten_categories`` int leaves are one-hot first."""

    def __init__(self, flatten_categories: bool = True, **kwargs: Any):
        super().__init__(**kwargs)
        self.flatten_categories = flatten_categories

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        super().create_variables(input_spaces)
        self.depth = {key: _categories(key, leaf) if self.flatten_categories and isinstance(leaf, IntBox) else None
                      for key, leaf in self.leaf_spaces.items()}

    def _preprocess_leaf(self, key: str, x: Tensor) -> Tensor:
        leaf, depth = self.leaf_spaces[key], self.depth[key]
        if depth is not None:
            x = self.ops.one_hot(x - int(leaf.low), depth)
        size = leaf.flat_dim * (depth or 1)
        return self.ops.reshape(x, self.ops.leading_dims(x, leaf.num_extra_ranks) + (size,))

    def output_leaf_space(self, key: str, leaf: Space) -> Space:
        if self.flatten_categories and isinstance(leaf, IntBox):
            depth = _categories(key, leaf)
            return FloatBox(0.0, 1.0, shape=(leaf.flat_dim * depth,)).with_ranks_of(leaf)
        return reshaped(leaf, (leaf.flat_dim,))


def reshaped(leaf: Space, shape: tuple[int, ...]) -> Space:
    """``leaf`` with a new core shape (same kind, dtype, bounds and ranks)."""
    if isinstance(leaf, NumericBox):
        def bound(b: np.ndarray) -> np.ndarray:
            return b if b.ndim == 0 else np.reshape(b, shape)

        return type(leaf)(bound(leaf.low), bound(leaf.high), shape=shape, dtype=leaf.dtype).with_ranks_of(leaf)
    if isinstance(leaf, TextBox):
        return TextBox(shape, leaf.min_length, leaf.max_length, leaf.charset).with_ranks_of(leaf)
    return type(leaf)(shape).with_ranks_of(leaf)


def _categories(key: str, leaf: Space) -> int:
    if not isinstance(leaf, IntBox) or leaf.num_categories is None:
        raise SpaceError("one-hot needs an IntBox with scalar, finite bounds", argument="inputs", key_path=key or None,
                         expected="IntBox(n)", got=leaf)
    return leaf.num_categories
