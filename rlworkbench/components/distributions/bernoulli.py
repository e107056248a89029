"""The Bernoulli distribution over boolean actions, from logits."""

from __future__ import annotations

from rlworkbench.components.distributions.distribution import Distribution
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.spaces import BoolBox, Space


@register("bernoulli")
class Bernoulli(Distribution[Tensor]):
    """``P(True) = sigmoid(logits)`` per element: parameters ``FloatBox(shape)`` → actions ``BoolBox(shape)``.
    Deterministic sample: ``logits > 0``. Entropy and KL in closed form."""

    value_kind = BoolBox

    def value_leaf(self, shape: tuple[int, ...]) -> Space:
        return BoolBox(shape)

    def _log_sigmoid(self, x: Tensor) -> Tensor:
        return -self.ops.activation("softplus")(-x)

    def _draw(self, logits: Tensor) -> Tensor:
        u = self.ops.random_uniform(self.rng, self._value_shape(logits))
        return u < self.ops.activation("sigmoid")(logits)

    def _mode(self, logits: Tensor) -> Tensor:
        return logits > 0.0

    def _log_density(self, logits: Tensor, values: Tensor) -> Tensor:
        is_true = self.ops.cast(values, "float32")
        return is_true * self._log_sigmoid(logits) + (1.0 - is_true) * self._log_sigmoid(-logits)

    def _elementwise_entropy(self, logits: Tensor) -> Tensor:
        return self.ops.activation("softplus")(logits) - logits * self.ops.activation("sigmoid")(logits)

    def _elementwise_kl(self, logits: Tensor, other_logits: Tensor) -> Tensor:
        p = self.ops.activation("sigmoid")(logits)
        return p * (self._log_sigmoid(logits) - self._log_sigmoid(other_logits)) + \
            (1.0 - p) * (self._log_sigmoid(-logits) - self._log_sigmoid(-other_logits))
