"""The normal (Gaussian) distribution over float actions, from a mean and a log standard deviation."""

from __future__ import annotations

import math

from rlworkbench.components.distributions.distribution import Distribution
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor

HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


@register("normal")
class Normal(Distribution[tuple[Tensor, Tensor]]):
    """Independent ``N(mean, exp(log_std) ** 2)`` per element: parameters ``(mean, log_std)``, two
    ``FloatBox(shape)`` → unbounded actions ``FloatBox(shape)``. Deterministic sample: the mean. Samples are
    reparameterised (``mean + std * noise``), so they carry gradients. Entropy and KL in closed form."""

    parameter_names = ("mean", "log_std")

    def _draw(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        mean, log_std = parameters
        return mean + self.ops.exp(log_std) * self.ops.random_normal(self.rng, self._value_shape(mean))

    def _mode(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        return parameters[0]

    def _log_density(self, parameters: tuple[Tensor, Tensor], values: Tensor) -> Tensor:
        mean, log_std = parameters
        return -0.5 * self.ops.square((values - mean) * self.ops.exp(-log_std)) - log_std - HALF_LOG_TWO_PI

    def _elementwise_entropy(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        return parameters[1] + (0.5 + HALF_LOG_TWO_PI)

    def _elementwise_kl(self, parameters: tuple[Tensor, Tensor], other_parameters: tuple[Tensor, Tensor]) -> Tensor:
        (mean, log_std), (other_mean, other_log_std) = parameters, other_parameters
        variance_ratio = self.ops.exp(2.0 * (log_std - other_log_std))
        mean_term = self.ops.square((mean - other_mean) * self.ops.exp(-other_log_std))
        return other_log_std - log_std + 0.5 * (variance_ratio + mean_term - 1.0)
