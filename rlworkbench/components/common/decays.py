"""Decays from ``from_value`` (before ``start_time_step``) to ``to_value`` (from ``end_time_step`` on)."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.common.time_dependent_parameter import TimeDependentParameter, finite_number
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Scalar, Tensor
from rlworkbench.errors import ConfigError


class Decay(TimeDependentParameter):
    """Shared part of the decays: ``value(t) = to + (from - to) * remaining(f)``, where
    ``f = clip((t - start) / (end - start), 0, 1)`` is the fraction of the decay window passed; subclasses
    write ``remaining(f)`` (the linear decay writes ``value_at`` itself, in fewer ops), the share of the gap left (1
    at ``f = 0``), which stays in ``[0, 1]``: every value lies between ``from_value`` and ``to_value``.

    ``from_value`` and ``to_value`` need only be finite here (a decay may run up, or below 0); the component that
    uses the decay bounds them (:meth:`TimeDependentParameter.check_range`: ``[0, 1]`` for an epsilon)."""

    def __init__(self, from_value: float = 1.0, to_value: float = 0.0, start_time_step: int = 0,
                 end_time_step: int = 10000, **kwargs: Any):
        super().__init__(**kwargs)
        self.from_value = finite_number(from_value, "from_value", self.name)
        self.to_value = finite_number(to_value, "to_value", self.name)
        self.start = finite_number(start_time_step, "start_time_step", self.name)
        self.end = finite_number(end_time_step, "end_time_step", self.name)
        if self.end <= self.start:
            raise ConfigError("the decay window is empty", component=self.name, key_path="end_time_step",
                              expected=f"end_time_step > start_time_step ({self.start:g})", got=self.end)

    def endpoints(self) -> dict[str, float]:
        return {"from_value": self.from_value, "to_value": self.to_value}

    def value_at(self, t: Tensor) -> Tensor:
        fraction = self.ops.clip((t - self.start) / (self.end - self.start), 0.0, 1.0)
        return self.to_value + (self.from_value - self.to_value) * self.remaining(fraction)

    def remaining(self, fraction: Scalar) -> Scalar:
        raise NotImplementedError


@register("linear_decay")
class LinearDecay(Decay):
    """``get(time_step)``: ``from_value`` until ``start_time_step``, then a straight line to ``to_value`` at
    ``end_time_step``, then ``to_value``. Any finite values: the component using the decay bounds them."""

    def value_at(self, t: Tensor) -> Tensor:
        # one line clipped to its endpoints: 4 ops where the shared form takes 6 (an epsilon runs on every acting
        # step); ``t - start`` first, exact for integer steps, so a late window keeps its precision
        slope = (self.to_value - self.from_value) / (self.end - self.start)
        low, high = sorted((self.from_value, self.to_value))
        return self.ops.clip((t - self.start) * slope + self.from_value, low, high)


@register("polynomial_decay")
class PolynomialDecay(Decay):
    """``get(time_step)``: ``to_value + (from_value - to_value) * (1 - f) ** power``, where
    ``f = clip((t - start_time_step) / (end_time_step - start_time_step), 0, 1)`` (``power=1`` is linear). Any
    finite values: the component using the decay bounds them."""

    def __init__(self, power: float = 2.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.power = finite_number(power, "power", self.name)
        if self.power <= 0:
            raise ConfigError("power must be positive", component=self.name, key_path="power", expected="> 0",
                              got=self.power)

    def remaining(self, fraction: Scalar) -> Scalar:
        return (1.0 - fraction) ** self.power


@register("exponential_decay")
class ExponentialDecay(Decay):
    """``get(time_step)``: ``from_value`` until ``start_time_step``, then the gap to ``to_value`` halves every
    ``half_life`` steps (default: a ``num_half_lives``-th of the window); from ``end_time_step`` on it is exactly
    ``to_value`` (the last ``2 ** -num_half_lives`` of the gap is dropped there, as in RLgraph). Any finite values:
    the component using the decay bounds them."""

    def __init__(self, half_life: float | None = None, num_half_lives: float = 10.0, **kwargs: Any):
        super().__init__(**kwargs)
        window = self.end - self.start
        self.half_life = window / finite_number(num_half_lives, "num_half_lives", self.name) if half_life is None \
            else finite_number(half_life, "half_life", self.name)
        if self.half_life <= 0:
            raise ConfigError("the half-life must be positive", component=self.name, key_path="half_life",
                              expected="> 0", got=self.half_life)

    def remaining(self, fraction: Scalar) -> Scalar:
        halved = 0.5 ** (fraction * ((self.end - self.start) / self.half_life))
        return self.ops.where(fraction >= 1.0, self.ops.zeros_like(halved), halved)
