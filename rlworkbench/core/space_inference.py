"""Output spaces of graph functions, inferred exactly from what they compute — never guessed.

Both backends use one rule: each graph function of inputs with batch/time ranks goes through two *sample passes*
(run on torch; traced at static sizes on TF, whose unknown dimensions alone cannot tell a batch rank from a time
rank, a reduction over one of them or a flatten of both), on inputs of two different (batch, time) sizes
(:data:`SAMPLE_SIZES`): a dimension that is the same in both passes is part of the core shape, one that follows
the batch (time) size is the batch (time) rank, and one that changes in any other way (``batch * time`` after a
flatten, ``batch - 1``) cannot be a space's rank — the build stops with a :class:`BuildError` naming the graph
function and the output, which then declares ``output_spaces``. Inputs without batch/time ranks are the same in
both passes, so a function of such inputs only runs once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench.core.records import Record
from rlworkbench.errors import BuildError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Space, TextBox, Tuple

SAMPLE_SIZES = ((7, 5), (11, 3))  # (batch, time) of the two sample passes; distinct in every dimension
SAMPLE_SEED = 20190402

Ranks = tuple[bool, bool, bool]  # (batch, time, time_major)

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.records import GraphFnCall


def spaces_of_sample_passes(component: Component, call: GraphFnCall, fn: Callable[..., object],
                            samples: dict[int, tuple[object, object]], sample_of: Callable[[Space, int], object],
                            shape_and_dtype: Callable[[Any, dict[str, object]], tuple[tuple[int, ...], np.dtype]]
                            ) -> list[Space]:
    """The output spaces of one graph function call, from its values in the two sample passes.

    ``samples`` holds each record's pair of values (a call's outputs are added for the calls after it; inputs
    nobody produced are made with ``sample_of(space, sample_pass)``). ``fn`` runs once where every input is the
    same in both passes. ``shape_and_dtype(value, where)`` reads an output leaf's shape and dtype (the backend's
    tensors; ``where`` locates an error); :func:`space_of_two_passes` makes the space of the two."""
    def space_of_pair(value_a: object, value_b: object, key_path: str, where: dict[str, object]) -> Space:
        where = {**where, "key_path": key_path or None}
        (shape_a, dtype), (shape_b, _) = shape_and_dtype(value_a, where), shape_and_dtype(value_b, where)
        return space_of_two_passes(tuple(shape_a), tuple(shape_b), dtype, where)

    def values_of(arg: object) -> tuple[object, object]:
        if not isinstance(arg, Record):
            return arg, arg
        if arg.id not in samples:  # a root input, or made by a graph function with declared output spaces
            if has_extra_ranks(arg.space):
                samples[arg.id] = (sample_of(arg.space, 0), sample_of(arg.space, 1))
            else:
                value = sample_of(arg.space, 0)
                samples[arg.id] = (value, value)
        return samples[arg.id]

    args = [values_of(a) for a in call.args]
    kwargs = {k: values_of(v) for k, v in call.kwargs.items()}
    first = fn(component, *[a for a, _ in args], **{k: a for k, (a, _) in kwargs.items()})
    same = all(a is b for a, b in [*args, *kwargs.values()])
    second = first if same else fn(component, *[b for _, b in args], **{k: b for k, (_, b) in kwargs.items()})
    count = len(call.outputs)
    pairs = list(zip([first] if count == 1 else as_results(first), [second] if count == 1 else as_results(second)))
    for record, pair in zip(call.outputs, pairs):
        samples[record.id] = pair
    where = {"component": component.path, "graph_fn": call.name}
    return [pairs_to_space(a, b, functools.partial(space_of_pair, where={**where, "argument": f"output {index}"}))
            for index, (a, b) in enumerate(pairs)]


def as_results(result: object) -> list[object]:
    """The values a graph function declared to return several (or no) values gave back, as a list."""
    if isinstance(result, (tuple, list)):
        return list(result)
    return [] if result is None else [result]


def sample_size(space: Space, sample_pass: int) -> int | tuple[int, int] | None:
    """The ``size`` argument of ``space.sample`` for one sample pass (0 or 1): ``(batch, time)``, one of them, or
    None (the space lays a time-major sample out itself)."""
    batch, time = SAMPLE_SIZES[sample_pass]
    if space.has_batch_rank and space.has_time_rank:
        return (batch, time)
    if space.has_batch_rank:
        return batch
    return time if space.has_time_rank else None


def sample_value(space: Space, sample_pass: int, rng: np.random.Generator) -> object:
    """A sampled value of ``space`` at the sizes of ``sample_pass``."""
    return space.sample(sample_size(space, sample_pass), seed=rng)


def has_extra_ranks(space: Space) -> bool:
    """Whether any leaf of ``space`` has a batch or time rank (so its sample differs between the passes)."""
    return any(leaf.has_batch_rank or leaf.has_time_rank for leaf in space.flatten().values())


def ranks_of_two_passes(shape_a: tuple[int, ...], shape_b: tuple[int, ...], where: dict[str, object],
                        ) -> tuple[Ranks, int]:
    """``(ranks, count)``: the batch/time ranks an output leaf has, read off its shapes in the two passes, and how
    many leading dimensions they take. Raises a BuildError (with ``where``) if the shapes do not say."""
    (batch_a, time_a), (batch_b, time_b) = SAMPLE_SIZES
    if len(shape_a) != len(shape_b):
        raise BuildError("an output's rank changes with the batch/time size of the inputs; declare output_spaces",
                         expected="the same rank in both sample passes", got=f"shapes {shape_a} and {shape_b}",
                         **where)
    kinds = []
    for size_a, size_b in zip(shape_a, shape_b):
        if size_a == size_b:
            kinds.append("core")
        elif (size_a, size_b) == (batch_a, batch_b):
            kinds.append("batch")
        elif (size_a, size_b) == (time_a, time_b):
            kinds.append("time")
        else:
            raise BuildError("an output dimension depends on the batch/time size but is neither the batch nor the time "
                             "rank (e.g. batch * time after a flatten); declare output_spaces",
                             expected=f"sizes {SAMPLE_SIZES[0]} then {SAMPLE_SIZES[1]} for (batch, time)",
                             got=f"shapes {shape_a} and {shape_b}", **where)
    count = next((i for i, kind in enumerate(kinds) if kind == "core"), len(kinds))
    leading = tuple(kinds[:count])
    orders = {(): (False, False, False), ("batch",): (True, False, False), ("time",): (False, True, False),
              ("batch", "time"): (True, True, False), ("time", "batch"): (True, True, True)}
    if ("core" in kinds and any(kind != "core" for kind in kinds[count:])) or leading not in orders:
        raise BuildError("the batch/time dimensions of an output must come first, once each; declare output_spaces",
                         expected="(batch, [time,] core...) or (time, batch, core...)",
                         got=f"dimensions {kinds} (shapes {shape_a} and {shape_b})", **where)
    return orders[leading], count


def leaf_space(shape: tuple[int, ...], dtype: np.dtype) -> Space:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return FloatBox(shape=shape, dtype=dtype)
    if dtype.kind in "iu":
        return IntBox(shape=shape, dtype=dtype)
    if dtype.kind == "b":
        return BoolBox(shape)
    return TextBox(shape)


def space_of_two_passes(shape_a: tuple[int, ...], shape_b: tuple[int, ...], dtype: np.dtype,
                        where: dict[str, object]) -> Space:
    """The space of one output leaf from its shapes in the two passes (see the module docstring)."""
    ranks, count = ranks_of_two_passes(tuple(shape_a), tuple(shape_b), where)
    return leaf_space(tuple(shape_a[count:]), dtype)._with_ranks(*ranks)


def structure_to_space(structure: object, space_of_leaf: Callable[[Any], Space]) -> Space:
    """Maps a nested output (dicts/tuples of tensors) to Dict/Tuple spaces of ``space_of_leaf(tensor)``."""
    if isinstance(structure, dict):
        return Dict({k: structure_to_space(v, space_of_leaf) for k, v in structure.items()})
    if isinstance(structure, (tuple, list)):
        return Tuple(*(structure_to_space(v, space_of_leaf) for v in structure))
    return space_of_leaf(structure)


def pairs_to_space(structure_a: object, structure_b: object, space_of_pair: Callable[[Any, Any, str], Space],
                   key_path: str = "") -> Space:
    """Like :func:`structure_to_space` over the outputs of both passes, leaf by leaf (``space_of_pair(a, b,
    key_path)``); the two must have one structure."""
    if isinstance(structure_a, dict):
        if not isinstance(structure_b, dict) or list(structure_a) != list(structure_b):
            raise BuildError("an output's structure changes with the batch/time size of the inputs",
                             key_path=key_path or None, expected=sorted(structure_a), got=repr(structure_b)[:80])
        return Dict({k: pairs_to_space(v, structure_b[k], space_of_pair, _join(key_path, k))
                     for k, v in structure_a.items()})
    if isinstance(structure_a, (tuple, list)):
        if not isinstance(structure_b, (tuple, list)) or len(structure_a) != len(structure_b):
            raise BuildError("an output's structure changes with the batch/time size of the inputs",
                             key_path=key_path or None, expected=len(structure_a), got=repr(structure_b)[:80])
        return Tuple(*(pairs_to_space(a, b, space_of_pair, _join(key_path, str(i)))
                       for i, (a, b) in enumerate(zip(structure_a, structure_b))))
    return space_of_pair(structure_a, structure_b, key_path)


def _join(key_path: str, key: str) -> str:
    return f"{key_path}/{key}" if key_path else key
