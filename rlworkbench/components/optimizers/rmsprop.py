"""RMSProp: gradients divided by a running root mean square of their recent magnitudes (Hinton, 2012)."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.optimizers.optimizer import Optimizer, fraction, positive
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor


@register("rmsprop")
class RMSProp(Optimizer):
    """RMSProp as ``torch.optim.RMSprop`` (not centred), with slots ``mean_square/<var>`` and, with
    ``momentum``, ``momentum/<var>``::

        ms = decay * ms + (1 - decay) * g**2;  d = g / (sqrt(ms) + epsilon)
        buf = momentum * buf + d;  var -= learning_rate * buf      (var -= learning_rate * d without momentum)

    ``step(loss) -> (loss, grad_norm)`` minimises a scalar loss over the trainable variables of ``variables_of`` (a
    component or a path relative to the optimizer's parent), gradients optionally clipped element-wise
    (``clip_grad_value``), then by global norm (``clip_grad_norm``); see :class:`Optimizer`.
    """

    def __init__(self, learning_rate: float = 1e-2, decay: float = 0.99, momentum: float = 0.0,
                 epsilon: float = 1e-8, **kwargs: Any):
        kwargs.setdefault("name", "rmsprop")  # not the class name in snake case
        super().__init__(learning_rate, **kwargs)
        self.decay = fraction(self.name, "decay", decay)
        self.momentum = fraction(self.name, "momentum", momentum)
        self.epsilon = positive(self.name, "epsilon", epsilon)

    def create_slots(self) -> None:
        self.mean_squares = self.slot("mean_square")
        self.velocities = self.slot("momentum") if self.momentum else []

    def apply_gradients(self, grads: list[Tensor], step: Tensor) -> None:
        self.ops.rmsprop_update(self.variable_list, grads, self.mean_squares, self.velocities, self.learning_rate,
                                self.decay, self.momentum, self.epsilon)
