"""The true transitions of a Gymnasium vector env, whatever its autoreset mode.

A vector env resets a finished sub-env by itself, and where the final observation ends up depends on the mode
(Gymnasium 1.x, https://farama.org/Vector-Autoreset-Mode):

- ``NEXT_STEP`` (Gymnasium's default): the step that ends an episode returns the real final observation; the
  *next* step of that sub-env ignores its action and only resets it (reward 0, not terminated, not truncated).
  That reset step is no transition and no timestep: its row is masked out.
- ``SAME_STEP``: the step that ends an episode already returns the reset observation; the real final one is in
  ``info["final_obs"]`` (an object array, one entry per sub-env, with the mask ``info["_final_obs"]``).
- ``DISABLED``: nothing resets by itself; the reader resets the finished sub-envs with
  ``reset(options={"reset_mask": done})`` after reading the final observation.

:class:`StepReader` hides the difference: every :class:`Step` carries the observations to act on next, the real
``next_states`` for each row (the final observation where an episode ended), and ``valid`` (``None`` when every
row is a real transition, else a boolean mask).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from rlworkbench.execution.envs import autoreset_mode_of


@dataclass(slots=True)
class Step:
    """One vector step, read right: ``next_states`` are the true s' of each row; ``observations`` the next s."""

    observations: Any
    next_states: Any
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    valid: np.ndarray | None  # None: every row is a real transition

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated


class StepReader:
    """Steps a vector env and returns :class:`Step` s whose rows are exactly the sub-envs' true transitions."""

    def __init__(self, env: VectorEnv):
        self.env = env
        self.mode = autoreset_mode_of(env)
        self.num_envs = int(env.num_envs)
        self._resetting = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: rows whose next step is a reset

    def reset(self, seed: int | None = None) -> Any:
        """Resets every sub-env and returns the first observations."""
        observations, _ = self.env.reset(seed=seed)
        self._resetting[:] = False
        return observations

    def step(self, actions: Any) -> Step:
        observations, rewards, terminated, truncated, infos = self.env.step(actions)
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        next_states, valid = observations, None
        if self.mode is AutoresetMode.NEXT_STEP:
            if self._resetting.any():
                valid = ~self._resetting
            self._resetting = terminated | truncated
        elif self.mode is AutoresetMode.SAME_STEP:
            if "final_obs" in infos:
                rows = np.flatnonzero(infos["_final_obs"])
                next_states = replace_rows(observations, rows, infos["final_obs"])
        elif self.mode is AutoresetMode.DISABLED:
            done = terminated | truncated
            if done.any():
                observations, _ = self.env.reset(options={"reset_mask": done})
        else:  # pragma: no cover - Gymnasium has no other mode
            raise ValueError(f"unknown autoreset mode {self.mode}")
        return Step(observations, next_states, np.asarray(rewards), terminated, truncated, valid)


def replace_rows(batch: Any, rows: np.ndarray, values: np.ndarray) -> Any:
    """A copy of a batched (possibly nested) observation with ``batch[i] = values[i]`` for ``i`` in ``rows``."""
    out = _copy(batch)
    for i in rows:
        _set_row(out, int(i), values[i])
    return out


def select_rows(batch: Any, mask: np.ndarray) -> Any:
    """The rows of a batched (possibly nested) value where ``mask`` holds."""
    if isinstance(batch, dict):
        return {key: select_rows(value, mask) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(select_rows(value, mask) for value in batch)
    return batch[mask]


def _copy(batch: Any) -> Any:
    if isinstance(batch, dict):
        return {key: _copy(value) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(_copy(value) for value in batch)
    return np.array(batch, copy=True)


def _set_row(batch: Any, row: int, value: object) -> None:
    if isinstance(batch, dict):
        for key, child in batch.items():
            _set_row(child, row, value[key])
    elif isinstance(batch, tuple):
        for child, child_value in zip(batch, value):
            _set_row(child, row, child_value)
    else:
        batch[row] = value
