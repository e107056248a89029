"""Stochastic gradient descent, optionally with momentum."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.optimizers.optimizer import Optimizer, fraction
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor


@register("sgd")
class SGD(Optimizer):
    """``var -= learning_rate * g``; with ``momentum`` a velocity slot ``momentum/<var>`` (as ``torch.optim.SGD``):
    ``buf = momentum * buf + g``, ``var -= learning_rate * buf``.

    ``step(loss) -> (loss, grad_norm)`` minimises a scalar loss over the trainable variables of ``variables_of`` (a
    component or a path relative to the optimizer's parent), gradients optionally clipped element-wise
    (``clip_grad_value``), then by global norm (``clip_grad_norm``); see :class:`Optimizer`.
    Spec: ``{"type": "sgd", "learning_rate": 0.1, "variables_of": "model"}``.
    """

    def __init__(self, learning_rate: float, momentum: float = 0.0, **kwargs: Any):
        kwargs.setdefault("name", "sgd")  # not the class name in snake case
        super().__init__(learning_rate, **kwargs)
        self.momentum = fraction(self.name, "momentum", momentum)

    def create_slots(self) -> None:
        self.velocities = self.slot("momentum") if self.momentum else []

    def apply_gradients(self, grads: list[Tensor], step: Tensor) -> None:
        self.ops.sgd_update(self.variable_list, grads, self.velocities, self.learning_rate, self.momentum)
