"""Adam: bias-corrected first and second moment estimates (Kingma & Ba, 2015)."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.optimizers.optimizer import Optimizer, fraction, positive
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor


@register("adam")
class Adam(Optimizer):
    """Adam as in the paper's Algorithm 1 and ``torch.optim.Adam``, with slots ``m/<var>`` and ``v/<var>``::

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
        var -= learning_rate * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + epsilon)

    ``t`` is the update number (the ``steps`` variable, from 1).
    ``step(loss) -> (loss, grad_norm)`` minimises a scalar loss over the trainable variables of ``variables_of`` (a
    component or a path relative to the optimizer's parent), gradients optionally clipped element-wise
    (``clip_grad_value``), then by global norm (``clip_grad_norm``); see :class:`Optimizer`.
    """

    def __init__(self, learning_rate: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, **kwargs: Any):
        super().__init__(learning_rate, **kwargs)
        self.beta1 = fraction(self.name, "beta1", beta1)
        self.beta2 = fraction(self.name, "beta2", beta2)
        self.epsilon = positive(self.name, "epsilon", epsilon)

    def create_slots(self) -> None:
        self.first_moments = self.slot("m")
        self.second_moments = self.slot("v")

    def apply_gradients(self, grads: list[Tensor], step: Tensor) -> None:
        self.ops.adam_update(self.variable_list, grads, self.first_moments, self.second_moments, step,
                             self.learning_rate, self.beta1, self.beta2, self.epsilon)
