"""Changing variables from graph functions, and gradients.

Updates happen in place without recording autograd history, so a variable changed here (a memory's buffer, an
optimizer's step) never becomes part of a loss's graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from rlworkbench.backends.torch.update_guard import guarded

Tensor = torch.Tensor


def _unrecorded(tracked: bool, change: Callable[[], Tensor]) -> Tensor:
    """Runs an in-place ``change``; with autograd off where a tensor it touches is tracked (an in-place change
    of a trainable leaf needs it off; entering ``no_grad`` for every untracked change would cost a call each)."""
    if tracked:
        with torch.no_grad():
            return change()
    return change()


# assign, assign_add and assign_sub honour the update guard (an optimizer step whose loss is not finite)
def assign(variable: Tensor, value: object) -> Tensor:
    value = torch.as_tensor(value, dtype=variable.dtype, device=variable.device)
    return _unrecorded(variable.requires_grad, lambda: variable.copy_(guarded(value, variable)))


def assign_add(variable: Tensor, value: object) -> Tensor:
    value = torch.as_tensor(value, dtype=variable.dtype, device=variable.device)
    return _unrecorded(variable.requires_grad, lambda: variable.add_(guarded(value, 0)))


def assign_sub(variable: Tensor, value: object) -> Tensor:
    value = torch.as_tensor(value, dtype=variable.dtype, device=variable.device)
    return _unrecorded(variable.requires_grad, lambda: variable.sub_(guarded(value, 0)))


def _rows_of(variable: Tensor, indices: Tensor, updates: Tensor) -> tuple[Tensor, Tensor]:
    """Flat int64 row numbers and updates shaped as rows of ``variable`` (no op where they are already)."""
    if indices.dtype != torch.int64 or indices.dim() != 1:
        indices = indices.long().reshape(-1)
    if updates.dtype != variable.dtype:
        updates = updates.to(variable.dtype)
    if updates.dim() != variable.dim():
        updates = updates.reshape((-1, *variable.shape[1:]))
    return indices, updates


def scatter_update(variable: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    """``variable[indices] = updates`` along axis 0 (rows)."""
    indices, updates = _rows_of(variable, indices, updates)
    return _unrecorded(variable.requires_grad or updates.requires_grad,
                       lambda: variable.index_copy_(0, indices, updates))


def scatter_add(variable: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    """``variable[indices] += updates`` along axis 0 (rows); repeated indices add up."""
    indices, updates = _rows_of(variable, indices, updates)
    return _unrecorded(variable.requires_grad or updates.requires_grad,
                       lambda: variable.index_add_(0, indices, updates))


def read(variable: Tensor) -> Tensor:
    """A snapshot of a variable's value that later assignments do not change."""
    return variable.detach().clone()


def gradients(loss: Tensor, variables: Sequence[Tensor]) -> list[Tensor]:
    """d loss / d variable for each variable (zeros where the loss does not depend on it)."""
    if not loss.requires_grad:  # depends on no variable (a build's sample pass fed sampled values; TF gives zeros)
        return [torch.zeros_like(v) for v in variables]
    grads = torch.autograd.grad(loss, list(variables), allow_unused=True)
    return [torch.zeros_like(v) if g is None else g for v, g in zip(variables, grads)]


__all__ = ["assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "read", "gradients"]
