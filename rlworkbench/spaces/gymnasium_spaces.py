"""Conversion between Gymnasium spaces and ours, both ways.

| Gymnasium | rlworkbench |
|---|---|
| ``Box`` (float) | ``FloatBox`` with the same bounds |
| ``Box`` (int) | ``IntBox`` (Gymnasium's inclusive ``high`` becomes our exclusive ``high + 1``) |
| ``Box`` (bool) | ``BoolBox`` |
| ``Discrete(n, start)`` | scalar ``IntBox(start, start + n)`` |
| ``MultiDiscrete(nvec, start)`` | shaped ``IntBox(start, start + nvec)`` |
| ``MultiBinary(n)`` | ``IntBox(0, 2, shape, dtype=int8)`` |

Back to Gymnasium, a bounded shaped IntBox becomes ``MultiDiscrete`` (so an int ``Box`` comes back as the
equivalent ``MultiDiscrete``) and an unbounded one an int ``Box``.
| ``Text`` | ``TextBox`` |
| ``Dict`` / ``Tuple`` | ``Dict`` / ``Tuple`` |
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
        return IntBox(space.start, space.start + space.nvec, shape=space.shape, dtype=space.dtype)
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
        return gym_spaces.Text(max_length=space.max_length, min_length=space.min_length, charset=space.charset)
    raise SpaceError("no Gymnasium equivalent", expected="a known space", got=repr(space))


def _int_to_gymnasium(space: IntBox) -> gymnasium.Space:
    bounded = space.is_bounded
    if bounded and space.shape == ():
        return gym_spaces.Discrete(int(space.high - space.low), start=int(space.low), dtype=space.dtype)
    if bounded and space.dtype == np.int8 and np.all(space.low == 0) and np.all(space.high == 2):
        return gym_spaces.MultiBinary(space.shape[0] if len(space.shape) == 1 else list(space.shape))
    if bounded:
        low = _full(space.low, space.shape).astype(np.int64)
        return gym_spaces.MultiDiscrete(_full(space.high, space.shape).astype(np.int64) - low, start=low,
                                        dtype=space.dtype)
    info = np.iinfo(space.dtype)
    low = np.where(np.isfinite(space.low), space.low, info.min)
    high = np.where(np.isfinite(space.high), np.asarray(space.high) - 1, info.max)
    return gym_spaces.Box(_full(low, space.shape).astype(space.dtype), _full(high, space.shape).astype(space.dtype),
                          shape=space.shape, dtype=space.dtype)


def _full(bound: Any, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(bound), shape).copy()
