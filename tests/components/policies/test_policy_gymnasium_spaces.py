"""Gymnasium spaces are taken wherever a component takes a space (policies, action adapters, distributions,
explorations): converted with ``from_gymnasium``, never a ConfigError or an AttributeError."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rlworkbench.components.distributions import Beta, Categorical, Normal, distribution_for
from rlworkbench.components.explorations import EpsilonGreedy, GaussianNoise, OrnsteinUhlenbeckNoise
from rlworkbench.components.policies import (
    CategoricalAdapter,
    DuelingActionAdapter,
    DuelingPolicy,
    NormalAdapter,
    Policy,
    SharedValueFunctionPolicy,
    adapter_for,
)
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Dict, FloatBox, IntBox, from_gymnasium
from rlworkbench.testing import ComponentTest

LAYERS = [{"type": "dense", "units": 4, "activation": "relu"}]
STATES = FloatBox(shape=(3,), add_batch_rank=True)
DISCRETE = gym.spaces.Discrete(3)
BOX = gym.spaces.Box(-2.0, 2.0, shape=(2,), dtype=np.float32)


@pytest.mark.parametrize("make", [
    lambda space: Policy(LAYERS, space, name="policy"),
    lambda space: SharedValueFunctionPolicy(LAYERS, space, name="policy"),
    lambda space: DuelingPolicy(LAYERS, space, name="policy"),
], ids=["policy", "shared_value_function_policy", "dueling_policy"])
def test_policies_take_a_gymnasium_action_space(make, backend):
    policy = make(DISCRETE)
    assert policy.action_space == IntBox(3)
    test = ComponentTest(policy, {"states": STATES}, backend=backend, api_methods=["get_deterministic_action"])
    actions = test.test(("get_deterministic_action", STATES.sample(5, seed=0)))
    assert actions.shape == (5,) and all(IntBox(3).contains(a) for a in actions)


def test_a_container_policy_takes_a_gymnasium_dict(backend):
    space = gym.spaces.Dict({"move": DISCRETE, "force": BOX})
    policy = Policy(LAYERS, space, name="policy")
    assert policy.action_space == from_gymnasium(space) and isinstance(policy.action_space, Dict)
    test = ComponentTest(policy, {"states": STATES}, backend=backend, api_methods=["get_deterministic_action"])
    actions = test.graph.output_space("get_deterministic_action").strip_ranks()
    assert sorted(actions.flatten()) == sorted(policy.action_space.flatten()) and actions["move"] == IntBox(3)


def test_adapters_and_distributions_take_gymnasium_spaces():
    assert CategoricalAdapter(DISCRETE, name="head").action_space == IntBox(3)
    assert NormalAdapter(BOX, name="head").action_space == from_gymnasium(BOX)
    assert DuelingActionAdapter(DISCRETE, name="head").action_space == IntBox(3)
    assert isinstance(adapter_for(DISCRETE, Categorical(), name="head"), CategoricalAdapter)
    assert isinstance(adapter_for(BOX, Normal(), name="head"), NormalAdapter)
    assert isinstance(distribution_for(DISCRETE), Categorical)
    assert isinstance(distribution_for(BOX), Normal)
    beta = distribution_for(BOX, "beta")
    assert isinstance(beta, Beta) and np.all(beta.bounds.low == -2.0)
    assert isinstance(Beta.for_space(BOX), Beta)


def test_explorations_take_a_gymnasium_action_space():
    assert EpsilonGreedy(0.1, action_space=DISCRETE, name="exploration").action_space == IntBox(3)
    assert GaussianNoise(0.1, action_space=BOX, name="exploration").action_space == from_gymnasium(BOX)
    assert OrnsteinUhlenbeckNoise(action_space=BOX, name="exploration").action_space == from_gymnasium(BOX)
    assert EpsilonGreedy(0.1, name="exploration").action_space is None


def test_epsilon_greedy_with_a_gymnasium_action_space_builds(backend):
    exploration = EpsilonGreedy(1.0, action_space=DISCRETE, name="exploration")
    actions = IntBox(3, add_batch_rank=True)
    test = ComponentTest(exploration, {"greedy_actions": actions, "time_step": IntBox(0, 1000)},
                         backend=backend)
    out = test.test(("get_action", [np.zeros(8, dtype=np.int64), 0]))
    assert out.shape == (8,) and all(IntBox(3).contains(a) for a in out)


@pytest.mark.parametrize("make", [
    lambda: Policy(LAYERS, (3,), name="policy"),
    lambda: CategoricalAdapter("discrete", name="head"),
    lambda: distribution_for([3]),
    lambda: EpsilonGreedy(0.1, action_space=3, name="exploration"),
])
def test_what_is_no_space_is_a_config_error(make):
    with pytest.raises(ConfigError, match="expected a space"):
        make()
