"""Conversion between Gymnasium spaces and ours, both ways.

| Gymnasium | rlworkbench |
|---|---|
| ``Box`` (float) | ``FloatBox`` with the same bounds |
| ``Box`` (int) | ``IntBox`` (Gymnasium's inclusive ``high`` becomes our exclusive ``high + 1``) |
| ``Box`` (bool) | ``BoolBox`` |
| ``Discrete(n, start)`` | scalar ``IntBox(start, start + n)`` |
| ``MultiDiscrete(nvec, start)`` | shaped ``IntBox(start, start + nvec)`` |
| ``MultiBinary(n)`` | ``IntBox(0, 2, shape, dtype=int8)`` |
| ``Text`` | ``TextBox`` (shape ``()``) |
| ``Dict`` / ``Tuple`` | ``Dict`` / ``Tuple`` |

Back to Gymnasium, a bounded scalar IntBox becomes ``Discrete`` and a bounded shaped one ``MultiDiscrete`` (so
an int ``Box`` comes back as the equivalent ``Discrete`` or ``MultiDiscrete``), unless its number of categories
does not fit its dtype (a uint8 image in ``[0, 256)``): then, like an unbounded one, it becomes an int ``Box``
with its bounds clipped to the dtype's range.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from rlworkbench.errors import SpaceError
from rlworkbench.spaces.box import BoolBox, FloatBox, IntBox, TextBox
from rlworkbench.spaces.containers import Dict, Tuple
from rlworkbench.spaces.space import Space

gym_spaces = gymnasium.spaces


def from_gymnasium(space: gymnasium.Space, add_batch_rank: bool = False, add_time_rank: bool = False,
                   time_major: bool = False) -> Space:
    """Our space for a Gymnasium space, optionally with batch/time ranks."""
    ours = _from_gymnasium(space)
    if add_batch_rank or add_time_rank:
        ours = ours._with_ranks(add_batch_rank, add_time_rank, time_major)
    return ours


def _from_gymnasium(space: gymnasium.Space, key_path: str = "") -> Space:
    if isinstance(space, gym_spaces.Box):
        kind = space.dtype.kind
        if kind == "f":
            return FloatBox(space.low, space.high, shape=space.shape, dtype=space.dtype)
        if kind in "iu":
            return IntBox(space.low, space.high.astype(np.float64) + 1, shape=space.shape, dtype=space.dtype)
        if kind == "b":
            return BoolBox(space.shape)
    elif isinstance(space, gym_spaces.Discrete):
        start = int(space.start)
        return IntBox(start, start + int(space.n), dtype=space.dtype)
    elif isinstance(space, gym_spaces.MultiDiscrete):
        # start + nvec in float64: in the space's own dtype it may overflow (uint8: 1 + 255)
        return IntBox(space.start, space.start.astype(np.float64) + space.nvec, shape=space.shape, dtype=space.dtype)
    elif isinstance(space, gym_spaces.MultiBinary):
        return IntBox(0, 2, shape=space.shape, dtype=np.int8)
    elif isinstance(space, gym_spaces.Text):
        return TextBox(min_length=space.min_length, max_length=space.max_length,
                       charset="".join(sorted(space.character_set)))
    elif isinstance(space, gym_spaces.Dict):
        return Dict({key: _from_gymnasium(child, f"{key_path}/{key}".lstrip("/")) for key, child in space.items()})
    elif isinstance(space, gym_spaces.Tuple):
        return Tuple(*(_from_gymnasium(child, f"{key_path}/{i}".lstrip("/")) for i, child in enumerate(space)))
    raise SpaceError("cannot convert this Gymnasium space", key_path=key_path or None,
                     expected="Box, Discrete, MultiDiscrete, MultiBinary, Text, Dict or Tuple", got=repr(space))


def to_gymnasium(space: Space) -> gymnasium.Space:
    """The Gymnasium space for one of ours (batch and time ranks are dropped: Gymnasium has none)."""
    if isinstance(space, Dict):
        return gym_spaces.Dict({key: to_gymnasium(child) for key, child in space.items()})
    if isinstance(space, Tuple):
        return gym_spaces.Tuple(tuple(to_gymnasium(child) for child in space))
    if isinstance(space, FloatBox):
        return gym_spaces.Box(_full(space.low, space.shape), _full(space.high, space.shape), shape=space.shape,
                              dtype=space.dtype)
    if isinstance(space, IntBox):
        return _int_to_gymnasium(space)
    if isinstance(space, BoolBox):
        return gym_spaces.Box(0, 1, shape=space.shape, dtype=np.bool_)
    if isinstance(space, TextBox):
        if space.shape != ():
            raise SpaceError("only a single string has a Gymnasium equivalent (Text)", expected="TextBox()",
                             got=repr(space))
        return gym_spaces.Text(max_length=space.max_length, min_length=space.min_length, charset=space.charset)
    raise SpaceError("no Gymnasium equivalent", expected="a known space", got=repr(space))


def _int_to_gymnasium(space: IntBox) -> gymnasium.Space:
    low, high = _inclusive_int_bounds(space)
    counts = high - low + 1
    if space.is_bounded and np.all(counts <= np.iinfo(space.dtype).max):  # counts must fit the dtype
        if space.shape == ():
            return gym_spaces.Discrete(int(counts), start=int(low), dtype=space.dtype)
        if space.dtype == np.int8 and np.all(low == 0) and np.all(high == 1):
            return gym_spaces.MultiBinary(space.shape[0] if len(space.shape) == 1 else list(space.shape))
        return gym_spaces.MultiDiscrete(counts.astype(space.dtype), start=low.astype(space.dtype), dtype=space.dtype)
    return gym_spaces.Box(low.astype(space.dtype), high.astype(space.dtype), shape=space.shape, dtype=space.dtype)


def _inclusive_int_bounds(space: IntBox) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive bounds clipped to the dtype's range, as arrays of Python ints (exact, no overflow)."""
    info = np.iinfo(space.dtype)

    def clip(bound: Any, offset: int, default: int) -> np.ndarray:
        values = [min(max(int(b) + offset, int(info.min)), int(info.max)) if np.isfinite(b) else default
                  for b in np.broadcast_to(bound, space.shape).reshape(-1)]
        return np.array(values, dtype=object).reshape(space.shape)

    return clip(space.low, 0, int(info.min)), clip(space.high, -1, int(info.max))


def _full(bound: Any, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(bound), shape).copy()
