"""A normal distribution squashed by ``tanh`` into the bounds of a float action (as in SAC)."""

from __future__ import annotations

import math

import numpy as np

from rlworkbench.components.distributions.bounds import BoundedValues
from rlworkbench.components.distributions.normal import HALF_LOG_TWO_PI, Normal
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor

_NODES, _WEIGHTS = np.polynomial.hermite.hermgauss(64)
_EPSILON = 1e-6


@register("squashed_normal")
class SquashedNormal(BoundedValues, Normal):
    """``low + (high - low) * (tanh(u) + 1) / 2`` with ``u ~ N(mean, exp(log_std) ** 2)`` per element.

    Parameters ``(mean, log_std)`` as for :class:`Normal`; actions ``FloatBox(low, high, shape)`` (bounds from the
    action space). Deterministic sample: the squashed mean. ``log_prob`` includes the change-of-variables term
    ``-log(1 - tanh(u) ** 2) - log((high - low) / 2)``; values are clipped ``1e-6`` inside the bounds first
    (``sample_and_log_prob`` uses ``u`` itself and needs no clipping). The KL is exact: it equals the KL of the
    unsquashed normals (the squashing is one bijection for both). The entropy has no closed form: it is the
    normal's entropy plus ``E[log |d action / d u|]``, the expectation by 64-node Gauss-Hermite quadrature:
    deterministic and differentiable, within 2e-4 nats per element for ``std <= 3`` (4e-3 at 5, 2e-2 at 7.4).
    """

    default_bounds = (-1.0, 1.0)

    def _squash(self, u: Tensor) -> Tensor:
        return self.bounds.scale(self.ops, 0.5 * (self.ops.activation("tanh")(u) + 1.0))

    def _log_abs_det(self, u: Tensor) -> Tensor:
        """``log |d action / d u| = log(1 - tanh(u) ** 2) + log((high - low) / 2)``, stable for large ``|u|``."""
        return self._log_tanh_slope(u) + (self.bounds.log_span(self.ops) - math.log(2.0))

    def _log_tanh_slope(self, u: Tensor) -> Tensor:
        u = self.ops.abs(u)
        return 2.0 * (math.log(2.0) - u - self.ops.activation("softplus")(-2.0 * u))

    def _draw(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        return self._squash(super()._draw(parameters))

    def _mode(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        return self._squash(parameters[0])

    def _draw_with_log_density(self, parameters: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
        u = super()._draw(parameters)
        return self._squash(u), super()._log_density(parameters, u) - self._log_abs_det(u)

    def _log_density(self, parameters: tuple[Tensor, Tensor], values: Tensor) -> Tensor:
        unit = self.ops.clip(2.0 * self.bounds.unscale(self.ops, values) - 1.0, -1.0 + _EPSILON, 1.0 - _EPSILON)
        u = self.ops.atanh(unit)
        return super()._log_density(parameters, u) - self._log_abs_det(u)

    def _elementwise_entropy(self, parameters: tuple[Tensor, Tensor]) -> Tensor:
        mean, log_std = parameters
        nodes = self.ops.constant(_NODES.astype(np.float32))
        u = self.ops.expand_dims(mean, -1) + math.sqrt(2.0) * self.ops.expand_dims(self.ops.exp(log_std), -1) * nodes
        weights = self.ops.constant((_WEIGHTS / math.sqrt(math.pi)).astype(np.float32))
        expected_log_slope = self.ops.reduce_sum(self._log_tanh_slope(u) * weights, -1)
        log_scale = self.bounds.log_span(self.ops) - math.log(2.0)
        return log_std + (0.5 + HALF_LOG_TWO_PI) + expected_log_slope + log_scale

