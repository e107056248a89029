"""Mutations for the fuzz suite: every leaf of a JSON config dropped, retyped, pushed out of range or made
non-finite, unknown keys and component types added — deterministic, so a failure reproduces."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from rlworkbench.errors import RLWorkbenchError

RETYPES: list[Any] = ["x", [], {}, True, None, -1, 0, 10**12, 2.5, -1e300, math.nan, math.inf, -math.inf]


def leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """``(path, value)`` of every node below the root (dicts by key, lists by index)."""
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield (*path, key), child
        yield from leaves(child, (*path, key))


def replaced(config: dict[str, Any], path: tuple, new: Any, drop: bool = False) -> dict[str, Any]:
    mutated = copy.deepcopy(config)
    parent = mutated
    for key in path[:-1]:
        parent = parent[key]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return mutated


def mutations(config: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(description, mutated config)``: each node dropped and retyped; each dict given an unknown key; each
    component spec given an unknown type."""
    for path, value in leaves(config):
        name = "/".join(map(str, path))
        if path != ("type",):
            yield f"drop {name}", replaced(config, path, None, drop=True)
        for new in RETYPES:
            if new is not value and not (isinstance(value, bool) and new is True):
                yield f"{name} = {new!r}", replaced(config, path, new)
        if isinstance(value, dict):
            yield f"{name} + unknown key", replaced(config, path, {**value, "no_such_key": 1})
            if "type" in value:
                yield f"{name} of an unknown type", replaced(config, path, {**value, "type": "no_such_type"})
    yield "root + unknown key", {**copy.deepcopy(config), "no_such_key": 1}


def assert_names_a_place(error: RLWorkbenchError, case: str) -> None:
    """A typed error must say where: a key path, an argument, a component or an API method."""
    assert error.key_path or error.argument or error.component or error.api_method, f"{case}: {error!r} says nowhere"


def assert_refused_cleanly(agent, before: dict, error: RLWorkbenchError, case: str) -> None:
    """A refused update: a typed error that says where, and every variable as it was (``before``)."""
    assert_names_a_place(error, case)
    after = agent.get_weights()
    for name, value in before.items():
        assert np.array_equal(after[name], value, equal_nan=True), f"{case}: changed {name}"
