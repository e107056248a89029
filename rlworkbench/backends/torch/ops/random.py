"""Random numbers from a component's own generator (``self.create_random_generator()``), so sampling is
reproducible per build seed and independent between components."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

Tensor = torch.Tensor


def _shape(shape: Sequence[Any]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape)


def random_uniform(generator: torch.Generator, shape: Sequence[Any], low: float = 0.0, high: float = 1.0) -> Tensor:
    u = torch.rand(_shape(shape), generator=generator, device=generator.device)
    return u if (low, high) == (0.0, 1.0) else low + (high - low) * u


def random_normal(generator: torch.Generator, shape: Sequence[Any], mean: float = 0.0,
                  stddev: float = 1.0) -> Tensor:
    return mean + stddev * torch.randn(_shape(shape), generator=generator, device=generator.device)


def random_integers(generator: torch.Generator, shape: Sequence[Any], low: int, high: Any) -> Tensor:
    """Uniform ints in ``[low, high)``; ``high`` may be a scalar tensor (e.g. a memory's current size)."""
    if isinstance(high, int):  # one draw; a tensor bound (known only at run time) takes the float route below
        return torch.randint(low, high, _shape(shape), generator=generator, device=generator.device)
    u = torch.rand(_shape(shape), generator=generator, device=generator.device, dtype=torch.float64)
    span = torch.as_tensor(high, device=generator.device).double() - low
    return (low + torch.floor(u * span)).long()


def random_categorical(generator: torch.Generator, logits: Tensor) -> Tensor:
    """One sample per leading position from ``softmax(logits)`` over the last axis (Gumbel-max)."""
    u = torch.rand(logits.shape, generator=generator, device=generator.device, dtype=logits.dtype)
    gumbel = -torch.log(-torch.log(u.clamp_min(torch.finfo(logits.dtype).tiny)))
    return torch.argmax(logits + gumbel, dim=-1)


__all__ = ["random_uniform", "random_normal", "random_integers", "random_categorical"]
