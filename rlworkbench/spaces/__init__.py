"""Spaces: what values look like, with optional batch and time ranks (numpy and gymnasium only)."""

from rlworkbench.spaces.box import (
    BoolBox,
    BoxSpace,
    FloatBox,
    IntBox,
    NumericBox,
    TextBox,
    float_bounds_relaxed,
    values_unchecked,
)
from rlworkbench.spaces.coerce import as_space, is_gymnasium_space, refuse_zero_size
from rlworkbench.spaces.containers import ContainerSpace, Dict, Tuple
from rlworkbench.spaces.space import Space

__all__ = [
    "BoolBox",
    "BoxSpace",
    "ContainerSpace",
    "Dict",
    "FloatBox",
    "IntBox",
    "NumericBox",
    "Space",
    "TextBox",
    "Tuple",
    "as_space",
    "float_bounds_relaxed",
    "from_gymnasium",
    "is_gymnasium_space",
    "refuse_zero_size",
    "to_gymnasium",
    "values_unchecked",
]


def __getattr__(name: str):
    # gymnasium is imported only when conversion is asked for
    if name in ("from_gymnasium", "to_gymnasium"):
        from rlworkbench.spaces import gymnasium_spaces

        return getattr(gymnasium_spaces, name)
    raise AttributeError(name)
