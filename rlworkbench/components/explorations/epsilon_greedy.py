"""Epsilon-greedy exploration: random actions with a probability that changes over time."""

from __future__ import annotations

from typing import Any

from rlworkbench.components.common import TimeDependentParameter
from rlworkbench.components.common.time_dependent_parameter import ParameterSpec
from rlworkbench.components.distributions.bounds import Bounds
from rlworkbench.components.registry import register
from rlworkbench.core.component import Component
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.core.ops import Scalar, Tensor
from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, FloatBox, IntBox, Space, as_space

DEFAULT_EPSILON = {"type": "linear_decay", "from_value": 1.0, "to_value": 0.05, "end_time_step": 10000}


def _action_space(exploration: EpsilonGreedy, greedy_actions: Space, epsilon: Space) -> Space:
    return exploration.space.with_ranks_of(greedy_actions)


@register("epsilon_greedy")
class EpsilonGreedy(Component):
    """``get_action(greedy_actions, time_step)``: each row (batch/time position) is, with probability
    ``epsilon(time_step)``, replaced by a uniformly random action of the action space (all leaves of a
    container action together), else kept.

    ``epsilon`` is a time-dependent parameter spec (a number, a decay spec dict or component; default: linear
    from 1.0 to 0.05 over 10,000 steps). It is a probability: a number, or a decay's ``from_value`` and
    ``to_value``, outside ``[0, 1]`` is a ConfigError. ``time_step`` is an int (a scalar, or one per row). The
    action space is ``action_space`` or else the space of ``greedy_actions``; its leaves must be IntBox with
    scalar bounds, BoolBox, or bounded FloatBox.
    """

    def __init__(self, epsilon: ParameterSpec | None = None, action_space: Space | None = None, **kwargs: Any):
        self.epsilon = TimeDependentParameter.from_spec(DEFAULT_EPSILON if epsilon is None else epsilon,
                                                        name="epsilon")
        super().__init__(self.epsilon, **kwargs)
        self.epsilon.check_range(0.0, 1.0, component=self.name, argument="epsilon", meaning="a probability")
        self.action_space = None if action_space is None else \
            as_space(action_space, "action_space", component=self.name)

    def create_variables(self, input_spaces: dict[str, Space]) -> None:
        actions = input_spaces["greedy_actions"]
        self.space = (actions if self.action_space is None else self.action_space).strip_ranks()
        self.leaves = self.space.flatten()
        given = actions.flatten()
        for key in sorted(set(self.leaves) | set(given)):
            if key not in given or key not in self.leaves or given[key].shape != self.leaves[key].shape:
                raise SpaceError("greedy actions do not fit the action space", argument="greedy_actions",
                                 key_path=key or None, expected=self.space, got=actions)
        for key, leaf in self.leaves.items():
            drawable = isinstance(leaf, BoolBox) or (isinstance(leaf, IntBox) and leaf.num_categories is not None) \
                or (isinstance(leaf, FloatBox) and leaf.is_bounded)
            if not drawable:
                raise SpaceError("random actions need a leaf to draw from uniformly", argument="greedy_actions",
                                 key_path=key or None, expected="IntBox(n), BoolBox or bounded FloatBox", got=leaf)
        self.extra_ranks = next(iter(given.values())).num_extra_ranks
        self.bounds = {key: Bounds(leaf.low, leaf.high, self.path) for key, leaf in self.leaves.items()
                       if isinstance(leaf, FloatBox)}
        self.categories = {key: (int(leaf.low), int(leaf.high), leaf.dtype.name) for key, leaf in self.leaves.items()
                           if isinstance(leaf, IntBox)}  # worked out once, not on every call
        self.rng = self.create_random_generator()

    @api
    def get_action(self, greedy_actions: Tensor, time_step: Scalar) -> Tensor:
        """The greedy actions, each row random with probability ``epsilon(time_step)``."""
        return self._explore(greedy_actions, self.epsilon.get(time_step))

    @graph_fn(flatten=True, output_spaces=_action_space)  # declared: the action space's bounds and categories
    def _explore(self, greedy_actions: Tensor, epsilon: Tensor) -> Tensor:
        flat = greedy_actions if isinstance(greedy_actions, dict) else {"": greedy_actions}
        leading = self.ops.leading_dims(next(iter(flat.values())), self.extra_ranks)
        explore = self.ops.random_uniform(self.rng, leading) < epsilon
        chosen = {}
        for key, greedy in flat.items():
            leaf = self.leaves[key]
            mask = self.ops.reshape(explore, leading + (1,) * leaf.rank) if leaf.rank else explore
            chosen[key] = self.ops.where(mask, self._random(key, leaf, leading + leaf.shape), greedy)
        return chosen if isinstance(greedy_actions, dict) else chosen[""]

    def _random(self, key: str, leaf: Space, shape: tuple[Any, ...]) -> Tensor:
        if isinstance(leaf, BoolBox):
            return self.ops.random_uniform(self.rng, shape) < 0.5
        if isinstance(leaf, IntBox):
            low, high, dtype = self.categories[key]
            return self.ops.cast(self.ops.random_integers(self.rng, shape, low, high), dtype)
        return self.bounds[key].scale(self.ops, self.ops.random_uniform(self.rng, shape))
