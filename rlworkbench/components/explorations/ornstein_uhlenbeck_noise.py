"""Ornstein-Uhlenbeck exploration noise: temporally correlated noise on continuous actions (as in DDPG)."""

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


def _action_space(exploration: OrnsteinUhlenbeckNoise, actions: Space, sigma: Space) -> Space:
    return exploration.space.with_ranks_of(actions)


@register("ornstein_uhlenbeck_noise")
class OrnsteinUhlenbeckNoise(Component):
    """``get_action(actions, time_step)`` steps the process ``x <- x + theta * (mu - x) * dt +
    sigma(time_step) * sqrt(dt) * N(0, 1)`` and returns ``actions + x``, clipped to the bounds (where finite);
    ``reset()`` puts ``x`` back to ``mu`` (at episode starts).

    ``x`` lives in a variable: one process per action element, shared by all rows, or with ``batch_size`` one
    per row (e.g. per environment of a vector env; the actions' batch must then be that size). ``actions`` is
    one FloatBox; the bounds come from ``action_space`` or else its space. ``sigma`` is a time-dependent
    parameter spec (a number, a decay spec dict or component), ``>= 0`` (a number, or a decay's ``from_value``
    and ``to_value``; else a ConfigError).
    """

    def __init__(self, theta: float = 0.15, sigma: ParameterSpec = 0.2, mu: float = 0.0, dt: float = 1.0,
                 batch_size: int | None = None, action_space: Space | None = None, **kwargs: Any):
        self.sigma = TimeDependentParameter.from_spec(sigma, name="sigma")
        super().__init__(self.sigma, **kwargs)
        self.sigma.check_range(0.0, math.inf, component=self.name, argument="sigma", meaning="a noise scale")
        self.theta, self.mu, self.dt = float(theta), float(mu), float(dt)
        self.batch_size = None if batch_size is None else int(batch_size)
        self.action_space = None if action_space is None else \
            as_space(action_space, "action_space", component=self.name)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        actions = input_spaces.get("actions")
        space = actions if self.action_space is None else self.action_space
        if actions is None or not isinstance(space, FloatBox) or space.shape != actions.shape:
            raise SpaceError("Ornstein-Uhlenbeck noise needs get_action with one FloatBox of actions",
                             argument="actions", expected=space if space is not None else "FloatBox", got=actions)
        self.space = space.strip_ranks()
        shape = ((self.batch_size,) if self.batch_size else ()) + self.space.shape
        self.state = self.create_variable("state", shape, initializer=self.mu, trainable=False)
        self.bounds = Bounds(self.space.low, self.space.high, self.path) if self.space.is_bounded else None
        self.rng = self.create_random_generator()

    @api
    def get_action(self, actions: Tensor, time_step: Scalar) -> Tensor:
        """Steps the process and returns ``actions`` plus its state, clipped to the bounds."""
        return self._step(actions, self.sigma.get(time_step))

    @graph_fn(output_spaces=_action_space)  # declared: the action space's bounds
    def _step(self, actions: Tensor, sigma: Tensor) -> Tensor:
        noise = self.ops.random_normal(self.rng, tuple(self.state.shape))
        state = self.state + self.theta * self.dt * (self.mu - self.state) + sigma * math.sqrt(self.dt) * noise
        self.ops.assign(self.state, state)
        noisy = actions + state
        return self.bounds.clip(self.ops, noisy) if self.bounds is not None else noisy

    @api
    @graph_fn(returns=0)
    def reset(self) -> None:
        """Puts the process back to ``mu``."""
        self.ops.assign(self.state, self.mu)
