"""Action adapters per kind of action leaf and distribution, and :func:`adapter_for` to pick one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlworkbench.components.distributions import Distribution
from rlworkbench.components.policies.action_adapter import ActionAdapter
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Space, as_space


@register("categorical_adapter")
class CategoricalAdapter(ActionAdapter):
    """``IntBox(n, shape)`` actions → logits ``FloatBox(shape + (n,))``."""

    space_kind = IntBox

    def units(self) -> int:
        if self.action_space.num_categories is None:
            raise ConfigError("categorical actions need scalar, finite bounds", argument="action_space",
                              expected="IntBox(n) or IntBox(low, high)", got=self.action_space)
        return self.action_space.flat_dim * self.action_space.num_categories

    def parameter_shape(self) -> tuple[int, ...]:
        return self.action_space.shape + (self.action_space.num_categories,)

    def to_parameters(self, raw: Tensor) -> Tensor:
        return self.reshaped(raw)


@register("bernoulli_adapter")
class BernoulliAdapter(ActionAdapter):
    """``BoolBox(shape)`` actions → logits ``FloatBox(shape)``."""

    space_kind = BoolBox

    def units(self) -> int:
        return self.action_space.flat_dim

    def to_parameters(self, raw: Tensor) -> Tensor:
        return self.reshaped(raw)


@register("normal_adapter")
class NormalAdapter(ActionAdapter):
    """``FloatBox(shape)`` actions → ``(mean, log_std)``, ``log_std`` clipped into ``log_std_bounds``."""

    space_kind = FloatBox
    parameter_names = ("mean", "log_std")

    def __init__(self, action_space: Space, log_std_bounds: Sequence[float] = (-20.0, 2.0), **kwargs: Any):
        super().__init__(action_space, **kwargs)
        low, high = (float(b) for b in log_std_bounds)
        if not low < high:
            raise ConfigError("log_std_bounds must be (low, high) with low < high", component=self.name,
                              key_path="log_std_bounds", expected="low < high", got=tuple(log_std_bounds))
        self.log_std_bounds = (low, high)

    def units(self) -> int:
        return 2 * self.action_space.flat_dim

    def to_parameters(self, raw: Tensor) -> tuple[Tensor, Tensor]:
        half = self.action_space.flat_dim
        log_std = self.ops.clip(self.reshaped(raw[..., half:]), *self.log_std_bounds)
        return self.reshaped(raw[..., :half]), log_std


@register("beta_adapter")
class BetaAdapter(ActionAdapter):
    """``FloatBox(shape)`` actions → ``(alpha, beta)``, each ``1 + softplus(raw)`` (unimodal, > 1)."""

    space_kind = FloatBox
    parameter_names = ("alpha", "beta")

    def units(self) -> int:
        return 2 * self.action_space.flat_dim

    def to_parameters(self, raw: Tensor) -> tuple[Tensor, Tensor]:
        positive = self.ops.activation("softplus")(raw) + 1.0
        half = self.action_space.flat_dim
        return self.reshaped(positive[..., :half]), self.reshaped(positive[..., half:])


ADAPTERS: list[type[ActionAdapter]] = [CategoricalAdapter, BernoulliAdapter, NormalAdapter, BetaAdapter]


def adapter_for(space: Space, distribution: Distribution, **kwargs: Any) -> ActionAdapter:
    """The adapter giving ``distribution``'s parameters (by their names) for actions of ``space``."""
    space = as_space(space, "space", component=kwargs.get("name"))
    for adapter in ADAPTERS:
        if adapter.parameter_names == distribution.parameter_names and isinstance(space, adapter.space_kind):
            return adapter(space, **kwargs)
    raise ConfigError("no action adapter for this distribution and action", component=kwargs.get("name"),
                      expected=[(a.space_kind.__name__, a.parameter_names) for a in ADAPTERS],
                      got=(type(space).__name__, distribution.parameter_names))
