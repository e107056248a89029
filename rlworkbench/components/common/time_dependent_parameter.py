"""Parameters that change with the time step (exploration rates, noise scales, learning rates …)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeAlias

from rlworkbench.components.registry import from_spec, register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError


class TimeDependentParameter(Component):
    """Base of the time-dependent parameters: ``get(time_step) -> value`` (float32, the shape of ``time_step``:
    a scalar step gives a scalar, a batch of steps a batch of values).

    Subclasses write ``value_at(t)``, where ``t`` is the step as a float64 tensor. Any component takes one from a
    spec with :meth:`from_spec` (a number, a spec dict or a component) and calls ``get`` from its API methods.

    The numbers of a parameter are only checked to be finite here: what range is valid belongs to where the
    parameter is used, and the component using it calls :meth:`check_range` (EpsilonGreedy's ``epsilon`` lies in
    ``[0, 1]``, the noises' ``stddev`` / ``sigma`` are ``>= 0``). That check reads :meth:`endpoints`; a subclass
    that does not say its endpoints is not checked.
    """

    @api
    @graph_fn
    def get(self, time_step: Tensor) -> Tensor:
        """The value at ``time_step`` (float32, shaped like ``time_step``)."""
        return self.ops.cast(self.value_at(self.ops.cast(time_step, "float64")), "float32")

    def value_at(self, t: Tensor) -> Tensor:
        raise NotImplementedError

    def endpoints(self) -> dict[str, float] | None:
        """The argument name → value of the numbers that bound every value ``get`` can return (all values lie
        between the least and the greatest of them); ``""`` names a constant's one value. ``None``: unknown, the
        values are not checked against a range."""
        return None

    def check_range(self, low: float, high: float, *, component: str, argument: str, meaning: str) -> None:
        """A :class:`ConfigError` naming ``component``, ``argument`` and the endpoint (``from_value``, ...) unless
        every value lies in ``[low, high]`` (``math.inf`` for no bound); ``meaning`` says what the value is ("a
        probability"). Called by the component that uses this parameter, which knows the valid range."""
        for key, value in (self.endpoints() or {}).items():
            if not low <= value <= high:
                name = key or argument
                finite = math.isfinite(high)
                raise ConfigError(f"'{argument}' is {meaning}: its values must lie in "
                                  f"{f'[{low:g}, {high:g}]' if finite else f'[{low:g}, inf)'}",
                                  component=component, argument=argument, key_path=key or None,
                                  expected=f"{low:g} <= {name} <= {high:g}" if finite else f"{name} >= {low:g}",
                                  got=value)

    @staticmethod
    def from_spec(spec: ParameterSpec, name: str = "parameter",
                  ) -> TimeDependentParameter:
        """A number is a :class:`Constant`; a dict is a spec (``{"type": "linear_decay", "from_value": 1.0,
        ...}``); a time-dependent parameter component passes as it is. ``name`` names a new component."""
        if isinstance(spec, TimeDependentParameter):
            return spec
        if isinstance(spec, (int, float)) and not isinstance(spec, bool):
            return Constant(float(spec), name=name)
        if isinstance(spec, Mapping):
            component = from_spec(spec, name=name)
            if isinstance(component, TimeDependentParameter):
                return component
            got = type(component).__name__
        else:
            got = repr(spec)
        raise ConfigError("not a time-dependent parameter spec", key_path=name,
                          expected="a number, a spec dict such as {'type': 'linear_decay', ...} or a "
                                   "TimeDependentParameter", got=got)


def finite_number(value: object, argument: str, component: str) -> float:
    """``value`` as a float; a ConfigError naming ``argument`` unless it is a finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError("needs a finite number", component=component, key_path=argument, expected="finite number",
                          got=repr(value))
    return float(value)


@register("constant_parameter")
class Constant(TimeDependentParameter):
    """``get(time_step)``: the same ``value`` at every time step (a number in a parameter spec means this). Any
    finite number: the component using it bounds it (an epsilon to ``[0, 1]``)."""

    def __init__(self, value: float, **kwargs: Any):
        super().__init__(**kwargs)
        self.value = finite_number(value, "value", self.name)

    def value_at(self, t: Tensor) -> Tensor:
        return self.ops.ones_like(t) * self.value

    def endpoints(self) -> dict[str, float]:
        return {"": self.value}


# what a component takes for a parameter that may change over time (see TimeDependentParameter.from_spec)
ParameterSpec: TypeAlias = float | Mapping[str, object] | TimeDependentParameter
