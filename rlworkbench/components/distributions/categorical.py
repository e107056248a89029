"""The categorical distribution over ``n`` actions, from logits."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.distributions.distribution import Distribution
from rlworkbench.components.registry import register
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox, Space


@register("categorical")
class Categorical(Distribution[Tensor]):
    """``softmax(logits)`` over the last axis: parameters ``FloatBox(shape + (n,))`` → actions
    ``IntBox(low, low + n, shape)``. Deterministic sample: the argmax. Entropy and KL in closed form."""

    value_kind = IntBox

    def __init__(self, low: int = 0, **kwargs: Any):
        super().__init__(**kwargs)
        self.low = int(low)

    @classmethod
    def space_arguments(cls, space: Space) -> dict[str, object]:
        if space.num_categories is None:  # type: ignore[attr-defined]
            raise ConfigError("a categorical distribution needs an IntBox with scalar, finite bounds",
                              expected="IntBox(n) or IntBox(low, high)", got=space)
        return {"low": int(space.low)}  # type: ignore[attr-defined]

    def event_shape(self, parameter: FloatBox) -> tuple[int, ...]:
        if parameter.rank < 1:
            raise SpaceError("categorical logits need a last axis of categories", component=self.path,
                             argument="parameters", expected="FloatBox(shape + (n,))", got=parameter)
        return parameter.shape[:-1]

    def value_space(self, parameters: Space) -> Space:
        logits = self.first_parameter(parameters)
        shape = self.event_shape(logits)
        return IntBox(self.low, self.low + logits.shape[-1], shape=shape).with_ranks_of(logits)

    def _offset(self, actions: Tensor) -> Tensor:
        return actions + self.low if self.low else actions

    def _draw(self, logits: Tensor) -> Tensor:
        return self._offset(self.ops.random_categorical(self.rng, logits))

    def _mode(self, logits: Tensor) -> Tensor:
        return self._offset(self.ops.argmax(logits, -1))

    def _log_density(self, logits: Tensor, values: Tensor) -> Tensor:
        return self.ops.select_by_index(self.ops.log_softmax(logits), values - self.low if self.low else values)

    def _elementwise_entropy(self, logits: Tensor) -> Tensor:
        log_p = self.ops.log_softmax(logits)
        return -self.ops.reduce_sum(self.ops.exp(log_p) * log_p, -1)

    def _elementwise_kl(self, logits: Tensor, other_logits: Tensor) -> Tensor:
        log_p, log_q = self.ops.log_softmax(logits), self.ops.log_softmax(other_logits)
        return self.ops.reduce_sum(self.ops.exp(log_p) * (log_p - log_q), -1)
