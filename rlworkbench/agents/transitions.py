"""Transitions from vector environments, per environment: where episodes begin and end, and n-step returns;
and the check every agent makes of an update batch given from outside.

Both helpers work on NumPy rows keyed by an environment id and know nothing of backends. States are handled as
flat ``{key path: array}`` dicts (``space.flatten(value)``), so nested observation spaces work the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlworkbench.errors import SpaceError

Flat = dict[str, np.ndarray]


def row_of(flat: Flat, row: int) -> Flat:
    return {key: np.array(value[row]) for key, value in flat.items()}


def stack_rows(rows: Sequence[Flat]) -> Flat:
    return {key: np.stack([row[key] for row in rows]) for key in rows[0]}


def check_batch_keys(batch: Mapping[str, object], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    """An update batch holds every ``required`` key and nothing but those and ``optional`` ones (SpaceError)."""
    allowed = (*required, *optional)
    missing = [key for key in required if key not in batch]
    unknown = [key for key in batch if key not in allowed]
    if missing or unknown:
        raise SpaceError("an update batch needs exactly these keys", argument="batch", expected=list(allowed),
                         got=f"missing {missing}, unknown {unknown}")


class EpisodeTracker:
    """Finds episode boundaries from the transitions themselves.

    A transition continues its environment's episode when its state equals the next state of that
    environment's previous transition. A terminal ends an episode; a transition that does not continue the
    previous non-terminal one means that episode ended unseen (truncated, or the worker reset the env), so the
    tracker needs no truncation flags: the caller passes truncated episodes with ``terminals=False`` and the true
    final observation as the next state.
    """

    def __init__(self) -> None:
        self._last_next: dict[Any, Flat] = {}

    def step(self, env_ids: Sequence[object], states: Flat, terminals: np.ndarray, next_states: Flat,
             ) -> tuple[np.ndarray, int]:
        """``(starts, ended)``: per row whether it begins a new trajectory, and how many episodes ended."""
        starts = np.zeros(len(env_ids), dtype=bool)
        ended = 0
        for row, env in enumerate(env_ids):
            last = self._last_next.get(env)
            if last is None:
                starts[row] = True
            elif not all(np.array_equal(last[key], states[key][row]) for key in last):
                starts[row] = True
                ended += 1
            if terminals[row]:
                ended += 1
                self._last_next.pop(env, None)
            else:
                self._last_next[env] = row_of(next_states, row)
        return starts, ended

    def reset(self) -> None:
        """Forgets every environment's episode (the next transition of each starts a new one)."""
        self._last_next.clear()


@dataclass
class _Pending:
    state: Flat
    action: Any
    reward: float
    next_state: Flat
    steps: int = 1


class NStepAccumulator:
    """Turns 1-step transitions into n-step ones, per environment: ``reward = sum_k discount**k r[t+k]`` over
    ``n`` steps and ``next_state = s[t+n]``.

    At a terminal every pending transition is emitted with its shorter return and ``terminal=True`` (nothing to
    bootstrap). Pending transitions of an episode that ends without a terminal (a truncation, seen as a new
    trajectory starting) are dropped: bootstrapping them would need ``discount**k`` with ``k < n``, which a loss
    with a fixed ``discount**n`` cannot express.
    """

    def __init__(self, n_step: int, discount: float):
        self.n_step = int(n_step)
        self.discount = float(discount)
        self._pending: dict[Any, list[_Pending]] = {}

    def add(self, env_ids: Sequence[object], starts: np.ndarray, states: Flat, actions: np.ndarray,
            rewards: np.ndarray, terminals: np.ndarray, next_states: Flat) -> dict[str, object] | None:
        """Adds one transition per row; returns the completed n-step transitions as a batch (``states`` and
        ``next_states`` flat dicts, ``actions``, ``rewards``, ``terminals`` arrays), or None if none completed."""
        done: list[tuple[_Pending, bool]] = []
        for row, env in enumerate(env_ids):
            pending = self._pending.setdefault(env, [])
            if starts[row]:
                pending.clear()
            next_state = row_of(next_states, row)
            reward = float(rewards[row])
            for item in pending:
                item.reward += self.discount ** item.steps * reward
                item.steps += 1
                item.next_state = next_state
            pending.append(_Pending(row_of(states, row), np.array(actions[row]), reward, next_state))
            if terminals[row]:
                done.extend((item, True) for item in pending)
                pending.clear()
            elif pending[0].steps >= self.n_step:
                done.append((pending.pop(0), False))
        if not done:
            return None
        items = [item for item, _ in done]
        return {"states": stack_rows([i.state for i in items]), "actions": np.stack([i.action for i in items]),
                "rewards": np.array([i.reward for i in items], dtype=np.float32),
                "terminals": np.array([terminal for _, terminal in done], dtype=bool),
                "next_states": stack_rows([i.next_state for i in items])}

    def reset(self) -> None:
        """Drops every pending transition."""
        self._pending.clear()
