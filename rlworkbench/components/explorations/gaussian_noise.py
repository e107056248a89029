"""Gaussian exploration noise on continuous actions."""

from __future__ import annotations

import math
from typing import Any

from rlworkbench.components.common import TimeDependentParameter
from rlworkbench.components.common.time_dependent_parameter import ParameterSpec
from rlworkbench.components.distributions.bounds import Bounds
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Scalar, Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import FloatBox, Space, as_space


def _action_space(exploration: GaussianNoise, actions: Space, stddev: Space) -> Space:
    return exploration.space.with_ranks_of(actions)


@register("gaussian_noise")
class GaussianNoise(Component):
    """``get_action(actions, time_step)``: every FloatBox leaf gets independent ``N(0, stddev(time_step) ** 2)``
    noise per element and is clipped to its bounds (where finite); other leaves pass unchanged.

    ``stddev`` is a time-dependent parameter spec (a number, a decay spec dict or component), ``>= 0`` (a number,
    or a decay's ``from_value`` and ``to_value``; else a ConfigError). The bounds come from ``action_space`` or
    else from the space of ``actions``.
    """

    def __init__(self, stddev: ParameterSpec = 0.1, action_space: Space | None = None, **kwargs: Any):
        self.stddev = TimeDependentParameter.from_spec(stddev, name="stddev")
        super().__init__(self.stddev, **kwargs)
        self.stddev.check_range(0.0, math.inf, component=self.name, argument="stddev",
                                meaning="a standard deviation")
        self.action_space = None if action_space is None else \
            as_space(action_space, "action_space", component=self.name)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        actions = input_spaces["actions"]
        self.space = (actions if self.action_space is None else self.action_space).strip_ranks()
        given = actions.flatten()
        self.leaves = self.space.flatten()
        if set(given) != set(self.leaves) or any(given[k].shape != leaf.shape for k, leaf in self.leaves.items()):
            raise SpaceError("actions do not fit the action space", argument="actions", expected=self.space,
                             got=actions)
        self.extra_ranks = next(iter(given.values())).num_extra_ranks
        self.bounds = {key: Bounds(leaf.low, leaf.high, self.path) for key, leaf in self.leaves.items()
                       if isinstance(leaf, FloatBox) and leaf.is_bounded}
        self.rng = self.create_random_generator()

    @api
    def get_action(self, actions: Tensor, time_step: Scalar) -> Tensor:
        """``actions`` plus Gaussian noise of ``stddev(time_step)``, clipped to the bounds."""
        return self._add_noise(actions, self.stddev.get(time_step))

    @graph_fn(pass_key=True, output_spaces=_action_space)  # declared: the action space's bounds
    def _add_noise(self, key: str, action: Tensor, stddev: Tensor) -> Tensor:
        leaf = self.leaves[key]
        if not isinstance(leaf, FloatBox):
            return action
        shape = self.ops.leading_dims(action, self.extra_ranks + leaf.rank)
        noisy = action + stddev * self.ops.random_normal(self.rng, shape)
        return self.bounds[key].clip(self.ops, noisy) if key in self.bounds else noisy
