"""The check of an outside batch of sequences — PPO's and IMPALA's ``update(batch)``, IMPALA's
``behaviour_log_probs(batch)`` — made before anything is computed or changed.

Every key holds ``(num_envs, length, ...)`` leaves: rewards set the two sizes, and every other leaf must have
them. The steps are then checked as rows (:func:`~.input_checks.check_rows`): states and next states in the state
space (finite floats; float bounds not asked — envs stray out of their boxes), actions in the space of the policy's
samples (integer ranges; float bounds where the distribution has them: squashed_normal, beta — a normal's raw
samples need only be finite), rewards and the optional float keys (``behaviour_log_probs``) finite, terminals
booleans or 0/1. Float actions out of bounds are refused, or clipped into them with ``out_of_bounds="clip"``
(their log-probs are then the clipped actions'). Errors name ``batch`` and the key path in it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rlworkbench.agents.input_checks import batch_key, check_rows, finite_per_row, terminals_of
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, Space, values_unchecked


def checked_sequences(batch: Mapping[str, Any], state_space: Space, action_space: Space, out_of_bounds: str,
                      float_keys: Sequence[str] = ()) -> dict[str, Any]:
    """``batch`` checked (see the module docstring), its values as arrays: rewards and ``float_keys`` float32 and
    terminals bool, each ``(num_envs, length)``; actions clipped where asked."""
    with batch_key("rewards"):
        rewards = _numbers(batch["rewards"], np.float32)
        if rewards.ndim != 2 or not rewards.size:
            raise SpaceError("an update batch holds sequences: (num_envs, length) rewards",
                             expected="2 dims, neither 0", got=f"shape {rewards.shape}")
        shape = rewards.shape
        checked: dict[str, Any] = {**batch, "rewards": finite_per_row(rewards, rewards.size, "rewards").reshape(shape)}
    with batch_key("terminals"):
        terminals = _array(batch["terminals"], None)
        _leading(terminals, shape, None, exact=True)
        checked["terminals"] = terminals_of(terminals.reshape(-1), rewards.size).reshape(shape)
    for key in ("states", "next_states"):
        with batch_key(key):
            checked[key] = _steps(batch[key], state_space, shape, key, float_bounds=False)
    with batch_key("actions"):
        checked["actions"] = _steps(batch["actions"], action_space, shape, "actions", float_bounds=True,
                                    clip=out_of_bounds == "clip")
    for key in float_keys:
        if batch.get(key) is not None:
            with batch_key(key):
                values = _numbers(batch[key], np.float32)
                _leading(values, shape, None, exact=True)
                checked[key] = finite_per_row(values, rewards.size, key).reshape(shape)
    return checked


def _steps(value: object, space: Space, shape: tuple[int, ...], argument: str, float_bounds: bool,
           clip: bool = False) -> Any:
    """``value`` (leaves ``(num_envs, length, ...)`` of ``space``) as arrays, checked step by step."""
    with values_unchecked():  # its form first: structure (no unknown keys), dtypes, the leaves' own shapes
        space.with_batch_rank().with_time_rank().check(value)
    try:
        flat = {key: np.asarray(leaf) for key, leaf in space.flatten(value).items()}
    except (ValueError, TypeError, KeyError) as error:  # ragged lists, another structure
        raise SpaceError(f"not sequences of values of the space: {error}", expected=str(space)) from None
    leaves = space.flatten()
    for key, leaf in flat.items():
        _leading(leaf, shape, key or None)
        leaf_space = leaves.get(key)
        if clip and isinstance(leaf_space, FloatBox) and leaf.dtype.kind == "f":
            flat[key] = np.clip(leaf, leaf_space.low, leaf_space.high).astype(leaf.dtype)
    steps: dict[str, object] = {key: leaf.reshape(-1, *leaf.shape[2:]) for key, leaf in flat.items()}
    rows = space.unflatten(steps)
    check_rows(rows, space, int(np.prod(shape)), argument, float_bounds=float_bounds)
    return space.unflatten(dict(flat))


def _leading(array: np.ndarray, shape: tuple[int, ...], key_path: str | None, exact: bool = False) -> None:
    """``array`` is ``shape`` (``exact``) or starts with it."""
    if array.shape[:2] != shape or array.ndim < 2 or (exact and array.ndim != 2):
        raise SpaceError("every leaf of a sequence batch is (num_envs, length, ...) as the rewards are",
                         key_path=key_path, expected=f"shape {shape}{'' if exact else ' + ...'}",
                         got=f"shape {array.shape}")


def _array(value: object, dtype: Any) -> np.ndarray:
    try:
        return np.asarray(value, dtype=dtype)
    except (ValueError, TypeError) as error:
        raise SpaceError(f"not an array of numbers: {error}", got=repr(value)[:80]) from None


def _numbers(value: object, dtype: Any) -> np.ndarray:
    array = _array(value, dtype)
    if array.dtype.kind not in "biuf":
        raise SpaceError("not an array of numbers", expected="numbers", got=f"{array.dtype}")
    return array
