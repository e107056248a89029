"""Random numbers from a component's own generator (``self.create_random_generator()``), so sampling is
reproducible per build seed and independent between components.

Inside a replica tower (multi-device update) a draw with a leading batch axis is made for the whole batch and cut to
the tower's rows (:func:`rlworkbench.core.replication.draw_rows`): a tower samples what one device would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from rlworkbench.core.replication import draw_rows

Tensor = torch.Tensor


def _shape(shape: Sequence[Any]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape)


def _for_rows(shape: Sequence[Any]) -> tuple[tuple[int, ...], slice | None]:
    """The shape to draw and the rows to keep (all of them outside a replica tower)."""
    rows = draw_rows()
    if rows is None or len(shape) == 0:
        return _shape(shape), None
    total, start, stop = rows
    return (int(total), *_shape(shape[1:])), slice(int(start), int(stop))


def _kept(values: Tensor, rows: slice | None) -> Tensor:
    return values if rows is None else values[rows]


def random_uniform(generator: torch.Generator, shape: Sequence[Any], low: float = 0.0, high: float = 1.0) -> Tensor:
    shape, rows = _for_rows(shape)
    u = _kept(torch.rand(shape, generator=generator, device=generator.device), rows)
    return u if (low, high) == (0.0, 1.0) else low + (high - low) * u


def random_normal(generator: torch.Generator, shape: Sequence[Any], mean: float = 0.0,
                  stddev: float = 1.0) -> Tensor:
    shape, rows = _for_rows(shape)
    return mean + stddev * _kept(torch.randn(shape, generator=generator, device=generator.device), rows)


def random_integers(generator: torch.Generator, shape: Sequence[Any], low: int, high: Any) -> Tensor:
    """Uniform ints in ``[low, high)``; ``high`` may be a scalar tensor (e.g. a memory's current size)."""
    shape, rows = _for_rows(shape)
    if isinstance(high, int):  # one draw; a tensor bound (known only at run time) takes the float route below
        return _kept(torch.randint(low, high, shape, generator=generator, device=generator.device), rows)
    u = _kept(torch.rand(shape, generator=generator, device=generator.device, dtype=torch.float64), rows)
    if isinstance(high, Tensor) and (not high.is_cpu or high.dim()):  # on its device (no read-back), or per row
        return (low + torch.floor(u * (torch.as_tensor(high, device=generator.device).double() - low))).long()
    # a CPU bound as a Python number: the same float64 products in 3 ops instead of 6 (a memory samples every update)
    scaled = u.mul_(float(high) - low).floor_()
    return (scaled if low == 0 else scaled + low).long()


def random_categorical(generator: torch.Generator, logits: Tensor) -> Tensor:
    """One sample per leading position from ``softmax(logits)`` over the last axis (Gumbel-max)."""
    shape, rows = _for_rows(logits.shape)
    u = _kept(torch.rand(shape, generator=generator, device=generator.device, dtype=logits.dtype), rows)
    gumbel = -torch.log(-torch.log(u.clamp_min(torch.finfo(logits.dtype).tiny)))
    return torch.argmax(logits + gumbel, dim=-1)


def copy_generator_state(target: torch.Generator, source: torch.Generator) -> None:
    """``target`` continues exactly where ``source`` stands (generators of one kind: CPU, or CUDA on any GPU)."""
    target.set_state(source.get_state())


__all__ = ["random_uniform", "random_normal", "random_integers", "random_categorical", "copy_generator_state"]
