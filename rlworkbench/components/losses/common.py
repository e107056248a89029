"""What the losses and the RL helpers (GAE, SequenceHelper, VTrace) share: input-space and config checks, and
the one backward recursion over time that discounted returns, GAE and v-trace are all made of.

The recursion is written once against ``ops`` (a scan over time, reversed), so it runs on PyTorch define-by-run and
on TensorFlow with a time length that is unknown while tracing. This module imports no other component.
"""

from __future__ import annotations

from typing import Any

from rlworkbench.core.ops import Ops, Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoxSpace, Space

Ranks = tuple[bool, bool, bool]
_KINDS = {"f": "FloatBox", "i": "IntBox", "u": "IntBox", "b": "BoolBox"}


def ranks_of(space: Space) -> Ranks:
    """(batch, time, time_major) of a space; time-majorness only counts where there is a time rank."""
    return space.has_batch_rank, space.has_time_rank, space.has_time_rank and space.time_major


def _rank_text(ranks: Ranks) -> str:
    batch, time, time_major = ranks
    names = ["batch"] * batch + ["time"] * time
    return "(" + ", ".join(reversed(names) if time_major else names) + ")" if names else "none"


def check_box(space: Space, argument: str, kinds: str = "f", shape: tuple[int, ...] = (),
              ranks: Ranks | None = None) -> None:
    """Raises a SpaceError naming ``argument`` unless ``space`` is a box of a dtype kind in ``kinds`` with core
    ``shape`` and, when given, the batch/time ``ranks``."""
    fits = isinstance(space, BoxSpace) and space.dtype.kind in kinds and space.shape == tuple(shape) \
        and (ranks is None or ranks_of(space) == ranks)
    if not fits:
        boxes = " or ".join(dict.fromkeys(_KINDS[k] for k in kinds))
        expected = f"{boxes} of core shape {tuple(shape)}" + (f", extra ranks {_rank_text(ranks)}" if ranks else "")
        raise SpaceError("input space does not fit", argument=argument, expected=expected, got=space)


def check_vectors(space: Space, argument: str, ranks: Ranks, what: str) -> int:
    """Raises a SpaceError naming ``argument`` unless ``space`` is a FloatBox of core shape ``(n,)`` with ``ranks``
    (``what`` says what the n values are); returns ``n``."""
    if not (isinstance(space, BoxSpace) and space.dtype.kind == "f" and space.rank == 1 and ranks_of(space) == ranks):
        raise SpaceError(f"needs {what}", argument=argument, got=space,
                         expected=f"FloatBox of core shape (n,), extra ranks {_rank_text(ranks)}")
    return space.shape[0]


def check_items(input_spaces: dict[str, Space], reference: str, **kinds: str) -> Ranks:
    """Checks per-item scalars (core shape ``()``): ``reference`` (a float) and every ``name=kinds`` given, all
    with the ranks of ``reference``; returns those ranks. Arguments without a space yet are skipped."""
    check_box(input_spaces[reference], reference)
    ranks = ranks_of(input_spaces[reference])
    for name, allowed in kinds.items():
        if name in input_spaces:
            check_box(input_spaces[name], name, allowed, (), ranks)
    return ranks


def time_axis(space: Space, argument: str) -> int:
    """The axis of the time rank: 0 for time-major (or time-only) values, 1 for ``(batch, time)``."""
    if not space.has_time_rank:
        raise SpaceError("needs sequences: a time rank", argument=argument,
                         expected="a space with add_time_rank=True", got=space)
    return 0 if space.time_major or not space.has_batch_rank else 1


def without_time(ranks: Ranks) -> Ranks:
    """The ranks of a per-sequence value (e.g. a bootstrap value) of per-step values with ``ranks``."""
    return ranks[0], False, False


def check_config(ok: bool, component: str, key: str, expected: str, got: Any) -> None:
    """Raises a ConfigError naming the constructor argument ``key`` unless ``ok``."""
    if not ok:
        raise ConfigError(f"bad value for '{key}'", component=component, key_path=key, expected=expected, got=got)


def check_optional(component: str, wanted: bool, given: bool, key: str, argument: str) -> None:
    """An optional API input (``argument=None``) must be given exactly when the config ``key`` asks for it."""
    if given != wanted:
        raise ConfigError(f"the '{key}' setting and the '{argument}' input disagree", component=component,
                          key_path=key, expected=f"{'an' if wanted else 'no'} '{argument}' input with this {key}",
                          got=f"'{argument}' {'given' if given else 'left out'}")


def next_steps(ops: Ops, x: Tensor, last: Tensor, axis: int) -> Tensor:
    """``x[t + 1]`` along the time ``axis``, with ``last`` (x's shape without that axis) after the final step."""
    later = x[(slice(None),) * axis + (slice(1, None),)]
    return ops.concat([later, ops.expand_dims(last, axis)], axis)


def discounted_cumsum(ops: Ops, values: Tensor, discounts: Tensor, axis: int,
                      bootstrap: Tensor | None = None) -> Tensor:
    """``y[t] = values[t] + discounts[t] * y[t + 1]`` backwards along the time ``axis`` (0 for ``(time, ...)``,
    1 for ``(batch, time)``), with ``y[T] = bootstrap`` (zeros when None; shape without the time axis).

    Discounted returns, GAE and v-trace are this recursion with different ``values`` and ``discounts``; a zero
    discount cuts it at an episode boundary. One ``ops.scan`` over the reversed time axis (TensorFlow's scan
    needs at least one step when the batch size is unknown).
    """
    if axis == 1:
        values, discounts = ops.transpose(values, (1, 0)), ops.transpose(discounts, (1, 0))
    steps = ops.reverse(ops.stack([values, discounts], -1), 0)
    initial = ops.reduce_sum(ops.zeros_like(values), 0) if bootstrap is None else bootstrap
    result = ops.reverse(ops.scan(lambda carry, step: step[..., 0] + step[..., 1] * carry, steps, initial), 0)
    return ops.transpose(result, (1, 0)) if axis == 1 else result
