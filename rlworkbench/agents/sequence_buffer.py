"""Fixed-length sequences per environment, as IMPALA and recurrent PPO learn from them.

NumPy only. Steps arrive in batches from any subset of environments (``env_ids``) and are kept per environment in
time order; :meth:`SequenceBuffer.take` hands over ``length`` steps of every environment as ``(num_envs, length)``
arrays and keeps the rest for the next sequences. With a recurrent state stored per step, a sequence also carries
the state its first step acted with.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rlworkbench.errors import SpaceError

Flat = dict[str, np.ndarray]


class Step(NamedTuple):
    """One environment's step as the buffer keeps it."""

    start: bool
    states: Flat
    actions: Flat
    reward: float
    terminal: bool
    next_states: Flat
    internal_state: tuple[np.ndarray, ...] | None
    acting_reset: bool


@dataclass
class Sequences:
    """``(num_envs, length)`` steps: flat states, actions and next states, rewards, terminals, ``starts`` (the
    step begins a trajectory of its environment), ``continues`` (the next step of the sequence continues the
    same episode), ``initial_states`` (the recurrent state of each sequence's first step; ``None`` without) and
    ``acting_resets`` (the steps whose acting state was zeroed; ``None`` where not recorded)."""

    states: Flat
    actions: Flat
    rewards: np.ndarray
    terminals: np.ndarray
    next_states: Flat
    starts: np.ndarray
    continues: np.ndarray
    initial_states: tuple[np.ndarray, ...] | None
    acting_resets: np.ndarray | None = None

    @property
    def resets(self) -> np.ndarray:
        """The steps after the first whose state starts from zeros: where acting zeroed it (recorded), else after
        an episode boundary. The first step starts from ``initial_states`` as stored."""
        resets = np.zeros_like(self.starts)
        if self.acting_resets is not None:
            resets[:, 1:] = self.acting_resets[:, 1:]
        else:
            resets[:, 1:] = ~self.continues[:, :-1]
        return resets


class SequenceBuffer:
    """Steps per environment until every one has ``length`` of them (see the module docstring)."""

    def __init__(self) -> None:
        self.pending: dict[Hashable, list[Step]] = {}

    def add(self, env_ids: Sequence[Hashable], starts: np.ndarray, states: Flat, actions: Flat, rewards: np.ndarray,
            terminals: np.ndarray, next_states: Flat, internal_states: Sequence[np.ndarray] | None = None,
            acting_resets: np.ndarray | None = None) -> None:
        """One step per row (copied); ``internal_states``: the recurrent state each row acted with, zeroed where
        ``acting_resets``."""
        for row, env in enumerate(env_ids):
            self.pending.setdefault(env, []).append(Step(
                bool(starts[row]), {k: np.array(v[row]) for k, v in states.items()},
                {k: np.array(v[row]) for k, v in actions.items()}, float(rewards[row]), bool(terminals[row]),
                {k: np.array(v[row]) for k, v in next_states.items()},
                None if internal_states is None else tuple(np.array(leaf[row]) for leaf in internal_states),
                bool(acting_resets is not None and acting_resets[row])))

    def ready(self, length: int) -> bool:
        """Whether every environment seen has ``length`` steps."""
        return bool(self.pending) and all(len(steps) >= length for steps in self.pending.values())

    def counts(self) -> dict[str, int]:
        return {str(env): len(steps) for env, steps in self.pending.items()}

    def clear(self) -> None:
        self.pending.clear()

    def take(self, length: int) -> Sequences:
        """``length`` steps of every environment (ordered by ``str(env id)``), removed from the buffer."""
        if not self.ready(length):
            raise SpaceError("an update takes rollout_length steps of every environment seen",
                             argument="update", expected=f"{length} steps per env", got=self.counts())
        rows = []
        for env in sorted(self.pending, key=str):
            steps = self.pending[env]
            rows.append(steps[:length + 1])  # one more (if there) says whether the last step continues
            del steps[:length]
        continues = np.array([[not row[t].terminal and t + 1 < len(row) and not row[t + 1].start
                               for t in range(length)] for row in rows])

        def stacked(field: str) -> Flat:
            return {key: np.stack([[getattr(step, field)[key] for step in row[:length]] for row in rows])
                    for key in getattr(rows[0][0], field)}

        def column(field: str, dtype: type | None = None) -> np.ndarray:
            return np.array([[getattr(step, field) for step in row[:length]] for row in rows], dtype)

        first_states = [row[0].internal_state for row in rows]
        initial = None
        if all(state is not None for state in first_states):
            initial = tuple(np.stack(parts) for parts in zip(*(s for s in first_states if s is not None)))
        return Sequences(stacked("states"), stacked("actions"), column("reward", np.float32), column("terminal"),
                         stacked("next_states"), column("start"), continues, initial,
                         None if initial is None else column("acting_reset"))
