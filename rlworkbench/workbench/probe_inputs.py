"""Inputs for a probe: sampled from an API method's input spaces, or taken from a value the user gives.

A user value is a mapping of argument names to values (or, for an API method with one argument, that
argument's value), as Python objects or as JSON / Python-literal text. Values are made to fit their space
where that loses nothing — JSON numbers take the space's dtype, lists become Tuple values, a single value
without batch/time ranks gets ranks of size 1 — and are then checked: a misfit is a :class:`SpaceError` naming
the component, API method, argument and key path, with expected vs got.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from rlworkbench.errors import SpaceError
from rlworkbench.spaces import ContainerSpace, Dict, Space, TextBox

_NO_CONSTANT = object()


@dataclass(frozen=True)
class Argument:
    """One parameter of an API method: a space to sample from or a constant the graph was built with."""

    name: str
    space: Space | None = None
    constant: object = _NO_CONSTANT

    @property
    def is_constant(self) -> bool:
        return self.constant is not _NO_CONSTANT


def sample_size(space: Space, batch_size: int, time_size: int) -> int | tuple[int, int] | None:
    """The ``size`` for ``space.sample``: batch and/or time sizes for the ranks the space has."""
    if space.has_batch_rank and space.has_time_rank:
        return (batch_size, time_size)
    if space.has_batch_rank:
        return batch_size
    return time_size if space.has_time_rank else None


def parse_value(text: str) -> object:
    """A user value from text: JSON first, else a Python literal (tuples, ``True``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as json_error:
        try:
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            raise SpaceError("the value is neither JSON nor a Python literal",
                             expected='e.g. {"states": [[0.1, 0.2, 0.3, 0.4]]}', got=str(json_error)) from None


def make_inputs(arguments: list[Argument], batch_size: int, time_size: int, seed: int | None,
                given: object = None, where: Mapping[str, str] | None = None) -> tuple[dict[str, object], set[str]]:
    """Values for every argument: constants as built, ``given`` ones made to fit and checked, the rest sampled
    (with one generator seeded by ``seed``, drawn for every sampled argument whether given or not, so giving
    one argument does not change the samples of the others). The sampled ones take the batch and time sizes of
    the given ones where those agree (:func:`given_sizes`: a given sequence gets a sampled initial state of its
    batch, a given state sampled sequences of its batch), else ``batch_size`` and ``time_size``. Returns the
    values and the names of the given ones."""
    where = dict(where or {})
    needed = [a for a in arguments if not a.is_constant]
    user = split_value(given, [a.name for a in needed], where) if given is not None else {}
    fitted: dict[str, object] = {}
    for argument in needed:
        if argument.space is None:
            raise SpaceError("no space is known for this argument: build the component first",
                             argument=argument.name, **where)
        if argument.name in user:
            fitted[argument.name] = fit(user[argument.name], argument.space, {**where, "argument": argument.name})
    sizes = given_sizes(fitted, {a.name: a.space for a in needed if a.space is not None})
    batch_size, time_size = sizes.get("batch_size", batch_size), sizes.get("time_size", time_size)
    rng = np.random.default_rng(seed)
    values: dict[str, object] = {}
    for argument in arguments:
        if argument.is_constant:
            values[argument.name] = argument.constant
            continue
        assert argument.space is not None  # checked above
        sampled = argument.space.sample(sample_size(argument.space, batch_size, time_size), seed=rng)
        values[argument.name] = fitted[argument.name] if argument.name in fitted else sampled
    return values, set(user)


def given_sizes(values: Mapping[str, object], spaces: Mapping[str, Space]) -> dict[str, int]:
    """``{"batch_size": n, "time_size": t}`` as far as the batch / time ranks of every leaf of ``values`` (fitted
    to ``spaces``, by argument name) agree; a size they disagree on, or none has, is left out."""
    found: dict[str, set[int]] = {"batch_size": set(), "time_size": set()}
    for name, value in values.items():
        space = spaces[name]
        leaf_spaces = space.flatten()
        for path, leaf in space.flatten(value).items():
            leaf_space, shape = leaf_spaces.get(path), np.asarray(leaf).shape
            if not isinstance(leaf_space, Space) or len(shape) < leaf_space.num_extra_ranks:
                continue
            ranks = [("batch_size", leaf_space.has_batch_rank), ("time_size", leaf_space.has_time_rank)]
            if leaf_space.time_major:
                ranks.reverse()
            for axis, size_name in enumerate(size for size, present in ranks if present):
                found[size_name].add(int(shape[axis]))
    return {size: next(iter(sizes)) for size, sizes in found.items() if len(sizes) == 1}


def split_value(value: object, names: list[str], where: Mapping[str, str]) -> dict[str, object]:
    """``{argument: value}`` from a user value: a mapping keyed by argument names, or one argument's value."""
    if isinstance(value, str):
        value = parse_value(value)
    if isinstance(value, Mapping) and value and set(value) <= set(names):
        return dict(value)
    if len(names) == 1:
        return {names[0]: value}
    got = f"keys {sorted(map(str, value))}" if isinstance(value, Mapping) else type(value).__name__
    raise SpaceError("give the values as a mapping of argument names to values", expected=f"keys among {names}",
                     got=got, **where)


def fit(value: object, space: Space, where: Mapping[str, str]) -> object:
    """``value`` converted to fit ``space`` where nothing is lost, then checked (SpaceError on a misfit)."""
    converted = _convert(value, space)
    try:
        space.check(converted)
    except SpaceError as error:
        raise error.add_context(**where) from None
    return converted


def _convert(value: object, space: Space) -> object:
    if isinstance(space, ContainerSpace):
        if isinstance(space, Dict):
            if not isinstance(value, Mapping):
                return value
            return {k: _convert(v, space[k]) if k in space.keys() else v for k, v in value.items()}
        if not isinstance(value, (list, tuple)) or len(value) != len(space.children()):
            return value
        return tuple(_convert(v, child) for v, (_, child) in zip(value, space.children()))
    if isinstance(space, TextBox):
        array = np.asarray(value, dtype=object)
    else:
        try:
            array = np.asarray(value)
        except (ValueError, TypeError):  # ragged: the check says so
            return value
        kind, target = array.dtype.kind, space.dtype.kind
        if (target == "f" and kind in "iuf") or (target in "iu" and kind in "iu"):
            array = array.astype(space.dtype)
    if array.ndim == len(space.shape) and space.num_extra_ranks:  # one value: ranks of size 1
        array = array.reshape((1,) * space.num_extra_ranks + array.shape)
    return array

