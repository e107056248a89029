"""The beta distribution, scaled to the bounds of a float action."""

from __future__ import annotations

from rlworkbench.components.distributions.bounds import BoundedValues
from rlworkbench.components.distributions.distribution import Distribution
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor

_EPSILON = 1e-6


@register("beta")
class Beta(BoundedValues, Distribution[tuple[Tensor, Tensor]]):
    """``low + (high - low) * x`` with ``x ~ Beta(alpha, beta)`` per element: parameters ``(alpha, beta)``, two
    ``FloatBox(shape)`` of positive values → actions ``FloatBox(low, high, shape)`` (bounds from the action space).

    Samples are ratios of gamma samples, ``G(alpha) / (G(alpha) + G(beta))`` (differentiable). Deterministic
    sample: the mean ``alpha / (alpha + beta)``, scaled. ``log_prob`` clips values ``1e-6`` (of the range) inside
    the bounds; it includes ``-log(high - low)``, as does the entropy. Entropy and KL in closed form.
    """

    parameter_names = ("alpha", "beta")

    default_bounds = (0.0, 1.0)

    def _log_beta_function(self, alpha: Tensor, beta: Tensor) -> Tensor:
        return self.ops.lgamma(alpha) + self.ops.lgamma(beta) - self.ops.lgamma(alpha + beta)

    def _draw(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        alpha, beta = parameters
        x, y = self.ops.random_gamma(self.rng, alpha), self.ops.random_gamma(self.rng, beta)
        return self.bounds.scale(self.ops, x / (x + y))

    def _mode(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        alpha, beta = parameters
        return self.bounds.scale(self.ops, alpha / (alpha + beta))

    def _log_density(self, parameters: tuple[Tensor, Tensor], values: Tensor) -> Tensor:
        alpha, beta = parameters
        x = self.ops.clip(self.bounds.unscale(self.ops, values), _EPSILON, 1.0 - _EPSILON)
        return (alpha - 1.0) * self.ops.log(x) + (beta - 1.0) * self.ops.log(1.0 - x) \
            - self._log_beta_function(alpha, beta) - self.bounds.log_span(self.ops)

    def _elementwise_entropy(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        alpha, beta = parameters
        digamma = self.ops.digamma
        return self._log_beta_function(alpha, beta) - (alpha - 1.0) * digamma(alpha) \
            - (beta - 1.0) * digamma(beta) + (alpha + beta - 2.0) * digamma(alpha + beta) \
            + self.bounds.log_span(self.ops)

    def _elementwise_kl(self, parameters: tuple[Tensor, Tensor], other_parameters: tuple[Tensor, Tensor]) -> Tensor:
        (alpha, beta), (other_alpha, other_beta) = parameters, other_parameters
        digamma = self.ops.digamma
        return self._log_beta_function(other_alpha, other_beta) - self._log_beta_function(alpha, beta) \
            + (alpha - other_alpha) * digamma(alpha) + (beta - other_beta) * digamma(beta) \
            + (other_alpha - alpha + other_beta - beta) * digamma(alpha + beta)
