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

    Each environment gets a slot in arrays of the last next states (one per key), so a vector step is compared and
    stored with a few NumPy calls whatever the number of environments; a call that names one environment twice
    is taken row by row, in order.
    """

    def __init__(self) -> None:
        self._slots: dict[Any, int] = {}
        self._last_next: Flat = {}  # key -> (slots, ...) the next state of each slot's last transition
        self._open = np.zeros(0, dtype=bool)  # per slot: its last transition did not terminate

    def step(self, env_ids: Sequence[object], states: Flat, terminals: np.ndarray, next_states: Flat,
             ) -> tuple[np.ndarray, int]:
        """``(starts, ended)``: per row whether it begins a new trajectory, and how many episodes ended."""
        slots = self._slots_of(env_ids, next_states)
        if len(set(slots.tolist())) < len(slots):  # an env twice in one call: its rows in order
            results = [self.step([env], {k: v[row:row + 1] for k, v in states.items()}, terminals[row:row + 1],
                                 {k: v[row:row + 1] for k, v in next_states.items()})
                       for row, env in enumerate(env_ids)]
            return np.concatenate([starts for starts, _ in results]), sum(ended for _, ended in results)
        terminals = np.asarray(terminals, dtype=bool)
        continued = self._open[slots]
        for key, last in self._last_next.items():
            state = np.asarray(states[key])
            continued &= (last[slots] == state).reshape(len(slots), -1).all(1) if state.size else True
        starts = ~continued
        ended = int(np.count_nonzero(starts & self._open[slots])) + int(np.count_nonzero(terminals))
        going = ~terminals
        for key, last in self._last_next.items():
            last[slots[going]] = np.asarray(next_states[key])[going]
        self._open[slots] = going
        return starts, ended

    def _slots_of(self, env_ids: Sequence[object], next_states: Flat) -> np.ndarray:
        """The slots of ``env_ids``; new environments get new slots (the arrays grow by doubling)."""
        slots = self._slots
        if not all(env in slots for env in env_ids):
            for env in env_ids:
                slots.setdefault(env, len(slots))
            if len(slots) > len(self._open):
                size = max(2 * len(self._open), len(slots), 4)
                self._open = np.concatenate([self._open, np.zeros(size - len(self._open), dtype=bool)])
                self._last_next = {key: _grown(self._last_next.get(key), np.asarray(value), size)
                                   for key, value in next_states.items()}
        for key, value in next_states.items():  # a wider dtype than stored so far (float64 after float32 ...)
            last = self._last_next[key]
            if np.asarray(value).dtype != last.dtype and np.result_type(last, value) != last.dtype:
                self._last_next[key] = last.astype(np.result_type(last, value))
        return np.fromiter((slots[env] for env in env_ids), dtype=np.int64, count=len(env_ids))

    def reset(self) -> None:
        """Forgets every environment's episode (the next transition of each starts a new one)."""
        self._open[:] = False


def _grown(stored: np.ndarray | None, rows: np.ndarray, size: int) -> np.ndarray:
    """``stored`` (or nothing) extended to ``size`` slots of rows like ``rows``' (a batch)."""
    grown = np.zeros((size, *rows.shape[1:]), dtype=rows.dtype if stored is None else stored.dtype)
    if stored is not None:
        grown[:len(stored)] = stored
    return grown


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
