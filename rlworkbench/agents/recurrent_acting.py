"""The agent side of a recurrent policy: the state each environment's row carries from one acting step to the
next, reset where an episode begins, and acting with an explicit state."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from rlworkbench import nest
from rlworkbench.agents.protocols import Arrays, Mask
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import Space

State = tuple[np.ndarray, ...]


class RowStates:
    """The recurrent state of every row (environment) of the batches an agent acts on.

    Before each acting step :meth:`for_acting` gives the carried state and the rows to reset: those marked in
    ``episode_starts`` (the worker knows: the row's last step ended an episode, or was a reset step), and
    otherwise rows never acted on, rows whose last observed transition was terminal, and rows whose states are not
    the next states last observed for them (a truncation or an autoreset the caller did not announce).
    :attr:`acted_with` is the state each row acted with (zeros where reset): what sequences store.
    """

    def __init__(self, state_space: Space):
        self.row_space = state_space.strip_ranks()
        self.carried: State | None = None
        self.acted_with: State | None = None
        self.acted_resets: np.ndarray | None = None
        self._terminal: np.ndarray | None = None
        self._next_states: dict[str, np.ndarray] = {}

    def zeros(self, batch: int) -> State:
        """The zero state for ``batch`` rows."""
        return tuple(np.zeros((batch, *leaf.shape), np.float32)
                     for leaf in self.row_space.flatten().values() if isinstance(leaf, Space))

    def clear(self) -> None:
        self.carried = self.acted_with = self.acted_resets = self._terminal = None
        self._next_states = {}

    def for_acting(self, flat_states: Mapping[str, object], episode_starts: Mask | None,
                   ) -> tuple[State, np.ndarray]:
        """``(carried state, resets)`` for a batch of rows (``flat_states``: the states acted on, flat by key)."""
        batch = len(np.asarray(next(iter(flat_states.values()))))
        if self.carried is None or len(self.carried[0]) != batch:
            self.carried, self._terminal, self._next_states = self.zeros(batch), None, {}
            resets = np.ones(batch, bool)
        elif episode_starts is not None:
            resets = np.asarray(episode_starts, bool).reshape(batch)
        else:
            resets = np.zeros(batch, bool) if self._terminal is None else self._terminal.copy()
            for key, last in self._next_states.items():
                resets |= ~(np.asarray(flat_states[key]) == last).reshape(batch, -1).all(axis=1)
        self.acted_resets = resets
        self.acted_with = tuple(np.where(resets.reshape(-1, *[1] * (leaf.ndim - 1)), 0.0, leaf).astype(np.float32)
                                for leaf in self.carried)
        return self.carried, resets

    def after_acting(self, final_state: Sequence[np.ndarray]) -> None:
        self.carried = tuple(np.asarray(leaf, np.float32) for leaf in final_state)

    def observed(self, rows: Sequence[Hashable], terminals: np.ndarray,
                 flat_next_states: dict[str, np.ndarray]) -> None:
        """Notes the rows' terminals and next states (the fallback when no ``episode_starts`` are given)."""
        if self.carried is None:
            return
        batch = len(self.carried[0])
        rows_array = np.asarray(rows, np.int64)
        if rows_array.size and (rows_array.min() < 0 or rows_array.max() >= batch):
            return  # env ids that are not row numbers: only episode_starts can tell
        if self._terminal is None:
            self._terminal = np.zeros(batch, bool)
        self._terminal[rows_array] = np.asarray(terminals, bool)
        for key, value in flat_next_states.items():
            store = self._next_states.setdefault(key, np.full((batch, *value.shape[1:]), np.nan, np.float64))
            store[rows_array] = value

    def rows_acted_with(self, rows: Sequence[Hashable]) -> tuple[State, np.ndarray]:
        """The state the rows ``rows`` acted with in the last step, and whether it was reset to zeros."""
        if self.acted_with is None or self.acted_resets is None:
            raise SpaceError("a recurrent agent observes rows it acted on: call get_actions first",
                             argument="observe", expected="get_actions before observe", got="no acting step")
        index = np.asarray(rows, np.int64)
        return tuple(leaf[index] for leaf in self.acted_with), self.acted_resets[index]


def with_time_axis(value: Arrays) -> Arrays:
    """A batch as sequences of one step: ``(batch, ...)`` leaves become ``(batch, 1, ...)``."""
    return nest.map_structure(lambda leaf: np.asarray(leaf)[:, None], value)


def without_time_axis(value: Arrays) -> Arrays:
    """The inverse of :func:`with_time_axis`."""
    return nest.map_structure(lambda leaf: np.asarray(leaf)[:, 0], value)


class RecurrentActing:
    """The acting hooks of an agent (a mixin before the agent class) whose root is a
    :class:`~rlworkbench.agents.recurrent_root.RecurrentActorCriticRoot`: every row's state is carried between
    ``get_actions`` calls (:class:`RowStates`), reset where episodes begin; ``act_with_state`` acts with a state
    given explicitly; ``initial_state(batch)`` is the zero state."""

    api: Any
    acting_api_method: ClassVar[str | None] = None  # export_model: a recurrent acting path needs a state input
    recurrent = True
    wants_episode_starts = True  # workers pass get_actions(..., episode_starts=...)
    row_states: RowStates
    state_space: Space

    @property
    def internal_state_space(self) -> Space:
        """The policy's recurrent state ``(h, c)`` with a batch rank."""
        return self.root.policy.internal_state_space  # type: ignore[attr-defined]  # the Agent's root

    def initial_state(self, batch: int) -> State:
        """The zero state for ``batch`` sequences (rows)."""
        return self.row_states.zeros(int(batch))

    def act_with_state(self, states: Arrays, internal_states: Sequence[np.ndarray], resets: Mask | None = None,
                       explore: bool = True) -> tuple[Arrays, State]:
        """``(actions, next_internal_states)`` for a batch of raw states acting from ``internal_states`` (rows
        where ``resets`` is true start from zeros); the carried per-row state is left alone."""
        self._require_built("act_with_state")  # type: ignore[attr-defined]  # the Agent's
        batch = len(np.asarray(next(iter(self.state_space.flatten(states).values()))))
        resets = np.zeros(batch, bool) if resets is None else np.asarray(resets, bool).reshape(batch)
        actions, _, final_state = self._act_in_graph(with_time_axis(states), tuple(internal_states), resets, explore,
                                                     raw=True)
        return actions, final_state

    def preprocess(self, states: Arrays) -> Arrays:
        """A batch of states through the preprocessor stack (one-step sequences inside the graph)."""
        if self.preprocessor is None:  # type: ignore[attr-defined]  # the Agent's
            return states
        self._require_built("preprocess")  # type: ignore[attr-defined]
        return without_time_axis(self.api.preprocess(with_time_axis(states)))

    def _note_episode_starts(self, episode_starts: Mask | None) -> None:
        self._episode_starts = episode_starts

    def _act(self, states: Arrays, explore: bool) -> tuple[Arrays, Arrays]:
        carried, resets = self.row_states.for_acting(self.state_space.flatten(states), self._take_starts())
        actions, preprocessed, final_state = self._act_in_graph(with_time_axis(states), carried, resets, explore,
                                                                raw=True)
        self.row_states.after_acting(final_state)
        assert preprocessed is not None  # (raw states in)
        return actions, preprocessed

    def _act_preprocessed(self, preprocessed_states: Arrays, explore: bool) -> Arrays:
        flat = self.preprocessed_space.flatten(preprocessed_states)  # type: ignore[attr-defined]
        carried, resets = self.row_states.for_acting(flat, self._take_starts())
        actions, _, final_state = self._act_in_graph(with_time_axis(preprocessed_states), carried, resets, explore,
                                                     raw=False)
        self.row_states.after_acting(final_state)
        return actions

    def _take_starts(self) -> Mask | None:
        starts, self._episode_starts = getattr(self, "_episode_starts", None), None
        return starts

    def _act_in_graph(self, sequences: Arrays, internal_states: State, resets: np.ndarray, explore: bool,
                      raw: bool) -> tuple[Arrays, Arrays | None, State]:
        """``(actions, preprocessed states or None, final state)`` of one step (``sequences``: time rank 1)."""
        step_resets = resets.reshape(-1, 1)
        preprocessed = None
        if raw and explore:
            actions, preprocessed, final_state = self.api.act(sequences, internal_states, step_resets)
        else:
            if raw:
                preprocessed = sequences if self.preprocessor is None else self.api.preprocess(sequences)  # type: ignore[attr-defined]
            method = self.api.act_preprocessed if explore else self.api.act_greedy
            actions, final_state = method(sequences if preprocessed is None else preprocessed, internal_states,
                                          step_resets)
        return (without_time_axis(actions), None if preprocessed is None else without_time_axis(preprocessed),
                tuple(final_state))
