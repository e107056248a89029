"""Changing variables from graph functions, and gradients.

Updates happen in place without recording autograd history, so a variable changed here (a memory's buffer, an
optimizer's step) never becomes part of a loss's graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

Tensor = torch.Tensor


def assign(variable: Tensor, value: Any) -> Tensor:
    with torch.no_grad():
        variable.copy_(torch.as_tensor(value, dtype=variable.dtype, device=variable.device))
    return variable


def assign_add(variable: Tensor, value: Any) -> Tensor:
    with torch.no_grad():
        variable.add_(torch.as_tensor(value, dtype=variable.dtype, device=variable.device))
    return variable


def assign_sub(variable: Tensor, value: Any) -> Tensor:
    with torch.no_grad():
        variable.sub_(torch.as_tensor(value, dtype=variable.dtype, device=variable.device))
    return variable


def scatter_update(variable: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    """``variable[indices] = updates`` along axis 0 (rows)."""
    with torch.no_grad():
        variable.index_copy_(0, indices.long().reshape(-1), updates.to(variable.dtype).reshape(
            (-1, *variable.shape[1:])))
    return variable


def read(variable: Tensor) -> Tensor:
    """A snapshot of a variable's value that later assignments do not change."""
    return variable.detach().clone()


def gradients(loss: Tensor, variables: Sequence[Tensor]) -> list[Tensor]:
    """d loss / d variable for each variable (zeros where the loss does not depend on it)."""
    if not loss.requires_grad:  # depends on no variable (a build's sample pass fed sampled values; TF gives zeros)
        return [torch.zeros_like(v) for v in variables]
    grads = torch.autograd.grad(loss, list(variables), allow_unused=True)
    return [torch.zeros_like(v) if g is None else g for v, g in zip(variables, grads)]


__all__ = ["assign", "assign_add", "assign_sub", "scatter_update", "read", "gradients"]
