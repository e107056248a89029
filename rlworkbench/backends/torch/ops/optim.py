"""Operations for optimizers: gradient norms and clipping, and the update rules on PyTorch's multi-tensor kernels.

An update changes the variables and slots in place, all of them in a few kernel calls: Adam on torch's fused
kernel (``torch._fused_adam_``, what ``torch.optim.Adam(fused=True)`` runs), the others on its ``_foreach`` ops —
not four or five Python-level operations per variable. A fused kernel walks raw memory, so it gets each variable
with its slots and gradient in one memory layout (a column-major kernel is handed over transposed, as the
contiguous tensor it is); a variable whose slots or gradient lie otherwise goes through the ``_foreach`` path.

No update reads a value back to the host: the non-finite guard (:func:`apply_if_finite`) is a device tensor that
the update rules and assignments honour (:mod:`rlworkbench.backends.torch.update_guard`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from rlworkbench.backends.torch.update_guard import condition_on, guarded, guarded_in_place, only_if

Tensor = torch.Tensor
_FUSED_ADAM = getattr(torch, "_fused_adam_", None)


def global_norm(tensors: Sequence[Tensor]) -> Tensor:
    """``sqrt`` of the sum of the squares of all elements of all ``tensors``."""
    return torch.linalg.vector_norm(torch.stack(torch._foreach_norm(list(tensors))))


def clip_by_global_norm(tensors: Sequence[Tensor], clip_norm: float, norm: Tensor | None = None) -> list[Tensor]:
    """``tensors`` scaled by ``clip_norm / max(global_norm, clip_norm)``: unchanged while their global norm
    (``sqrt`` of the sum of all squares; ``norm`` if given) is at most ``clip_norm``, else scaled down to exactly
    ``clip_norm``."""
    scale = clip_norm / torch.clamp(global_norm(tensors) if norm is None else norm, min=clip_norm)
    return list(torch._foreach_mul(list(tensors), scale))


def _same_layout(*tensors: Tensor) -> list[Tensor] | None:
    """The tensors as contiguous tensors of one memory layout (transposed, for column-major matrices), or None."""
    if all(t.is_contiguous() for t in tensors):
        return list(tensors)
    if all(_column_major(t) for t in tensors):
        return [t.t() for t in tensors]
    return None


def _column_major(tensor: Tensor) -> bool:
    """Whether ``tensor`` is a matrix whose transpose is contiguous, read from its strides (no view is made: every
    update asks this of every kernel, its gradient and its slots)."""
    if tensor.dim() != 2:
        return False
    (rows, columns), (row_stride, column_stride) = tensor.shape, tensor.stride()
    return rows * columns == 0 or ((rows == 1 or row_stride == 1) and (columns == 1 or column_stride == rows))


def adam_update(variables: Sequence[Tensor], grads: Sequence[Tensor], first_moments: Sequence[Tensor],
                second_moments: Sequence[Tensor], step: Tensor, learning_rate: float, beta1: float, beta2: float,
                epsilon: float) -> None:
    """Adam in place: ``m = beta1 m + (1 - beta1) g``, ``v = beta2 v + (1 - beta2) g**2``, ``var -= lr (m / (1 -
    beta1**step)) / (sqrt(v / (1 - beta2**step)) + epsilon)``; ``step`` (a float scalar) counts from 1."""
    fused: list[list[Tensor]] = [[], [], [], []]
    rest: list[list[Tensor]] = [[], [], [], []]
    for group in zip(variables, grads, first_moments, second_moments):
        same = _same_layout(*group) if _FUSED_ADAM is not None else None
        for bucket, tensor in zip(fused if same is not None else rest, same or group):
            bucket.append(tensor)
    with torch.no_grad():
        if fused[0]:
            condition = condition_on(fused[0][0].device)  # the kernel skips the whole step when found_inf is 1
            found_inf = None if condition is None else (~condition).to(torch.float32)
            _FUSED_ADAM(*fused, [], [step] * len(fused[0]), lr=learning_rate, beta1=beta1, beta2=beta2,
                        weight_decay=0.0, eps=epsilon, amsgrad=False, maximize=False, found_inf=found_inf)
        if rest[0]:
            params, grads_, exp_avgs, exp_avg_sqs = rest

            def update() -> None:
                torch._foreach_lerp_(exp_avgs, grads_, 1.0 - beta1)
                torch._foreach_mul_(exp_avg_sqs, beta2)
                torch._foreach_addcmul_(exp_avg_sqs, grads_, grads_, 1.0 - beta2)
                count = step.to(params[0].device)  # bias corrections as tensors: no read-back of the step
                denominators = torch._foreach_sqrt(torch._foreach_div(exp_avg_sqs, 1.0 - beta2 ** count))
                torch._foreach_add_(denominators, epsilon)
                moves = torch._foreach_div(exp_avgs, denominators)
                torch._foreach_mul_(moves, -learning_rate / (1.0 - beta1 ** count))
                torch._foreach_add_(params, moves)

            guarded_in_place([*params, *exp_avgs, *exp_avg_sqs], update)


def rmsprop_update(variables: Sequence[Tensor], grads: Sequence[Tensor], mean_squares: Sequence[Tensor],
                   velocities: Sequence[Tensor], learning_rate: float, decay: float, momentum: float,
                   epsilon: float) -> None:
    """RMSProp in place: ``ms = decay ms + (1 - decay) g**2``, ``u = g / (sqrt(ms) + epsilon)``; with
    ``velocities`` (momentum) ``vel = momentum vel + u`` and ``var -= lr vel``, else ``var -= lr u``."""
    params, grads_, squares = list(variables), list(grads), list(mean_squares)

    def update() -> None:
        torch._foreach_mul_(squares, decay)
        torch._foreach_addcmul_(squares, grads_, grads_, 1.0 - decay)
        denominators = torch._foreach_sqrt(squares)
        torch._foreach_add_(denominators, epsilon)
        updates = _with_momentum(velocities, torch._foreach_div(grads_, denominators), momentum)
        torch._foreach_add_(params, updates, alpha=-learning_rate)

    with torch.no_grad():
        guarded_in_place([*params, *squares, *velocities], update)


def sgd_update(variables: Sequence[Tensor], grads: Sequence[Tensor], velocities: Sequence[Tensor],
               learning_rate: float, momentum: float) -> None:
    """SGD in place: ``var -= lr g``; with ``velocities`` (momentum) ``vel = momentum vel + g``, ``var -= lr vel``."""
    params = list(variables)

    def update() -> None:
        torch._foreach_add_(params, _with_momentum(velocities, list(grads), momentum), alpha=-learning_rate)

    with torch.no_grad():
        guarded_in_place([*params, *velocities], update)


def _with_momentum(velocities: Sequence[Tensor], updates: list[Tensor], momentum: float) -> list[Tensor]:
    """The steps to take: ``updates``, or with ``velocities`` (updated in place) ``vel = momentum vel + u``."""
    if not velocities:
        return updates
    velocities = list(velocities)
    torch._foreach_mul_(velocities, momentum)
    torch._foreach_add_(velocities, updates)
    return velocities


def add_n_on(tensors: Sequence[Tensor], like: Tensor) -> Tensor:
    """The sum of same-shaped ``tensors`` (on any devices) on ``like``'s device."""
    device = like.device
    total = tensors[0].to(device)
    for tensor in tensors[1:]:
        total = total + tensor.to(device)
    return total


def assign_all(variables: Sequence[Tensor], values: Sequence[Tensor]) -> None:
    """``variables[i] = values[i]`` (copied across devices), without recording autograd history."""
    variables = list(variables)
    with torch.no_grad():
        torch._foreach_copy_(variables, [guarded(value.detach().to(variable.device, non_blocking=True), variable)
                                         for variable, value in zip(variables, values)])


def apply_if_finite(values: Sequence[Tensor], apply: Callable[[], None]) -> Tensor:
    """Lets ``apply()``'s assignments (an update's) take effect only if every value (the loss, the gradient norm)
    is finite; returns whether they did, as a bool tensor. A non-finite update changes no variable. Decided on the
    device: ``apply()`` always runs, under :func:`~rlworkbench.backends.torch.update_guard.only_if`."""
    with torch.no_grad():
        device = values[0].device
        if all(value.dim() == 0 and value.device == device for value in values):  # the loss and a norm: one check
            finite = torch.isfinite(torch.stack(list(values))).all()
        else:
            finite = torch.stack([torch.isfinite(value).all().to(device) for value in values]).all()
    with only_if(finite):
        apply()
    return finite


__all__ = ["adam_update", "add_n_on", "apply_if_finite", "assign_all", "clip_by_global_norm", "global_norm",
           "rmsprop_update", "sgd_update"]
