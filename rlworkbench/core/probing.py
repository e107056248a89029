"""Reading output spaces off a probe run: sample inputs with odd batch/time sizes, look at the outputs.

Used by define-by-run backends. An output whose leading dimensions equal the probe's batch (and time) sizes
carries those ranks; the rest is its core shape. The sizes are chosen to be unlikely core dimensions; a graph
function for which that guess would be wrong declares ``output_spaces`` instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Space, TextBox, Tuple

PROBE_BATCH = 7
PROBE_TIME = 5
PROBE_SEED = 20190402


def probe_size(space: Space) -> int | tuple[int, int] | None:
    if space.has_batch_rank and space.has_time_rank:
        return (PROBE_BATCH, PROBE_TIME)
    if space.has_batch_rank:
        return PROBE_BATCH
    return PROBE_TIME if space.has_time_rank else None


def probe_value(space: Space, rng: np.random.Generator) -> Any:
    """A sampled value of ``space`` at the probe sizes."""
    return space.sample(probe_size(space), seed=rng)


def reference_ranks(spaces: list[Space]) -> tuple[bool, bool, bool]:
    """(batch, time, time_major) of the first input leaf that has any extra rank."""
    for space in spaces:
        for leaf in space.flatten().values():
            if leaf.has_batch_rank or leaf.has_time_rank:
                return leaf.has_batch_rank, leaf.has_time_rank, leaf.time_major
    return False, False, False


def space_from_shape(shape: tuple[int, ...], dtype: np.dtype, ranks: tuple[bool, bool, bool]) -> Space:
    """The space of one probe output leaf."""
    batch, time, time_major = ranks
    candidates = []
    if batch and time:
        dims = (PROBE_TIME, PROBE_BATCH) if time_major else (PROBE_BATCH, PROBE_TIME)
        candidates.append((dims, (True, True, time_major)))
    if batch:
        candidates.append(((PROBE_BATCH,), (True, False, False)))
    if time and not batch:
        candidates.append(((PROBE_TIME,), (False, True, False)))
    for dims, (has_batch, has_time, major) in candidates:
        if tuple(shape[: len(dims)]) == dims:
            return leaf_space(shape[len(dims):], dtype)._with_ranks(has_batch, has_time, major)
    return leaf_space(tuple(shape), dtype)


def leaf_space(shape: tuple[int, ...], dtype: np.dtype) -> Space:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return FloatBox(shape=shape, dtype=dtype)
    if dtype.kind in "iu":
        return IntBox(shape=shape, dtype=dtype)
    if dtype.kind == "b":
        return BoolBox(shape)
    return TextBox(shape)


def structure_to_space(structure: Any, space_of_leaf: Any) -> Space:
    """Maps a nested output (dicts/tuples of tensors) to Dict/Tuple spaces of ``space_of_leaf(tensor)``."""
    if isinstance(structure, dict):
        return Dict({k: structure_to_space(v, space_of_leaf) for k, v in structure.items()})
    if isinstance(structure, (tuple, list)):
        return Tuple(*(structure_to_space(v, space_of_leaf) for v in structure))
    return space_of_leaf(structure)
