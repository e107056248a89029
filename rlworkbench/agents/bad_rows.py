"""``observe(..., on_bad="skip")``: which rows of a batch of transitions ``observe`` would refuse, and why.

A row is bad when a value in it is: a state, next state or action outside its space (NaN or infinity, an
integer out of range, a float action out of bounds where the agent keeps bounds), a reward that is not finite,
a terminal that is not a boolean or 0/1. What is wrong with the batch as a whole — its structure, dtypes, shapes,
row counts — is no row's fault and stays a SpaceError. Each fault has a kind (argument, key path and what is
wrong: ``states: FloatBox value is not finite``), so the agent can warn once per kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from rlworkbench import nest
from rlworkbench.agents.input_checks import batched, check_rows, per_row, terminal_rows
from rlworkbench.agents.protocols import Arrays
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import Space, float_bounds_relaxed, values_unchecked

Faults = dict[str, SpaceError]
"""The faults found, one error (the first seen) per kind."""


@dataclass(frozen=True)
class Transitions:
    """The rows of one ``observe`` call (states batched, actions as arrays)."""

    states: Arrays
    actions: Arrays
    rewards: object
    terminals: object
    next_states: Arrays
    env_ids: list[object]

    def without(self, bad: np.ndarray, state_space: Space, action_space: Space) -> Transitions:
        """These rows but the ``bad`` ones (rewards and terminals one per row: checked by :func:`bad_rows`)."""
        keep = ~bad

        def take(value: Arrays, space: Space) -> Arrays:
            return space.unflatten({key: np.asarray(leaf)[keep] for key, leaf in space.flatten(value).items()})

        def per_row(value: object) -> np.ndarray:
            return np.asarray(value).reshape(len(keep))[keep]

        return Transitions(take(self.states, state_space), take(self.actions, action_space), per_row(self.rewards),
                           per_row(self.terminals), take(self.next_states, state_space),
                           [env for env, kept in zip(self.env_ids, keep) if kept])


def bad_rows(rows: Transitions, state_space: Space, action_space: Space, float_action_bounds: bool,
             ) -> tuple[np.ndarray, Faults]:
    """``(bad, faults)``: which of the rows ``observe`` would refuse and the kinds of fault found; a SpaceError
    for what is wrong with the batch as a whole."""
    count = len(rows.env_ids)
    bad = np.zeros(count, bool)
    faults: Faults = {}
    for argument, value, space in (("states", rows.states, state_space), ("next_states", rows.next_states,
                                   state_space), ("actions", rows.actions, action_space)):
        float_bounds = argument == "actions" and float_action_bounds
        with values_unchecked():
            check_rows(value, space, count, argument)  # the batch's form: not a row's fault
        _leaf_faults(value, space, argument, float_bounds, bad, faults)
    rewards = per_row(rows.rewards, count, np.float32, "rewards")
    _note(~np.isfinite(rewards), SpaceError("rewards must be finite", argument="rewards", expected="finite numbers"),
          bad, faults)
    _, bad_terminals = terminal_rows(rows.terminals, count)
    _note(bad_terminals, SpaceError("terminals are booleans (or 0/1)", argument="terminals",
                                     expected="bool per row"), bad, faults)
    return bad, faults


def fault_kind(error: SpaceError) -> str:
    """What kind of fault an error is: ``argument[/key path]: message`` (no values)."""
    where = nest.join(error.argument or "", error.key_path) if error.key_path else error.argument or ""
    return f"{where}: {error.message}"


def _leaf_faults(value: object, space: Space, argument: str, float_bounds: bool, bad: np.ndarray,
                 faults: Faults) -> None:
    """Marks the rows whose leaves are out of their spaces (only leaves that fail as a whole are looked into)."""
    leaves = batched(space).flatten()
    for key, leaf in space.flatten(value).items():
        array, leaf_space = np.asarray(leaf), cast(Space, leaves[key])
        with float_bounds_relaxed(not float_bounds):
            try:
                leaf_space.check(array, key)
                continue
            except SpaceError:
                pass
            for row in range(len(array)):
                try:
                    leaf_space.check(array[row:row + 1], key)
                except SpaceError as error:
                    bad[row] = True
                    error.add_context(argument=argument)
                    faults.setdefault(fault_kind(error), error)


def _note(rows: np.ndarray, error: SpaceError, bad: np.ndarray, faults: Faults) -> None:
    if rows.any():
        bad |= rows
        error.got = f"{int(rows.sum())} of {len(rows)} rows"
        faults.setdefault(fault_kind(error), error)
