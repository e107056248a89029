"""PPO's on-policy rollout buffer: transitions per environment, and where each one's return must bootstrap.

NumPy only, no backend. States and actions are flat ``{key path: array}`` dicts (``space.flatten(value)``), so
nested spaces work the same way. Rows arrive in batches from any subset of environments (``env_ids``); a
finished rollout lists its steps environment by environment, in time order within each, and says per step:

- ``continues``: the next step of the same environment in the rollout continues the same episode;
- ``bootstraps``: the episode goes on after this step, but not inside the rollout — the rollout ends there, or
  the episode was truncated (the environment's next row starts a new trajectory) — so the return needs
  ``V(next_state)``, the value of the true next (final) observation;
- terminal steps neither continue nor bootstrap.

``index`` lays the steps out as batch-major sequences, one row per environment, padded with ``-1`` to the longest
(environments of a worker that masks reset steps can be a step or two apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlworkbench.errors import SpaceError

Flat = dict[str, np.ndarray]


@dataclass
class Rollout:
    """A finished rollout: ``M`` steps ordered environment by environment (see the module docstring)."""

    states: Flat
    actions: Flat
    rewards: np.ndarray
    terminals: np.ndarray
    next_states: Flat
    continues: np.ndarray
    bootstraps: np.ndarray
    index: np.ndarray  # (num_envs, max_length) step numbers, -1 where padded

    @property
    def size(self) -> int:
        return len(self.rewards)

    def padded(self, values: np.ndarray, fill: Any = 0) -> np.ndarray:
        """Per-step ``values`` (length ``M``) as ``(num_envs, max_length)`` sequences, ``fill`` where padded."""
        out = np.full(self.index.shape, fill, dtype=np.asarray(values).dtype)
        valid = self.index >= 0
        out[valid] = np.asarray(values)[self.index[valid]]
        return out

    def unpadded(self, sequences: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`padded`: per-step values from ``(num_envs, max_length)`` sequences."""
        out = np.empty(self.size, dtype=sequences.dtype)
        valid = self.index >= 0
        out[self.index[valid]] = sequences[valid]
        return out


class RolloutBuffer:
    """Collects batches of transitions until a rollout is complete, then hands it over as a :class:`Rollout`."""

    def __init__(self) -> None:
        self._batches: list[tuple[np.ndarray, np.ndarray, Flat, Flat, np.ndarray, np.ndarray, Flat]] = []
        self.size = 0

    def add(self, env_ids: Sequence[object], starts: np.ndarray, states: Flat, actions: Flat, rewards: np.ndarray,
            terminals: np.ndarray, next_states: Flat) -> None:
        """Adds one transition per row (copies: callers may reuse their arrays); ``starts`` marks rows that begin
        a new trajectory of their environment."""
        self._batches.append((np.asarray(env_ids).copy(), np.array(starts, dtype=bool),
                              {k: np.array(v) for k, v in states.items()}, {k: np.array(v) for k, v in actions.items()},
                              np.array(rewards, dtype=np.float32), np.array(terminals, dtype=bool),
                              {k: np.array(v) for k, v in next_states.items()}))
        self.size += len(rewards)

    def clear(self) -> None:
        self._batches.clear()
        self.size = 0

    def rollout(self) -> Rollout:
        """The transitions so far as a :class:`Rollout` (the buffer is left as it is)."""
        if not self.size:
            raise SpaceError("the rollout buffer is empty: observe transitions before an update",
                             argument="rollout", expected="at least one transition", got="none")
        env_ids, starts, states, actions, rewards, terminals, next_states = (
            _concat([batch[i] for batch in self._batches]) for i in range(7))
        order, index = _by_environment(env_ids)
        env_ids, starts, rewards, terminals = env_ids[order], starts[order], rewards[order], terminals[order]
        same_env_next = np.append(env_ids[1:] == env_ids[:-1], False)
        next_starts = np.append(starts[1:], True)
        continues = ~terminals & same_env_next & ~next_starts
        return Rollout({k: v[order] for k, v in states.items()}, {k: v[order] for k, v in actions.items()},
                       rewards, terminals, {k: v[order] for k, v in next_states.items()}, continues,
                       ~terminals & ~continues, index)


def _concat(parts: list[object]) -> Any:
    if isinstance(parts[0], dict):
        return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    return np.concatenate(parts)


def _by_environment(env_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, index)``: a stable sort of the rows by environment (first seen first), and the sorted rows' step
    numbers as ``(num_envs, max_length)`` sequences padded with -1."""
    _, first, inverse, counts = np.unique(env_ids, return_index=True, return_inverse=True, return_counts=True)
    rank = np.argsort(np.argsort(first))  # environments in the order they were first seen
    env_rank = rank[inverse.reshape(-1)]
    order = np.argsort(env_rank, kind="stable")
    counts = counts[np.argsort(rank)]
    index = np.full((len(counts), int(counts.max())), -1, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    for row, (offset, count) in enumerate(zip(offsets, counts)):
        index[row, :count] = np.arange(offset, offset + count)
    return order, index
