"""The :class:`ActionAdapter` base: a Dense layer from a network's output to one action leaf's distribution
parameters."""

from __future__ import annotations

from typing import Any, ClassVar

from rlworkbench.components.layers.dense import Dense
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Tensor
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import BoxSpace, FloatBox, Space, Tuple, as_space


class ActionAdapter(Component):
    """``get_parameters(inputs)``: ``inputs`` is a network's output (``FloatBox((hidden,))`` with any batch/time
    ranks); one Dense layer (``units()`` outputs, no activation) feeds ``to_parameters``, which reshapes (and
    constrains) them into the parameters a distribution over ``action_space`` takes (named ``parameter_names``;
    several come as a tuple).
    """

    space_kind: ClassVar[type[BoxSpace]] = BoxSpace
    parameter_names: ClassVar[tuple[str, ...]] = ("logits",)

    def __init__(self, action_space: Space, kernel_initializer: Any = "glorot_uniform", **kwargs: Any):
        action_space = as_space(action_space, "action_space", component=kwargs.get("name"))
        if not isinstance(action_space, self.space_kind):
            raise ConfigError(f"{type(self).__name__} adapts {self.space_kind.__name__} actions",
                              component=kwargs.get("name"), argument="action_space",
                              expected=self.space_kind.__name__, got=action_space)
        self.action_space = action_space.strip_ranks()
        self.dense = Dense(self.units(), kernel_initializer=kernel_initializer, name="dense")
        super().__init__(self.dense, **kwargs)

    def units(self) -> int:
        """How many raw outputs the Dense layer has."""
        raise NotImplementedError

    def parameter_shape(self) -> tuple[int, ...]:
        """The core shape of each parameter (the action's shape unless a subclass adds an axis)."""
        return self.action_space.shape

    def parameter_space(self) -> Space:
        leaves = [FloatBox(shape=self.parameter_shape()) for _ in self.parameter_names]
        return leaves[0] if len(leaves) == 1 else Tuple(*leaves)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        self.target_shape = tuple(self.parameter_shape())  # worked out once, not on every call
        self.flat_already = self.target_shape == (self.units(),)  # a vector of the Dense's outputs: no reshape

    @api
    def get_parameters(self, inputs: Tensor) -> Tensor:
        """The distribution parameters for a network's output."""
        return self._parameters(self.dense.apply(inputs))

    @graph_fn
    def _parameters(self, raw: Tensor) -> Tensor:
        return self.to_parameters(raw)

    def to_parameters(self, raw: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        raise NotImplementedError

    def reshaped(self, x: Tensor) -> Tensor:
        """``(..., flat)`` → ``(..., *parameter_shape())``, batch/time dims kept (each call's own: one policy may
        get batches on one API method and batches of sequences on another, as IMPALA's does)."""
        if self.flat_already:  # the Dense's outputs are the parameters as they are
            return x
        return self.ops.reshape(x, self.ops.leading_dims(x, len(x.shape) - 1) + self.target_shape)
