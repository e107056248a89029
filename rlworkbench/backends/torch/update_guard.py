"""The torch backend's update guard: assignments that take effect only while a condition tensor holds.

An optimizer step must change nothing when its loss or gradient is not finite. Asking the device ``if finite:``
reads a value back to the host — on a GPU that waits for the whole backward pass and stalls the pipeline on every
update. Instead the step runs under :func:`only_if` with the condition as a tensor, and every assignment op of this
backend (``assign``, ``assign_add``, ``assign_sub``, ``assign_all`` and the optimizers' update rules) keeps the old
values where it does not hold: ``torch.where`` on the device, or the fused Adam kernel's own ``found_inf`` flag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import torch

Tensor = torch.Tensor
_CONDITION: ContextVar[Tensor | None] = ContextVar("rlworkbench_update_guard", default=None)


@contextmanager
def only_if(condition: Tensor) -> Iterator[None]:
    """Assignments inside take effect only if ``condition`` (a bool scalar tensor) is true."""
    token = _CONDITION.set(condition)
    try:
        yield
    finally:
        _CONDITION.reset(token)


def condition_on(device: torch.device) -> Tensor | None:
    """The guard's condition on ``device`` (None: no guard, assignments always take effect)."""
    condition = _CONDITION.get()
    return None if condition is None else condition.to(device, non_blocking=True)


def guarded(new: Tensor, old: Tensor | float) -> Tensor:
    """``new`` where the guard holds (or there is none), else ``old`` (a tensor of its shape, or a number)."""
    condition = condition_on(new.device)
    return new if condition is None else torch.where(condition, new, old)


def guarded_in_place(tensors: Sequence[Tensor], change: Callable[[], None]) -> None:
    """Runs ``change``, which updates ``tensors`` in place; where the guard does not hold they keep their values
    (even if ``change`` wrote NaN into them)."""
    if _CONDITION.get() is None:
        change()
        return
    tensors = list(tensors)
    before = [tensor.clone() for tensor in tensors]
    change()
    torch._foreach_copy_(tensors, [guarded(after, old) for after, old in zip(tensors, before)])
