"""EpsilonGreedy: epsilon(t) from a decay, random actions drawn from the action space row by row (all leaves of
a container together), typed outputs, batch + time ranks, errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.explorations import EpsilonGreedy
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

RANKS = {"add_batch_rank": True, "add_time_rank": True}
DECAY = {"type": "linear_decay", "from_value": 1.0, "to_value": 0.0, "start_time_step": 0, "end_time_step": 100}
ACTIONS = IntBox(2, 6, shape=(2,), **RANKS)
CONTAINER = Dict(move=IntBox(4), aim=FloatBox(-1.0, 1.0, shape=(2,)), fire=BoolBox(()), **RANKS)
STEP = IntBox(0, 1000)


@pytest.fixture(scope="module")
def builds():
    spaces = {"ints": ACTIONS, "container": CONTAINER}
    cache: dict[tuple[str, str], ComponentTest] = {}

    def get(backend: str, name: str) -> ComponentTest:
        if (backend, name) not in cache:
            cache[(backend, name)] = ComponentTest(EpsilonGreedy(epsilon=DECAY), {
                "greedy_actions": spaces[name], "time_step": STEP}, backend=backend, seed=11)
        return cache[(backend, name)]

    return get


def test_epsilon_follows_the_decay(backend, builds):
    test = builds(backend, "ints")
    greedy = ACTIONS.sample((400, 10), seed=1)
    np.testing.assert_array_equal(test.test(("get_action", [greedy, 100])), greedy)  # epsilon 0
    explored = test.test(("get_action", [greedy, 0]))  # epsilon 1: every row random
    assert ACTIONS.contains(explored)
    for column in range(2):
        np.testing.assert_allclose(np.bincount(explored[..., column].ravel() - 2, minlength=4) / 4000, 0.25,
                                   atol=0.03)
    half = test.test(("get_action", [greedy, 50]))  # epsilon 0.5; a random pair equals the greedy one 1/16 of times
    changed = np.any(half != greedy, axis=-1).mean()
    assert changed == pytest.approx(0.5 * 15 / 16, abs=0.03)
    assert test.graph.output_space("get_action") == ACTIONS


def test_container_rows_explore_together(backend, builds):
    test = builds(backend, "container")
    greedy = CONTAINER.zeros((300, 4))
    actions = test.test(("get_action", [greedy, 70]))  # epsilon 0.3
    assert CONTAINER.contains(actions)
    explored = np.any(actions["aim"] != 0, axis=-1)  # a random aim is never exactly 0
    assert explored.mean() == pytest.approx(0.3, abs=0.03)
    assert np.all(actions["move"][~explored] == 0) and not np.any(actions["fire"][~explored])
    assert actions["move"][explored].mean() == pytest.approx(1.5, abs=0.1)
    assert actions["fire"][explored].mean() == pytest.approx(0.5, abs=0.05)
    assert test.graph.output_space("get_action") == CONTAINER


def test_constant_epsilon_and_an_explicit_action_space(backend):
    # greedy actions typed without bounds (e.g. read off a probe): the action space says what to draw from
    test = ComponentTest(EpsilonGreedy(epsilon=1.0, action_space=IntBox(3)),
                         {"greedy_actions": IntBox(add_batch_rank=True), "time_step": STEP}, backend=backend)
    actions = test.test(("get_action", [np.zeros(500, np.int64), 0]))
    assert set(np.unique(actions)) == {0, 1, 2}
    assert test.graph.output_space("get_action") == IntBox(3, add_batch_rank=True)


@pytest.mark.parametrize("greedy, action_space, key", [
    (FloatBox(shape=(2,), add_batch_rank=True), None, None),
    (Dict(a=IntBox(3), b=IntBox(add_batch_rank=True), add_batch_rank=True), None, "b"),
    (IntBox(3, shape=(2,), add_batch_rank=True), IntBox(3), None),
])
def test_actions_it_cannot_draw_are_space_errors(backend, greedy, action_space, key):
    with pytest.raises(SpaceError) as info:
        ComponentTest(EpsilonGreedy(epsilon=0.1, action_space=action_space),
                      {"greedy_actions": greedy, "time_step": STEP}, backend=backend)
    assert info.value.argument == "greedy_actions" and info.value.key_path == key
    assert info.value.component == "epsilon_greedy"


@pytest.mark.parametrize("epsilon, key, got", [
    (-1, None, -1.0),
    (1e30, None, 1e30),
    (1.5, None, 1.5),
    ({"type": "constant_parameter", "value": -0.1}, None, -0.1),
    ({"type": "linear_decay", "from_value": -1.0, "to_value": 0.0}, "from_value", -1.0),
    ({"type": "linear_decay", "from_value": 1e30, "to_value": 0.05}, "from_value", 1e30),
    ({"type": "exponential_decay", "from_value": 1.0, "to_value": 1.01}, "to_value", 1.01),
    ({"type": "polynomial_decay", "from_value": 1.0, "to_value": -0.5}, "to_value", -0.5),
])
def test_epsilon_is_a_probability(epsilon, key, got):
    with pytest.raises(ConfigError) as info:
        EpsilonGreedy(epsilon=epsilon, name="exploration")
    error = info.value
    assert (error.component, error.argument, error.key_path, error.got) == ("exploration", "epsilon", key, got)
    assert error.expected == f"0 <= {key or 'epsilon'} <= 1" and "probability" in str(error)


@pytest.mark.parametrize("epsilon", [0, 1, 0.0, 1.0, {"type": "linear_decay", "from_value": 0.0, "to_value": 1.0}])
def test_epsilon_may_be_zero_or_one(epsilon):
    assert EpsilonGreedy(epsilon=epsilon).epsilon.endpoints() is not None
