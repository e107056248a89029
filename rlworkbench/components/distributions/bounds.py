"""Finite bounds of a float action: checked once, then used by graph functions as numbers or constants."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from rlworkbench.core.ops import Ops, Scalar, Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, Space


class Bounds:
    """``low < high``, finite, scalar or per element. In graph functions :meth:`scale` maps ``[0, 1]`` onto
    ``[low, high]`` (clipped, so rounding never leaves the box), :meth:`unscale` maps back and :meth:`clip`
    clips."""

    def __init__(self, low: npt.ArrayLike, high: npt.ArrayLike, component: str):
        self.low, self.high = np.asarray(low, np.float32), np.asarray(high, np.float32)
        finite = np.all(np.isfinite(self.low)) and np.all(np.isfinite(self.high))
        if not finite or np.any(self.low >= self.high):
            raise ConfigError("bounds must be finite with low < high", component=component, key_path="low/high",
                              expected="finite low < high", got=f"low={self.low}, high={self.high}")
        self.scalar = self.low.ndim == 0 and self.high.ndim == 0
        self._log_span = np.log(self.high.astype(np.float64) - self.low).astype(np.float32)

    @staticmethod
    def of_space(space: Space, component: str | None = None) -> dict[str, object]:
        """``{"low": ..., "high": ...}`` of a bounded FloatBox, for a distribution's constructor."""
        if not isinstance(space, FloatBox) or not space.is_bounded:
            raise ConfigError("a bounded distribution needs a FloatBox with finite bounds", component=component,
                              expected="FloatBox(low, high, ...)", got=space)
        return {"low": space.low, "high": space.high}

    def space(self, shape: tuple[int, ...]) -> FloatBox:
        return FloatBox(self.low, self.high, shape=shape)

    def check_shape(self, shape: tuple[int, ...], component: str) -> None:
        for bound in (self.low, self.high):
            try:
                fits = np.broadcast_shapes(bound.shape, shape) == shape
            except ValueError:
                fits = False
            if not fits:
                raise SpaceError("bounds do not fit the action shape", component=component, argument="parameters",
                                 expected=f"bounds broadcastable to {shape}", got=f"bounds of shape {bound.shape}")

    def _constant(self, ops: Ops, value: np.ndarray) -> Scalar:
        return float(value) if value.ndim == 0 else ops.constant(value)

    def scale(self, ops: Ops, unit: Tensor) -> Tensor:
        low, high = self._constant(ops, self.low), self._constant(ops, self.high)
        return self.clip(ops, low + (high - low) * unit)

    def clip(self, ops: Ops, value: Tensor) -> Tensor:
        low, high = self._constant(ops, self.low), self._constant(ops, self.high)
        return ops.clip(value, low, high) if self.scalar else ops.minimum(ops.maximum(value, low), high)

    def unscale(self, ops: Ops, value: Tensor) -> Tensor:
        low, high = self._constant(ops, self.low), self._constant(ops, self.high)
        return (value - low) / (high - low)

    def log_span(self, ops: Ops) -> Tensor:
        """``log(high - low)``, the log-density correction of the scaling."""
        return self._constant(ops, self._log_span)


class BoundedValues:
    """Mixin for distributions whose values live in ``[low, high]`` of a float action space (bounds given, or
    taken from the action space by ``distribution_for``); subclasses set the default bounds."""

    default_bounds: tuple[float, float] = (0.0, 1.0)

    def __init__(self, low: npt.ArrayLike | None = None, high: npt.ArrayLike | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        default_low, default_high = self.default_bounds
        self.bounds = Bounds(default_low if low is None else low, default_high if high is None else high, self.name)

    @classmethod
    def space_arguments(cls, space: Space) -> dict[str, object]:
        return Bounds.of_space(space, cls.__name__)

    def value_leaf(self, shape: tuple[int, ...]) -> Space:
        self.bounds.check_shape(shape, self.path)
        return self.bounds.space(shape)
