"""Checks on what callers hand an agent — ``observe``'s transitions and ``update``'s outside batches — made before
anything is stored or computed, so a bad value is a :class:`~rlworkbench.errors.SpaceError` naming its argument
and key path on the call that got it, and nothing half-happens.

Every leaf must lie in its space (dtype, shape, integer ranges; floats finite — NaN and infinity are out of any
box; float bounds only where asked: real envs' observations stray out of their declared boxes, and PPO's Gaussian
actions are stored unclipped), every argument must have one row per transition, rewards and importance weights
must be finite, and terminals booleans or 0/1 (``bool("no")`` is True). Errors about an outside update batch name
the ``batch`` argument and the key path in it (``states/position``): :func:`batch_key`.

What callers may choose (an argument, or the config's ``execution`` section): :data:`ON_BAD` — what ``observe``
does with bad rows (``"raise"``: refuse the call, ``"skip"``: drop the rows, warn once per kind and count them;
:mod:`.bad_rows`); :data:`OUT_OF_BOUNDS` — what PPO's and IMPALA's ``update(batch)`` do with float actions outside
the bounds their policy samples in (``"refuse"`` or ``"clip"``; :mod:`.sequence_checks`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Space, float_bounds_relaxed

ON_BAD = ("raise", "skip")
OUT_OF_BOUNDS = ("refuse", "clip")
INPUT_CHOICES = {"on_bad": ON_BAD, "out_of_bounds": OUT_OF_BOUNDS}
"""The config's ``execution/<name>`` choices for bad input; the first is the default."""


def check_rows(value: object, space: Space, count: int, argument: str, float_bounds: bool = True) -> None:
    """``value`` is ``count`` rows of ``space`` (see the module docstring); a SpaceError otherwise."""
    if plainly_rows_of(value, space, count, float_bounds):
        return
    try:
        with float_bounds_relaxed(not float_bounds):  # every leaf checked; float bounds only where asked
            batched(space).check(value)
    except SpaceError as error:
        raise error.add_context(argument=argument) from None
    for key, leaf in space.flatten(value).items():
        rows = np.shape(leaf)[0] if np.ndim(leaf) else None
        if rows != count:
            raise SpaceError("one value per row of the states", argument=argument, key_path=key or None,
                             expected=f"{count} rows", got=f"shape {np.shape(leaf)}")


def plainly_rows_of(value: object, space: Space, count: int, float_bounds: bool) -> bool:
    """True when ``value`` is plainly ``count`` good rows of the box ``space``: one array of an accepted dtype and
    the exact shape whose smallest and largest numbers lie within scalar bounds (or, for floats whose bounds are
    not checked, whose sum is finite). Two or three NumPy calls per leaf, for the common case of every
    ``observe``; False sends a value to :func:`check_rows`' whole check, which says what is wrong (False is never a
    verdict: a float sum that overflows, a container space, per-element bounds all take the whole check)."""
    known = _PLANS.get((id(space), float_bounds))
    if known is None or known[0] is not space:  # by identity: hashing a space costs more than the check
        if len(_PLANS) >= 256:
            _PLANS.clear()
        known = _PLANS[id(space), float_bounds] = (space, _plain_plan(space, float_bounds))
    plan = known[1]
    if plan is None or type(value) is not np.ndarray:
        return False
    kinds, shape, low, high, high_inclusive = plan
    if value.ndim == 0 or value.dtype.kind not in kinds or value.shape[1:] != shape or len(value) != count:
        return False
    if low is None or not value.size:  # booleans: nothing to bound
        return True
    if high is None:  # floats whose bounds are not checked: finite is all (a non-finite number makes the sum so)
        return math.isfinite(value.sum())
    smallest, largest = value.min(), value.max()  # NaN fails both comparisons
    return bool(smallest >= low and (largest <= high if high_inclusive else largest < high))


_Plan = tuple[str, tuple[int, ...], "float | None", "float | None", bool]
_PLANS: dict[tuple[int, bool], tuple[Space, _Plan | None]] = {}  # the space itself keeps its id from reuse


def _plain_plan(space: Space, float_bounds: bool) -> _Plan | None:
    """How :func:`plainly_rows_of` checks a box: ``(dtype kinds, shape, low, high, high inclusive)`` (``low`` None:
    no bounds; ``high`` None: finite only), or None where it leaves everything to the whole check."""
    kind = type(space)
    if kind not in (FloatBox, IntBox, BoolBox) or space.has_time_rank:  # exact types: subclasses may check more
        return None
    shape = tuple(space.shape)
    if isinstance(space, BoolBox):
        return "b", shape, None, None, True
    if isinstance(space, FloatBox) and not float_bounds:
        return "f", shape, -math.inf, None, True
    assert isinstance(space, (FloatBox, IntBox))
    bounds = space.scalar_bounds()
    if bounds is None:
        return None
    return space.dtype_kinds, shape, bounds[0], bounds[1], space.high_inclusive


@functools.lru_cache(maxsize=64)
def batched(space: Space) -> Space:
    """``space.with_batch_rank()``, made once per space (every observe is checked against it)."""
    return space.with_batch_rank()


def terminals_of(value: object, count: int) -> np.ndarray:
    """``count`` booleans from booleans or numbers that are 0 or 1 — never from strings."""
    if type(value) is np.ndarray and value.dtype == np.bool_ and value.shape == (count,):  # the usual case
        return value
    array, bad = terminal_rows(value, count)
    if bad.any():
        raise SpaceError("terminals are booleans (or 0/1)", argument="terminals", expected="bool per row",
                         got=array[bad][:8].tolist())
    return array.astype(bool)


def terminal_rows(value: object, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``(terminals, bad)``: ``count`` terminals as they came (booleans or numbers) and which rows are not a boolean
    or 0/1; a SpaceError for what no row can fix (strings, another count)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:
        raise SpaceError(f"terminals are not an array: {error}", argument="terminals") from None
    if array.dtype.kind not in "biuf":
        raise SpaceError("terminals are booleans (or 0/1)", argument="terminals", expected="bool per row",
                         got=f"{array.dtype} {array.reshape(-1)[:8].tolist()}")
    array = per_row(array, count, array.dtype, "terminals")
    bad = np.zeros(count, bool) if array.dtype.kind == "b" else ~((array == 0) | (array == 1))
    return array, bad


def finite_per_row(value: object, count: int, argument: str) -> np.ndarray:
    """``count`` finite float32 numbers."""
    if type(value) is np.ndarray and value.dtype.kind == "f" and value.shape == (count,):  # the usual case
        array = value.astype(np.float32, copy=False)
        if math.isfinite(array.sum()):  # a non-finite number makes the sum so (an overflow: the check below)
            return array
    array = per_row(value, count, np.float32, argument)
    if not np.all(np.isfinite(array)):
        raise SpaceError(f"{argument} must be finite", argument=argument, expected="finite numbers",
                         got=array.tolist()[:8])
    return array


def per_row(value: object, count: int, dtype: Any, argument: str) -> np.ndarray:
    """``count`` values of ``dtype``, one per row."""
    try:
        array = np.asarray(value, dtype=dtype)
    except (ValueError, TypeError) as error:
        raise SpaceError(f"{argument} are not numbers: {error}", argument=argument, expected=f"{count} numbers",
                         got=repr(value)[:80]) from None
    if array.size != count:
        raise SpaceError("needs one value per row of the states", argument=argument, expected=count,
                         got=f"shape {array.shape}")
    return array.reshape(count)


@contextmanager
def batch_key(key: str) -> Iterator[None]:
    """SpaceErrors inside name the update's ``batch`` argument and the key path in it (``key``, then the leaf's)."""
    try:
        yield
    except SpaceError as error:
        error.argument, error.key_path = "batch", nest.join(key, error.key_path) if error.key_path else key
        raise


def checked_transition_batch(batch: Mapping[str, object], state_space: Space, action_space: Space,
                             float_action_bounds: bool) -> dict[str, object]:
    """An outside update batch (``states``, ``actions``, ``rewards``, ``terminals``, ``next_states``, optionally
    ``importance_weights``; states as the memory holds them) checked row by row; rewards, terminals and weights
    come back as arrays of their dtypes."""
    with batch_key("states"):
        try:
            states = {key: np.asarray(leaf) for key, leaf in state_space.flatten(batch["states"]).items()}
        except (ValueError, TypeError, KeyError) as error:
            raise SpaceError(f"states are not values of the state space: {error}") from None
    count = len(next(iter(states.values()))) if np.ndim(next(iter(states.values()))) else 0
    for key in ("states", "next_states"):
        with batch_key(key):
            check_rows(batch[key], state_space, count, key, float_bounds=False)
    with batch_key("actions"):
        try:
            actions = nest.map_structure(np.asarray, batch["actions"])
        except (ValueError, TypeError) as error:  # ragged lists
            raise SpaceError(f"actions are not arrays: {error}") from None
        check_rows(actions, action_space, count, "actions", float_bounds=float_action_bounds)
    checked = {**batch, "actions": actions}
    with batch_key("rewards"):
        checked["rewards"] = finite_per_row(batch["rewards"], count, "rewards")
    with batch_key("terminals"):
        checked["terminals"] = terminals_of(batch["terminals"], count)
    if batch.get("importance_weights") is not None:
        with batch_key("importance_weights"):
            checked["importance_weights"] = finite_per_row(batch["importance_weights"], count,
                                                           "importance_weights")
    return checked
